//! What stands in for a secret and is none: a value here is never masked as
//! the value of a name or as a URL's password, whatever it is named. One rule
//! for every context, applied before masking:
//!
//! - **a reference** to where the secret is kept: `$TOKEN`, `${DB_PASS}`,
//!   `{{ .Values.password }}`, `%(password)s`, `<your-token>`, `#{secret}`;
//! - **a mask** a tool or a person already applied: a run of three `*`, `•`
//!   or `.` (`********`, `gho_****`, `sk-...abcd`, `•••`), an ellipsis, or
//!   one character repeated after an optional prefix (`xxxxxxxx`, `0000…`,
//!   `AAAA…`, `ghp_xxxxxxxx`);
//! - **an example word** (its letters, case and separators aside, hold
//!   `changeme`, `replaceme`, `placeholder`, `example`, `dummy`, `fake`,
//!   `sample`, `redacted`, `filtered`, `omitted`, `sensitive`, `notreal`),
//!   or a value that begins `your` or ends `here` as a word (`your-api-key`,
//!   `paste-key-here`);
//! - **a default** that the software ships with and documents, so that it
//!   hides nothing: `postgres`, `root`, `guest`, `admin`, `changeit`,
//!   `toor`, `mysql`, `redis`, `password`, `secret`, `pass`, `test`.
//!
//! It never looks at randomness: a weak real password (`Summer2024!`) is
//! masked like any other.

/// Words that make a value an example (compared on lower-case letters and
/// digits only).
const EXAMPLE_WORDS: [&[u8]; 13] = [
    b"changeme",
    b"replaceme",
    b"placeholder",
    b"example",
    b"dummy",
    b"fake",
    b"sample",
    b"redacted",
    b"filtered",
    b"omitted",
    b"sensitive",
    b"notreal",
    b"insertyour",
];

/// Documented defaults (the whole value, any case).
const DEFAULTS: [&[u8]; 12] = [
    b"postgres",
    b"root",
    b"guest",
    b"admin",
    b"changeit",
    b"toor",
    b"mysql",
    b"redis",
    b"password",
    b"secret",
    b"pass",
    b"test",
];

/// Whether `v` only stands in for a secret (see the module's rule).
pub(crate) fn stand_in(v: &[u8]) -> bool {
    !v.is_empty() && (reference(v) || masked(v) || example(v) || default(v))
}

fn reference(v: &[u8]) -> bool {
    let (first, last) = (v[0], v[v.len() - 1]);
    (first == b'$'
        && v.len() > 1
        && (v[1].is_ascii_alphabetic() || matches!(v[1], b'_' | b'{' | b'(')))
        || v.starts_with(b"{{")
        || v.starts_with(b"%(")
        || v.starts_with(b"#{")
        || v.starts_with(b"%{")
        || v.starts_with(b"<%")
        || (first == b'<' && last == b'>')
        || (first == b'[' && last == b']')
        || (first == b'(' && last == b')')
}

fn masked(v: &[u8]) -> bool {
    const BULLET: &[u8] = "•".as_bytes();
    const ELLIPSIS: &[u8] = "…".as_bytes();
    if v.windows(3).any(|w| w == b"***" || w == b"...")
        || v.windows(ELLIPSIS.len()).any(|w| w == ELLIPSIS)
        || v.windows(BULLET.len() * 2)
            .any(|w| w == [BULLET, BULLET].concat())
    {
        return true;
    }
    // One character repeated, after an optional prefix (`ghp_`, `sk-`).
    let body = match v.iter().rposition(|&c| c == b'_' || c == b'-') {
        Some(p) if p + 1 < v.len() && p <= 12 => &v[p + 1..],
        _ => v,
    };
    body.len() >= 4 && body.iter().all(|&c| c == body[0])
}

fn example(v: &[u8]) -> bool {
    let mut letters = [0u8; 64];
    let mut n = 0;
    for &c in v.iter().take(256) {
        if c.is_ascii_alphanumeric() && n < letters.len() {
            letters[n] = c.to_ascii_lowercase();
            n += 1;
        }
    }
    let letters = &letters[..n];
    if EXAMPLE_WORDS
        .iter()
        .any(|w| letters.windows(w.len()).any(|x| x == *w))
    {
        return true;
    }
    // `your-api-key`, `YOUR_TOKEN`, `paste-key-here`: words, not a value.
    let words = v
        .iter()
        .all(|&c| c.is_ascii_alphabetic() || matches!(c, b'_' | b'-' | b' ' | b'.'));
    let lower = |s: &[u8], w: &[u8]| s.len() >= w.len() && s.eq_ignore_ascii_case(w);
    words
        && ((v.len() > 4 && lower(&v[..4], b"your") && !v[4].is_ascii_lowercase())
            || (v.len() > 5
                && lower(&v[v.len() - 4..], b"here")
                && matches!(v[v.len() - 5], b'_' | b'-' | b' ' | b'.')))
}

fn default(v: &[u8]) -> bool {
    DEFAULTS.iter().any(|d| v.eq_ignore_ascii_case(d))
}

#[cfg(test)]
mod tests {
    use super::stand_in;

    #[test]
    fn stand_ins_are_told_from_values() {
        for v in [
            "change-me",
            "CHANGE_ME",
            "<password>",
            "${DB_PASSWORD}",
            "{{ .Values.auth.password }}",
            "********",
            "gho_************************************",
            "sk-...abcd",
            "npm_...u0vl",
            "•••••••••••",
            "xxxxxxxxxxxxxxxx",
            "00000000000000000000000000000000",
            "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "[hidden]",
            "(sensitive value)",
            "DATA+OMITTED",
            "your-api-key-here",
            "YOUR_TOKEN",
            "fake-token-for-tests",
            "dummy-secret",
            "postgres",
            "changeit",
        ] {
            assert!(stand_in(v.as_bytes()), "{v} is a stand-in");
        }
        for v in [
            "Summer2024!",
            "hunter2-Xk9",
            "glacier-lantern-meadow-tundra",
            "YourStrong!Passw0rd",
            "s3cr3t-P4ss",
            "a5glMH4im0cN7EHxiuu9JbZLS8pefdxi",
            "P@ssw0rd!2024",
            "xoxb-1234-5678-abcdefabcdef",
        ] {
            assert!(!stand_in(v.as_bytes()), "{v} is a value");
        }
    }
}
