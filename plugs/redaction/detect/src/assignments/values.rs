//! What the value of a secret looks like, and what only stands in for one:
//! `$TOKEN`, `${{ secrets.X }}`, `<your-key>`, `******`, a type name, a
//! status word, a name in code.

/// Longest value masked as one.
pub(super) const MAX_VALUE: usize = 4096;
/// Shorter values are not taken for secrets (`password=short` stays).
pub(super) const MIN_VALUE: usize = 6;

/// Values that name a type or a state, not a secret (`password: string`,
/// `token=expired`).
static NOT_VALUES: [&[u8]; 35] = [
    b"undefined",
    b"string",
    b"number",
    b"boolean",
    b"object",
    b"unknown",
    b"secretstring",
    b"redacted",
    b"hidden",
    b"masked",
    b"required",
    b"optional",
    b"default",
    b"success",
    b"succeeded",
    b"failed",
    b"failure",
    b"enabled",
    b"disabled",
    b"invalid",
    b"expired",
    b"missing",
    b"present",
    b"revoked",
    b"pending",
    b"granted",
    b"denied",
    b"allowed",
    b"verified",
    b"rotated",
    b"changed",
    b"malformed",
    b"unauthorized",
    b"forbidden",
    b"anonymous",
];

/// Values that repeat the name (`"password": "Password"`, a form label):
/// secrets only where nothing else can be meant (`PGPASSWORD=secret`).
static NAME_VALUES: [&[u8]; 8] = [
    b"secret",
    b"secrets",
    b"password",
    b"passwd",
    b"passphrase",
    b"tokens",
    b"signature",
    b"credentials",
];

/// Bytes of an unquoted value: anything printable but quotes, brackets and
/// the bytes that end a value in shells, URLs and connection strings.
const fn value_table() -> [bool; 256] {
    let mut t = [false; 256];
    let mut c = 0x21;
    while c < 256 {
        t[c] = !matches!(
            c as u8,
            b'"' | b'\''
                | b'`'
                | b';'
                | b'<'
                | b'>'
                | b'|'
                | b'('
                | b')'
                | b'['
                | b']'
                | b'{'
                | b'}'
                | b','
                | b'\\'
                | 0x7f
        );
        c += 1;
    }
    t
}

static VALUE: [bool; 256] = value_table();

pub(super) fn value_byte(c: u8) -> bool {
    VALUE[c as usize]
}

/// The quote that opens a value at `i`: `"`, `'`, `` ` `` or `\"` (JSON in
/// a JSON string).
pub(super) fn quote_at(b: &[u8], i: usize) -> Option<&'static [u8]> {
    match b.get(i) {
        Some(b'"') => Some(b"\""),
        Some(b'\'') => Some(b"'"),
        Some(b'`') => Some(b"`"),
        Some(b'\\') if b.get(i + 1) == Some(&b'"') => Some(b"\\\""),
        _ => None,
    }
}

/// The inside of the quoted value that opens at `i`: start, end, and
/// whether the text ended before its closing quote. A value that reaches the
/// end of its line unclosed ends there.
pub(super) fn quoted(b: &[u8], i: usize, q: &[u8]) -> (usize, usize, bool) {
    let start = i + q.len();
    let mut j = start;
    while j < b.len() && j - start < MAX_VALUE {
        if b[j..].starts_with(q) {
            return (start, j, false);
        }
        match b[j] {
            b'\\' => j += 2,
            b'\n' => return (start, j, false),
            _ => j += 1,
        }
    }
    let j = j.min(b.len());
    (start, j, j == b.len())
}

