//! A value on a line of its own whose name is on the line above:
//!
//! - a Redis reply's pairs (`CONFIG GET requirepass`, `HGETALL`):
//!   `1) "requirepass"`, then `2) "…"`;
//! - a REPL's answer to an expression that names a secret:
//!   `>>> os.environ["API_KEY"]` then `'…'`, Tinker's `> config('app.key')`
//!   then `= "base64:…"`, `irb> ENV["TOKEN"]` then `=> "…"`, IPython's
//!   `Out[3]: '…'`;
//! - Rust's pretty `Debug` of a wrapped field: `password: Some(` (or
//!   `Secret(`), then `"…",`;
//! - PHP's `var_dump`: `["password"]=>`, then `string(17) "…"`;
//! - a first run's banner that introduces what it generated: `Password for
//!   the elastic user (…):`, then the password alone on its line (maybe
//!   after a blank line, as Jenkins prints its initial admin password).
//!
//! The name is read as any other ([`super::names`]); the value must have
//! the shape it asks for, as on one line.

use super::command_output::secret_like;
use super::names::secret_kind;
use super::values::{hex_key, keylike, plain, quote_at, quoted};
use crate::Found;

/// Longest line read above the value (a REPL's expression).
const MAX_ABOVE: usize = 512;
/// Longest value line.
const MAX_LINE: usize = 400;

/// How the line above names the value.
#[derive(Clone, Copy, PartialEq)]
enum Above {
    /// `1) "requirepass"`: the value line starts `2) `.
    Reply,
    /// A REPL's prompt and expression: the value line may start `=`, `=>`
    /// or `Out[…]:`.
    Repl,
    /// `password: Some(`: the value line is the quoted value and a `,`.
    Wrapped,
    /// `root_password:` alone, its value on the next line, further in (YAML's
    /// plain scalars, Salt's `pillar.items`).
    Nested,
    /// `["password"]=>` (PHP's `var_dump`): the value line is `string(N)
    /// "…"`.
    Dumped,
    /// A sentence that ends with `:` and names a password or a token: the
    /// value is one random word alone on its line.
    Prose,
}

/// The value on the line of the word at `s` (right after a quote, or first
/// on its line), if the line above names a secret.
#[inline(never)]
pub(crate) fn at_value(b: &[u8], s: usize, found: &mut Vec<Found>) {
    // Called for many quoted words: back to the line's start over a value
    // line's marks only (`2) `, `=> `, `Out[3]: `, blanks), most words
    // stopping at the first byte (`"key": "…`).
    let floor = s.saturating_sub(32);
    let mut line = s;
    while line > floor && b[line - 1] != b'\n' {
        if !VALUE_LINE_MARK[usize::from(b[line - 1])] {
            return;
        }
        line -= 1;
    }
    if line == 0 || b[line - 1] != b'\n' {
        return;
    }
    // An unquoted value is a nested one (`name:` above) or a REPL's
    // `print(…)`, `puts ENV[…]`: the line above's last byte says which may
    // be, before it is looked for (most lines' first words are neither).
    if !matches!(b[s - 1], b'"' | b'\'') {
        let end = line - 1 - usize::from(line >= 2 && b[line - 2] == b'\r');
        // (After a blank line, a banner's sentence may be the line above it.)
        if end == 0 || !(matches!(b[end - 1], b':' | b')' | b']') || b[end - 1] == b'\n') {
            return;
        }
        // A word first on its line (after its blanks) is only a REPL's
        // `print` or a nested value: alone on it.
        if b[line..s].iter().all(|c| matches!(c, b' ' | b'\t')) {
            let end = s + b[s..]
                .iter()
                .position(u8::is_ascii_whitespace)
                .unwrap_or(b.len() - s);
            let mut after = end;
            skip_blanks(b, &mut after, b.len());
            if !matches!(b.get(after), None | Some(b'\n' | b'\r')) {
                return;
            }
        }
    }
    let Some((raw_above, above, name)) = naming_line(b, line) else {
        return;
    };
    let Some(kind) = secret_kind(name) else {
        return;
    };
    if above == Above::Nested && indent(&b[line..]) <= indent(raw_above) {
        return;
    }
    let Some((start, end)) = value_on(b, line, above) else {
        return;
    };
    if !(start <= s && s < end.max(start + 1)) {
        return;
    }
    let v = &b[start..end];
    // A sentence's value is random, not a word that goes on with it.
    let shaped = above != Above::Prose
        || (!v.contains(&b'=') && (keylike(v) || hex_key(v) || secret_like(v)));
    // (`valueFrom:` under `password:` is a key of a mapping.)
    if plain(v) && !v.ends_with(b":") && shaped && super::key_shaped(kind, v, name) {
        found.push(Found {
            start,
            end,
            kind: super::reported(kind),
        });
    }
}

