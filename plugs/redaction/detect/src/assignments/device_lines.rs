//! A secret in a network device's configuration, where a keyword and a blank
//! come before it and nothing else says what it is: Cisco IOS (`username
//! ops password 7 0822455D0A16`, `key-string 7 …`, `snmp-server community
//! R3adOnly RO`, `crypto isakmp key … address …`), Junos (`secret
//! "$9$…";`, `pre-shared-key ascii-text "$9$…"`), VyOS (`set … password
//! 'X'`), FortiGate (`set psksecret X`), HAProxy (`insecure-password X`).
//!
//! The words before the keyword on its line must be a configuration's
//! (names, numbers, addresses; a device's prompt before them). Cisco's type
//! before the value says what it is: 0 clear text, 6 and 7 reversible, 5, 8
//! and 9 hashes (left alone). Junos's `$9$` is reversible too: masked
//! quoted after such a keyword. A bare value needs two kinds of characters
//! (`hunter` in prose is a word; `hunter2x` a password).

use super::values::{MAX_VALUE, MIN_VALUE, plain};
use crate::Found;

/// Longest part of a line read before a keyword.
const MAX_BEFORE: usize = 160;

/// Whether the word `[s, e)` is such a keyword, a blank after it: the cheap
/// test made for every word.
#[inline(always)]
pub(crate) fn may_be(b: &[u8], s: usize, e: usize) -> bool {
    // One compare at most: the length and first byte pick the keyword.
    let keyword: &[u8] = match (e - s, b[s]) {
        (3, b'k') => b"key",
        (6, b's') => b"secret",
        (8, b'p') => b"password",
        (9, b'c') => b"community",
        (9, b'p') => b"psksecret",
        (10, b'k') => b"key-string",
        (10, b'p') => b"passphrase",
        (14, b'p') => b"pre-shared-key",
        (17, b'i') => b"insecure-password",
        (18, b'a') => b"authentication-key",
        _ => return false,
    };
    b.get(e) == Some(&b' ') && &b[s..e] == keyword
}

/// Whether a keyword may end before the value at `v`: the byte before its
/// blank (and quote) ends `key`, `secret`, a type digit or `ascii-text`.
/// The cheap test made for most long words.
#[inline(always)]
pub(crate) fn may_follow(b: &[u8], v: usize) -> bool {
    let quote = usize::from(matches!(b[v - 1], b'"' | b'\''));
    v >= 3 + quote
        && b[v - 1 - quote] == b' '
        && matches!(b[v - 2 - quote], b'y' | b't' | b'0' | b'6' | b'7')
}

/// The value that starts at `v`, after a quote or a blank, if a keyword
/// (and a type) comes before it: read as [`at_keyword`] reads it.
#[inline(never)]
pub(crate) fn at_value(b: &[u8], v: usize, found: &mut Vec<Found>) {
    let quote = usize::from(matches!(b[v - 1], b'"' | b'\''));
    let Some(mut blank) = (v - quote).checked_sub(1) else {
        return;
    };
    if b[blank] != b' ' {
        return;
    }
    // Cisco's type (`password 7 …`) or Junos's `ascii-text`.
    if blank >= 2 && b[blank - 1].is_ascii_digit() && b[blank - 2] == b' ' {
        blank -= 2;
    } else if b[..blank].ends_with(b" ascii-text") {
        blank -= b" ascii-text".len();
    }
    let floor = blank.saturating_sub(18);
    let s = b[floor..blank]
        .iter()
        .rposition(|&c| c == b' ' || c == b'\n')
        .map_or(floor, |p| floor + p + 1);
    if may_be(b, s, blank) {
        at_keyword(b, s, blank, found);
    }
}

/// The value after the keyword `[s, e)`, masked where the line is a
/// configuration's and the value looks like one.
#[inline(never)]
pub(crate) fn at_keyword(b: &[u8], s: usize, e: usize, found: &mut Vec<Found>) {
    let Some(v) = value_after(b, s, e) else {
        return;
    };
    let Some(end) = v.end else {
        return;
    };
    let value = &b[v.start..end];
    // BIND's `key "xfr-waw1" {`: a key's name, its secret inside the block.
    if &b[s..e] == b"key" && b[end..].starts_with(if v.quoted { b"\" {" } else { b" {" }) {
        return;
    }
    let reversible = v.quoted && !v.typed && value.starts_with(b"$9$") && value.len() > 8;
    let symbol_first =
        v.quoted && matches!(value[0], b'!' | b'?' | b'*' | b'&' | b'#' | b'^' | b'~');
    let secret = reversible
        || ((plain(value) || (symbol_first && plain(&value[1..])))
            && (v.quoted || crate::mixed(value))
            // A column's type in a table's DDL (`password VARCHAR(255),`).
            && !value.iter().any(|c| matches!(c, b'(' | b')' | b','))
            // OpenVPN's `secret client1.key`: the file that holds it.
            && !super::values::file_name(value)
            && !crate::placeholders::stand_in(value));
    if secret {
        found.push(Found {
            start: v.start,
            end,
            kind: "secret-assignment",
        });
    }
}

/// Where a value starts that `cut` may cut: one after such a keyword on the
/// cut's line that has not ended before it.
#[inline(never)]
pub(crate) fn open_at(b: &[u8], cut: usize) -> Option<usize> {
    let line = crate::line_start_within(b, cut, MAX_BEFORE + MAX_VALUE)?;
    let mut open: Option<usize> = None;
    // Each word of the line, once: a keyword's is tested as the word loop
    // tests it.
    let mut i = line;
    while i < cut {
        let s = i;
        while i < cut && b[i] != b' ' {
            i += 1;
        }
        let e = i;
        i += 1;
        if e == s || e >= cut || !may_be(b, s, e) {
            continue;
        }
        // What follows the keyword may still be its type, or the value.
        if e + 1 >= cut {
            open = Some(open.map_or(s, |o| o.min(s)));
            continue;
        }
        // (After `key`, the ` {` of a block may still come.)
        let looked = |v: &After, end: usize| end + if v.quoted { 3 } else { 2 };
        if let Some(v) = value_after(&b[..cut], s, e)
            && v.end.is_none_or(|end| looked(&v, end) > cut)
        {
            open = Some(open.map_or(v.start, |o| o.min(v.start)));
        }
    }
    open
}