/// Long enough, and not a stand-in (`$TOKEN`, `${{ … }}`, `<your-key>`,
/// `******`, `your_api_key`, `[REDACTED…]`: `crate::placeholders`), nor
/// what a value cannot start with in configs and YAML (`{…}`, a tag, an
/// anchor, an alias, a block scalar), a path in code (`a::b`), a constant's
/// name, a type or a state.
pub(super) fn plain(v: &[u8]) -> bool {
    if v.len() < MIN_VALUE || v.len() > MAX_VALUE {
        return false;
    }
    // (`<concealed by 1Password>`, `<your key here>`: a placeholder's first
    // word.)
    let not_a_value = matches!(
        v[0],
        b'{' | b'[' | b'(' | b'<' | b'!' | b'&' | b'*' | b'|' | b'>'
    ) || v.windows(2).any(|w| w == b"::")
        || web_address(v)
        || resource_reference(v)
        || constant(v)
        || crate::placeholders::stand_in(v)
        || crate::tokens::checksums::nkey_public(v)
        || sri_digest(v)
        || digest_typed(v)
        || public_project_key(v)
        || public_client_key(v)
        || device_token(v)
        || version(v)
        || ssh_public_key(v)
        || store_path(v)
        || ciphertext(v)
        || salted_digest(v)
        || crate::tokens::public_jwt(v);
    !not_a_value && !NOT_VALUES.iter().any(|w| v.eq_ignore_ascii_case(w))
}

/// `https://ci.example.com/job/api/415/consoleText`: an address, not a
/// value (a URL's password, `user:…@`, and a secret in its query are read
/// by `crate::urls`; a webhook's secret path by its vendor's rule).
fn web_address(v: &[u8]) -> bool {
    (v.starts_with(b"https://") || v.starts_with(b"http://"))
        && !v.contains(&b'@')
        && !v.contains(&b'?')
}

/// `ReplicaSet/payments-c32475ef9`, `deployment/api`, `secret/db-creds`:
/// a Kubernetes object by its kind (one of the workload and config kinds,
/// so that `admin/hunter22` stays a password) and name (`kubectl describe`'s
/// `Controlled By:`), a name of lower-case words, digits and dashes.
fn resource_reference(v: &[u8]) -> bool {
    let Some(slash) = memchr::memchr(b'/', v) else {
        return false;
    };
    const KINDS: [&[u8]; 24] = [
        b"pod",
        b"po",
        b"deployment",
        b"deploy",
        b"replicaset",
        b"rs",
        b"statefulset",
        b"sts",
        b"daemonset",
        b"ds",
        b"job",
        b"cronjob",
        b"service",
        b"svc",
        b"secret",
        b"configmap",
        b"cm",
        b"ingress",
        b"node",
        b"namespace",
        b"ns",
        b"serviceaccount",
        b"sa",
        b"persistentvolumeclaim",
    ];
    let (kind, name) = (&v[..slash], &v[slash + 1..]);
    KINDS.iter().any(|k| kind.eq_ignore_ascii_case(k))
        && name.first().is_some_and(u8::is_ascii_lowercase)
        && name
            .iter()
            .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'-' | b'.'))
}

/// A Subresource Integrity digest (`sha256-<base64>=`: Nix's hashes, npm's
/// `integrity`), its base64 as long as its algorithm's digest.
fn sri_digest(v: &[u8]) -> bool {
    let body = match v.get(..7) {
        Some(b"sha256-") => (&v[7..], 44),
        Some(b"sha384-") => (&v[7..], 64),
        Some(b"sha512-") => (&v[7..], 88),
        _ => return false,
    };
    let (b64, len) = body;
    b64.len() == len && b64.iter().all(|&c| crate::b64(c) || c == b'=')
}

