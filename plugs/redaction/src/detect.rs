//! Secret detection in one pass over the text, without regexes.
//!
//! The text is read as *words* (runs of bytes that can appear in a token);
//! only words long enough to hold a secret are looked at, and each is
//! dispatched on its first bytes (and on the bytes after `=`, `:`, `/`, `@`,
//! `,` inside it) to the few formats that can start there. Operator literals
//! are found in the same pass through a first-byte table. The same code runs
//! natively and in the plug, which is what the benchmark compares.

use std::borrow::Cow;

/// A secret found in a text: bytes `start..end`, of `kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    pub start: usize,
    pub end: usize,
    pub kind: &'static str,
}

/// Most bytes a non-final chunk may hold back waiting for its next chunk.
pub const MAX_HOLD: usize = 16 << 10;

/// Words shorter than this are never secrets (literals are matched apart).
const MIN_WORD: usize = 8;

const fn token_table() -> [bool; 256] {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'_' | b'-' | b'+' | b'/' | b'=' | b'.' | b':' | b'@' | b'%' | b'~' | b','
            );
        c += 1;
    }
    t
}

/// Bytes that can be part of a token-like word.
static TOKEN: [bool; 256] = token_table();

/// In a redactor's byte classes: the byte can be part of a token.
const TOKEN_BIT: u8 = 1;
/// In a redactor's byte classes: a literal starts with this byte.
const LITERAL_BIT: u8 = 2;

const PEM_BEGIN: &[u8] = b"-----BEGIN ";
const PEM_END: &[u8] = b"-----END ";
const PEM_TAIL: &[u8] = b"PRIVATE KEY-----";

const DB_SCHEMES: &[&[u8]] = &[
    b"postgres",
    b"postgresql",
    b"mysql",
    b"mariadb",
    b"mongodb",
    b"mongodb+srv",
    b"redis",
    b"rediss",
    b"amqp",
    b"amqps",
    b"mssql",
    b"sqlserver",
    b"http",
    b"https",
    b"ftp",
    b"sftp",
    b"smtp",
    b"ldap",
];

const SECRET_KEYS: &[&[u8]] = &[
    b"password",
    b"passwd",
    b"secret",
    b"token",
    b"api_key",
    b"apikey",
    b"access_key",
    b"private_key",
];

/// Finds and masks secrets: well-known formats and the operator's literals.
#[derive(Debug, Clone)]
pub struct Redactor {
    literals: Vec<Vec<u8>>,
    /// Per byte value: `TOKEN_BIT`, and `LITERAL_BIT` where a literal starts.
    class: [u8; 256],
}

impl Redactor {
    pub fn new(literals: &[String]) -> Redactor {
        let mut class = [0u8; 256];
        for (c, k) in class.iter_mut().enumerate() {
            if TOKEN[c] {
                *k = TOKEN_BIT;
            }
        }
        let literals: Vec<Vec<u8>> = literals
            .iter()
            .filter(|l| !l.is_empty())
            .map(|l| l.as_bytes().to_vec())
            .collect();
        for l in &literals {
            class[l[0] as usize] |= LITERAL_BIT;
        }
        Redactor { literals, class }
    }