/// A value after a keyword: where it starts, where it ends (`None`: a
/// quote not closed on its line, or the text's end reached), whether it is
/// quoted and whether a type came before it.
struct After {
    start: usize,
    end: Option<usize>,
    quoted: bool,
    typed: bool,
}

/// The value after the keyword `[s, e)` on a configuration's line.
fn value_after(b: &[u8], s: usize, e: usize) -> Option<After> {
    if !configuration_before(b, s) {
        return None;
    }
    let n = b.len();
    let mut i = e + 1;
    let mut typed = false;
    // Cisco's type: 0, 6 or 7 before a value; 5, 8 and 9 before a hash.
    if i + 1 < n && b[i].is_ascii_digit() && b[i + 1] == b' ' {
        if !matches!(b[i], b'0' | b'6' | b'7') {
            return None;
        }
        i += 2;
        typed = true;
    } else if b[i..].starts_with(b"ascii-text ") {
        i += b"ascii-text ".len();
    }
    if i >= n {
        return Some(After {
            start: i,
            end: None,
            quoted: false,
            typed,
        });
    }
    let limit = (i + MAX_VALUE).min(n);
    if matches!(b[i], b'"' | b'\'') {
        let q = b[i];
        let start = i + 1;
        let close = b[start..limit]
            .iter()
            .position(|&c| c == q || c == b'\n')
            .map(|p| start + p);
        let end = match close {
            Some(c) if b[c] == q => Some(c),
            Some(_) => return None,
            None => None,
        };
        return Some(After {
            start,
            end: end.filter(|&end| end - start >= MIN_VALUE),
            quoted: true,
            typed,
        });
    }
    let start = i;
    // (At the text's end: a stream holds such a value back first.)
    let stop = b[start..limit]
        .iter()
        .position(|&c| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b';' | b'{'))
        .map(|p| start + p)
        .or((limit == n).then_some(n));
    Some(After {
        start,
        end: stop.filter(|&end| end > start),
        quoted: false,
        typed,
    })
}

/// Whether the words before `s` on its line are a configuration's: names,
/// numbers and addresses one blank apart (after blanks, and after a
/// device's prompt: `fw-par1-a (to-sin1) # `, `vyos@edge# `).
fn configuration_before(b: &[u8], s: usize) -> bool {
    let Some(line) = crate::line_start_within(b, s, MAX_BEFORE) else {
        return false;
    };
    let mut head = &b[line..s];
    if let Some(p) = head.windows(2).rposition(|w| w == b"# " || w == b"> ") {
        head = &head[p + 2..];
    }
    let head = head.trim_ascii_start();
    let words = || head.split(|&c| c == b' ').filter(|w| !w.is_empty());
    // A sentence's or a tool's message, not a configuration: a capital
    // first (`The … key`), a label (`gpg: key …`), a word that says whose
    // key it is (`public key 5EFC…`, `the key`).
    let prose = head.first().is_some_and(u8::is_ascii_uppercase)
        || words().any(|w| w.ends_with(b":"))
        || words()
            .next_back()
            .is_some_and(|w| NOT_BEFORE.iter().any(|n| w.eq_ignore_ascii_case(n)));
    !prose
        && !head.windows(2).any(|w| w == b"  ")
        && words().count() <= 12
        && head.iter().all(|&c| {
            c.is_ascii_alphanumeric() || matches!(c, b' ' | b'-' | b'_' | b'.' | b':' | b'/')
        })
}

/// Words before a keyword that make it no setting's: whose key it is, or
/// prose's articles.
const NOT_BEFORE: &[&[u8]] = &[
    // A command's verb before a secret's name (`kubectl get secret db-creds2`).
    b"get",
    b"describe",
    b"delete",
    b"create",
    b"edit",
    b"list",
    b"rotate",
    b"read",
    b"show",
    b"generate",
    b"add",
    b"remove",
    b"rm",
    b"inspect",
    b"view",
    b"cat",
    b"echo",
    b"export",
    b"public",
    b"pub",
    b"host",
    b"signing",
    b"rsa",
    b"dsa",
    b"ecdsa",
    b"ed25519",
    b"gpg",
    b"pgp",
    b"ssh",
    b"the",
    b"a",
    b"an",
    b"this",
    b"that",
    b"your",
    b"my",
    b"our",
    b"its",
    b"new",
    b"old",
    b"same",
    b"no",
    b"any",
    b"which",
    b"checking",
    b"using",
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The keywords [`may_be`] knows, each picked by its length and first byte.
    const KEYWORDS: &[&[u8]] = &[
        b"key",
        b"secret",
        b"password",
        b"community",
        b"psksecret",
        b"key-string",
        b"passphrase",
        b"pre-shared-key",
        b"insecure-password",
        b"authentication-key",
    ];

    #[test]
    fn the_cheap_test_knows_every_keyword() {
        for k in KEYWORDS {
            let line = [k, &b" 7 0822455D0A16"[..]].concat();
            assert!(may_be(&line, 0, k.len()), "{}", String::from_utf8_lossy(k));
        }
        assert!(!may_be(b"keys x", 0, 4));
        assert!(!may_be(b"key\n", 0, 3));
    }
}