/// `GITHUB_TOKEN`, `DB_PASSWORD`: the name of a variable, not its value.
fn constant(v: &[u8]) -> bool {
    v.contains(&b'_')
        && v.iter().any(u8::is_ascii_uppercase)
        && v.iter()
            .all(|&c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
}

/// `v` without a trailing `?` or `!` (`l.signature?`, `token.unwrap()!`).
fn unwrapped(v: &[u8]) -> &[u8] {
    v.strip_suffix(b"?")
        .or_else(|| v.strip_suffix(b"!"))
        .unwrap_or(v)
}

/// A Google app password as Google shows it: four groups of four lower-case
/// letters, a blank between (`ojzq ldut wqnv oynw`), not one word repeated.
pub(super) fn app_password(v: &[u8]) -> bool {
    v.len() == 19 && app_password_start(v) && v[..4] != v[5..9]
}

/// Whether `v` (up to 19 bytes of it) goes as an app password's groups go.
pub(super) fn app_password_start(v: &[u8]) -> bool {
    v.iter().take(19).enumerate().all(|(i, &c)| {
        if i % 5 == 4 {
            c == b' '
        } else {
            c.is_ascii_lowercase()
        }
    })
}

/// `"password": "Password"`: the value repeats the name.
pub(super) fn name_word(v: &[u8]) -> bool {
    NAME_VALUES.iter().any(|w| v.eq_ignore_ascii_case(w))
}

/// `token_value`, `passwordInput`, `getHTTPToken`: a name in code, not a
/// value. Random letters change case too often to be one.
pub(super) fn identifier(v: &[u8]) -> bool {
    let v = unwrapped(v);
    v.iter().all(|&c| c.is_ascii_alphabetic() || c == b'_') && !cased_randomly(v)
}

/// `X-API-Key`, `db-password`, `dbPassword`: a name with dashes, not a
/// value.
pub(super) fn dashed_identifier(v: &[u8]) -> bool {
    v.iter()
        .all(|&c| c.is_ascii_alphabetic() || matches!(c, b'_' | b'-'))
        && !cased_randomly(v)
}

/// Whether letters change case too often for a name in code.
fn cased_randomly(v: &[u8]) -> bool {
    let (mut upper_upper, mut lower_upper) = (0, 0);
    for w in v.windows(2) {
        if w[1].is_ascii_uppercase() {
            upper_upper += w[0].is_ascii_uppercase() as usize;
            lower_upper += w[0].is_ascii_lowercase() as usize;
        }
    }
    upper_upper >= 3 && lower_upper >= 3
}

/// `config.password`, `process.env.TOKEN`: a path in code, not a value.
pub(super) fn dotted_identifier(v: &[u8]) -> bool {
    let v = unwrapped(v);
    !v.is_empty()
        && v.contains(&b'.')
        && v[0] != b'.'
        && v[v.len() - 1] != b'.'
        && v.iter()
            .all(|&c| c.is_ascii_alphabetic() || c == b'_' || c == b'.')
}

/// `/home/alice/project` (`PWD=…`), `~/.ssh/id_rsa`: a file, not a secret.
pub(super) fn path(v: &[u8]) -> bool {
    (v.starts_with(b"/") || v.starts_with(b"~/") || v.starts_with(b"./") || v.starts_with(b"../"))
        && v.iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'/' | b'.' | b'_' | b'-' | b'~'))
        // `/DEqeypVBKNwH2dBOuMF…` (`openssl rand -base64`): one random
        // part is no path.
        && !(v.iter().filter(|&&c| c == b'/').count() == 1 && random(&v[1..]) && keylike(&v[1..]))
}

/// Random-looking: long, and at least two of lower case, upper case and
/// digits (`wJalrXUtnFEMI/K7MDENG…` after a name with no `=` between).
pub(super) fn random(v: &[u8]) -> bool {
    v.len() >= 16 && crate::mixed(v) && !identifier(v)
}

/// `node.colon2_token`, `self.db2.password`: a path in code (when code
/// follows it).
pub(super) fn dotted_code(v: &[u8]) -> bool {
    let v = unwrapped(v);
    v.contains(&b'.')
        && v.split(|&c| c == b'.').all(|part| {
            !part.is_empty()
                && !part[0].is_ascii_digit()
                && part.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_')
        })
}

/// `3226494487`, `0xC004D20E_u32`, `-610i32`, `217_707`: a number in code.
pub(super) fn number(v: &[u8]) -> bool {
    let v = v.strip_prefix(b"-").unwrap_or(v);
    let (digits, rest) = match v.strip_prefix(b"0x").or_else(|| v.strip_prefix(b"0X")) {
        Some(hex) => {
            let n = hex
                .iter()
                .take_while(|c| c.is_ascii_hexdigit() || **c == b'_')
                .count();
            (n, &hex[n..])
        }
        None => {
            let n = v
                .iter()
                .take_while(|c| c.is_ascii_digit() || matches!(c, b'_' | b'.'))
                .count();
            (n, &v[n..])
        }
    };
    // A type suffix: `u32`, `i64`, `usize`, `f64`, `L`, `UL`, `n`.
    let suffix = rest.strip_prefix(b"_").unwrap_or(rest);
    digits > 0
        && (suffix.is_empty()
            || matches!(suffix, b"L" | b"UL" | b"ULL" | b"u" | b"U" | b"n")
            || (matches!(suffix[0], b'u' | b'i' | b'f')
                && matches!(
                    &suffix[1..],
                    b"8" | b"16" | b"32" | b"64" | b"128" | b"size"
                )))
}