    /// The text with every secret replaced by `[REDACTED:kind]`; borrowed
    /// when there is nothing to mask.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let found = self.find(text);
        if found.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for f in found {
            out.push_str(&text[last..f.start]);
            out.push_str("[REDACTED:");
            out.push_str(f.kind);
            out.push(']');
            last = f.end;
        }
        out.push_str(&text[last..]);
        Cow::Owned(out)
    }

    /// Every secret in the text, in order, not overlapping.
    pub fn find(&self, text: &str) -> Vec<Found> {
        let b = text.as_bytes();
        let mut found = Vec::new();
        let mut i = 0;
        while i < b.len() {
            i = self.run_end(b, i, false, &mut found);
            let start = i;
            i = self.run_end(b, i, true, &mut found);
            if i - start >= MIN_WORD {
                word(b, start, i, &mut found);
            }
        }
        resolve_overlaps(found)
    }

    /// The end of the run of token bytes (`token`) or of separator bytes
    /// (`!token`) that starts at `i`, checking for literals on the way.
    ///
    /// Unrolled by four: the loop header is where wasm engines check their
    /// deadline, so fewer iterations make the plug's scan nearly as fast as
    /// the native one.
    #[inline(always)]
    fn run_end(&self, b: &[u8], mut i: usize, token: bool, found: &mut Vec<Found>) -> usize {
        let class = &self.class;
        let want = if token { TOKEN_BIT } else { 0 };
        macro_rules! step {
            ($at:expr) => {{
                let k = class[b[$at] as usize];
                if k & LITERAL_BIT != 0 {
                    self.literal_at(b, $at, found);
                }
                if k & TOKEN_BIT != want {
                    return $at;
                }
            }};
        }
        while i + 8 <= b.len() {
            step!(i);
            step!(i + 1);
            step!(i + 2);
            step!(i + 3);
            step!(i + 4);
            step!(i + 5);
            step!(i + 6);
            step!(i + 7);
            i += 8;
        }
        while i < b.len() {
            step!(i);
            i += 1;
        }
        i
    }

    fn literal_at(&self, b: &[u8], i: usize, found: &mut Vec<Found>) {
        for l in &self.literals {
            if b[i..].starts_with(l) {
                found.push(Found {
                    start: i,
                    end: i + l.len(),
                    kind: "literal",
                });
            }
        }
    }

    /// Where a chunk that is not the last of its stream should be cut: the
    /// bytes from here on may be the start of a secret that continues in the
    /// next chunk. `text.len()` when nothing needs holding back.
    pub fn hold_back_from(&self, text: &str) -> usize {
        let b = text.as_bytes();
        let n = b.len();
        let mut cut = n;
        // A word running to the end may continue.
        while cut > 0 && TOKEN[b[cut - 1] as usize] {
            cut -= 1;
        }
        // A literal may be cut in two.
        for l in &self.literals {
            for k in (1..l.len().min(n + 1)).rev() {
                if b.ends_with(&l[..k]) {
                    cut = cut.min(n - k);
                    break;
                }
            }
        }
        // A private key block may still be open.
        if let Some(begin) = rfind(b, PEM_BEGIN)
            && pem_end(b, begin).is_none()
        {
            cut = cut.min(begin);
        }
        // Never hold more than MAX_HOLD; keep the cut on a char boundary.
        let mut cut = cut.max(n.saturating_sub(MAX_HOLD));
        while !text.is_char_boundary(cut) {
            cut += 1;
        }
        cut
    }
}

/// Checks one word for the known formats: at its start, and after each
/// `=`, `:`, `/`, `@` or `,` inside it (`TOKEN=ghp_…`, `Bearer:eyJ…`).
fn word(b: &[u8], s: usize, e: usize, found: &mut Vec<Found>) {
    let w = &b[s..e];
    if w.starts_with(b"-----") {
        pem(b, s, found);
        return;
    }
    let mut has_scheme = false;
    let mut at = 0;
    loop {
        token_at(b, s + at, e, found);
        let Some(p) = w[at..]
            .iter()
            .position(|&c| matches!(c, b'=' | b':' | b'/' | b'@' | b','))
        else {
            break;
        };
        let p = at + p;
        if w[p] == b'=' {
            assignment(b, s, s + p, e, found);
        }
        if w[p..].starts_with(b"://") {
            has_scheme = true;
        }
        at = p + 1;
        if e - (s + at) < MIN_WORD {
            break;
        }
    }
    if has_scheme {
        connection_string(b, s, e, found);
    }
}

