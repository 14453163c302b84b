//! A value whose own key says nothing, in an object or a list whose key
//! names a secret: `terraform output -json`'s `"db_password": {"sensitive":
//! true, "value": "…"}`, `az functionapp keys list`'s `"functionKeys":
//! {"default": "…"}`, a Postman collection's `"apikey": [{"key": "value",
//! "value": "…"}]`, `vault operator init -format=json`'s `"unseal_keys_b64":
//! ["…", "…"]`.
//!
//! The parent is the key before the nearest unclosed `{` or `[` (a `{` right
//! inside a `[` is an element: its list's key is read), within
//! [`MAX_BACK`] bytes, so that a stream, which keeps the lines before the
//! one it holds back up to 1 KiB (`redaction::stream`), reads the same
//! parent as the whole text. Its value must still look like a secret: a
//! key's shape, or, under a password's or a secret's name, anything not
//! plainly something else.

use super::command_output::secret_like;
use super::names::{self, secret_kind};
use super::values::{hex_key, keylike, plain, quote_at, quoted};
use super::{NAMED_KEY, Parsed, Value, blanks, reported};
use crate::Found;

/// How far back the parent's key is looked for.
const MAX_BACK: usize = 512;

/// Keys that only hold their parent's value.
const GENERIC: [&[u8]; 7] = [
    b"value",
    b"default",
    b"result",
    b"current",
    b"primary",
    b"secondary",
    b"encoded",
];

/// Whether `key` is one of [`GENERIC`].
pub(super) fn generic(key: &[u8]) -> bool {
    GENERIC.iter().any(|g| key.eq_ignore_ascii_case(g))
}

/// The value of the generic key `[ks, ke)` (`"value": "…"`), if its parent
/// names a secret: where the parent's key starts, and the value.
#[inline]
pub(super) fn value_of(b: &[u8], ks: usize, ke: usize) -> Option<(usize, Parsed)> {
    if ks >= ke {
        None
    } else if generic(&b[ks..ke]) {
        generic_value(b, ks, ke)
    } else {
        collection_value(b, ks, ke)
    }
}

/// The value of the generic key `[ks, ke)` under a parent that names a
/// secret.
#[inline(never)]
fn generic_value(b: &[u8], ks: usize, ke: usize) -> Option<(usize, Parsed)> {
    let i = after_operator(b, ke)?;
    let parent = secret_parent(b, ks).or_else(|| elastic_encoded(b, ks))?;
    Some((parent.at, quoted_value(b, i, parent)))
}

/// Any key `[ks, ke)` under a collection of secrets (`tokens { agent =
/// "…" }`, `"secrets": {"stripe": "…"}`) that says nothing else: the
/// value's shape first, as most keys are no secret's.
#[inline(never)]
fn collection_value(b: &[u8], ks: usize, ke: usize) -> Option<(usize, Parsed)> {
    let i = after_operator(b, ke)?;
    let open = match string_shape(b, i) {
        Shape::MayBeSecret => false,
        // Unclosed at the text's end: a stream's cut may be inside it.
        Shape::Open => true,
        Shape::No => return None,
    };
    let parent = collection_parent(b, ks)?;
    if super::positions::says_what_it_is(&b[ks..ke]) {
        return None;
    }
    Some((
        parent.at,
        if open {
            Parsed::Open
        } else {
            quoted_value(b, i, parent)
        },
    ))
}

/// Where the value after the key that ends at `ke` starts: past a closing
/// quote, blanks, `:` or `=`, blanks.
fn after_operator(b: &[u8], ke: usize) -> Option<usize> {
    let mut i = ke;
    if matches!(b.get(i), Some(b'"' | b'\'')) {
        i += 1;
    }
    blanks(b, &mut i);
    if !matches!(b.get(i), Some(b':' | b'=')) {
        return None;
    }
    i += 1;
    blanks(b, &mut i);
    Some(i)
}

