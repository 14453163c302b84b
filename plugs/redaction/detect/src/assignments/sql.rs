//! A password set in SQL: PostgreSQL's and CockroachDB's `CREATE USER app
//! WITH PASSWORD '…'` and `ALTER ROLE … PASSWORD '…'`, SQL Server's
//! `CREATE LOGIN … WITH PASSWORD = '…'`, Neo4j's `SET PASSWORD '…'`,
//! MySQL's `IDENTIFIED BY '…'` and ClickHouse's `IDENTIFIED WITH
//! plaintext_password BY '…'`, Oracle's unquoted `IDENTIFIED BY pw`. The
//! keyword says what the literal is, whatever it looks like; a hash given
//! instead (`IDENTIFIED … AS '…'`, `ENCRYPTED PASSWORD 'SCRAM-SHA-256$…'`)
//! is told by the value's own tests.

use super::values::{MAX_VALUE, plain};
use crate::Found;

/// Symbols a password may start with, before its first word.
const SYMBOLS: &[u8] = b"!?*&#^~+";

/// Longest stretch of a line read back from a cut for an open literal.
const MAX_LINE: usize = 512;

/// Whether the word at `s` may be such a value: it follows a quote after
/// `PASSWORD` or `BY` and a blank or `=` (`PASSWORD '…`, `PASSWORD = '…`,
/// `BY \"…` in JSON), or a blank after `BY`. The cheap test made for every
/// word: a few bytes compared, most words fail at the first.
#[inline(always)]
pub(crate) fn may_follow(b: &[u8], s: usize) -> bool {
    // `'!ANC5…'`: the word starts after the symbol.
    let s = if s >= 5 && SYMBOLS.contains(&b[s - 1]) {
        s - 1
    } else {
        s
    };
    if s < 4 {
        return false;
    }
    let before = match b[s - 1] {
        b'\'' | b'"' => {
            let q = if b[s - 2] == b'\\' { s - 2 } else { s - 1 };
            // Back over ` `, `=`, ` = ` (at most three bytes).
            let mut k = q;
            for _ in 0..3 {
                if k > 0 && matches!(b[k - 1], b' ' | b'=') {
                    k -= 1;
                }
            }
            if k == q {
                return false;
            }
            k
        }
        b' ' => s - 1,
        _ => return false,
    };
    let ends = |word: &[u8]| {
        before >= word.len() && b[before - word.len()..before].eq_ignore_ascii_case(word)
    };
    ends(b"by") || (b[s - 1] != b' ' && ends(b"password"))
}

/// The value whose first word starts at `s`, if a keyword before it sets a
/// password.
#[inline(never)]
pub(crate) fn at_value(b: &[u8], s: usize, found: &mut Vec<Found>) {
    let Some((start, quote)) = opening(b, s) else {
        return;
    };
    let Some(end) = value_end(b, start, quote) else {
        return;
    };
    let v = &b[start..end];
    // (A password may start with a symbol: `'!ANC5…'`, `'?v72…'`.)
    let symbol = matches!(v[0], b'!' | b'?' | b'*' | b'&' | b'#' | b'^' | b'~' | b'+');
    let secret = (plain(v) || (symbol && quote.is_some() && plain(&v[1..])))
        && (quote.is_some() || crate::mixed(v))
        && !crate::placeholders::stand_in(v)
        // `:pw`, `$1`, `%(pw)s`: a driver's parameter.
        && !matches!(v[0], b':' | b'$' | b'%');
    if secret {
        found.push(Found {
            start,
            end,
            kind: "secret-assignment",
        });
    }
}

/// Where the value starts of which the word at `s` is the first, and the
/// quote around it (`'`, `"`, or `\"` in an escaped string; `None`: an
/// unquoted word, after `IDENTIFIED BY` only).
fn opening(b: &[u8], s: usize) -> Option<(usize, Option<&'static [u8]>)> {
    // The value's first word may follow a symbol it starts with.
    let s = if SYMBOLS.contains(&b[s - 1]) && matches!(b[s - 2], b'\'' | b'"') {
        s - 1
    } else {
        s
    };
    let (quote, before): (Option<&'static [u8]>, usize) = match b[s - 1] {
        b'\'' => (Some(b"'"), s - 1),
        b'"' if b[s - 2] == b'\\' => (Some(b"\\\""), s - 2),
        b'"' => (Some(b"\""), s - 1),
        _ => (None, s),
    };
    // Back over the blanks and an `=` between the keyword and the value.
    let mut k = past_blanks(b, before);
    if quote.is_some() && k > 0 && b[k - 1] == b'=' {
        k = past_blanks(b, k - 1);
    }
    // A blank or `=` parts the keyword from the value.
    if k == before {
        return None;
    }
    let word = word_ending(b, k);
    let at = k - word.len();
    let sets = if word.eq_ignore_ascii_case(b"password") {
        // Not `FROM 'old' TO 'new'` (Neo4j), nor a column (`password =
        // 'x'` in a `WHERE`): `PASSWORD` follows a verb or `WITH`.
        quote.is_some() && password_keyword(b, at)
    } else if word.eq_ignore_ascii_case(b"by") {
        // A statement's (`… identified by Dependabot` in prose is none).
        identified_before(b, at) && statement_on_line(b, at)
    } else {
        false
    };
    sets.then_some((s, quote))
}

/// Where the blanks that end at `k` start.
fn past_blanks(b: &[u8], mut k: usize) -> usize {
    while k > 0 && b[k - 1] == b' ' {
        k -= 1;
    }
    k
}