/// `nl80211_rekey_data`, `NonZeroI32`: letters, digits and `_`, not
/// starting with a digit: a word of code (when code follows it).
pub(super) fn code_word(v: &[u8]) -> bool {
    !v[0].is_ascii_digit()
        && v.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_')
        && !cased_randomly(v)
}

/// `PhantomData`, `SecretString`: a type's name, even alone on its line.
pub(super) fn type_name(v: &[u8]) -> bool {
    v[0].is_ascii_uppercase()
        && v.iter().all(u8::is_ascii_alphabetic)
        && v.windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
}

/// `id_token`, `git-token`, `client_secret`: two words, the second the name
/// of a secret: the name of one (an OAuth parameter, a secret's id), not its
/// value.
pub(super) fn label(v: &[u8]) -> bool {
    let Some(sep) = v.iter().position(|&c| c == b'_' || c == b'-') else {
        return false;
    };
    let (first, second) = (&v[..sep], &v[sep + 1..]);
    !first.is_empty()
        && first.iter().all(u8::is_ascii_lowercase)
        && matches!(
            second,
            b"token" | b"secret" | b"password" | b"passwd" | b"key" | b"auth" | b"pass" | b"pwd"
        )
}

/// The value of a name that is only `…_key` (`ADAFRUIT_IO_KEY`): one run of
/// key bytes, long, and random (letters and digits alternate often), not
/// hex (hashes, git SHAs, UUIDs), not an identifier, a path or a version.
pub(super) fn keylike(v: &[u8]) -> bool {
    // Laravel's `APP_KEY=base64:…`.
    let v = v.strip_prefix(b"base64:").unwrap_or(v);
    // `0x…`: hex all the same (an Ethereum address, a transaction's hash).
    let v = v.strip_prefix(b"0x").unwrap_or(v);
    // The cheap test first: most values read here are too long or short.
    if !(16..=512).contains(&v.len()) {
        return false;
    }
    // One pass (read for many values): the alphabet, hex only, and how often
    // letters and digits change class (random text changes often).
    let (mut changes, mut hex_only, mut last) = (0, true, 0u8);
    for &c in v {
        let class = CLASS[c as usize];
        if class == INVALID {
            return false;
        }
        hex_only &= c.is_ascii_hexdigit() || c == b'-';
        changes += usize::from(class != 0 && last != 0 && class != last);
        last = class;
    }
    !hex_only
        && changes >= (v.len() / 5).max(4)
        && !path(v)
        && !dotted_identifier(v)
        && !file_path(v)
}

/// A key's byte's class for [`keylike`]: lower case 1, upper case 2, digit
/// 3, a key's other bytes 0, any other [`INVALID`].
const INVALID: u8 = 0xff;
static CLASS: [u8; 256] = {
    let mut t = [INVALID; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = match b {
            b'a'..=b'z' => 1,
            b'A'..=b'Z' => 2,
            b'0'..=b'9' => 3,
            b'_' | b'-' | b'+' | b'/' | b'=' | b'.' | b'~' | b'%' => 0,
            _ => INVALID,
        };
        c += 1;
    }
    t
};

/// `app-2024-05-01-k8m2x9`, `release_v2_canary_x7k2`,
/// `uploads/2024/05/Xk9m….png`: parts joined by `-`, `_`, `.` or `/`, two
/// or more of them words of lower-case letters or numbers:
/// a name made to be read, whatever its tail.
pub(super) fn worded(v: &[u8]) -> bool {
    v.split(|&c| matches!(c, b'-' | b'_' | b'.' | b'/'))
        .filter(|p| {
            (p.len() >= 3 && p.iter().all(u8::is_ascii_lowercase))
                || (!p.is_empty() && p.iter().all(u8::is_ascii_digit))
        })
        .count()
        >= 2
}