/// Whether the nearest opener before `at` may be a collection's: a key
/// that ends like a plural before it (`"tokens": {`, `tokens {`), or an
/// element of a list (its list's key is read then). Most keys' nearest
/// opener is plainly something else's: no walk over what lies between.
fn may_open_a_collection(b: &[u8], at: usize) -> bool {
    let floor = at.saturating_sub(MAX_BACK);
    let Some(open) = memchr::memrchr2(b'{', b'[', &b[floor..at]).map(|p| floor + p) else {
        return false;
    };
    let mut j = open;
    while j > floor
        && matches!(
            b[j - 1],
            b' ' | b'\t' | b'\n' | b'\r' | b':' | b'=' | b'"' | b'\''
        )
    {
        j -= 1;
    }
    // (A closed object between it and `at` is read by the walk.)
    j > floor && matches!(b[j - 1], b's' | b'S' | b'[')
        || memchr::memchr2(b'}', b']', &b[open..at]).is_some()
}

/// What a quoted string at `i` may be.
enum Shape {
    /// 16 bytes or more without a blank to its closing quote, of two
    /// kinds of characters, not a time, a URL or a path.
    MayBeSecret,
    /// Not closed before the text ends, and may still be one.
    Open,
    No,
}

fn string_shape(b: &[u8], i: usize) -> Shape {
    let Some(q) = quote_at(b, i) else {
        return if i >= b.len() { Shape::Open } else { Shape::No };
    };
    let from = i + q.len();
    let limit = (from + 512).min(b.len());
    let end = memchr::memchr3(q[0], b' ', b'\n', &b[from..limit]).map_or(limit, |p| from + p);
    let v = &b[from..end];
    // (Not a time, a URL or a path: `2024-05-01T10:00:00Z`, `https://…`.)
    let plain =
        !v.first().is_some_and(|c| matches!(c, b'/' | b'.')) && memchr::memchr(b':', v).is_none();
    if end == b.len() && plain {
        Shape::Open
    } else if v.len() >= 16 && b.get(end) == Some(&q[0]) && plain && crate::mixed(v) {
        Shape::MayBeSecret
    } else {
        Shape::No
    }
}

/// The parent of what is at `at`, if its key names a collection of
/// secrets: `tokens`, `passwords`, `secrets`, `credentials`, `apiKeys` (not
/// a bare `keys`: a JWK set's public keys).
fn collection_parent(b: &[u8], at: usize) -> Option<Parent> {
    if !may_open_a_collection(b, at) {
        return None;
    }
    let (ks, ke) = parent_key(b, at)?;
    let key = last_part(&b[ks..ke]);
    let one = key.strip_suffix(b"s").or_else(|| key.strip_suffix(b"S"))?;
    // (`"signatures": [{"keyid": …, "sig": …}]`: TUF's, public.)
    let kind = match secret_kind(one) {
        Some(super::BARE_KEY | "signature") | None => return None,
        Some(kind) => kind,
    };
    Some(Parent {
        at: ks,
        kind,
        password: names::password(one),
    })
}

/// Elasticsearch's new API key: `"encoded"` beside its `"api_key"` (the
/// base64 of `id:api_key`, what a client sends).
fn elastic_encoded(b: &[u8], ks: usize) -> Option<Parent> {
    if !b[ks..].starts_with(b"encoded\"") {
        return None;
    }
    let from = ks.saturating_sub(MAX_BACK);
    let at = crate::rfind(&b[from..ks], b"\"api_key\"")? + from;
    (!b[at..ks].contains(&b'}')).then_some(Parent {
        at,
        kind: "secret-assignment",
        password: false,
    })
}

/// The string whose first word starts at `s`, if it is an element of a list
/// whose key names a secret (`"unseal_keys_b64": ["…"]`) and looks like one.
#[inline(never)]
pub(crate) fn at_element(b: &[u8], s: usize, found: &mut Vec<Found>) {
    if let Some(parsed) = element(b, s) {
        parsed.push_to(found);
    }
}

/// A quoted string at `s - 1` that is an element of a list whose key names
/// a secret: its value.
fn element(b: &[u8], s: usize) -> Option<Parsed> {
    let q = s.checked_sub(1)?;
    let mut before = q;
    while before > 0 && matches!(b[before - 1], b' ' | b'\t' | b'\n' | b'\r') {
        before -= 1;
    }
    if before == 0 || !matches!(b[before - 1], b'[' | b',') {
        return None;
    }
    // Only a list of strings: the element's own `[` is its list's (read
    // first: most strings after a `,` are an object's keys).
    if !in_list(b, q) {
        return None;
    }
    Some(quoted_value(b, q, secret_parent(b, q)?))
}

