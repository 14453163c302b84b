//! Values whose own prefix says they are a password in clear, or one any
//! reader can decode, whatever name or keyword stands before them:
//! Dovecot's and OpenLDAP's `{PLAIN}…`, `{CLEARTEXT}…`, `{CLEAR}…`
//! (`user@example.com:{PLAIN}pw:5000:5000::…` in a passwd-file,
//! `userPassword: {CLEARTEXT}pw`), and Junos's `"$9$…"`, which a public
//! algorithm reverses (`set system ntp authentication-key 1 type sha256
//! value "$9$…"`), Jetty's obfuscated `OBF:…` (its `Password` class
//! prints the clear text back), and a DNS TSIG key written `hmac-sha256:name:secret`
//! (`nsupdate -y …`, the comment `keymgr -t` prints). Hashed schemes
//! (`{SSHA}`, `{ARGON2ID}`, `$6$`) stay.

use crate::Found;

/// The schemes that store a password as it is.
const SCHEMES: [&[u8]; 4] = [b"{PLAIN}", b"{CLEARTEXT}", b"{CLEAR}", b"{PLAINTEXT}"];

/// Longest value read.
const MAX: usize = 256;
/// Shortest value masked.
const MIN: usize = 4;
/// How far back from a long word its value's start is looked for (a
/// password's short first words and symbols: `{CLEARTEXT}Thistle?tundra787`).
const MAX_LEAD: usize = 32;

/// Whether the word at `s` may follow such a prefix, or a password's
/// symbol after one: the one-byte test made for every long word.
#[inline(always)]
pub(crate) fn may_follow(b: &[u8], s: usize) -> bool {
    s >= 4
        && matches!(
            b[s - 1],
            b'}' | b'$' | b'!' | b'#' | b'^' | b'*' | b'&' | b'?'
        )
}

/// The value that the word at `s` starts or continues, if a prefix before
/// it says what it is.
#[inline(never)]
pub(crate) fn at_word(b: &[u8], s: usize, found: &mut Vec<Found>) {
    let v = if b[s - 1] == b'$' {
        s
    } else {
        // Back over the value's first bytes to the scheme's `}`.
        let floor = s.saturating_sub(MAX_LEAD);
        let mut v = s;
        while v > floor && !matches!(b[v - 1], b'}' | b' ' | b'\t' | b'\n' | b'"' | b'\'') {
            v -= 1;
        }
        v
    };
    if let Some((start, end)) = value_after_prefix(b, v)
        && end >= s
    {
        found.push(Found {
            start,
            end,
            kind: "secret-assignment",
        });
    }
}

/// The value that starts at `v`, if a prefix ends there: from `v` for a
/// clear scheme, from the `$9$` for Junos; closed, long enough and no
/// stand-in.
fn value_after_prefix(b: &[u8], v: usize) -> Option<(usize, usize)> {
    let (start, end) = match prefix_before(b, v)? {
        Prefix::Clear => {
            let end = clear_end(b, v)?;
            (v, end)
        }
        Prefix::Junos => {
            // On its line: a quote on a later one closes something else.
            let close = memchr::memchr2(b'"', b'\n', &b[v..(v + MAX).min(b.len())])?;
            if b[v + close] != b'"' {
                return None;
            }
            (v - 3, v + close)
        }
    };
    let value = &b[start..end];
    (end - v >= MIN && !crate::placeholders::stand_in(value)).then_some((start, end))
}

enum Prefix {
    Clear,
    Junos,
}

/// The prefix that ends at `v`, if any.
fn prefix_before(b: &[u8], v: usize) -> Option<Prefix> {
    let head = &b[..v];
    if head.ends_with(b"}") {
        return SCHEMES
            .iter()
            // (Upper case, as Dovecot and OpenLDAP write them: a format
            // string's `{plaintext}` is code.)
            .any(|s| head.ends_with(s))
            .then_some(Prefix::Clear);
    }
    // Quoted, as Junos prints it: a bare `$9$` may be a shell's text.
    (head.ends_with(b"\"$9$")).then_some(Prefix::Junos)
}