/// Where the line of `cut` starts, if the line above names a secret and the
/// value line is not whole yet: the stream holds it back.
#[inline(never)]
pub(crate) fn open_at(b: &[u8], cut: usize) -> Option<usize> {
    let line = crate::line_start(b, cut);
    if line == 0 || cut - line > MAX_LINE || memchr::memchr(b'\n', &b[line..cut]).is_some() {
        return None;
    }
    let (_, _, name) = naming_line(b, line)?;
    secret_kind(name).map(|_| line)
}

/// The line above the one at `line` that may name its value, the form and
/// the name: the line right above, or a sentence one blank line higher.
fn naming_line(b: &[u8], line: usize) -> Option<(&[u8], Above, &[u8])> {
    let above = previous_line(b, line)?;
    if above.trim_ascii().is_empty() {
        let start = line - 1 - above.len();
        let higher = previous_line(b, start)?;
        return match named(higher)? {
            (Above::Prose, name) => Some((higher, Above::Prose, name)),
            _ => None,
        };
    }
    named(above).map(|(form, name)| (above, form, name))
}

/// The value `[start, end)` on the line at `line` as `above` has it: after
/// blanks and the form's mark, quoted (then maybe a `,`) or one word (a
/// REPL's `print`), and nothing else on the line.
fn value_on(b: &[u8], line: usize, above: Above) -> Option<(usize, usize)> {
    let limit = (line + MAX_LINE).min(b.len());
    let mut i = line;
    skip_blanks(b, &mut i, limit);
    match above {
        Above::Reply => {
            let digits = b[i..limit]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
            if digits == 0 || !b[i + digits..limit].starts_with(b") ") {
                return None;
            }
            i += digits + 2;
        }
        Above::Repl => {
            for mark in [&b"=> "[..], b"= ", b"Out["] {
                if b[i..limit].starts_with(mark) {
                    i += mark.len();
                    if mark == b"Out[" {
                        i += b[i..limit].iter().position(|&c| c == b' ')? + 1;
                    }
                    break;
                }
            }
        }
        Above::Dumped => {
            let rest = b[i..limit].strip_prefix(b"string(")?;
            let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
            if digits == 0 || !rest[digits..].starts_with(b") ") {
                return None;
            }
            i += b"string(".len() + digits + 2;
        }
        Above::Wrapped | Above::Nested | Above::Prose => {}
    }
    let (start, end, mut after) = match quote_at(b, i) {
        Some(q) => {
            let (start, end, open) = quoted(b, i, q);
            if open {
                return None;
            }
            (start, end, end + q.len())
        }
        None if matches!(above, Above::Repl | Above::Nested | Above::Prose) => {
            let end = i + b[i..limit]
                .iter()
                .position(|c| c.is_ascii_whitespace())
                .unwrap_or(limit - i);
            (i, end, end)
        }
        None => return None,
    };
    if above == Above::Wrapped && b.get(after) == Some(&b',') {
        after += 1;
    }
    skip_blanks(b, &mut after, b.len());
    (start < end && matches!(b.get(after), None | Some(b'\n' | b'\r'))).then_some((start, end))
}

/// How many blanks start `line`.
fn indent(line: &[u8]) -> usize {
    line.iter()
        .take_while(|c| matches!(c, b' ' | b'\t'))
        .count()
}