/// The word of letters, digits and `_` ending at `k`.
fn word_ending(b: &[u8], k: usize) -> &[u8] {
    let floor = k.saturating_sub(32);
    let start = b[floor..k]
        .iter()
        .rposition(|&c| !(c.is_ascii_alphanumeric() || c == b'_'))
        .map_or(floor, |p| floor + p + 1);
    &b[start..k]
}

/// The word before the one at `p`, past the blanks between: empty where
/// none is.
fn word_before(b: &[u8], p: usize) -> &[u8] {
    word_ending(b, past_blanks(b, p))
}

/// Whether the `PASSWORD` at `p` is a statement's: after `WITH`, `SET`,
/// `ENCRYPTED`, `UNENCRYPTED`, `LOGIN`, or on the line of a statement that
/// creates or alters a user or role (`ALTER ROLE app PASSWORD '…'`).
fn password_keyword(b: &[u8], p: usize) -> bool {
    if past_blanks(b, p) == p {
        return false;
    }
    let prev = word_before(b, p);
    // MySQL 5's `IDENTIFIED BY PASSWORD '*6BB4…'`: a hash.
    if prev.eq_ignore_ascii_case(b"by") {
        return false;
    }
    const BEFORE: [&[u8]; 5] = [b"with", b"set", b"encrypted", b"unencrypted", b"login"];
    BEFORE.iter().any(|w| prev.eq_ignore_ascii_case(w)) || statement_on_line(b, p)
}

/// Whether a statement that creates or alters a user or role, or grants to
/// one, starts on the line before `p`.
fn statement_on_line(b: &[u8], p: usize) -> bool {
    let line = crate::line_start_within(b, p, MAX_LINE).unwrap_or(p.saturating_sub(MAX_LINE));
    let head = &b[line..p];
    [
        &b"create user"[..],
        b"alter user",
        b"create role",
        b"alter role",
        b"grant ",
    ]
    .iter()
    .any(|verb| {
        head.windows(verb.len())
            .any(|w| w.eq_ignore_ascii_case(verb))
    })
}

/// Whether `BY` at `p` follows `IDENTIFIED` (or `IDENTIFIED WITH <plugin>`).
fn identified_before(b: &[u8], p: usize) -> bool {
    let prev = word_before(b, p);
    if prev.eq_ignore_ascii_case(b"identified") {
        return true;
    }
    // `IDENTIFIED WITH caching_sha2_password BY`; not ClickHouse's
    // `sha256_hash BY '…'` (`double_sha1_hash`, `bcrypt_hash`): a hash.
    let plugin = past_blanks(b, p) - prev.len();
    if prev.len() > 5 && prev[prev.len() - 5..].eq_ignore_ascii_case(b"_hash") {
        return false;
    }
    let with = word_before(b, plugin);
    with.eq_ignore_ascii_case(b"with")
        && word_before(b, past_blanks(b, plugin) - with.len()).eq_ignore_ascii_case(b"identified")
}

/// Where the value that starts at `start` ends: at its closing quote (SQL's
/// `''` is a quote inside it), or for an unquoted one at a blank, `;` or
/// the line's end. `None` where it does not close on its line.
fn value_end(b: &[u8], start: usize, quote: Option<&[u8]>) -> Option<usize> {
    let limit = (start + MAX_VALUE).min(b.len());
    let mut i = start;
    while i < limit {
        match quote {
            Some(q) if b[i..].starts_with(q) => {
                if q == b"'" && b.get(i + 1) == Some(&b'\'') {
                    i += 2;
                    continue;
                }
                return (i > start).then_some(i);
            }
            Some(_) if matches!(b[i], b'\n' | b'\r') => return None,
            None if matches!(b[i], b' ' | b'\t' | b'\n' | b'\r' | b';' | b'"' | b'\'') => {
                return (i > start).then_some(i);
            }
            _ => i += 1,
        }
    }
    // Unquoted, the text's end ends it (a stream holds it back first).
    (quote.is_none() && i == b.len() && i > start).then_some(i)
}

/// Where a value starts that `cut` may cut: an open literal after such a
/// keyword on the cut's line (its end decides where it stops), or an
/// unquoted one reaching the cut.
#[inline(never)]
pub(crate) fn open_at(b: &[u8], cut: usize) -> Option<usize> {
    // (A literal may be as long as any value: its quote is looked for as
    // far back.)
    let floor = cut.saturating_sub(MAX_LINE + MAX_VALUE);
    let line = memchr::memrchr(b'\n', &b[floor..cut]).map_or(floor, |p| floor + p + 1);
    let head = &b[line..cut];
    // A literal after such a keyword that does not close before the cut, or
    // closes on its last byte (SQL's `''` may be a quote in it).
    for q in memchr::memchr2_iter(b'\'', b'"', head).map(|p| line + p) {
        let s = q + 1;
        if s < cut && may_follow(b, s) && opening(b, s).is_some() {
            match value_end(&b[..cut], s, quote_of(b, q)) {
                Some(end) if end + 1 < cut => {}
                _ => return Some(s),
            }
        }
    }
    // An unquoted value after `IDENTIFIED BY ` that runs to the cut.
    let start = b[line..cut]
        .iter()
        .rposition(|&c| matches!(c, b' ' | b'\t' | b';' | b'"' | b'\''))
        .map_or(line, |p| line + p + 1);
    (start > line
        && start < cut
        && b[start - 1] == b' '
        && may_follow(b, start)
        && opening(b, start).is_some())
    .then_some(start)
}

/// The quote at `q` as [`opening`] reads it.
fn quote_of(b: &[u8], q: usize) -> Option<&'static [u8]> {
    match b[q] {
        b'\'' => Some(b"'"),
        b'"' if q > 0 && b[q - 1] == b'\\' => Some(b"\\\""),
        _ => Some(b"\""),
    }
}
