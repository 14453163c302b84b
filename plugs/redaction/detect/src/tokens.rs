//! Vendor credentials recognisable by their shape alone: `ghp_…`, `AKIA…`,
//! `xoxb-…`, `sk-proj-…`, JWTs. Each rule follows the format as the vendor
//! (and gitleaks / GitHub secret scanning) describes it, with a minimum
//! length so that a prefix in prose (`ghp_short`) stays. The tokens that are
//! a prefix and a run of bytes are one table ([`prefixes`]); this module has
//! the dispatch and the shapes that need more than that.

pub(crate) mod checksums;
mod prefixes;

pub use prefixes::public_by_design;

use super::{Found, b64url, hex, mixed, private_keys, run, urls};

/// The known formats that can start at `i` (the word ends at `e`).
pub(super) fn at(b: &[u8], i: usize, e: usize, found: &mut Vec<Found>) {
    // URL-encoded quotes or brackets before it (`q=%22npm_…%22`).
    let mut i = i;
    while e - i > 3 && b[i] == b'%' && hex(b[i + 1]) && hex(b[i + 2]) {
        i += 3;
    }
    let t = &b[i..e];
    let Some(&first) = t.first() else { return };
    // A Laravel Sanctum token's secret after its id and `|`.
    if i >= 2 && b[i - 1] == b'|' && sanctum(b, i, found) {
        return;
    }
    let mut push = |len: usize, kind: &'static str| {
        found.push(Found {
            start: i,
            end: i + len,
            kind,
        })
    };
    if first == b'A' && is_aws_key_id(t) {
        if !aws_identifier(b, i) {
            push(20, "aws-access-key");
        }
        aws_secret_after(b, i + 20, found);
        return;
    }
    if let Some((n, kind)) = prefixes::at(t) {
        push(n, kind);
        return;
    }
    let shape = match first {
        b'A' => twitter_or_firebase(t).or_else(|| onepassword(t)),
        b'p' => harness(t).or_else(|| airtable(t)),
        b'a' => authress(t),
        b's' => harness(t).or_else(|| authress(t)),
        b'b' | b'w' | b'_' => {
            // The secret is the rest of a URL or cookie: what names it stays.
            if let Some((from, n, kind)) = after_marker(t) {
                found.push(Found {
                    start: i + from,
                    end: i + from + n,
                    kind,
                });
                return;
            }
            None
        }
        b'S' => sendgrid(t),
        b'e' => jwt(t).or_else(|| authress(t)),
        b'L' if t.starts_with(b"LS0tLS1CRUdJTi") => {
            // A PEM private key, base64-encoded once more (kubeconfig
            // `client-key-data`, Kubernetes secrets).
            let n = run(t, 0, super::b64);
            private_keys::is_base64_private_key(&t[..n]).then_some((n, "private-key"))
        }
        b'M' if t.starts_with(b"MDAx") => macaroon(t),
        b'M' if t.len() >= MIN_DER_KEY => {
            der_private_key(t).or_else(|| discord_bot(t).map(|n| (n, "discord-token")))
        }
        // A Java keystore (JKS, JCEKS), as `base64 release.jks` prints it.
        b'/' | b'z' if t.starts_with(b"/u3+7QAAAA") || t.starts_with(b"zs7OzgAAAA") => {
            let n = run(t, 0, super::b64);
            (n >= 200).then_some((n, "private-key"))
        }
        // Jetty's obfuscated password: one reading gives it back.
        b'O' if t.starts_with(b"OBF:") => {
            crate::assignments::clear_text::jetty_obfuscated(b, i, e, found);
            return;
        }
        b'M' | b'N' | b'O' => discord_bot(t).map(|n| (n, "discord-token")),
        b'K' => k3s(t),
        b'f' => fly_macaroon(t),
        b'0'..=b'9' => digits_first(t),
        b'P' if t.starts_with(b"Private-Lines:") => {
            private_keys::putty(b, i, found);
            return;
        }
        // A DNS TSIG key, `hmac-sha256:name:secret`.
        b'h' if t.starts_with(b"hmac-") => {
            crate::assignments::clear_text::tsig(b, i, e, found);
            return;
        }
        b'h' | b'd' => {
            // A webhook's secret is its path: the host stays.
            if let Some((from, n, kind)) = urls::webhook(t) {
                found.push(Found {
                    start: i + from,
                    end: i + from + n,
                    kind,
                });
                return;
            }
            None
        }
        _ => None,
    };
    if let Some((n, kind)) = shape
        .or_else(|| azure_client_secret(t))
        .or_else(|| azure_devops_pat(t))
        .or_else(|| terraform(t))
        .or_else(|| maxmind(t))
        .or_else(|| dropbox_long_lived(t))
        .or_else(|| facebook_app_secret(b, i, t))
        .or_else(|| mailgun_private(t))
    {
        push(n, kind);
    }
}

/// Shortest base64 of a private key in DER (an Ed25519 PKCS#8 key is 48
/// bytes).
const MIN_DER_KEY: usize = 64;