/// Where the line of `cut` starts, if a generic key's value or a list's
/// element on it may run past `cut` under a parent that names a secret.
#[inline(never)]
pub(crate) fn open_at(b: &[u8], cut: usize) -> Option<usize> {
    let line = crate::line_start(b, cut);
    if cut - line > MAX_BACK {
        return None;
    }
    let text = &b[line..cut];
    // An odd number of quotes: a string is open at the cut.
    let quotes = text.iter().filter(|&&c| c == b'"').count();
    if quotes % 2 == 0 && !text.ends_with(b":") && !text.ends_with(b": ") {
        return None;
    }
    let generic_key = GENERIC.iter().any(|g| {
        text.windows(g.len() + 2).any(|w| {
            w[0] == b'"' && w[1..=g.len()].eq_ignore_ascii_case(g) && w[g.len() + 1] == b'"'
        })
    });
    let first = text.iter().position(|c| !c.is_ascii_whitespace())?;
    let listed = text[first] == b'"' || (first > 0 && matches!(text[first - 1], b'[' | b','));
    if !(generic_key || listed) {
        return None;
    }
    secret_parent(b, line + first).map(|_| line)
}

/// A parent that names a secret.
#[derive(Clone, Copy)]
struct Parent {
    /// Where its key starts.
    at: usize,
    kind: &'static str,
    /// Its key names a password (`"spring.datasource.password": {"value":
    /// …}`): any value is one, as after the key itself.
    password: bool,
}

/// A parent key's last part (`spring.datasource.password`, `app:token`):
/// what names the secret, for a parent that holds one and a collection.
fn last_part(key: &[u8]) -> &[u8] {
    match key.iter().rposition(|&c| c == b':' || c == b'.') {
        Some(p) => &key[p + 1..],
        None => key,
    }
}

/// The parent of what is at `at`, if it names a secret.
fn secret_parent(b: &[u8], at: usize) -> Option<Parent> {
    let (ks, ke) = parent_key(b, at)?;
    // `unseal_keys_b64`, `functionKeys`: a list or a map of keys.
    let key = strip_plural(last_part(&b[ks..ke]));
    if let Some(kind) = secret_kind(key) {
        return Some(Parent {
            at: ks,
            kind,
            password: names::password(key),
        });
    }
    // `"relay": {"sensitive": true, "type": "string", "value": "…"}`
    // (`terraform output -json`), `"secret": true` (Pulumi): the object
    // says it holds a secret, whatever its key.
    let between = &b[ke..at];
    const FLAGS: [&[u8]; 4] = [
        b"\"sensitive\": true",
        b"\"sensitive\":true",
        b"\"secret\": true",
        b"\"secret\":true",
    ];
    FLAGS
        .iter()
        .any(|f| crate::find(between, f).is_some())
        .then_some(Parent {
            at: ks,
            kind: "secret-assignment",
            password: false,
        })
}

/// The key of the object or list that holds `at`.
fn parent_key(b: &[u8], at: usize) -> Option<(usize, usize)> {
    let floor = at.saturating_sub(MAX_BACK);
    let mut depth = 0usize;
    let mut i = at;
    while i > floor {
        i -= 1;
        match b[i] {
            b'}' | b']' => depth += 1,
            b'{' | b'[' if depth > 0 => depth -= 1,
            b'{' | b'[' => match key_before(b, i, floor) {
                Some(key) => return Some(key),
                // An element of a list: its list's key.
                None if element_start(b, i, floor) => {}
                None => return None,
            },
            _ => {}
        }
    }
    None
}

/// Whether the opener at `i` follows a `[` or a `,` (an element of a list).
fn element_start(b: &[u8], i: usize, floor: usize) -> bool {
    let mut j = i;
    while j > floor && b[j - 1].is_ascii_whitespace() {
        j -= 1;
    }
    j > floor && matches!(b[j - 1], b'[' | b',')
}