/// The known token formats that can start at `i` (the word ends at `e`).
fn token_at(b: &[u8], i: usize, e: usize, found: &mut Vec<Found>) {
    let t = &b[i..e];
    let mut push = |len: usize, kind: &'static str| {
        found.push(Found {
            start: i,
            end: i + len,
            kind,
        })
    };
    let run = |from: usize, ok: fn(u8) -> bool| {
        t[from.min(t.len())..]
            .iter()
            .take_while(|&&c| ok(c))
            .count()
    };
    let alnum = |c: u8| c.is_ascii_alphanumeric();
    let upper_digit = |c: u8| c.is_ascii_uppercase() || c.is_ascii_digit();
    let b64url = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'-';
    let word_char = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    match t.first() {
        Some(b'A') => {
            if (t.starts_with(b"AKIA")
                || t.starts_with(b"ASIA")
                || t.starts_with(b"ABIA")
                || t.starts_with(b"ACCA"))
                && run(4, upper_digit) >= 16
            {
                push(20, "aws-access-key");
            } else if t.starts_with(b"AIza") && run(4, b64url) >= 35 {
                push(39, "google-api-key");
            }
        }
        Some(b'g') => {
            if t.len() >= 40
                && t[0..2] == *b"gh"
                && matches!(t[2], b'p' | b'o' | b'u' | b's' | b'r')
                && t[3] == b'_'
                && run(4, alnum) >= 36
            {
                push(4 + run(4, alnum), "github-token");
            } else if t.starts_with(b"github_pat_") && run(11, word_char) >= 22 {
                push(11 + run(11, word_char), "github-token");
            } else if t.starts_with(b"glpat-") && run(6, b64url) >= 20 {
                push(6 + run(6, b64url), "gitlab-token");
            }
        }
        Some(b'x')
            if t.len() > 5
                && t.starts_with(b"xox")
                && matches!(t[3], b'b' | b'p' | b'a' | b'r' | b's')
                && t[4] == b'-' =>
        {
            let n = run(5, |c| c.is_ascii_alphanumeric() || c == b'-');
            if n >= 10 {
                push(5 + n, "slack-token");
            }
        }
        Some(b's') => {
            if t.starts_with(b"sk-ant-") && run(7, b64url) >= 20 {
                push(7 + run(7, b64url), "anthropic-key");
            } else if t.starts_with(b"sk-") && run(3, b64url) >= 20 {
                push(3 + run(3, b64url), "openai-key");
            } else if t.starts_with(b"sk_live_") && run(8, alnum) >= 20 {
                push(8 + run(8, alnum), "stripe-key");
            }
        }
        Some(b'r') if t.starts_with(b"rk_live_") && run(8, alnum) >= 20 => {
            push(8 + run(8, alnum), "stripe-key");
        }
        Some(b'e') if t.starts_with(b"eyJ") => {
            let h = run(0, b64url);
            if h > 10 && t.get(h) == Some(&b'.') {
                let p = run(h + 1, b64url);
                if p > 10 && t.get(h + 1 + p) == Some(&b'.') {
                    let sig = run(h + 2 + p, b64url);
                    push(h + 2 + p + sig, "jwt");
                }
            }
        }
        _ => {}
    }
}

/// `KEY=value` where the key names a secret (`DB_PASSWORD=…`, `api_key=…`).
fn assignment(b: &[u8], key_start: usize, eq: usize, e: usize, found: &mut Vec<Found>) {
    let key = &b[key_start..eq];
    let value_len = e - eq - 1;
    if value_len < 6 || key.len() > 64 {
        return;
    }
    let lower: Vec<u8> = key.iter().map(|c| c.to_ascii_lowercase()).collect();
    if SECRET_KEYS
        .iter()
        .any(|k| lower.windows(k.len()).any(|w| w == *k))
    {
        found.push(Found {
            start: eq + 1,
            end: e,
            kind: "secret-assignment",
        });
    }
}

/// `scheme://user:password@host…`: masks the password only.
fn connection_string(b: &[u8], s: usize, e: usize, found: &mut Vec<Found>) {
    let w = &b[s..e];
    let Some(sep) = find(w, b"://") else { return };
    // The scheme is the tail of the word before `://` (`DATABASE_URL=postgres://…`).
    let scheme_start = w[..sep]
        .iter()
        .rposition(|c| !(c.is_ascii_alphanumeric() || *c == b'+'))
        .map_or(0, |p| p + 1);
    let scheme: Vec<u8> = w[scheme_start..sep]
        .iter()
        .map(|c| c.to_ascii_lowercase())
        .collect();
    if !DB_SCHEMES.contains(&scheme.as_slice()) {
        return;
    }
    let rest = sep + 3;
    let authority_end = w[rest..]
        .iter()
        .position(|&c| c == b'/')
        .map_or(w.len(), |p| rest + p);
    let Some(at) = w[rest..authority_end].iter().rposition(|&c| c == b'@') else {
        return;
    };
    let at = rest + at;
    let Some(colon) = w[rest..at].iter().position(|&c| c == b':') else {
        return;
    };
    let colon = rest + colon;
    if at > colon + 1 {
        found.push(Found {
            start: s + colon + 1,
            end: s + at,
            kind: "connection-password",
        });
    }
}

/// A whole `-----BEGIN … PRIVATE KEY-----` … `-----END … PRIVATE KEY-----` block.
fn pem(b: &[u8], s: usize, found: &mut Vec<Found>) {
    if !b[s..].starts_with(PEM_BEGIN) {
        return;
    }
    let line_end = b[s..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |p| s + p);
    if find(&b[s..line_end], PEM_TAIL).is_none() {
        return;
    }
    if let Some(end) = pem_end(b, s) {
        found.push(Found {
            start: s,
            end,
            kind: "private-key",
        });
    }
}