/// A private key as base64 of its DER, no PEM lines around it (a JSON
/// field, `echo … | base64 -d` in a CI log): a SEQUENCE that opens with
/// its version, `INTEGER 0` then an algorithm (PKCS#8) or the modulus
/// (PKCS#1), `INTEGER 1` then the key's octets (SEC1's EC key), or
/// `INTEGER 3` (a PKCS#12 bundle, RFC 7292). Certificates and public keys
/// open with a SEQUENCE, never a version.
fn der_private_key(t: &[u8]) -> Option<(usize, &'static str)> {
    let n = run(t, 0, super::b64);
    if n < MIN_DER_KEY {
        return None;
    }
    let head = super::decode::decode(&t[..16]);
    let (body, len) = match head.get(1..4)? {
        [l @ 0..=0x7f, ..] => (2, usize::from(*l)),
        [0x81, l, _] => (3, usize::from(*l)),
        [0x82, hi, lo] => (4, usize::from(*hi) << 8 | usize::from(*lo)),
        _ => return None,
    };
    let [0x30, ..] = head[..] else { return None };
    // Whole: the first line of a wrapped key is only its start (a modulus,
    // public), and the lines after it are read as the block they are.
    if n / 4 * 3 < body + len {
        return None;
    }
    let (version, next) = match head.get(body..body + 4)? {
        [0x02, 0x01, v, next] => (*v, *next),
        _ => return None,
    };
    let key = matches!((version, next), (0, 0x30 | 0x02) | (1, 0x04) | (3, 0x30));
    key.then_some((n, "private-key"))
}

/// A Fly.io token (`fly tokens create`, after the `FlyV1 ` scheme): a
/// macaroon, `fm2_` (or `fm1a_`, `fm1r_`) and base64, often several joined
/// by `,`; masked whole.
fn fly_macaroon(t: &[u8]) -> Option<(usize, &'static str)> {
    let part = |at: usize| -> Option<usize> {
        let rest = &t[at..];
        let prefix = [&b"fm2_"[..], b"fm1a_", b"fm1r_"]
            .into_iter()
            .find(|p| rest.starts_with(p))?;
        let n = run(t, at + prefix.len(), |c| super::b64(c) || c == b'=');
        (n >= 40 && mixed(&t[at + prefix.len()..at + prefix.len() + n])).then_some(prefix.len() + n)
    };
    let mut end = part(0)?;
    while t.get(end) == Some(&b',') {
        match part(end + 1) {
            Some(n) => end += 1 + n,
            None => break,
        }
    }
    Some((end, "fly-token"))
}

/// A k3s join token (`/var/lib/rancher/k3s/server/token`, `K3S_TOKEN=`):
/// `K10`, the cluster CA's SHA-256 in hex, `::`, a user, `:`, its password.
/// Masked whole: the hash pins the cluster the password opens.
fn k3s(t: &[u8]) -> Option<(usize, &'static str)> {
    let hash = t.get(3..67)?;
    if !t.starts_with(b"K10") || !hash.iter().all(|&c| super::hex(c)) || t.get(67..69)? != b"::" {
        return None;
    }
    let user = run(t, 69, |c| c.is_ascii_alphanumeric() || c == b'_');
    if user == 0 || t.get(69 + user) != Some(&b':') {
        return None;
    }
    let from = 70 + user;
    let password = run(t, from, |c| {
        c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-')
    });
    (password >= 8).then_some((from + password, "k3s-token"))
}

/// Twitter app bearer tokens (`AAAAAAAAAAAAAAAAAAAAA…`) and Firebase Cloud
/// Messaging server keys (`AAAA…:APA91b…`).
fn twitter_or_firebase(t: &[u8]) -> Option<(usize, &'static str)> {
    if t.len() > 21 && t[..21].iter().all(|&c| c == b'A') {
        let n = run(t, 0, |c| c.is_ascii_alphanumeric() || c == b'%');
        return (n >= 50 && mixed(&t[..n])).then_some((n, "twitter-token"));
    }
    if t.len() > 18 && t.starts_with(b"AAAA") && &t[11..18] == b":APA91b" {
        let n = run(t, 18, b64url);
        return (n >= 100).then_some((18 + n, "firebase-key"));
    }
    None
}

/// SendGrid: `SG.`, an id, `.`, a secret.
fn sendgrid(t: &[u8]) -> Option<(usize, &'static str)> {
    if !t.starts_with(b"SG.") {
        return None;
    }
    let id = run(t, 3, b64url);
    let secret = run(t, 4 + id, b64url);
    (id >= 16 && t.get(3 + id) == Some(&b'.') && secret >= 30)
        .then_some((4 + id + secret, "sendgrid-key"))
}

/// A JWT (`eyJ…` header, `.`, payload, `.`, signature, perhaps empty), or
/// a Grafana API key (base64 JSON `{"k":…`, no dots).
fn jwt(t: &[u8]) -> Option<(usize, &'static str)> {
    if !t.starts_with(b"eyJ") {
        return None;
    }
    let h = run(t, 0, b64url);
    if h > 10 && t.get(h) == Some(&b'.') {
        let p = run(t, h + 1, b64url);
        if p > 10 && t.get(h + 1 + p) == Some(&b'.') {
            let sig = run(t, h + 2 + p, b64url);
            // An unsigned token (`alg: none`, nothing after the last `.`):
            // anyone can make one; it proves nothing, as a credential must.
            if anon_role(&t[h + 1..h + 1 + p])
                || (sig == 0 && crate::placeholders::unsigned_jwt(&t[..h + 2 + p]))
            {
                return None;
            }
            return Some((h + 2 + p + sig, "jwt"));
        }
    }
    let n = run(t, 0, super::b64);
    (t.starts_with(b"eyJrIjoi") && n >= 50).then_some((n, "grafana-token"))
}

