//! A secret's name and its value in two fields of one object: Kubernetes and
//! Compose env lists (`- name: DB_PASSWORD` then `value: "…"` on the next
//! line), ECS task definitions and the GitHub API (`{"name": "API_TOKEN",
//! "value": "…"}`), AWS SSM and CloudFormation (`"Name": "/prod/db/password"`
//! … `"Value": "…"`, `ParameterKey` / `ParameterValue`), Helm's `- key:
//! PASSWORD` / `value: …`, HCL's `{ name = "…", value = "…" }`, 1Password's
//! `{"label": "password", "value": "…"}`.
//!
//! The value field is read when the nearest `name` / `key` field before it
//! names a secret and both are fields of one object: on the same line with no
//! bracket between, or on a line of their own a few lines apart at the same
//! column (YAML block mappings, pretty-printed JSON), every line between
//! indented at least as far. `valueFrom:` is another field and stays; so do
//! `value: true`, `value: "3"` and references (`$(VAR)`, `${VAR}`), which
//! [`super::value`] turns away as it does after any name.

use super::NAMED_KEY;
use super::names::{secret_kind, session_cookie};
use super::values::{quote_at, quoted};
use super::{MAX_KEY, Op, Parsed, blanks, value};

/// Most lines from the name field to its value field (SSM's `"Type"` sits
/// between them).
const MAX_LINES: usize = 4;
/// Most bytes from the name field to its value field.
const MAX_SPAN: usize = 1024;
/// Fields indented further than this are not read as siblings (a stream
/// keeps only so much of a line).
const MAX_COLUMN: usize = 200;

/// A `name` / `key` field.
struct Field {
    /// Where its key starts, its opening quote included.
    start: usize,
    /// The column of `start`.
    column: usize,
    /// Its value (inside quotes, if any).
    name: (usize, usize),
    /// One past its value (the closing quote included).
    end: usize,
    /// `keyName` or `username`: the value field is a credential, whatever
    /// the name field holds.
    credential: bool,
    /// `username`: only a `key` field is its credential.
    user: bool,
}

/// Whether the value field whose key is `[ks, ke)` (`value`, `Value`,
/// `ParameterValue`) has a name field beside it in its object, whatever
/// that names: then the name field is its name, not the word `value`.
pub(super) fn has_name_field(b: &[u8], ks: usize, ke: usize) -> bool {
    let key = &b[ks..ke];
    if !(key.eq_ignore_ascii_case(b"value") || key.eq_ignore_ascii_case(b"parametervalue")) {
        return false;
    }
    let kq = ks - quote_before(b, ks);
    let Some(field) = name_field_before(b, kq) else {
        return false;
    };
    field.end <= kq
        && between(b, &field, kq).is_some_and(|lines| {
            lines == 0 || line_start(b, kq).map(|l| kq - l) == Some(field.column)
        })
}

/// The value of the value field whose key is `[ks, ke)` (`value`, `Value`,
/// `ParameterValue`), if its sibling name field names a secret: where that
/// name field starts, and the value.
pub(super) fn value_of(b: &[u8], ks: usize, ke: usize) -> Option<(usize, Parsed)> {
    let key = &b[ks..ke];
    let bare_key = key.eq_ignore_ascii_case(b"key");
    if !(key.eq_ignore_ascii_case(b"value")
        || key.eq_ignore_ascii_case(b"parametervalue")
        || bare_key)
    {
        return None;
    }
    // The key's opening quote, if any.
    let kq = ks - quote_before(b, ks);
    let field = name_field_before(b, kq)?;
    if field.end > kq {
        return None;
    }
    let lines = between(b, &field, kq)?;
    if lines > 0 && line_start(b, kq).map(|l| kq - l) != Some(field.column) {
        return None;
    }
    // `"key"` is read only after a `username`; after a `keyName`, any value
    // field is its key.
    if bare_key != (field.credential && field.user) {
        return None;
    }
    let name = &b[field.name.0..field.name.1];
    if name.eq_ignore_ascii_case(b"cookie") && !field.credential {
        return Some((field.start, cookie_value(b, ke)?));
    }
    let kind = if field.credential {
        "secret-assignment"
    } else {
        secret_name(name)?
    };
    // The operator: `:` (YAML, JSON) or `=` (HCL).
    let mut i = ke;
    i += quote_at(b, i).map_or(0, <[u8]>::len);
    blanks(b, &mut i);
    let op = match (b.get(i), b.get(i + 1)) {
        (None, _) => return Some((field.start, Parsed::Open)),
        (Some(b':'), Some(b':')) | (Some(b'='), Some(b'=')) => return None,
        (Some(b':'), _) => Op::Colon,
        (Some(b'='), _) => Op::Spaced,
        _ => return None,
    };
    i += 1;
    blanks(b, &mut i);
    Some((field.start, value(b, i, op, ks, ke, 0, kind)))
}

/// The quoted value after the value field's key ending at `ke`, read as a
/// `Cookie` header's (`{"name": "Cookie", "value": "a=…; b=…"}`).
fn cookie_value(b: &[u8], ke: usize) -> Option<Parsed> {
    let mut i = ke;
    i += quote_at(b, i).map_or(0, <[u8]>::len);
    blanks(b, &mut i);
    if b.get(i) != Some(&b':') {
        return (i >= b.len()).then_some(Parsed::Open);
    }
    i += 1;
    blanks(b, &mut i);
    let Some(q) = quote_at(b, i) else {
        return (i >= b.len()).then_some(Parsed::Open);
    };
    let (start, end, open) = quoted(b, i, q);
    if open {
        return Some(Parsed::Open);
    }
    Some(super::http_auth::cookies_within(b, start, end))
}

