//! A password passed by its place among a call's arguments, no name beside
//! it: `HTTPBasicAuth("ana", "…")`, `requests.get(url, auth=("ana", "…"))`,
//! `new NetworkCredential("ana", "…")`, `DriverManager.getConnection(url,
//! "app", "…")`, `smtp.login("ana@example.com", "…")`, Go's
//! `req.SetBasicAuth("ana", "…")`.

use super::values::{dashed_identifier, dotted_identifier, identifier, name_word, path, plain};
use crate::Found;

/// What opens a call (up to its `(`) and which argument, counted from 1,
/// is the password.
const CALLS: &[(&[u8], usize)] = &[
    (b"BasicAuth(", 2),
    (b"DigestAuth(", 2),
    (b"auth=(", 2),
    // (A traceback's locals, a REPL: `auth = ('ana', '…')`.)
    (b"auth = (", 2),
    (b"NetworkCredential(", 2),
    (b"UsernamePasswordCredentials(", 2),
    (b"PasswordAuthentication(", 2),
    (b"getConnection(", 3),
    (b".login(", 2),
    (b"simple_bind_s(", 2),
    (b".bind(", 2),
    // Algolia's client: the application's id, then an API key (an admin
    // key in a seed script; the text does not say which).
    (b"algoliasearch(", 2),
];

/// Most bytes from a call's `(` to the argument read.
const MAX_ARGUMENTS: usize = 256;

/// Whether the quoted word at `s` may be a later argument: after `, "`.
#[inline(always)]
pub(crate) fn may_be(b: &[u8], s: usize) -> bool {
    s >= 3 && matches!(b[s - 1], b'"' | b'\'') && b[s - 2] == b' ' && b[s - 3] == b','
}

/// The argument quoted at `s` (its word ends at `e`): masked if it is the
/// password of one of [`CALLS`].
#[inline(never)]
pub(crate) fn at_argument(b: &[u8], s: usize, e: usize, found: &mut Vec<Found>) {
    let quote = b[s - 1];
    // The whole string: the word may stop before its end (`p@ss!w0rd`).
    // Closed, whatever follows: a stream may not have it yet.
    let Some(close) = memchr::memchr(quote, &b[s..(s + 256).min(b.len())]).map(|p| s + p) else {
        return;
    };
    let v = &b[s..close];
    if close < e || !plain(v) || name_word(v) || v.iter().any(u8::is_ascii_whitespace) {
        return;
    }
    let floor = s.saturating_sub(MAX_ARGUMENTS);
    let Some(open) = memchr::memrchr(b'(', &b[floor..s]).map(|p| floor + p) else {
        return;
    };
    let Some(&(_, nth)) = CALLS.iter().find(|(c, _)| b[..open + 1].ends_with(c)) else {
        return;
    };
    // Arguments before this one: commas outside quotes.
    let mut commas = 0;
    let mut in_quote = None;
    for &c in &b[open + 1..s - 1] {
        match (c, in_quote) {
            (b'"' | b'\'', None) => in_quote = Some(c),
            (q, Some(open_q)) if q == open_q => in_quote = None,
            (b',', None) => commas += 1,
            (b'(' | b')' | b'\n', None) => return,
            _ => {}
        }
    }
    if commas + 1 == nth {
        found.push(Found {
            start: s,
            end: close,
            kind: "secret-assignment",
        });
    }
}

/// Where a later argument's string opens (`, "`) that `cut` leaves
/// unclosed on its line: whether it is a password is known once it closes.
pub(crate) fn open_at(b: &[u8], cut: usize) -> Option<usize> {
    let floor = cut.saturating_sub(MAX_ARGUMENTS);
    let line = memchr::memrchr(b'\n', &b[floor..cut]).map_or(floor, |p| floor + p + 1);
    let head = &b[line..cut];
    let q = memchr::memrchr2(b'"', b'\'', head)?;
    let opens = q >= 2 && head[q - 2] == b',' && head[q - 1] == b' ';
    (opens && !head[q + 1..].contains(&head[q])).then_some(line + q + 1)
}

/// Functions known to name their second argument by their first: a
/// setting's name and value (`define('DB_PASSWORD', '…')` in
/// `wp-config.php`, `putenv`, `System.setProperty`, `localStorage.setItem`)
/// or a default for a name (`env('APP_KEY', '…')`, `os.getenv("TOKEN",
/// "…")`, `ENV.fetch`). Any value the name asks for is masked there; in
/// other calls (`t("forgot_password", "Forgot your password?")`) only one
/// that is no words.
const NAMING_CALLS: &[&[u8]] = &[
    b"define",
    b"setenv",
    b"putenv",
    b"Setenv",
    b"setdefault",
    b"setProperty",
    b"SetEnvironmentVariable",
    b"setItem",
    b"env",
    b"getenv",
    b"fetch",
];