/// A Laravel Sanctum personal access token, `<id>|<40 letters and
/// digits>` (newer versions: a prefix before the 40 and a CRC32 after),
/// whose secret starts at `i`, after the id's digits and `|`: masked whole.
#[inline(never)]
fn sanctum(b: &[u8], i: usize, found: &mut Vec<Found>) -> bool {
    let Some(id) = sanctum_open_at(b, i) else {
        return false;
    };
    let body = run(b, i, |c: u8| c.is_ascii_alphanumeric() || c == b'_');
    let after = b.get(i + body);
    let secret = &b[i..i + body];
    // (`sqlite3`'s `42|e83c…` and `git log --format='%ct|%H'` print hex:
    // one case of letters.)
    let token = (40..=80).contains(&body)
        && after.is_none_or(|c| !(c.is_ascii_alphanumeric() || matches!(c, b'|' | b'/' | b'+')))
        && secret.iter().any(u8::is_ascii_uppercase)
        && secret.iter().any(u8::is_ascii_lowercase);
    if token {
        found.push(Found {
            start: id,
            end: i + body,
            kind: "laravel-sanctum-token",
        });
    }
    token
}

/// Where a Sanctum token's id starts if the cut at `cut` follows its `|`:
/// the id and the rest are masked as one.
pub(super) fn sanctum_open_at(b: &[u8], cut: usize) -> Option<usize> {
    if cut < 2 || b[cut - 1] != b'|' {
        return None;
    }
    let digits = b[..cut - 1]
        .iter()
        .rev()
        .take(13)
        .take_while(|c| c.is_ascii_digit())
        .count();
    (1..=12).contains(&digits).then_some(cut - 1 - digits)
}