/// Where a name field starts whose value field may come after `cut`, or whose
/// name reaches it: what follows the cut needs it read again.
pub(super) fn open_at(b: &[u8], cut: usize) -> Option<usize> {
    let field = name_field_before(b, cut)?;
    if field.end >= cut {
        return Some(field.start);
    }
    let name = &b[field.name.0..field.name.1];
    if !field.credential && !name.eq_ignore_ascii_case(b"cookie") {
        secret_name(name)?;
    }
    between(b, &field, cut).map(|_| field.start)
}

/// The `name` / `key` field nearest before `at`, unless a bracket comes
/// first.
fn name_field_before(b: &[u8], at: usize) -> Option<Field> {
    let floor = at.saturating_sub(MAX_SPAN);
    let mut p = at;
    while p > floor {
        p -= 1;
        match b[p] {
            b'{' | b'}' | b'[' | b']' => return None,
            b':' | b'=' => {}
            _ => continue,
        }
        // The key before the operator.
        let mut ke = p;
        while ke > floor && matches!(b[ke - 1], b' ' | b'\t') {
            ke -= 1;
        }
        ke -= quote_before(b, ke);
        let mut ks = ke;
        while ks > floor
            && ke - ks <= MAX_KEY
            && (b[ks - 1].is_ascii_alphanumeric() || matches!(b[ks - 1], b'_' | b'-' | b'.'))
        {
            ks -= 1;
        }
        let key = &b[ks..ke];
        let user = key.eq_ignore_ascii_case(b"username");
        let credential = user || key.eq_ignore_ascii_case(b"keyname");
        // 1Password's fields name themselves by `label`.
        let named = key.eq_ignore_ascii_case(b"name")
            || key.eq_ignore_ascii_case(b"key")
            || key.eq_ignore_ascii_case(b"label")
            || key.eq_ignore_ascii_case(b"parameterkey")
            || credential;
        if !named || b.get(p + 1) == Some(&b[p]) {
            continue;
        }
        let start = ks - quote_before(b, ks);
        let column = start - line_start(b, start)?;
        if column > MAX_COLUMN {
            return None;
        }
        let mut i = p + 1;
        blanks(b, &mut i);
        let (name, end) = match quote_at(b, i) {
            Some(q) => {
                let (s, e, open) = quoted(b, i, q);
                let end = if open {
                    b.len()
                } else if b[e..].starts_with(q) {
                    e + q.len()
                } else {
                    e
                };
                ((s, e), end)
            }
            None => {
                let n = super::super::run(b, i, |c| {
                    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'/')
                });
                ((i, i + n), i + n)
            }
        };
        return Some(Field {
            start,
            column,
            name,
            end,
            credential,
            user,
        });
    }
    None
}

/// `"`, `'` or `\"` right before `i`: its length.
fn quote_before(b: &[u8], i: usize) -> usize {
    match i.checked_sub(1).map(|p| b[p]) {
        Some(b'"') if i >= 2 && b[i - 2] == b'\\' => 2,
        Some(b'"' | b'\'') => 1,
        _ => 0,
    }
}

/// Where the line of `i` starts, if it is not too long before `i`.
fn line_start(b: &[u8], i: usize) -> Option<usize> {
    crate::line_start_within(b, i, MAX_COLUMN + 1)
}

/// Whether the text from the end of `field` to `to` keeps within one object:
/// no bracket, at most [`MAX_LINES`] lines, each indented at least as far as
/// the field. How many line breaks it has.
fn between(b: &[u8], field: &Field, to: usize) -> Option<usize> {
    if to - field.start > MAX_SPAN {
        return None;
    }
    let mut lines = 0;
    for (p, &c) in b[field.end..to].iter().enumerate() {
        match c {
            b'{' | b'}' | b'[' | b']' => return None,
            b'\n' => {
                lines += 1;
                if lines > MAX_LINES {
                    return None;
                }
                let from = field.end + p + 1;
                let indent = super::super::run(&b[..to], from, |c| matches!(c, b' ' | b'\t'));
                let first = from + indent;
                if first < to && !matches!(b[first], b'\n' | b'\r') && indent < field.column {
                    return None;
                }
            }
            _ => {}
        }
    }
    Some(lines)
}

/// The kind of the secret the name names: `DB_PASSWORD`, `api-token`,
/// `/prod/db/password` (SSM's paths, by their last part).
fn secret_name(name: &[u8]) -> Option<&'static str> {
    if name.is_empty()
        || !name
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'/'))
    {
        return None;
    }
    let last = name.rsplit(|&c| c == b'/').next()?;
    if last.is_empty() || last.len() > MAX_KEY {
        return None;
    }
    // A cookie's (a HAR file's `cookies`, a browser's export).
    if session_cookie(last) {
        return Some(super::COOKIE_ROW);
    }
    // Any other name that says nothing of its value: the value must look
    // like a key (`{"name": "X-Client", "value": "…"}`, `- name: BUILD_CODE`).
    secret_kind(last).or_else(|| super::positions::says_nothing(last).then_some(NAMED_KEY))
}