/// `cus_Q8vN2Lr7Kx4Tz9`, `price_1PZ3kQ2e…`, `PR_kwDOABCD…`: an API's object
/// identifier, a short word, one `_`, a random rest (Stripe's, GitHub's
/// node ids). Under a name that says nothing it names an object; a vendor's
/// secret of that shape is read by its own rule (`sk_live_…`, `ghp_…`).
pub(super) fn object_id(v: &[u8]) -> bool {
    // `i-0a1b2c3d4e5f67890`, `subnet-09f8e7d6`: AWS's resources, hex after
    // a word and `-`; `run-bIh6rzuHIuMd1xOE`, `ws-…`, `cv-…`: Terraform
    // Cloud's, 16 letters and digits after a short word.
    if let Some(dash) = v.iter().position(|&c| c == b'-')
        && (1..=12).contains(&dash)
        && v[..dash].iter().all(u8::is_ascii_lowercase)
        && v.len() - dash > 8
    {
        let rest = &v[dash + 1..];
        if rest
            .iter()
            .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
            || (dash <= 5 && rest.len() == 16 && rest.iter().all(u8::is_ascii_alphanumeric))
        {
            return true;
        }
    }
    // YouTube's channels and playlists (`UC` and 22, `PL` and 32).
    if matches!(
        (&v[..v.len().min(2)], v.len()),
        (b"UC" | b"UU", 24) | (b"PL", 34)
    ) && v
        .iter()
        .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-'))
    {
        return true;
    }
    // `cs_test_a1…`: a word or two before the random rest.
    let Some(sep) = v.iter().rposition(|&c| c == b'_') else {
        return false;
    };
    let prefix = &v[..sep];
    (1..=13).contains(&sep)
        && prefix.split(|&c| c == b'_').count() <= 2
        && prefix
            .split(|&c| c == b'_')
            .all(|w| (1..=8).contains(&w.len()))
        && prefix.iter().all(|&c| c.is_ascii_alphabetic() || c == b'_')
        && v.len() - sep > 8
        && v[sep + 1..].iter().all(u8::is_ascii_alphanumeric)
}

/// A value read by its place inside a line (a compact JSON's member, an
/// argument, a log's field), where ids are as common as keys: a
/// [`neutral_key`] of 24 bytes or more with lower case, upper case and
/// digits (ids are mostly shorter or of one case: `rec…`, nanoids, cuids).
pub(super) fn inline_key(v: &[u8]) -> bool {
    v.len() >= 24
        && v.iter().any(u8::is_ascii_lowercase)
        && v.iter().any(u8::is_ascii_uppercase)
        && v.iter().any(u8::is_ascii_digit)
        && neutral_key(v)
}

/// A value read by its place alone (its name says nothing) that is a key:
/// random as one ([`keylike`]), not a name of words ([`worded`]) or of
/// code (`debugAndroidTest`, a build variant's: [`identifier`]), not an
/// object's identifier ([`object_id`]), not base64 of a structure (JSON, a
/// GitHub node id's `04:User1234`).
pub(super) fn neutral_key(v: &[u8]) -> bool {
    keylike(v)
        // `smbios1: uuid=…`, `named_attribute: log_ident=…`: a setting of
        // its own, read by its own name.
        && !super::assignment(v)
        && !age_recipient(v)
        && !worded(v)
        && !identifier(v)
        && !generated_name(v)
        && !object_id(v)
        && !encoded_structure(v)
}

/// `age1…`: an age recipient, a public key (Bech32, 62 characters); the
/// secret half is `AGE-SECRET-KEY-1…`.
fn age_recipient(v: &[u8]) -> bool {
    v.len() == 62
        && v.starts_with(b"age1")
        && v[4..]
            .iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
}