/// Where a clear value that starts at `v` ends: before a passwd-file's
/// `:`, a blank, a quote, a tag, the line's or the text's end (a stream
/// holds back one the cut may split: see [`open_at`]); `None` past [`MAX`].
fn clear_end(b: &[u8], v: usize) -> Option<usize> {
    let limit = (v + MAX).min(b.len());
    match b[v..limit].iter().position(|&c| {
        matches!(
            c,
            b':' | b' ' | b'\t' | b'\r' | b'\n' | b'"' | b'\'' | b'<' | b','
        )
    }) {
        Some(p) => Some(v + p),
        None => (limit == b.len()).then_some(limit),
    }
}

/// The secret of a TSIG key in the word `[s, e)` (`hmac-sha256:name:…`):
/// base64 after the second `:`. (One word: a stream holds it back whole.)
#[inline(never)]
pub(crate) fn tsig(b: &[u8], s: usize, e: usize, found: &mut Vec<Found>) {
    let w = &b[s..e];
    let Some(alg_end) = memchr::memchr(b':', w) else {
        return;
    };
    let algorithm = &w[b"hmac-".len()..alg_end];
    if !matches!(
        algorithm,
        b"md5" | b"sha1" | b"sha224" | b"sha256" | b"sha384" | b"sha512"
    ) {
        return;
    }
    let Some(name_len) = memchr::memchr(b':', &w[alg_end + 1..]) else {
        return;
    };
    let v = alg_end + 1 + name_len + 1;
    let secret = &w[v..];
    if secret.len() >= 16
        && secret.iter().all(|&c| crate::b64(c) || c == b'=')
        && crate::mixed(secret)
    {
        found.push(Found {
            start: s + v,
            end: e,
            kind: "secret-assignment",
        });
    }
}

/// Jetty's obfuscated password in the word `[s, e)` (`OBF:1hfg1kzo…`):
/// masked whole, prefix and all, as one reading gives the password back.
#[inline(never)]
pub(crate) fn jetty_obfuscated(b: &[u8], s: usize, e: usize, found: &mut Vec<Found>) {
    let body = &b[s + 4..e];
    let digits = body
        .iter()
        .take_while(|c| c.is_ascii_digit() || c.is_ascii_lowercase())
        .count();
    // Four base-36 digits a character (six for one past Latin-1).
    if digits >= 8 && digits % 2 == 0 {
        found.push(Found {
            start: s,
            end: s + 4 + digits,
            kind: "secret-assignment",
        });
    }
}