/// The end of the private key block that begins at `begin`, if it is complete.
fn pem_end(b: &[u8], begin: usize) -> Option<usize> {
    let end = begin + find(&b[begin..], PEM_END)?;
    let tail = end + find(&b[end..], PEM_TAIL)?;
    Some(tail + PEM_TAIL.len())
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

/// Keeps the earliest (then longest, then most specific) of overlapping finds.
fn resolve_overlaps(mut found: Vec<Found>) -> Vec<Found> {
    if found.len() < 2 {
        return found;
    }
    // `KEY=ghp_…` is a GitHub token before it is a secret assignment.
    let generic = |f: &Found| f.kind == "secret-assignment";
    found.sort_by(|a, b| {
        a.start
            .cmp(&b.start)
            .then(b.end.cmp(&a.end))
            .then(generic(a).cmp(&generic(b)))
    });
    let mut kept: Vec<Found> = Vec::with_capacity(found.len());
    for f in found {
        match kept.last_mut() {
            Some(last) if f.start < last.end => last.end = last.end.max(f.end),
            _ => kept.push(f),
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redact(text: &str) -> String {
        Redactor::new(&["hunter2-literal".into()])
            .redact(text)
            .into_owned()
    }

    #[test]
    fn masks_each_known_format_with_its_kind() {
        let cases = [
            (
                "key AKIAIOSFODNN7EXAMPLE here",
                "key [REDACTED:aws-access-key] here",
            ),
            (
                "t=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 ok",
                "t=[REDACTED:github-token] ok",
            ),
            (
                "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
                "[REDACTED:github-token]",
            ),
            ("glpat-abcdefghij0123456789", "[REDACTED:gitlab-token]"),
            ("xoxb-123456789012-abcdefABCDEF", "[REDACTED:slack-token]"),
            (
                "sk-proj-abcdefghijklmnopqrstuvwxyz012345",
                "[REDACTED:openai-key]",
            ),
            (
                "sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
                "[REDACTED:anthropic-key]",
            ),
            ("sk_live_abcdefghijklmnopqrstuvwx", "[REDACTED:stripe-key]"),
            (
                "AIzaSyA-abcdefghijklmnopqrstuvwxyz01234 x",
                "[REDACTED:google-api-key] x",
            ),
            (
                "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
                "Authorization: Bearer [REDACTED:jwt]",
            ),
            (
                "DATABASE_URL=postgres://app:s3cr3tPass@db.internal:5432/app",
                "DATABASE_URL=postgres://app:[REDACTED:connection-password]@db.internal:5432/app",
            ),
            (
                "export DB_PASSWORD=correcthorse",
                "export DB_PASSWORD=[REDACTED:secret-assignment]",
            ),
            (
                "GITHUB_TOKEN=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
                "GITHUB_TOKEN=[REDACTED:github-token]",
            ),
            ("the hunter2-literal value", "the [REDACTED:literal] value"),
        ];
        for (input, want) in cases {
            assert_eq!(redact(input), want, "input: {input}");
        }
    }

    #[test]
    fn masks_private_key_blocks_whole() {
        let text = "before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----\nafter";
        assert_eq!(redact(text), "before\n[REDACTED:private-key]\nafter");
    }

    #[test]
    fn leaves_prose_and_near_misses_alone() {
        for text in [
            "The quick brown fox jumps over the lazy dog, 1234567890 times.",
            "see https://example.com/path?x=1 and user@example.com",
            "ghp_short and sk-short and AKIA123",
            "password=short",
            "public key: -----BEGIN PUBLIC KEY----- abc -----END PUBLIC KEY-----",
        ] {
            assert_eq!(redact(text), text);
        }
    }

    #[test]
    fn holds_back_what_may_continue() {
        let r = Redactor::new(&["hunter2-literal".into()]);
        assert_eq!(r.hold_back_from("token is ghp_aBcD"), "token is ".len());
        assert_eq!(r.hold_back_from("done. "), "done. ".len());
        assert_eq!(r.hold_back_from("pass hunter2-li"), "pass ".len());
        let open = "x\n-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n";
        assert_eq!(r.hold_back_from(open), 2);
    }
}