/// Most bytes read of a call's arguments (a WordPress salt is 64).
const MAX_CALL: usize = 512;

/// Whether the quoted word at `s` is a call's first argument: `(`, maybe
/// blanks, then its quote.
#[inline(always)]
pub(crate) fn may_open_call(b: &[u8], s: usize) -> bool {
    if s < 2 || !matches!(b[s - 1], b'"' | b'\'') {
        return false;
    }
    // (Pretty JSON's keys follow blanks too: the `(` is looked for here.)
    let mut i = s - 1;
    while i > 0 && b[i - 1] == b' ' {
        i -= 1;
    }
    i > 0 && b[i - 1] == b'('
}

/// The first argument quoted at `s`, of a call that names its value: a
/// quoted name then a quoted value, whatever is called (`define('AUTH_KEY',
/// '…')`, `putenv`, `System.setProperty`, `conf.set`, `Header.Set`,
/// `os.getenv("TOKEN", "…")`'s default, a tuple `("X-Api-Key", "…")`), the
/// name judged as an assignment's is; or the only argument of a setter
/// whose name says what it sets (`->setXApiKey('…')`, `.setPassword("…")`,
/// `withToken("…")`).
#[inline(never)]
pub(crate) fn at_first_argument(b: &[u8], s: usize, found: &mut Vec<Found>) {
    if let Call::Value {
        name,
        start,
        end,
        known,
    } = call(b, s)
    {
        masked_if_named(b, name, start, end, known, found);
    }
}

/// What a call whose first argument is quoted at `s` holds.
enum Call<'a> {
    No,
    /// The text ends before its value does, or before its `)`.
    Open,
    Value {
        name: &'a [u8],
        start: usize,
        end: usize,
        /// A setter, or one of [`NAMING_CALLS`].
        known: bool,
    },
}

fn call(b: &[u8], s: usize) -> Call<'_> {
    let quote = b[s - 1];
    let mut open = s - 1;
    while open > 0 && b[open - 1] == b' ' {
        open -= 1;
    }
    let Some(open) = open.checked_sub(1).filter(|&o| b[o] == b'(') else {
        return Call::No;
    };
    let callee = callee(b, open);
    let setter = setter_name(callee);
    let known = NAMING_CALLS.contains(&callee);
    let limit = (s + MAX_CALL).min(b.len());
    let Some(close) = memchr::memchr(quote, &b[s..limit]).map(|p| s + p) else {
        return if limit == b.len() {
            Call::Open
        } else {
            Call::No
        };
    };
    let mut i = close + 1;
    skip_blanks(b, &mut i);
    if i >= b.len() {
        return Call::Open;
    }
    if b[i] == b')' {
        return match setter {
            Some(name) => Call::Value {
                name,
                start: s,
                end: close,
                known: true,
            },
            None => result(b, &b[s..close], i + 1),
        };
    }
    let name = &b[s..close];
    if name.is_empty()
        || !name
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
        || b[i] != b','
    {
        return Call::No;
    }
    i += 1;
    skip_blanks(b, &mut i);
    let Some(&q) = b.get(i) else {
        return Call::Open;
    };
    if !matches!(q, b'"' | b'\'') {
        return Call::No;
    }
    let start = i + 1;
    let limit = (start + MAX_CALL).min(b.len());
    match memchr::memchr(q, &b[start..limit]) {
        Some(p) => Call::Value {
            name,
            start,
            end: start + p,
            known: known || setter.is_some(),
        },
        None if limit == b.len() => Call::Open,
        None => Call::No,
    }
}

/// A call's result as a tracer shows it after the `)` that ends at `i`
/// (ltrace's `getenv("PGPASSWORD")      = "…"`), for the name its only
/// argument gives.
fn result<'a>(b: &[u8], name: &'a [u8], mut i: usize) -> Call<'a> {
    // ltrace pads its results to a column.
    let blanks = crate::run(b, i, |c| c == b' ');
    if blanks > MAX_PADDING {
        return Call::No;
    }
    i += blanks;
    match (b.get(i), b.get(i + 1)) {
        (None, _) | (Some(b'='), None) => return Call::Open,
        (Some(b'='), Some(&c)) if c != b'=' => i += 1,
        _ => return Call::No,
    }
    skip_blanks(b, &mut i);
    match b.get(i) {
        None => return Call::Open,
        Some(b'"') => {}
        _ => return Call::No,
    }
    let start = i + 1;
    let limit = (start + MAX_CALL).min(b.len());
    match memchr::memchr(b'"', &b[start..limit]) {
        Some(p)
            if !name.is_empty() && name.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_') =>
        {
            Call::Value {
                name,
                start,
                end: start + p,
                known: false,
            }
        }
        Some(_) => Call::No,
        None if limit == b.len() => Call::Open,
        None => Call::No,
    }
}