/// Whether a JWT is public by design: Supabase's `anon` key (its payload's
/// `"role":"anon"`), which every browser of the project carries and row
/// level security limits; its `service_role` key is a secret.
pub(crate) fn public_jwt(v: &[u8]) -> bool {
    // (Asked of every value: most are told by their first bytes.)
    if !v.starts_with(b"eyJ") {
        return false;
    }
    let mut parts = v.split(|&c| c == b'.');
    let (Some(head), Some(payload), Some(_), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    !head.is_empty() && anon_role(payload)
}

/// Whether a JWT's payload (base64url) says `"role":"anon"`.
fn anon_role(payload: &[u8]) -> bool {
    if payload.len() > 2048 {
        return false;
    }
    let json = super::decode::decode(payload);
    let compact: Vec<u8> = json
        .into_iter()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    super::find(&compact, b"\"role\":\"anon\"").is_some()
}

/// Azure AD client secrets: three characters, a digit, `Q~`, 31-34 more.
fn azure_client_secret(t: &[u8]) -> Option<(usize, &'static str)> {
    if t.len() < 37 || !t[3].is_ascii_digit() || t[4] != b'Q' || t[5] != b'~' {
        return None;
    }
    let mut n = run(t, 0, |c| {
        c.is_ascii_alphanumeric() || matches!(c, b'_' | b'~' | b'.' | b'-')
    });
    // A full stop after it ends the sentence.
    while t[n - 1] == b'.' {
        n -= 1;
    }
    (34..=40).contains(&n).then_some((n, "azure-client-secret"))
}

/// Azure DevOps personal access tokens since 2024: 84 letters and digits
/// with the signature `AZDO` at 76..80.
fn azure_devops_pat(t: &[u8]) -> Option<(usize, &'static str)> {
    if t.len() < 84 || &t[76..80] != b"AZDO" {
        return None;
    }
    (run(t, 0, |c| c.is_ascii_alphanumeric()) == 84).then_some((84, "azure-devops-pat"))
}

/// A macaroon (v1, base64): its packets are `<4 hex digits of length>` then
/// `location …`, so the text starts `MDAx` (`001…`) and decodes to a length
/// and `location`. Bakery, Juju, Lightning (LND) and older PyPI tokens.
fn macaroon(t: &[u8]) -> Option<(usize, &'static str)> {
    let n = run(t, 0, |c| super::b64(c) || matches!(c, b'-' | b'_'));
    if n < 40 {
        return None;
    }
    let head = super::decode::decode(&t[..16]);
    (head.len() >= 12 && head[..4].iter().all(u8::is_ascii_hexdigit) && &head[4..12] == b"location")
        .then_some((n, "macaroon"))
}

/// Terraform Cloud / Enterprise: 14 characters, `.atlasv1.`, 60 or more.
fn terraform(t: &[u8]) -> Option<(usize, &'static str)> {
    if t.len() < 83 || &t[14..23] != b".atlasv1." || !t[..14].iter().all(u8::is_ascii_alphanumeric)
    {
        return None;
    }
    let n = run(t, 23, b64url);
    (n >= 60).then_some((23 + n, "terraform-token"))
}

/// Exactly `len` bytes of `ok` from `from`, and no more.
fn exact(t: &[u8], from: usize, len: usize, ok: impl Fn(u8) -> bool) -> bool {
    run(t, from, &ok) == len && !t.get(from + len).is_some_and(|c| c.is_ascii_alphanumeric())
}

/// AWS access key ids: a four-letter kind and 16 base-32 characters. `A3T`
/// ids are the oldest kind.
fn is_aws_key_id(t: &[u8]) -> bool {
    const KINDS: [&[u8; 4]; 12] = [
        b"AKIA", b"ASIA", b"ABIA", b"ACCA", b"AGPA", b"AIDA", b"AIPA", b"ANPA", b"ANVA", b"APKA",
        b"AROA", b"ASCA",
    ];
    t.len() >= 20
        && (KINDS.iter().any(|k| t.starts_with(*k))
            || (t.starts_with(b"A3T") && t[3].is_ascii_alphanumeric()))
        && exact(t, 4, 16, |c| c.is_ascii_uppercase() || c.is_ascii_digit())
}

/// Where an AWS key id starts that ends right before `at` (but for up to
/// four separators): its secret may come next. Also where a name field on an
/// earlier line starts whose value field may come after `at` (`- name:
/// DB_PASSWORD`, then `value: …`): the hold-back's one look before the
/// current line, so it is asked here.
pub(super) fn aws_key_id_before(b: &[u8], at: usize) -> Option<usize> {
    let id = aws_key_id_ending(b, at).or_else(|| aws_listing_open(b, at));
    match (id, super::assignments::open_before_line(b, at)) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

/// Whether the AWS id at `i` is an identifier, not half of a credential: the
/// value of an IAM unique-id field (`"UserId": "AIDA…"`, `RoleId`,
/// `GroupId`, … of `aws sts get-caller-identity`, `aws iam get-user`), or an
/// access key id as `aws iam list-access-keys` lists it (`"AccessKeyId":
/// "AKIA…"` in an object with no secret, `--access-key-id AKIA…` on a
/// command line with none, a row of `--output text`).
///
/// An access key id alone authenticates nothing: AWS prints it in every
/// listing so that people can name the key they deactivate or delete, and
/// the issue that measured this detector counted masking it there as a false
/// positive. Anywhere else (an env file, a config, prose) an id is still
/// masked by its shape: there it mostly travels with its secret, and it names
/// the account. The secret is always masked, beside an id or not.
fn aws_identifier(b: &[u8], i: usize) -> bool {
    const UNIQUE_IDS: [&[u8]; 5] = [
        b"UserId",
        b"RoleId",
        b"GroupId",
        b"PolicyId",
        b"InstanceProfileId",
    ];
    // A signed request's credential scope in its `Authorization` header
    // (`AWS4-HMAC-SHA256 Credential=AKIA…/20250809/us-east-1/…`): every
    // request carries the id; the signature grants that one request. (In a
    // presigned URL's query the id stays masked with the signature: the
    // URL is passed around whole.)
    if b[..i].ends_with(b" Credential=") {
        return true;
    }
    match id_field_before(b, i) {
        Some(field) if UNIQUE_IDS.contains(&field) => true,
        // The text ends inside the record: a stream holds it back
        // (`aws_listing_open`), so only a whole text gets here, and its
        // record ends with it.
        Some(_) => matches!(listed_key(b, i), Some(Listed::Identifier | Listed::Open)),
        None => false,
    }
}

/// The field an id at `i` is the value of: `"Field": "`, `Field: `, `--field
/// `, `--field=`, or the `ACCESSKEYMETADATA` column of `--output text`.
fn id_field_before(b: &[u8], i: usize) -> Option<&[u8]> {
    let floor = i.saturating_sub(40);
    let mut e = i;
    // The value's opening quote, the operator and the blanks around it.
    while e > floor && matches!(b[e - 1], b'"' | b'\'' | b' ' | b'\t' | b':' | b'=') {
        e -= 1;
    }
    let mut s = e;
    while s > floor && (b[s - 1].is_ascii_alphanumeric() || b[s - 1] == b'-') {
        s -= 1;
    }
    // A flag's dashes.
    while s < e && b[s] == b'-' {
        s += 1;
    }
    (s < e).then(|| &b[s..e])
}

/// What the record of an access key id named as one holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Listed {
    /// It ends, and no secret is in it.
    Identifier,
    /// A secret is beside the id (`aws iam create-access-key`, `aws sts`).
    Credential,
    /// The text ends inside it.
    Open,
}

/// Longest record read after an `AccessKeyId`.
const MAX_RECORD: usize = 512;

/// The record of an access key id at `i` named as one (`AccessKeyId`,
/// `--access-key-id`, a `--output text` listing row): the object or YAML
/// item, or the line. `None`: no such id, or a record longer than
/// [`MAX_RECORD`].
fn listed_key(b: &[u8], i: usize) -> Option<Listed> {
    let field = id_field_before(b, i)?;
    let line_only = match field {
        // (CloudTrail's `userIdentity` writes it in camel case.)
        b"AccessKeyId" | b"accessKeyId" => false,
        b"access-key-id" | b"ACCESSKEYMETADATA" => true,
        _ => return None,
    };
    let (end, open) = record_end(b, i, line_only)?;
    let record = &b[(i + 20).min(end)..end];
    let secret = [&b"Secret"[..], b"secret", b"SessionToken", b"session-token"]
        .iter()
        .any(|w| super::find(record, w).is_some());
    Some(if secret {
        Listed::Credential
    } else if open {
        Listed::Open
    } else {
        Listed::Identifier
    })
}

/// Where the record that holds the id at `i` ends, and whether the text
/// ended first: its line (`line_only`), or the object's `}` or a line that
/// is less indented than the id's line or starts another item. `None` past
/// [`MAX_RECORD`].
fn record_end(b: &[u8], i: usize, line_only: bool) -> Option<(usize, bool)> {
    let line = super::line_start_within(b, i, 256)?;
    let indent = super::run(b, line, |c| c == b' ');
    let limit = (i + MAX_RECORD).min(b.len());
    for at in i..limit {
        match b[at] {
            b'\n' if line_only => return Some((at, false)),
            b'}' | b']' if !line_only => return Some((at, false)),
            b'\n' => {
                let own = super::run(&b[..limit], at + 1, |c| c == b' ');
                let first = at + 1 + own;
                if first >= limit {
                    break;
                }
                let item = b[first] == b'-' && b.get(first + 1) == Some(&b' ');
                if own < indent || (own == indent && item) || b[first] == b'\n' {
                    return Some((at, false));
                }
            }
            _ => {}
        }
    }
    (limit == b.len()).then_some((b.len(), true))
}

/// Where an access key id named as one starts (within [`MAX_RECORD`] before
/// `at`) whose record `at` cuts: whether it is an identifier is known only
/// once the record ends.
fn aws_listing_open(b: &[u8], at: usize) -> Option<usize> {
    let b = &b[..at];
    let floor = at.saturating_sub(MAX_RECORD);
    [&b"AccessKeyId"[..], b"access-key-id", b"ACCESSKEYMETADATA"]
        .iter()
        .filter_map(|w| super::rfind(&b[floor..], w).map(|p| floor + p + w.len()))
        .filter_map(|after| {
            // The id, a few bytes after its field.
            let p = b[after..(after + 8).min(at)]
                .iter()
                .position(|&c| !matches!(c, b'"' | b'\'' | b' ' | b'\t' | b':' | b'='))?;
            Some(after + p)
        })
        .filter(|&id| {
            let t = &b[id..];
            // Cut inside the id, or right after it: what follows decides.
            if t.len() <= 20 {
                return t.first() == Some(&b'A');
            }
            is_aws_key_id(t) && listed_key(b, id) == Some(Listed::Open)
        })
        .min()
}

fn aws_key_id_ending(b: &[u8], at: usize) -> Option<usize> {
    let mut end = at;
    while end > 0
        && at - end < 4
        && matches!(
            b[end - 1],
            b':' | b',' | b' ' | b'\t' | b';' | b'|' | b'"' | b'\''
        )
    {
        end -= 1;
    }
    let start = end.checked_sub(20)?;
    let boundary = start == 0 || !b[start - 1].is_ascii_alphanumeric();
    (boundary && is_aws_key_id(&b[start..end])).then_some(start)
}

/// An AWS secret access key right after its key id (`AKIA…:secret`, the
/// `id,secret` of a credentials CSV): 40 base64 characters.
fn aws_secret_after(b: &[u8], mut i: usize, found: &mut Vec<Found>) {
    let start = i;
    while i < b.len()
        && i - start < 4
        && matches!(
            b[i],
            b':' | b',' | b' ' | b'\t' | b';' | b'|' | b'"' | b'\''
        )
    {
        i += 1;
    }
    if i == start {
        return;
    }
    let n = run(b, i, |c| {
        c.is_ascii_alphanumeric() || c == b'/' || c == b'+'
    });
    if n == 40 && mixed(&b[i..i + 40]) {
        found.push(Found {
            start: i,
            end: i + 40,
            kind: "aws-secret-key",
        });
    }
}

/// A word of 40 base64 characters (`[s, e)`) on the line of an AWS key id
/// (`aws iam create-access-key --output text`: the id, a date, the secret)
/// or after `Secret Access Key` (`aws configure`'s prompt, `AWS Secret
/// Access Key [None]: …`): the secret access key.
#[inline(never)]
pub(super) fn aws_secret_on_line(b: &[u8], s: usize, e: usize, found: &mut Vec<Found>) {
    let w = &b[s..e];
    if !(w
        .iter()
        .all(|&c| c.is_ascii_alphanumeric() || c == b'/' || c == b'+')
        && mixed(w))
    {
        return;
    }
    let line = super::line_start_within(b, s, 256).unwrap_or(s.saturating_sub(256));
    let head = &b[line..s];
    let key_id = head
        .windows(20)
        .any(|c| is_aws_key_id(c) && matches!(&c[..4], b"AKIA" | b"ASIA"));
    if key_id || super::find(head, b"Secret Access Key").is_some() {
        found.push(Found {
            start: s,
            end: e,
            kind: "aws-secret-key",
        });
    }
}

/// Discord bot tokens: base64 of the bot's id, a timestamp, an HMAC.
fn discord_bot(t: &[u8]) -> Option<usize> {
    let id = run(t, 0, b64url);
    if !(23..=28).contains(&id) || t.get(id) != Some(&b'.') {
        return None;
    }
    let ts = run(t, id + 1, b64url);
    if !(6..=7).contains(&ts) || t.get(id + 1 + ts) != Some(&b'.') {
        return None;
    }
    let mac = run(t, id + 2 + ts, b64url);
    let n = id + 2 + ts + mac;
    ((27..=40).contains(&mac) && mixed(&t[..n])).then_some(n)
}

/// 1Password account secret keys: `A3-`, then groups of capitals and
/// digits, 6, 11 (or 6 and 5), 5, 5, 5.
fn onepassword(t: &[u8]) -> Option<(usize, &'static str)> {
    if !t.starts_with(b"A3-") {
        return None;
    }
    let group = |c: u8| c.is_ascii_uppercase() || c.is_ascii_digit();
    let (mut lens, mut k, mut i) = ([0usize; 6], 0, 3);
    loop {
        let n = run(t, i, group);
        if k == lens.len() || n == 0 {
            return None;
        }
        lens[k] = n;
        k += 1;
        i += n;
        if t.get(i) == Some(&b'-') && t.get(i + 1).is_some_and(|&c| group(c)) {
            i += 1;
        } else {
            break;
        }
    }
    let shaped = matches!(&lens[..k], [6, 11, 5, 5, 5] | [6, 6, 5, 5, 5, 5]);
    (shaped && !alnum_at(t, i) && mixed(&t[3..i])).then_some((i, "1password-secret-key"))
}

/// Harness API keys and service account tokens: `pat.` or `sat.`, then an
/// account id (22), a token id (24) and the secret (20), dot-separated.
///
/// The test that rules most words out is inlined where it is called, the
/// rest is a function of its own: in wasm a call costs more than the test
/// (so for the other checks below that are split the same way).
#[inline(always)]
fn harness(t: &[u8]) -> Option<(usize, &'static str)> {
    if !(t.starts_with(b"pat.") || t.starts_with(b"sat.")) {
        return None;
    }
    harness_body(t)
}

#[inline(never)]
fn harness_body(t: &[u8]) -> Option<(usize, &'static str)> {
    let alnum = |c: u8| c.is_ascii_alphanumeric();
    let shaped = run(t, 4, b64url) == 22
        && t.get(26) == Some(&b'.')
        && run(t, 27, alnum) == 24
        && t.get(51) == Some(&b'.')
        && run(t, 52, alnum) == 20
        && !alnum_at(t, 72);
    shaped.then_some((72, "harness-token"))
}

/// Airtable personal access tokens: `pat`, a 14-character id, `.`, 64 hex.
fn airtable(t: &[u8]) -> Option<(usize, &'static str)> {
    let shaped = t.starts_with(b"pat")
        && run(t, 3, |c| c.is_ascii_alphanumeric()) == 14
        && t.get(17) == Some(&b'.')
        && run(t, 18, hex) == 64
        && !alnum_at(t, 82);
    shaped.then_some((82, "airtable-token"))
}

/// Authress service client access keys: `sc_` (or `ext_`, `scauth_`,
/// `authress_`), client id, `.`, key id, `.acc_` account, `.`, the secret.
#[inline(always)]
fn authress(t: &[u8]) -> Option<(usize, &'static str)> {
    let prefixes: [&[u8]; 4] = [b"sc_", b"ext_", b"scauth_", b"authress_"];
    let i = prefixes.iter().find(|p| t.starts_with(p))?.len();
    authress_body(t, i)
}

/// [`authress`] after its prefix (`i` bytes).
#[inline(never)]
fn authress_body(t: &[u8], i: usize) -> Option<(usize, &'static str)> {
    let alnum = |c: u8| c.is_ascii_alphanumeric();
    // Each part: its bytes, its lengths, the separator after it.
    let part =
        |i: usize, ok: &dyn Fn(u8) -> bool, lens: std::ops::RangeInclusive<usize>, sep: &[u8]| {
            let n = run(t, i, ok);
            (lens.contains(&n) && t[i + n..].starts_with(sep)).then_some(i + n + sep.len())
        };
    let i = part(i, &alnum, 5..=30, b".")?;
    let i = part(i, &alnum, 4..=6, b".acc")?;
    if !matches!(t.get(i), Some(b'_' | b'-')) {
        return None;
    }
    let i = part(i + 1, &|c| alnum(c) || c == b'-', 10..=32, b".")?;
    let n = run(t, i, |c| super::b64(c) || c == b'_' || c == b'-');
    (30..=120).contains(&n).then_some((i + n, "authress-key"))
}

/// A secret that is the rest of a URL path or a cookie: a Telegram bot's
/// token in `…/bot<token>/`, a Teams webhook's ids and key after
/// `webhookb2/`, GitLab's `_gitlab_session=` cookie. Where it starts (in `t`),
/// its length and kind.
fn after_marker(t: &[u8]) -> Option<(usize, usize, &'static str)> {
    if let Some(rest) = t.strip_prefix(b"bot") {
        return match digits_first(rest) {
            Some((n, kind @ "telegram-token")) => Some((3, n, kind)),
            _ => None,
        };
    }
    if t.starts_with(b"webhookb2/") {
        let n = run(t, 10, |c| b64url(c) || c == b'/' || c == b'@');
        let ids = &t[10..10 + n];
        return (n >= 70 && ids.contains(&b'@')).then_some((10, n, "teams-webhook"));
    }
    // The older form (`outlook.office.com/webhook/<group>@<tenant>/
    // IncomingWebhook/<key>/<connector>`).
    if t.starts_with(b"webhook/") {
        let n = run(t, 8, |c| b64url(c) || c == b'/' || c == b'@');
        let ids = &t[8..8 + n];
        return (n >= 70
            && ids.contains(&b'@')
            && super::find(ids, b"/IncomingWebhook/").is_some())
        .then_some((8, n, "teams-webhook"));
    }
    if t.starts_with(b"_gitlab_session=") {
        let n = run(t, 16, |c| c.is_ascii_lowercase() || c.is_ascii_digit());
        return (n == 32 && !alnum_at(t, 48) && mixed(&t[16..48])).then_some((
            16,
            32,
            "gitlab-session",
        ));
    }
    None
}

/// Dropbox long-lived tokens: 11 characters, ten `A`s, 43 more.
fn dropbox_long_lived(t: &[u8]) -> Option<(usize, &'static str)> {
    if t.len() < 64 || &t[11..21] != b"AAAAAAAAAA" {
        return None;
    }
    let shaped = run(t, 0, |c| c.is_ascii_alphanumeric()) >= 21
        && run(t, 21, |c| b64url(c) || c == b'=') == 43
        && mixed(&t[..11]);
    shaped.then_some((64, "dropbox-token"))
}

/// MaxMind license keys: 6 characters, `_`, 29, `_mmk`.
fn maxmind(t: &[u8]) -> Option<(usize, &'static str)> {
    let alnum = |c: u8| c.is_ascii_alphanumeric();
    let shaped = t.len() >= 40
        && t[6] == b'_'
        && &t[36..40] == b"_mmk"
        && run(t, 0, alnum) == 6
        && run(t, 7, alnum) == 29
        && !alnum_at(t, 40);
    shaped.then_some((40, "maxmind-key"))
}

/// The secret of a Facebook app access token, `<app id>|<secret>`: the word
/// after a `|` that follows 15 or 16 digits (the id is public and stays).
fn facebook_app_secret(b: &[u8], i: usize, t: &[u8]) -> Option<(usize, &'static str)> {
    if i < 16 || b[i - 1] != b'|' {
        return None;
    }
    let digits = b[..i - 1]
        .iter()
        .rev()
        .take(17)
        .take_while(|c| c.is_ascii_digit())
        .count();
    let from = i - 1 - digits;
    let alone = from == 0 || !b[from - 1].is_ascii_alphanumeric();
    let n = run(t, 0, b64url);
    ((15..=16).contains(&digits) && alone && (27..=40).contains(&n) && mixed(&t[..n]))
        .then_some((n, "facebook-token"))
}

/// Mailgun private API keys and webhook signing keys as Mailgun issues them
/// now: 32, 8 and 8 lower-case hex digits, dash-separated. A UUID (8-4-4-4-12)
/// never has this shape, nor does a longer run of hex groups.
fn mailgun_private(t: &[u8]) -> Option<(usize, &'static str)> {
    if t.len() < 50 || t[32] != b'-' || t[41] != b'-' {
        return None;
    }
    let lower_hex = |c: u8| c.is_ascii_digit() || (b'a'..=b'f').contains(&c);
    let shaped = run(t, 0, lower_hex) == 32
        && run(t, 33, lower_hex) == 8
        && run(t, 42, lower_hex) == 8
        && !alnum_at(t, 50)
        && !(t.get(50) == Some(&b'-') && alnum_at(t, 51))
        && mixed(&t[..32]);
    shaped.then_some((50, "mailgun-key"))
}

/// A Kubernetes bootstrap token (`kubeadm token create`, `kubeadm join
/// --token`, `kubeadm token list`): 6 and 16 of `[a-z0-9]`, dot-separated.
/// Its secret half is random: letters and digits both, changing often, not
/// hex alone (so `config.0123456789abcdef` and a file's `name.ext` stay). The
/// `--discovery-token-ca-cert-hash` is a public key's digest and stays.
/// The word `b[s..s + 23]`, with a `.` at 6: masked if it is one.
#[inline(never)]
pub(super) fn kubeadm(b: &[u8], s: usize, found: &mut Vec<Found>) {
    // After `--token ` (`kubeadm join`), or first in `kubeadm token list`'s
    // row, the shape is enough: a random secret part has no digit one time
    // in two hundred.
    let placed = b[..s].ends_with(b"--token ")
        || b[..s].ends_with(b"--token=")
        || s == 0
        || b[s - 1] == b'\n';
    let found_here = kubeadm_token(&b[s..s + 23])
        .or_else(|| (placed && kubeadm_shape(&b[s..s + 23])).then_some((23, "kubeadm-token")));
    if let Some((n, kind)) = found_here {
        found.push(Found {
            start: s,
            end: s + n,
            kind,
        });
    }
}

fn kubeadm_token(t: &[u8]) -> Option<(usize, &'static str)> {
    let secret = &t[7..23];
    let changes = secret
        .windows(2)
        .filter(|w| w[0].is_ascii_digit() != w[1].is_ascii_digit())
        .count();
    let shaped = kubeadm_shape(t) && mixed(secret) && changes >= 2;
    shaped.then_some((23, "kubeadm-token"))
}

/// `[a-z0-9]{6}.[a-z0-9]{16}`, a word of its own, the secret part not hex.
fn kubeadm_shape(t: &[u8]) -> bool {
    let ok = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    run(t, 0, ok) == 6
        && run(t, 7, ok) == 16
        && !alnum_at(t, 23)
        && !(matches!(t.get(23), Some(b'.' | b'-' | b'_')) && alnum_at(t, 24))
        && !t[7..23].iter().all(|&c| hex(c))
}

/// Whether `t` has a letter or digit at `i`: a token that runs on is not the
/// fixed-length format it starts like.
fn alnum_at(t: &[u8], i: usize) -> bool {
    t.get(i).is_some_and(|c| c.is_ascii_alphanumeric())
}

/// Formats that start with a digit: Telegram bot tokens (`123456789:AA…`),
/// Google OAuth refresh tokens (`1//0…`), Mailchimp keys (`<32 hex>-us12`).
#[inline(always)]
fn digits_first(t: &[u8]) -> Option<(usize, &'static str)> {
    // Eight digits at least (Telegram, Twitter), `1//0` or a `-` after 32
    // hex digits (Mailchimp).
    let may_be = (t.len() > 8 && t[7].is_ascii_digit())
        || t.starts_with(b"1//0")
        || (t.len() >= 35 && t[32] == b'-');
    if !may_be {
        return None;
    }
    digits_first_body(t)
}

#[inline(never)]
fn digits_first_body(t: &[u8]) -> Option<(usize, &'static str)> {
    let digits = run(t, 0, |c| c.is_ascii_digit());
    if (8..=10).contains(&digits) && t.get(digits) == Some(&b':') {
        let n = run(t, digits + 1, b64url);
        if n == 35 {
            return Some((digits + 36, "telegram-token"));
        }
    }
    // Twitter access tokens: the user's id, `-`, 40 random characters of
    // both cases (a timestamp and a lower-case hash is an id).
    if (15..=25).contains(&digits) && t.get(digits) == Some(&b'-') {
        let n = run(t, digits + 1, |c| c.is_ascii_alphanumeric());
        let body = &t[digits + 1..digits + 1 + n];
        if (20..=40).contains(&n)
            && body.iter().any(u8::is_ascii_uppercase)
            && body.iter().any(u8::is_ascii_lowercase)
        {
            return Some((digits + 1 + n, "twitter-token"));
        }
    }
    // Asana's personal access token: `<version>/<user id>/<token id>:<32
    // hex>` (`2/1201…/1209…:d640…`).
    if t[1] == b'/' && t[0].is_ascii_digit() {
        let user = run(t, 2, |c| c.is_ascii_digit());
        let id = run(t, 3 + user, |c| c.is_ascii_digit());
        let at = 3 + user + id;
        if (10..=20).contains(&user)
            && t.get(2 + user) == Some(&b'/')
            && (10..=20).contains(&id)
            && t.get(at) == Some(&b':')
            && run(t, at + 1, crate::hex) == 32
        {
            return Some((at + 33, "asana-token"));
        }
    }
    if t.starts_with(b"1//0") {
        let n = run(t, 4, b64url);
        if n >= 30 {
            return Some((4 + n, "google-oauth-token"));
        }
    }
    if t.len() >= 35 && &t[32..35] == b"-us" && t[..32].iter().all(|&c| hex(c)) {
        let n = run(t, 35, |c| c.is_ascii_digit());
        if (1..=2).contains(&n) {
            return Some((35 + n, "mailchimp-key"));
        }
    }
    None
}

/// Whether the word `[s, e)` may be a Kerberos key as `klist -K` shows it:
/// `(0x…)`, 16, 24 or 32 bytes in hex.
#[inline(always)]
pub(super) fn may_be_kerberos_key(b: &[u8], s: usize, e: usize) -> bool {
    matches!(e - s, 34 | 50 | 66) && s > 0 && b[s - 1] == b'(' && b[s..].starts_with(b"0x")
}

/// A keytab's key as `klist -K` (and `ktutil`'s `list -k`) prints it after
/// its encryption type: `(aes256-cts-hmac-sha1-96)  (0x5467…)`.
#[inline(never)]
pub(super) fn kerberos_key(b: &[u8], s: usize, e: usize, found: &mut Vec<Found>) {
    if !b[s + 2..e].iter().all(u8::is_ascii_hexdigit) {
        return;
    }
    let from = s.saturating_sub(160);
    let line = memchr::memrchr(b'\n', &b[from..s]).map_or(from, |p| from + p + 1);
    let before = &b[line..s];
    const ENCTYPES: [&[u8]; 5] = [b"-hmac-", b"arcfour-", b"des3-", b"des-cbc-", b"camellia"];
    if ENCTYPES.iter().any(|t| crate::find(before, t).is_some()) {
        found.push(Found {
            start: s + 2,
            end: e,
            kind: "kerberos-key",
        });
    }
}

/// Whether the word `[s, e)` may be a WireGuard key after a tab: 44 bytes
/// of base64 ending in `=`.
#[inline(always)]
pub(super) fn may_be_wireguard_column(b: &[u8], s: usize, e: usize) -> bool {
    e - s == 44 && b[e - 1] == b'=' && s > 0 && b[s - 1] == b'\t'
}

/// The last column of `wg show <interface> preshared-keys` (a peer's public
/// key, a tab, the pre-shared key; `wg show all …` puts the interface
/// first) and of `wg show … private-key`'s kin: masked where the command
/// above within [`MAX_WG_OUTPUT`] bytes asks for them.
#[inline(never)]
pub(super) fn wireguard_column(b: &[u8], s: usize, e: usize, found: &mut Vec<Found>) {
    if !b[s..e - 1].iter().all(|&c| crate::b64(c)) {
        return;
    }
    let from = s.saturating_sub(MAX_WG_OUTPUT);
    let above = &b[from..s];
    let Some(command) = crate::rfind(above, b"wg show ") else {
        return;
    };
    let line_end = memchr::memchr(b'\n', &above[command..]).map_or(above.len(), |p| command + p);
    let command = &above[command..line_end];
    if crate::find(command, b"preshared-keys").is_some()
        || crate::find(command, b"private-key").is_some()
    {
        found.push(Found {
            start: s,
            end: e,
            kind: "wireguard-key",
        });
    }
}

/// How far below `wg show` its output is read: within what a stream keeps
/// of the text before what it holds (1 KiB), so that a stream reads the
/// command as the whole text does.
const MAX_WG_OUTPUT: usize = 768;