fn skip_blanks(b: &[u8], i: &mut usize, limit: usize) {
    *i += crate::run(&b[..limit], *i, |c| matches!(c, b' ' | b'\t'));
}

/// Bytes a value line may hold before its value: blanks, `2) `, `=> `,
/// `= `, `Out[3]: `, `string(17) `, a quote (a table, not a `match`: read
/// for many words).
static VALUE_LINE_MARK: [bool; 256] = {
    let mut t = [false; 256];
    let marks = b" \t0123456789)=>:[]Out\"'string(";
    let mut i = 0;
    while i < marks.len() {
        t[marks[i] as usize] = true;
        i += 1;
    }
    t
};

/// How `line` names the value below it, and the name.
fn named(line: &[u8]) -> Option<(Above, &[u8])> {
    let line = line.strip_suffix(b"\r").unwrap_or(line).trim_ascii();
    // Each form told by a byte first: most lines above are none.
    let (&first, &last) = (line.first()?, line.last()?);
    if first.is_ascii_digit() && last == b'"' {
        reply_name(line).map(|n| (Above::Reply, n))
    } else if first == b'[' && line.ends_with(b"\"]=>") {
        let name = line.strip_prefix(b"[\"")?.strip_suffix(b"\"]=>")?;
        (!name.is_empty() && !name.contains(&b'"')).then_some((Above::Dumped, name))
    } else if last == b'(' {
        wrapped_name(line).map(|n| (Above::Wrapped, n))
    } else if last == b':' {
        let name = &line[..line.len() - 1];
        if name.contains(&b' ') {
            return prose_name(name).map(|n| (Above::Prose, n));
        }
        (!name.is_empty()
            && name
                .iter()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')))
        .then_some((Above::Nested, name))
    } else if matches!(first, b'>' | b'I' | b'i' | b'[' | b'p' | b's') {
        repl_name(line).map(|n| (Above::Repl, n))
    } else {
        None
    }
}

/// The word of a sentence (before its `:`) that names what follows:
/// `password`, `passphrase`, `token`, `secret` (`Password for the elastic
/// user (…)`, `Copy the following enrollment token …`), unless the
/// sentence says the value is something else (`public`, `fingerprint`,
/// `hash`, an `ID`, a `policy`).
fn prose_name(sentence: &[u8]) -> Option<&[u8]> {
    const WORDS: [&[u8]; 4] = [b"password", b"passphrase", b"token", b"secret"];
    const OTHER: [&[u8]; 11] = [
        b"public",
        b"fingerprint",
        b"hash",
        b"id",
        b"name",
        b"file",
        b"policy",
        b"requirements",
        b"rules",
        b"length",
        b"expires",
    ];
    if sentence.len() > MAX_ABOVE {
        return None;
    }
    let mut named = None;
    for word in sentence.split(|c| !c.is_ascii_alphanumeric()) {
        if OTHER.iter().any(|o| word.eq_ignore_ascii_case(o)) {
            return None;
        }
        if named.is_none() && WORDS.iter().any(|w| word.eq_ignore_ascii_case(w)) {
            named = Some(word);
        }
    }
    named
}

/// `1) "requirepass"`.
fn reply_name(line: &[u8]) -> Option<&[u8]> {
    let digits = line.iter().take_while(|c| c.is_ascii_digit()).count();
    let rest = line[digits..].strip_prefix(b") \"")?;
    let name = rest.strip_suffix(b"\"")?;
    (digits > 0 && !name.is_empty() && !name.contains(&b'"')).then_some(name)
}

/// `password: Some(`, `api_key: Secret(`, `token: Some(SecretString(`.
fn wrapped_name(line: &[u8]) -> Option<&[u8]> {
    let mut rest = line.strip_suffix(b"(")?;
    loop {
        let word = rest
            .iter()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric())
            .count();
        let wrapper = &rest[rest.len() - word..];
        if !matches!(
            wrapper,
            b"Some" | b"Secret" | b"SecretString" | b"SecretBox" | b"Sensitive" | b"Redacted"
        ) {
            break;
        }
        rest = &rest[..rest.len() - word];
        match rest.strip_suffix(b"(") {
            Some(inner) => rest = inner,
            None => break,
        }
    }
    let name = rest.strip_suffix(b": ")?;
    let word = name
        .iter()
        .rev()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
        .count();
    (word > 0 && word == name.len()).then_some(name)
}