/// Most blanks between a call and its result.
const MAX_PADDING: usize = 128;

/// The name called before the `(` at `open` (`define`, `setXApiKey`).
fn callee(b: &[u8], open: usize) -> &[u8] {
    let start = open
        - b[open.saturating_sub(64)..open]
            .iter()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
            .count();
    &b[start..open]
}

/// `setXApiKey` → `XApiKey`, `withToken` → `Token`: a setter's name after
/// `set` or `with`, capitalised.
fn setter_name(callee: &[u8]) -> Option<&[u8]> {
    let rest = callee
        .strip_prefix(b"set")
        .or_else(|| callee.strip_prefix(b"with"))?;
    rest.first()
        .is_some_and(u8::is_ascii_uppercase)
        .then_some(rest)
}

/// Masks `[start, end)` if `name` names a secret and the value has the
/// shape the name asks for: a WordPress key or salt (64 printable random
/// characters) too.
fn masked_if_named(
    b: &[u8],
    name: &[u8],
    start: usize,
    end: usize,
    known: bool,
    found: &mut Vec<Found>,
) {
    let v = &b[start..end];
    if v.contains(&b'\n') || (!known && worded_value(v)) {
        return;
    }
    let kind = super::names::secret_kind(name)
        .or_else(|| super::names_azure_account_key(name).then_some(super::names::NAMED_KEY));
    let salt = name.len() > 4 && name[name.len() - 4..].eq_ignore_ascii_case(b"salt");
    let secret = match kind {
        Some(kind) if plain(v) && !name_word(v) && super::key_shaped(kind, v, name) => true,
        Some(_) | None => (kind.is_some() || salt) && printable_random(v),
    };
    if secret {
        found.push(Found {
            start,
            end,
            kind: "secret-assignment",
        });
    }
}

/// Words, a name or a path, not a value made to be secret: a label
/// (`"Forgot your password?"`), a secret's name (`"db-credentials"`), a
/// state (`"refreshed"`).
fn worded_value(v: &[u8]) -> bool {
    v.iter().any(u8::is_ascii_whitespace)
        || !crate::mixed(v)
        || identifier(v)
        || dashed_identifier(v)
        || dotted_identifier(v)
        || path(v)
}

/// 32 printable characters or more of all four classes (WordPress's keys
/// and salts, generated passwords): random, whatever symbols it holds.
fn printable_random(v: &[u8]) -> bool {
    v.len() >= 32
        && v.iter().all(|c| (0x20..0x7f).contains(c))
        && v.iter().any(u8::is_ascii_lowercase)
        && v.iter().any(u8::is_ascii_uppercase)
        && v.iter().any(u8::is_ascii_digit)
        && v.iter().any(u8::is_ascii_punctuation)
        && !crate::placeholders::stand_in(v)
}

fn skip_blanks(b: &[u8], i: &mut usize) {
    *i += crate::run(b, *i, |c| matches!(c, b' ' | b'\t'));
}

/// Where a call's first quoted argument starts (`(`, blanks, a quote) on
/// the line of `cut`, if the text ends before what it holds is known (its
/// second string's closing quote, a setter's `)`). A call's name and
/// value are read up to [`MAX_CALL`] bytes each.
pub(crate) fn call_open_at(b: &[u8], cut: usize) -> Option<usize> {
    let floor = cut.saturating_sub(2 * MAX_CALL + 8);
    let line = memchr::memrchr(b'\n', &b[floor..cut]).map_or(floor, |p| floor + p + 1);
    let text = &b[..cut];
    let mut at = line;
    while let Some(p) = memchr::memchr(b'(', &text[at..]).map(|p| at + p) {
        at = p + 1;
        let mut i = p + 1;
        while i < cut && text[i] == b' ' {
            i += 1;
        }
        if i == cut {
            // (The quote may not have come yet.)
            return Some(p + 1);
        }
        if matches!(text[i], b'"' | b'\'') && matches!(call(text, i + 1), Call::Open) {
            return Some(p + 1);
        }
    }
    None
}