/// `nginx-785c9fb6f8-qzx9k` (a Kubernetes pod's), `shop-web-7d4b9`: a word,
/// then short lower-case parts joined by `-`, a name a system made.
pub(super) fn generated_name(v: &[u8]) -> bool {
    let mut parts = v.split(|&c| c == b'-');
    let first_word = parts
        .next()
        .is_some_and(|p| p.len() >= 2 && p.iter().all(u8::is_ascii_lowercase));
    let mut rest = 0;
    let short = parts.all(|p| {
        rest += 1;
        (1..=12).contains(&p.len())
            && p.iter()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
    });
    first_word && short && rest >= 2
}

/// Whether `v` is base64 of JSON (`eyJ2Ijoi…`: a pagination cursor,
/// `kubectl`'s `continue`, Azure's `$skiptoken`), of a typed id
/// (`MDQ6VXNlcjE=`, `04:User1`) or of words and numbers (systemd's
/// `MEMORY_PRESSURE_WRITE=c29tZSAyMDAwMDAg…`, `some 200000 2000000`): not
/// random; what it holds is read by the decoding pass.
pub(super) fn encoded_structure(v: &[u8]) -> bool {
    // After a short tag (`4-eyJ…`, Slack's `event_context`).
    let v = match v.iter().take(6).position(|&c| c == b'-') {
        Some(p) if v[p + 1..].starts_with(b"eyJ") => &v[p + 1..],
        _ => v,
    };
    let Some(t) = crate::decode::base64_text(v) else {
        // (A C string's NUL at its end is no text's: decoded as bytes. Its
        // base64 ends in `A=`, `A==` or `AA`.)
        return v.len() <= 256
            && v.iter().rfind(|&&c| c != b'=') == Some(&b'A')
            && v.iter().all(|&c| crate::b64(c))
            && words(&crate::decode::decode(v));
    };
    let t = t.trim_start();
    t.starts_with('{') || t.starts_with('[') || typed_id(t.as_bytes()) || words(t.as_bytes())
}

/// Two words or more between single blanks, of letters and digits only,
/// before a NUL or a line's end.
fn words(t: &[u8]) -> bool {
    let end = t
        .iter()
        .rposition(|&c| !matches!(c, 0 | b'\n'))
        .map_or(0, |p| p + 1);
    let t = &t[..end];
    t.contains(&b' ')
        && t.split(|&c| c == b' ')
            .all(|w| !w.is_empty() && w.iter().all(u8::is_ascii_alphanumeric))
}

/// `04:User1827364519`: digits, `:`, a type's name, digits.
fn typed_id(t: &[u8]) -> bool {
    let Some(colon) = t.iter().position(|&c| c == b':') else {
        return false;
    };
    let (n, rest) = (&t[..colon], &t[colon + 1..]);
    let letters = rest.iter().take_while(|c| c.is_ascii_alphabetic()).count();
    !n.is_empty()
        && n.iter().all(u8::is_ascii_digit)
        && letters > 0
        && rest.len() > letters
        && rest[letters..].iter().all(u8::is_ascii_digit)
}

/// `sha256=974c…`, `sha1=…`, `hmac-sha256:…`: a digest with its algorithm
/// (a webhook's signature header, an integrity field, Vault's audit log,
/// which writes every secret as its HMAC): it gives nothing back, whatever
/// names it. The digest must be hex or base64 after the algorithm.
pub(super) fn digest_typed(v: &[u8]) -> bool {
    const ALGORITHMS: [&[u8]; 9] = [
        b"sha1",
        b"sha256",
        b"sha384",
        b"sha512",
        b"md5",
        b"hmac-sha1",
        b"hmac-sha256",
        b"hmac-sha384",
        b"hmac-sha512",
    ];
    ALGORITHMS.iter().any(|a| {
        v.len() > a.len() + 16
            && v.starts_with(a)
            && matches!(v[a.len()], b'=' | b':')
            && v[a.len() + 1..].iter().all(|&c| crate::b64(c) || c == b'=')
    })
}

/// `mschapv2`, `scram256`, `kerberos5`, `ntlm`: a method's name, lower-case
/// letters with a version of up to three digits.
pub(super) fn method_name(v: &[u8]) -> bool {
    let letters = v.iter().take_while(|c| c.is_ascii_lowercase()).count();
    (v.len() <= 12
        && letters >= 3
        && v.len() - letters <= 3
        && v[letters..].iter().all(u8::is_ascii_digit))
        || mechanism(v)
}