/// A REPL's prompt and the expression after it; the name is what the
/// expression ends with (`config('app.key')` → `app.key`,
/// `os.environ["API_KEY"]` → `API_KEY`, `settings.SECRET_KEY`).
fn repl_name(line: &[u8]) -> Option<&[u8]> {
    if line.len() > MAX_ABOVE {
        return None;
    }
    let expr = repl_prompt(line)?;
    let mut end = expr.len();
    while end > 0 && matches!(expr[end - 1], b')' | b']' | b'"' | b'\'' | b';' | b' ') {
        end -= 1;
    }
    let start = expr[..end]
        .iter()
        .rposition(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-')))
        .map_or(0, |p| p + 1);
    (start < end).then_some(&expr[start..end])
}

/// The expression after a REPL's prompt: Python's `>>> `, Node's, PsySH's
/// and Tinker's `> `, `irb(main):001> ` (and `:0> `), `pry(main)> `, IPython's
/// `In [3]: `, `iex(1)> `, `scala> `.
fn repl_prompt(line: &[u8]) -> Option<&[u8]> {
    for prompt in [&b">>> "[..], b"> ", b"scala> ", b"php > "] {
        if let Some(expr) = line.strip_prefix(prompt) {
            return Some(expr);
        }
    }
    if let Some(rest) = line.strip_prefix(b"In [") {
        let close = rest.iter().position(|&c| c == b']')?;
        return rest[close..].strip_prefix(b"]: ");
    }
    // `irb(main):001> `, `[2] pry(main)> `, `iex(1)> `.
    let rest = match line.strip_prefix(b"[") {
        Some(r) => &r[r.iter().position(|&c| c == b']')? + 1..],
        None => line,
    };
    let rest = rest.trim_ascii_start();
    let open = rest.iter().position(|&c| c == b'(')?;
    if !matches!(&rest[..open], b"irb" | b"pry" | b"iex") {
        return None;
    }
    let gt = rest.iter().position(|&c| c == b'>')?;
    rest[gt..].strip_prefix(b"> ")
}

/// The line before the one at `line`, without its `\n`.
fn previous_line(b: &[u8], line: usize) -> Option<&[u8]> {
    let end = line.checked_sub(1)?;
    let floor = end.saturating_sub(MAX_ABOVE + 1);
    match memchr::memrchr(b'\n', &b[floor..end]) {
        Some(p) => Some(&b[floor + p + 1..end]),
        None if floor == 0 => Some(&b[..end]),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_above_are_read_as_each_form_writes_them() {
        let table: &[(&str, Option<&str>)] = &[
            ("1) \"requirepass\"", Some("requirepass")),
            ("    password: Some(", Some("password")),
            ("api_key: Some(Secret(", Some("api_key")),
            (">>> os.environ['API_KEY']", Some("API_KEY")),
            ("> config('app.key')", Some("app.key")),
            ("irb(main):001> ENV[\"STRIPE_TOKEN\"]", Some("STRIPE_TOKEN")),
            (
                "[3] pry(main)> Rails.application.credentials.secret_key_base",
                Some("Rails.application.credentials.secret_key_base"),
            ),
            ("In [4]: settings.SECRET_KEY", Some("settings.SECRET_KEY")),
            ("$ echo hi", None),
            ("1) requirepass", None),
            ("    url: Some(Url {", None),
        ];
        for (line, name) in table {
            let got = named(line.as_bytes()).map(|(_, n)| String::from_utf8_lossy(n).into_owned());
            assert_eq!(got.as_deref(), *name, "{line}");
        }
    }
}