/// The key before the opener at `i` (`"name": {`, `name = [`, `name: [`,
/// an HCL block's last label: `variable "db_password" {`).
fn key_before(b: &[u8], i: usize, floor: usize) -> Option<(usize, usize)> {
    let mut j = i;
    while j > floor && matches!(b[j - 1], b' ' | b'\t') {
        j -= 1;
    }
    if i > j && j > floor && b[j - 1] == b'"' {
        return block_label(b, j - 1, floor);
    }
    // An HCL block's bare name first on its line (`tokens {`).
    if i > j && j > floor && b[j - 1].is_ascii_alphabetic() {
        let mut ks = j;
        while ks > floor && (b[ks - 1].is_ascii_alphanumeric() || b[ks - 1] == b'_') {
            ks -= 1;
        }
        let line = crate::line_start(b, ks);
        return b[line..ks]
            .iter()
            .all(|&c| c == b' ' || c == b'\t')
            .then_some((ks, j));
    }
    if j <= floor || !matches!(b[j - 1], b':' | b'=') {
        return None;
    }
    j -= 1;
    while j > floor && matches!(b[j - 1], b' ' | b'\t') {
        j -= 1;
    }
    let quoted = j > floor && matches!(b[j - 1], b'"' | b'\'');
    let ke = j - quoted as usize;
    let mut ks = ke;
    while ks > floor
        && (b[ks - 1].is_ascii_alphanumeric() || matches!(b[ks - 1], b'_' | b'-' | b'.' | b':'))
    {
        ks -= 1;
    }
    (ks < ke).then_some((ks, ke))
}