/// A key's id, not its secret: 16 or 20 upper-case letters and digits, as
/// Confluent's API keys and S3-style access keys (MinIO's, Ceph's) are; the
/// secret beside each is longer and of both cases.
pub(super) fn key_id(v: &[u8]) -> bool {
    matches!(v.len(), 16 | 20)
        && v.iter()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        && v.iter().any(u8::is_ascii_digit)
}

/// A SASL or hash mechanism's name: words of one case, each a version
/// after it at most, joined by `-`, `/` or `_` (`SCRAM-SHA-512`,
/// `SASL/SCRAM-SHA-256`, `XOAUTH2`, `scram-sha-256`).
fn mechanism(v: &[u8]) -> bool {
    let upper = v.iter().any(u8::is_ascii_uppercase);
    let lower = v.iter().any(u8::is_ascii_lowercase);
    v.len() <= 32
        && upper != lower
        && v.split(|&c| matches!(c, b'-' | b'/' | b'_')).all(|part| {
            let letters = part.iter().take_while(|c| c.is_ascii_alphabetic()).count();
            !part.is_empty()
                && part[letters..].iter().all(u8::is_ascii_digit)
                && part.len() - letters <= 3
        })
        && v.split(|&c| matches!(c, b'-' | b'/' | b'_'))
            .any(|part| part.iter().take_while(|c| c.is_ascii_alphabetic()).count() >= 3)
}

/// A key made to be public: PostHog's project API key (`phc_` and 43
/// letters and digits), which every page that sends events carries; its
/// personal API keys (`phx_…`) are secrets.
fn public_project_key(v: &[u8]) -> bool {
    v.len() == 47 && v.starts_with(b"phc_") && v[4..].iter().all(u8::is_ascii_alphanumeric)
}

/// A path in a secrets store, the secret's name rather than its value:
/// Vault's `kv/data/netops:token` (an Ansible lookup's `secret=`),
/// `secret/data/app#password`, AWS's `prod/db/password`. Lower case words
/// between slashes; a random value has capitals or no slash.
fn store_path(v: &[u8]) -> bool {
    v.contains(&b'/')
        && v.iter().all(|&c| {
            c.is_ascii_lowercase()
                || c.is_ascii_digit()
                || matches!(c, b'-' | b'_' | b'.' | b'/' | b':' | b'#')
        })
        && v.split(|&c| matches!(c, b'/' | b':' | b'#'))
            .filter(|part| !part.is_empty())
            .all(|part| part.iter().any(u8::is_ascii_lowercase) && !keylike(part))
}

/// An SSH public key written into a URL or a config value (`ssh-ed25519%20AAAA…`).
fn ssh_public_key(v: &[u8]) -> bool {
    [
        &b"ssh-ed25519%20"[..],
        b"ssh-rsa%20",
        b"ecdsa-sha2-",
        b"sk-ssh-ed25519",
    ]
    .iter()
    .any(|p| v.starts_with(p))
}

/// A key made to be public: Adyen's client key (`live_`/`test_` and 32
/// capitals and digits), which its Drop-in carries into every checkout
/// page; its API keys (`AQE…`) are secrets.
fn public_client_key(v: &[u8]) -> bool {
    v.len() == 37
        && (v.starts_with(b"live_") || v.starts_with(b"test_"))
        && v[5..]
            .iter()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
}

/// A release's version (`4.24.7`, `v1.2.3`, `0.7.0-rc.1`): in a table of
/// packages a name such as `next-auth` is a package's, not a credential's.
fn version(v: &[u8]) -> bool {
    let v = v.strip_prefix(b"v").unwrap_or(v);
    let core = v
        .iter()
        .position(|&c| c == b'-' || c == b'+')
        .map_or(v, |p| &v[..p]);
    let parts = core.split(|&c| c == b'.');
    (2..=4).contains(&parts.clone().count())
        && parts
            .into_iter()
            .all(|p| (1..=5).contains(&p.len()) && p.iter().all(u8::is_ascii_digit))
}