/// Where a value with such a prefix that the cut may split starts, on the
/// cut's line: a stream holds it back until it is closed.
#[inline(never)]
pub(crate) fn open_at(b: &[u8], cut: usize) -> Option<usize> {
    let line = crate::line_start(b, cut);
    let from = line.max(cut.saturating_sub(MAX + 16));
    let head = &b[from..cut];
    // A Junos prefix cut in two: masked with its value.
    for partial in [&b"\"$"[..], b"\"$9"] {
        if head.ends_with(partial) {
            return Some(cut - partial.len() + 1);
        }
    }
    // The last prefix's end before the cut: a `}` or a `$9$`.
    let mut at = head.len();
    while let Some(p) = memchr::memrchr2(b'}', b'$', &head[..at]) {
        let v = from + p + 1;
        match prefix_before(b, v) {
            Some(Prefix::Clear) if clear_end(&b[..cut], v) == Some(cut) => return Some(v),
            Some(Prefix::Junos) if !b[v..cut].contains(&b'"') => return Some(v - 3),
            _ => {}
        }
        at = p;
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::Redactor;

    /// (text, what is masked)
    const CASES: &[(&str, &[&str])] = &[
        (
            "dpatel@tallgrass.co:{PLAIN}wS4mKweyI_jF+A:5000:5000::/var/vmail/tallgrass.co/dpatel::userdb_quota_rule=*:storage=2G",
            &["wS4mKweyI_jF+A"],
        ),
        (
            "noor@example.org:{PLAIN}Pine+fable8655:5000:5000::/var/vmail/noor",
            &["Pine+fable8655"],
        ),
        (
            "userPassword: {CLEARTEXT}Thistle?tundra787",
            &["Thistle?tundra787"],
        ),
        (
            "bob:{PLAIN}-pBX~VnPyA229:1001:1001::/home/bob",
            &["-pBX~VnPyA229"],
        ),
        // Hashes stay.
        (
            "mrossi@example.org:{SSHA}Qk0yW4zT2nVhN8bD1uL6eP9mR3sX:5000:5000::/var/vmail/mrossi",
            &[],
        ),
        (
            "rw@example.org:{ARGON2ID}$argon2id$v=19$m=65536,t=3,p=1$LgvB5gfyLd3hNzzS4yPXpw$UmkcpFZn354YIFiJWuOTnNdLzTSoaC0GdqGRZRKH1sc:5000",
            &[],
        ),
        // Stand-ins stay.
        (
            "user@example.org:{PLAIN}changeme:5000:5000::/home/user",
            &[],
        ),
        (
            "set system ntp authentication-key 1 type sha256 value \"$9$2d4JDfTFt0IApESyeLXaJGiqPTz6u0IFnyevWdVgoJUDk.PQ\"",
            &["$9$2d4JDfTFt0IApESyeLXaJGiqPTz6u0IFnyevWdVgoJUDk.PQ"],
        ),
        // A format string's placeholder is code.
        ("out = f\"{plaintext}.encrypted\"", &[]),
        // A quote on a later line closes something else.
        (
            "authentication-key \"$9$2d4JDfTFt0IApESyeLXa\nJGiqPTz6u0IFny\"; ## SECRET-DATA",
            &[],
        ),
        // Unquoted, in a shell's text, a `$9$` is no Junos value.
        ("echo $9$HOME_DIRECTORY_VALUE", &[]),
        (
            "$ nsupdate -d -y hmac-sha256:ddns:j3KADV3SXK1g2SUjZT7mLMM5XlLfCsFAO+NpAJlzDQg= <<'EOF'",
            &["j3KADV3SXK1g2SUjZT7mLMM5XlLfCsFAO+NpAJlzDQg="],
        ),
        (
            "# hmac-sha512:xfr-par1:94SPfDoy4Bc3/W4f6t+aMbwt3u6MBnF4/SbwWynLSIZ/xJtpVqi+Fwte5Keoc32UuLLE9g8HRemVJVDB/7Q7kQ==",
            &[
                "94SPfDoy4Bc3/W4f6t+aMbwt3u6MBnF4/SbwWynLSIZ/xJtpVqi+Fwte5Keoc32UuLLE9g8HRemVJVDB/7Q7kQ==",
            ],
        ),
        (
            "releasebot: OBF:1hfg1kzo1pvv1qh81kmu1nzh1zev1zef1nwx1kjs1qk21pyr1kze1hfm,admin,user",
            &["OBF:1hfg1kzo1pvv1qh81kmu1nzh1zev1zef1nwx1kjs1qk21pyr1kze1hfm"],
        ),
        // Jetty's checksums stay.
        ("support: MD5:9009354881af51016a2e52d0c288b140,user", &[]),
        // The algorithm's name alone, in a record: no key.
        ("ddns. 0 ANY TSIG hmac-sha256. 1713600158 300 32", &[]),
    ];

    #[test]
    fn a_prefix_that_says_clear_text_masks_its_value_whole_and_streamed() {
        let r = Redactor::new(&[]);
        for (text, want) in CASES {
            let found: Vec<&str> = r.find(text).iter().map(|f| &text[f.start..f.end]).collect();
            assert_eq!(&found, want, "{text}");
            // Cut at every byte: a chunk's end never splits a value (what
            // is sent holds all of it or none).
            for w in *want {
                let at = text.find(w).unwrap();
                for cut in 1..=text.len() {
                    let hold = r.hold_back_from(&text[..cut]);
                    assert!(
                        hold <= at || hold >= at + w.len(),
                        "{text}: cut at {cut} sends {:?}",
                        &text[..hold]
                    );
                }
            }
        }
    }
}