/// The label that closes at the quote `q` (`variable "db_password" {`):
/// an HCL block's, first on its line after the block's type and any other
/// labels (Terraform's and Packer's variables, Nomad's and Consul's blocks).
fn block_label(b: &[u8], q: usize, floor: usize) -> Option<(usize, usize)> {
    let open = memchr::memrchr(b'"', &b[floor..q]).map(|p| floor + p)?;
    let label = (open + 1, q);
    let line = crate::line_start(b, open);
    let head = &b[line.max(floor)..open];
    let words: Vec<&[u8]> = head
        .split(|&c| c == b' ' || c == b'\t')
        .filter(|w| !w.is_empty())
        .collect();
    // The block's type, then quoted labels.
    let typed = words
        .first()
        .is_some_and(|t| t.iter().all(|&c| c.is_ascii_lowercase() || c == b'_'))
        && words[1..]
            .iter()
            .all(|w| w.len() >= 2 && w[0] == b'"' && w[w.len() - 1] == b'"');
    let name = &b[label.0..label.1];
    (typed
        && !name.is_empty()
        && name
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')))
    .then_some(label)
}

/// Whether the list that holds the string at `q` holds only strings before
/// it on its line or lines.
fn in_list(b: &[u8], q: usize) -> bool {
    let floor = q.saturating_sub(MAX_BACK);
    let mut i = q;
    while i > floor {
        i -= 1;
        match b[i] {
            b'[' => return true,
            b'{' | b'}' | b']' | b':' => return false,
            _ => {}
        }
    }
    false
}

/// The quoted (or bare) value at `i`, a secret under `parent` if it looks
/// like one.
fn quoted_value(b: &[u8], i: usize, parent: Parent) -> Parsed {
    let kind = parent.kind;
    let n = b.len();
    if i >= n {
        return Parsed::Open;
    }
    let Some(q) = quote_at(b, i) else {
        return Parsed::No;
    };
    let (start, end, open) = quoted(b, i, q);
    let v = &b[start..end];
    let strong = kind != NAMED_KEY && kind != super::BARE_KEY;
    let secret =
        plain(v) && (parent.password || keylike(v) || hex_key(v) || (strong && secret_like(v)));
    Parsed::Value(Value {
        start,
        end,
        open,
        seen: end + q.len(),
        secret,
        kind: reported(kind),
    })
}

/// Whether the word `[s, e)` (16 bytes or more) may be a YAML value whose
/// parents [`at_yaml_value`] reads: a list's item (`- …`) or a key's value
/// (`key: …`, quoted or not).
#[inline(always)]
pub(crate) fn may_be_yaml_value(b: &[u8], s: usize) -> bool {
    let q = usize::from(s > 0 && matches!(b[s - 1], b'"' | b'\''));
    s >= 2 + q && matches!(&b[s - 2 - q..s - q], b"- " | b": ")
}

/// A YAML value whose own key says nothing (or a list's item), masked
/// where a parent or the parent's parent, by indentation, names a secret
/// (Ory's `secrets: {cookie: [- …]}`, Envoy's `generic_secret: {secret:
/// {inline_string: "…"}}`) and the value looks like a key.
#[inline(never)]
pub(crate) fn at_yaml_value(b: &[u8], s: usize, e: usize, found: &mut Vec<Found>) {
    let quoted = matches!(b[s - 1], b'"' | b'\'');
    let op = s - usize::from(quoted) - 2;
    let Some(line) = crate::line_start_within(b, op, MAX_BACK) else {
        return;
    };
    let head = &b[line..op];
    let indent = head.iter().take_while(|&&c| c == b' ').count();
    let key = &head[indent..];
    let list_item = b[op] == b'-';
    // `- value` alone after its indentation; `key: value` with a key that
    // says nothing of its own (a name that does is read by its name).
    if list_item {
        if !key.is_empty() {
            return;
        }
    } else if key.is_empty()
        || !key.iter().all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-'))
        || secret_kind(key).is_some()
        // (Envoy's `inline_string`, under `secret:`, is the secret itself.)
        || (super::positions::says_what_it_is(key) && !key.starts_with(b"inline_"))
    {
        return;
    }
    // The whole value, past the word: to its closing quote, or to a blank
    // (`abcd…!tail`: a symbol ends the word, not the value).
    let e = if quoted {
        let q = b[s - 1];
        match memchr::memchr2(q, b'\n', &b[e..]) {
            Some(p) if b[e + p] == q => e + p,
            _ => return,
        }
    } else {
        e + b[e..]
            .iter()
            .take(super::MAX_VALUE)
            .take_while(|c| !c.is_ascii_whitespace())
            .count()
    };
    let v = &b[s..e];
    // (Random, not a name a system made: `build-Linux-node20-4f2a…`
    // under a cache's `keys:`, a word before its first `-`.)
    let named = v
        .iter()
        .position(|&c| c == b'-' || c == b'_')
        .is_some_and(|p| p >= 3 && v[..p].iter().all(u8::is_ascii_alphabetic));
    if named || !super::values::neutral_key(v) || !plain(v) {
        return;
    }
    // (A list's item is one level under its key, which may share its
    // indentation: `key:\n- item`.)
    let Some(kind) = yaml_secret_ancestor(b, line, indent, list_item) else {
        return;
    };
    found.push(Found {
        start: s,
        end: e,
        kind: reported(kind),
    });
}

/// The kind of the nearest of two ancestors (by indentation, above the
/// line at `line` indented `indent`) whose key names a secret.
fn yaml_secret_ancestor(
    b: &[u8],
    mut line: usize,
    mut indent: usize,
    list_item: bool,
) -> Option<&'static str> {
    let floor = line.saturating_sub(MAX_BACK);
    let mut levels = 0;
    let mut same_ok = list_item;
    while line > floor && levels < 2 {
        let end = line - 1;
        let start = crate::line_start(b, end).max(floor);
        let text = &b[start..end];
        line = start;
        let i = text.iter().take_while(|&&c| c == b' ').count();
        let rest = &text[i..];
        if rest.is_empty() || rest[0] == b'#' {
            continue;
        }
        // A sibling: same indentation (a list's items, a map's keys).
        if i > indent || (i == indent && !(same_ok && rest.ends_with(b":"))) {
            if i == indent && !rest.starts_with(b"- ") && list_item && !rest.ends_with(b":") {
                return None;
            }
            continue;
        }
        // The parent: `key:` with nothing after it.
        let key = rest.strip_suffix(b":")?;
        if let Some(kind) = secret_kind(last_part(strip_plural(key))) {
            return Some(kind);
        }
        levels += 1;
        indent = i;
        same_ok = false;
    }
    None
}

/// `secrets`, `keys`, `tokens_b64`: the name of one of them.
fn strip_plural(key: &[u8]) -> &[u8] {
    let mut key = key;
    for suffix in [&b"_b64"[..], b"_hex", b"_base64", b"s"] {
        key = key.strip_suffix(suffix).unwrap_or(key);
    }
    key
}