/// A push service's address for one app on one device, not a credential:
/// an FCM registration token (an instance id of 22, `:APA91b` and the rest,
/// also elided as a tool shows it, `…`). FCM's legacy server key (`AAAA` and
/// 7 before the colon) is a secret, told by its vendor's rule.
fn device_token(v: &[u8]) -> bool {
    v.len() > 29
        && &v[22..29] == b":APA91b"
        && v[..22]
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_'))
}

/// A value encrypted where it is stored, by a key kept elsewhere: Jasypt's
/// `ENC(…)`, Windows DPAPI's blob (`AQAAANCMnd8BFdERjHoAwE/Cl+s…`, its
/// provider's GUID) and CryptoAPI's `SIMPLEBLOB` (`AQIAAA…`, an IIS
/// session key encrypted to the machine's key).
fn ciphertext(v: &[u8]) -> bool {
    (v.starts_with(b"ENC(") && v.ends_with(b")"))
        || v.starts_with(b"AQAAANCMnd8BFdERjHoAwE/Cl+s")
        || (v.starts_with(b"AQIAAA") && v.len() >= 64)
}

/// A digest's length in hex: SHA-1, SHA-256, SHA-512.
pub(super) fn hex_digest(v: &[u8]) -> bool {
    matches!(v.len(), 40 | 64 | 128) && v.iter().all(u8::is_ascii_hexdigit)
}

/// A salted digest in hex: Tomcat's `salt$iterations$digest`
/// (`f33d0a94…$1000$82fd…`).
fn salted_digest(v: &[u8]) -> bool {
    let mut parts = v.split(|&c| c == b'$');
    let hex = |p: &[u8], min: usize| p.len() >= min && p.iter().all(u8::is_ascii_hexdigit);
    matches!(
        (parts.next(), parts.next(), parts.next(), parts.next()),
        (Some(salt), Some(n), Some(digest), None)
            if hex(salt, 8) && !n.is_empty() && n.iter().all(u8::is_ascii_digit) && hex(digest, 32)
    )
}

/// `img/f33ba732-….csv`, `exports/….png`: a file's path, its name ending
/// with an extension.
fn file_path(v: &[u8]) -> bool {
    v.contains(&b'/')
        && memchr::memrchr(b'.', v).is_some_and(|dot| {
            let ext = &v[dot + 1..];
            (2..=4).contains(&ext.len()) && ext.iter().all(u8::is_ascii_lowercase)
        })
}

/// `client1.key`, `ca.crt`, `secrets.json`: a file's name, by an
/// extension that a key, a certificate or a settings file has (OpenVPN's
/// `secret client1.key` names the file that holds it).
pub(super) fn file_name(v: &[u8]) -> bool {
    const EXTENSIONS: [&[u8]; 16] = [
        b"key", b"pem", b"crt", b"cer", b"der", b"pub", b"p12", b"pfx", b"txt", b"conf", b"cfg",
        b"ini", b"json", b"yaml", b"yml", b"env",
    ];
    memchr::memrchr(b'.', v).is_some_and(|dot| dot > 0 && EXTENSIONS.contains(&&v[dot + 1..]))
}

/// `8-4-4-4-12` hex digits.
pub(super) fn uuid(v: &[u8]) -> bool {
    v.len() == 36
        && v.iter().enumerate().all(|(i, &c)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                c == b'-'
            } else {
                c.is_ascii_hexdigit()
            }
        })
}

/// A key in hex: 32 to 64 hex digits, or 128 (ASP.NET's HMAC-SHA512
/// `validationKey`), letters and digits both (Datadog, Algolia, Kaggle
/// keys); after a name that says it is a key.
pub(super) fn hex_key(v: &[u8]) -> bool {
    // (An Ethereum private key is often written `0x…`.)
    let v = v.strip_prefix(b"0x").unwrap_or(v);
    ((32..=64).contains(&v.len()) || v.len() == 128)
        && v.iter().all(u8::is_ascii_hexdigit)
        && v.iter().any(u8::is_ascii_digit)
        && v.iter().any(u8::is_ascii_alphabetic)
}
