//! Values of things named like secrets, in the shapes configs, shells and
//! HTTP write them: `DB_PASSWORD=…`, `export API_KEY="…"`, `"api_key": "…"`,
//! `password: …` (YAML), `secret = "…"` (TOML, INI), `'token' => '…'`,
//! `<password>…</password>`, `?client_secret=…&`, `Authorization: Bearer …`,
//! a bare `Bearer …` or `Basic …`, `--password …`, and the `password` of a
//! `.netrc` line.
//!
//! Code that only *names* a secret stays: `token = get_token()`,
//! `password: string`, `secret = config.secret`, `f(token=token)`,
//! `token_count = 5`, `${{ secrets.TOKEN }}`, `<your-api-key>`. The rule of
//! thumb: a bare value after `key: ` or `key = ` must look random (a digit or
//! a symbol) unless the line is plainly a config line (`key: value` alone on
//! its line, `KEY=value` with nothing around the `=`).

use super::{Found, TOKEN, b64, find};

const MAX_KEY: usize = 64;
const MAX_VALUE: usize = 4096;
/// Shorter values are not taken for secrets (`password=short` stays).
const MIN_VALUE: usize = 6;

/// Endings of names of secrets, compared without case and separators
/// (`DB_PASSWORD`, `dbPassword`, `db.password`, `x-api-key`). `true`: the
/// ending must start a part of the name (`DB_PASS`, `dbPass`, not `bypass`).
const NAMES: [(&[u8], bool); 24] = [
    (b"password", false),
    (b"passwd", false),
    (b"passphrase", false),
    (b"pass", true),
    (b"pwd", true),
    (b"secret", false),
    (b"token", false),
    (b"apikey", false),
    (b"accesskey", false),
    (b"secretkey", false),
    (b"privatekey", false),
    (b"accountkey", false),
    (b"signingkey", false),
    (b"encryptionkey", false),
    (b"masterkey", false),
    (b"authkey", false),
    (b"storagekey", false),
    (b"sharedkey", false),
    (b"keydata", false),
    (b"secretkeybase", false),
    (b"mnemonic", false),
    (b"auth", true),
    (b"sig", true),
    (b"signature", false),
];

/// Values that are the name of a type or a stand-in, not a secret.
static NOT_VALUES: [&[u8]; 19] = [
    b"undefined",
    b"string",
    b"number",
    b"boolean",
    b"object",
    b"unknown",
    b"secret",
    b"secrets",
    b"password",
    b"passwd",
    b"passphrase",
    b"tokens",
    b"redacted",
    b"hidden",
    b"masked",
    b"required",
    b"optional",
    b"default",
    b"secretstring",
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

/// In [`FIRST`] and [`LAST`]: the word may be a name with its value after it
/// (`password:`, `KEY=`, `Bearer`, `password x`, `--token x`).
const NAMED: u8 = 1;
/// In [`FIRST`]: the word starts with an operator (`=`, `:`, `:=`, `=>`)
/// whose name is the word before it (`key = v`, `"key": v`).
const OPERATOR: u8 = 2;

const fn first_table() -> [u8; 256] {
    let mut t = [0; 256];
    t[b'B' as usize] = NAMED;
    t[b'p' as usize] = NAMED;
    t[b'-' as usize] = NAMED;
    t[b'=' as usize] = OPERATOR;
    t[b':' as usize] = OPERATOR;
    t
}

const fn last_table() -> [u8; 256] {
    let mut t = [0; 256];
    t[b'=' as usize] = NAMED;
    t[b':' as usize] = NAMED;
    t
}

static FIRST: [u8; 256] = first_table();
static LAST: [u8; 256] = last_table();

/// What the word `[s, e)` may be: [`NAMED`], [`OPERATOR`], or 0 (most
/// words). Called for every word, so a few table lookups and no branch.
#[inline(always)]
pub(super) fn word_class(b: &[u8], s: usize, e: usize) -> u8 {
    // `<password>`: the byte before the word.
    let tag = (b[s.saturating_sub(1)] == b'<') as u8 * NAMED;
    FIRST[b[s] as usize] | LAST[b[e - 1] as usize] | tag
}

/// The word `[s, e)` of class [`NAMED`], looked at closer: most `p…` words
/// are not `password x`.
fn named_here(b: &[u8], s: usize, e: usize) -> bool {
    if matches!(b[e - 1], b'=' | b':') || (s > 0 && b[s - 1] == b'<') {
        return true;
    }
    let blank = matches!(b.get(e), Some(b' ' | b'\t') | None);
    blank
        && match b[s] {
            b'B' => matches!(e - s, 5 | 6),
            b'p' => e - s == 8,
            _ => b.get(s + 1) == Some(&b'-'),
        }
}

/// Reads the value of the name the word `[s, e)` is (`class & NAMED`) or
/// that the word `previous` is before the operator `[s, e)` starts with.
pub(super) fn at_word(
    b: &[u8],
    class: u8,
    previous: std::ops::Range<usize>,
    s: usize,
    e: usize,
    found: &mut Vec<Found>,
) {
    if class & NAMED != 0 && named_here(b, s, e) {
        after_word(b, s, e, found);
    }
    if class & OPERATOR != 0 && !previous.is_empty() {
        after_word(b, previous.start, previous.end, found);
    }
}

/// The word `[s, e)` (perhaps ending in its operator) as a name, and what
/// follows as its value.
pub(super) fn after_word(b: &[u8], s: usize, e: usize, found: &mut Vec<Found>) {
    let mut ke = e;
    while ke > s && matches!(b[ke - 1], b'=' | b':') {
        ke -= 1;
    }
    if ke > s
        && let Parsed::Value(v) = parse(b, s, ke)
    {
        v.push_to(found);
    }
}

/// `name=value` or `name:value` inside one word; `op` is the operator.
pub(super) fn at_operator(b: &[u8], s: usize, op: usize, found: &mut Vec<Found>) {
    if let Parsed::Value(v) = parse(b, s, op) {
        v.push_to(found);
    }
}

/// Where a name starts (at or after `from`, before `cut`) whose value, or
/// what decides whether it is one, reaches `cut` (`"password": "hunt`,
/// `Authorization: Bearer `).
pub(super) fn open_at(b: &[u8], from: usize, cut: usize) -> Option<usize> {
    let mut i = from;
    while i < cut {
        while i < cut && !TOKEN[b[i] as usize] {
            i += 1;
        }
        let s = i;
        while i < b.len() && TOKEN[b[i] as usize] {
            i += 1;
        }
        if s == i {
            break;
        }
        let mut ke = i;
        while ke > s && matches!(b[ke - 1], b'=' | b':') {
            ke -= 1;
        }
        let inner = b[s..ke]
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c == b'=' || c == b':')
            .map(|(p, _)| s + p);
        for k in inner.chain((ke > s).then_some(ke)) {
            match parse(b, s, k) {
                Parsed::Open => return Some(s),
                Parsed::Value(v) if v.open || v.seen > cut => return Some(s),
                _ => {}
            }
        }
    }
    None
}

enum Parsed {
    No,
    /// A name, and the text ends before its value does.
    Open,
    Value(Value),
}

struct Value {
    start: usize,
    end: usize,
    /// The value runs to the end of the text: it may continue.
    open: bool,
    /// One past the last byte that decided the value (its closing quote,
    /// the byte after it, the end of its line).
    seen: usize,
    /// It looks like a secret, not a reference or a type.
    secret: bool,
    kind: &'static str,
}

impl Value {
    fn push_to(self, found: &mut Vec<Found>) {
        if self.secret && self.end > self.start {
            found.push(Found {
                start: self.start,
                end: self.end,
                kind: self.kind,
            });
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Name {
    /// `password`, `api_key`, …: the kind to report.
    Secret(&'static str),
    /// `Authorization` / `Proxy-Authorization`: `scheme credentials`.
    Authorization,
    /// `Bearer` or `Basic` before credentials.
    Bearer,
    Basic,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    /// `=` with nothing around it: shells, env files, query strings.
    Compact,
    /// `=`, `:=`, `=>` with blanks or quotes around it.
    Spaced,
    /// `:` (YAML, JSON, headers).
    Colon,
    /// `<name>value</name>`.
    Xml,
    /// No operator: `Bearer x`, `--password x`, `.netrc`'s `password x`.
    Blank,
}

/// Reads `name op value` where the name ends at `ke` (its word starts at
/// `s`).
fn parse(b: &[u8], s: usize, ke: usize) -> Parsed {
    // Most words are no name: tell from their last two letters first.
    let candidates = names_ending_like(&b[s..ke]);
    if candidates == 0 {
        return Parsed::No;
    }
    let n = b.len();
    let ks = b[s..ke]
        .iter()
        .rposition(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')))
        .map_or(s, |p| s + p + 1);
    let key = &b[ks..ke];
    // `https://x-access-token:…@`: a URL's user, read by `urls`.
    if key.is_empty() || key.len() > MAX_KEY || (ks > 0 && b[ks - 1] == b'/') {
        return Parsed::No;
    }
    let Some(name) = name_of(key, candidates) else {
        return Parsed::No;
    };
    let mut i = ke;
    let quoted_key = if b[i..].starts_with(b"\\\"") {
        i += 2;
        true
    } else if matches!(b.get(i), Some(b'"' | b'\'' | b'`')) {
        i += 1;
        true
    } else {
        false
    };
    // `$config['password'] = …`
    if quoted_key && b.get(i) == Some(&b']') {
        i += 1;
    }
    // `\` at the end: the escaped quote is in the next chunk.
    if &b[i..] == b"\\" {
        return Parsed::Open;
    }
    let blanks_before = blanks(b, &mut i);
    if i >= n {
        return Parsed::Open;
    }
    let op = match (b[i], b.get(i + 1)) {
        (b'=', Some(b'=' | b'~')) | (b':', Some(b':')) => return Parsed::No,
        (b'=', Some(b'>')) | (b':', Some(b'=')) => {
            i += 2;
            Op::Spaced
        }
        (b'=', _) => {
            i += 1;
            if quoted_key || blanks_before > 0 || matches!(b.get(i), Some(b' ' | b'\t')) {
                Op::Spaced
            } else {
                Op::Compact
            }
        }
        (b':', _) => {
            i += 1;
            Op::Colon
        }
        (b'>', _) if !quoted_key && blanks_before == 0 && ks > 0 && b[ks - 1] == b'<' => {
            i += 1;
            Op::Xml
        }
        _ if blanks_before > 0 && !quoted_key => Op::Blank,
        _ => return Parsed::No,
    };
    match (name, op) {
        (Name::Bearer | Name::Basic, Op::Blank) if blanks_before == 1 => {
            return credentials(b, i, name);
        }
        (Name::Bearer | Name::Basic, _) | (Name::Authorization, Op::Blank) => return Parsed::No,
        (Name::Secret(_), Op::Blank)
            if !(is_flag(b, ks, blanks_before) || netrc(b, ks, ke).is_some()) =>
        {
            return Parsed::No;
        }
        _ => {}
    }
    if op != Op::Blank && op != Op::Xml {
        blanks(b, &mut i);
    }
    if i >= n {
        return Parsed::Open;
    }
    if name == Name::Authorization {
        return authorization(b, i);
    }
    let Name::Secret(kind) = name else {
        return Parsed::No;
    };
    if let Some(q) = quote_at(b, i) {
        let (start, end, open) = quoted(b, i, q);
        let v = &b[start..end];
        // `KEY="correct horse"` in a shell or env file is one value;
        // `"label": "Forgot password?"` is prose.
        let spaces_ok = op == Op::Compact;
        let secret = plain(v)
            && (spaces_ok || !v.iter().any(u8::is_ascii_whitespace))
            && !(path(v) && kind != "aws-secret-key");
        return Parsed::Value(Value {
            start,
            end,
            open,
            seen: end + q.len(),
            secret,
            kind,
        });
    }
    if op == Op::Blank && b[i] == b'-' {
        return Parsed::No;
    }
    // In a query string, `&` starts the next parameter.
    let url = ks > 0 && matches!(b[ks - 1], b'?' | b'&');
    let start = i;
    let mut seen = 0;
    while i < n && i - start < MAX_VALUE && VALUE[b[i] as usize] {
        if b[i] == b'&' {
            if url {
                break;
            }
            let (next_parameter, looked) = parameter_at(b, i + 1);
            seen = looked;
            if next_parameter {
                break;
            }
        }
        i += 1;
    }
    // Blanks up to the end of the text: whether the line ends here is not
    // known yet, and `config_line` depends on it.
    let mut j = i;
    while j < n && matches!(b[j], b' ' | b'\t') {
        j += 1;
    }
    let open = j == n;
    let mut end = i;
    // `… set DB_PASSWORD=hunter22.`: the full stop ends the sentence.
    while end > start && b[end - 1] == b'.' {
        end -= 1;
    }
    let v = &b[start..end];
    let next = b.get(i).copied();
    let secret = plain(v)
        && (op == Op::Xml || !matches!(next, Some(b'(' | b'[' | b'<')))
        && !dotted_identifier(v)
        && !(path(v) && kind != "aws-secret-key")
        && match op {
            // `f(token=token)`: a keyword argument.
            Op::Compact => !(identifier(v) && matches!(next, Some(b')' | b','))),
            Op::Colon if config_line(b, ks, i) => true,
            Op::Colon | Op::Spaced => !identifier(v),
            Op::Xml => next == Some(b'<'),
            // `--password x`, or `.netrc`'s `password x` last on its line.
            Op::Blank => {
                is_flag(b, ks, blanks_before)
                    || netrc(b, ks, ke) == Some(true)
                    || config_line(b, ks, i)
            }
        };
    // `config_line` looks to the end of the line.
    let seen = seen.max(if matches!(op, Op::Colon | Op::Blank) {
        j + 1
    } else {
        i + 1
    });
    Parsed::Value(Value {
        start,
        end,
        open,
        seen,
        secret,
        kind,
    })
}

/// The name a key is, if it names a secret.
fn name_of(key: &[u8], candidates: u32) -> Option<Name> {
    match key {
        b"Bearer" | b"BEARER" => return Some(Name::Bearer),
        b"Basic" | b"BASIC" => return Some(Name::Basic),
        _ => {}
    }
    if candidates & AUTHORIZATION != 0 && ends_with_name(key, b"authorization").is_some() {
        return Some(Name::Authorization);
    }
    for (i, &(name, starts_part)) in NAMES.iter().enumerate() {
        if candidates & (1 << i) == 0 {
            continue;
        }
        let Some(first) = ends_with_name(key, name) else {
            continue;
        };
        if starts_part && first > 0 {
            let (prev, cur) = (key[first - 1], key[first]);
            let camel = prev.is_ascii_lowercase() && cur.is_ascii_uppercase();
            if prev.is_ascii_alphanumeric() && !camel {
                continue;
            }
        }
        let aws = [&b"secretaccesskey"[..], b"awssecretkey", b"awssecret"]
            .iter()
            .any(|n| ends_with_name(key, n).is_some());
        return Some(Name::Secret(if aws {
            "aws-secret-key"
        } else {
            "secret-assignment"
        }));
    }
    None
}

/// Whether `key` ends with `name` (lower case), without regard to case or
/// to the separators `_`, `-`, `.` (`DB_PASSWORD`, `dbPassword`, `x-api-key`):
/// where the match starts.
fn ends_with_name(key: &[u8], name: &[u8]) -> Option<usize> {
    let mut i = key.len();
    for &want in name.iter().rev() {
        loop {
            i = i.checked_sub(1)?;
            if !matches!(key[i], b'_' | b'-' | b'.') {
                break;
            }
        }
        // Lower case for letters; nothing else can match a letter.
        if key[i] | 0x20 != want {
            return None;
        }
    }
    Some(i)
}

/// Per pair of last two letters (`26 * first + second`): which names end
/// with it, bit `i` for `NAMES[i]`, then `OTHER_NAMES`.
const fn endings() -> [u32; 26 * 26] {
    let mut t = [0; 26 * 26];
    let mut i = 0;
    while i < NAMES.len() + OTHER_NAMES.len() {
        let name: &[u8] = if i < NAMES.len() {
            NAMES[i].0
        } else {
            OTHER_NAMES[i - NAMES.len()]
        };
        let (a, z) = (name[name.len() - 2], name[name.len() - 1]);
        t[(a - b'a') as usize * 26 + (z - b'a') as usize] |= 1 << i;
        i += 1;
    }
    t
}

const OTHER_NAMES: [&[u8]; 3] = [b"authorization", b"bearer", b"basic"];
const AUTHORIZATION: u32 = 1 << NAMES.len();

static ENDINGS: [u32; 26 * 26] = endings();

/// The names the key may be, from its last two letters: most keys are
/// turned away here.
fn names_ending_like(key: &[u8]) -> u32 {
    let mut last = [0u8; 2];
    let mut n = 0;
    let mut i = key.len();
    while i > 0 && n < 2 {
        i -= 1;
        let c = key[i];
        if !matches!(c, b'_' | b'-' | b'.') {
            // Lower case for letters; anything else fails the range check.
            last[n] = c | 0x20;
            n += 1;
        }
    }
    let [z, a] = last;
    if n == 2 && a.is_ascii_lowercase() && z.is_ascii_lowercase() {
        ENDINGS[(a - b'a') as usize * 26 + (z - b'a') as usize]
    } else {
        0
    }
}

/// `--password value` on a command line.
fn is_flag(b: &[u8], ks: usize, blanks: usize) -> bool {
    blanks == 1 && b[ks..].starts_with(b"--")
}

/// `password value` in a `.netrc`: `Some(true)` after `machine` or `login`
/// on its line; `Some(false)` first on its line, where it is one if its value
/// ends the line (the `login` line may have been an earlier chunk).
fn netrc(b: &[u8], ks: usize, ke: usize) -> Option<bool> {
    if &b[ks..ke] != b"password" {
        return None;
    }
    let line = b[..ks]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |p| p + 1);
    let before = &b[line..ks];
    if find(before, b"login ").is_some() || find(before, b"machine ").is_some() {
        return Some(true);
    }
    before.iter().all(u8::is_ascii_whitespace).then_some(false)
}

/// `name=` at `i` (after an `&`): the next parameter of a query string;
/// and one past the last byte looked at.
fn parameter_at(b: &[u8], i: usize) -> (bool, usize) {
    let n = b[i.min(b.len())..]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
        .count();
    (n > 0 && b.get(i + n) == Some(&b'='), i + n + 1)
}

/// `key: value` alone on its line (YAML, `.properties`, a header): the key
/// comes first, nothing but a comment follows.
fn config_line(b: &[u8], ks: usize, value_end: usize) -> bool {
    let mut i = ks;
    while i > 0 && matches!(b[i - 1], b' ' | b'\t' | b'-' | b'"' | b'\'') {
        i -= 1;
    }
    if i > 0 && b[i - 1] != b'\n' {
        return false;
    }
    let mut j = value_end;
    while j < b.len() && matches!(b[j], b' ' | b'\t') {
        j += 1;
    }
    j == b.len() || matches!(b[j], b'\n' | b'\r' | b'#')
}

/// `Authorization: <scheme> <credentials>` (or the credentials alone).
fn authorization(b: &[u8], mut i: usize) -> Parsed {
    let n = b.len();
    let q = quote_at(b, i);
    let (value_start, value_end, open) = match q {
        Some(q) => quoted(b, i, q),
        None => {
            let end = b[i..]
                .iter()
                .position(|&c| matches!(c, b'\n' | b'\r' | b'"' | b'\'' | b'`'))
                .map_or(n, |p| i + p);
            (i, end, end == n)
        }
    };
    i = value_start;
    let scheme = b[i..value_end]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'-')
        .count();
    let start = if b.get(i + scheme) == Some(&b' ') {
        i + scheme + 1
    } else {
        i
    };
    let mut end = value_end;
    while end > start && b[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    if start >= end && open {
        return Parsed::Open;
    }
    let v = &b[start..end];
    Parsed::Value(Value {
        start,
        end,
        open,
        seen: value_end + 1,
        secret: start < end && plain(v),
        kind: "authorization",
    })
}

/// The credentials after `Bearer ` or `Basic ` (a token68).
fn credentials(b: &[u8], i: usize, name: Name) -> Parsed {
    let n = b.len();
    if i >= n {
        return Parsed::Open;
    }
    let len = b[i..]
        .iter()
        .take_while(|&&c| {
            c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~' | b'+' | b'/' | b'=')
        })
        .count();
    let v = &b[i..i + len];
    let digit = v.iter().any(u8::is_ascii_digit);
    let inner_upper = v.iter().skip(1).any(u8::is_ascii_uppercase);
    let lower = v.iter().any(u8::is_ascii_lowercase);
    let secret = len >= 8
        && plain(v)
        && match name {
            // Prose says "Bearer tokens" and "Basic authentication".
            Name::Bearer => {
                digit
                    || (inner_upper && lower)
                    || v.iter()
                        .any(|c| matches!(c, b'-' | b'.' | b'_' | b'~' | b'+' | b'/'))
            }
            _ => {
                v.iter().all(|&c| b64(c))
                    && (len % 4 == 0 || v.ends_with(b"="))
                    && (digit || (inner_upper && lower))
            }
        };
    Parsed::Value(Value {
        start: i,
        end: i + len,
        open: i + len == n,
        seen: i + len + 1,
        secret,
        kind: "authorization",
    })
}

/// Spaces and tabs from `i`, skipped; how many.
fn blanks(b: &[u8], i: &mut usize) -> usize {
    let start = *i;
    while *i < b.len() && matches!(b[*i], b' ' | b'\t') {
        *i += 1;
    }
    // `**Password:** hunter2`: Markdown emphasis around the name.
    if *i < b.len() && b[*i] == b'*' && b[*i..].starts_with(b"** ") && *i == start {
        *i += 3;
    }
    *i - start
}

/// The quote that opens a value at `i`: `"`, `'`, `` ` `` or `\"` (JSON in
/// a JSON string).
fn quote_at(b: &[u8], i: usize) -> Option<&'static [u8]> {
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
fn quoted(b: &[u8], i: usize, q: &[u8]) -> (usize, usize, bool) {
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

/// Long enough, and not a stand-in: `$TOKEN`, `${{ … }}`, `<your-key>`,
/// `{…}`, `******`, `your_api_key`, `[REDACTED…]`, a type name.
fn plain(v: &[u8]) -> bool {
    if v.len() < MIN_VALUE || v.len() > MAX_VALUE {
        return false;
    }
    let first = v[0];
    let last = v[v.len() - 1];
    let reference = (first == b'$'
        && v[1].is_ascii_alphabetic() | matches!(v[1], b'_' | b'{' | b'('))
        || v.starts_with(b"{{")
        || v.starts_with(b"%(")
        || v.starts_with(b"<%")
        || v.starts_with(b"#{")
        || v.starts_with(b"%{")
        || (first == b'<' && last == b'>')
        || matches!(first, b'{' | b'[' | b'(' | b'!' | b'&' | b'*' | b'|' | b'>')
        || v.iter().all(|&c| c == first)
        || (v[..4].eq_ignore_ascii_case(b"your")
            && (matches!(v[4], b'_' | b'-' | b' ') || v[4].is_ascii_uppercase()))
        || v.windows(2)
            .any(|w| w == b"::" || w == b"RE" && find(v, b"REDACTED").is_some());
    !reference && !NOT_VALUES.iter().any(|w| v.eq_ignore_ascii_case(w))
}

/// `token_value`, `passwordInput`, `getHTTPToken`: a name in code, not a
/// value. Random letters change case too often to be one.
fn identifier(v: &[u8]) -> bool {
    if !v.iter().all(|&c| c.is_ascii_alphabetic() || c == b'_') {
        return false;
    }
    let (mut upper_upper, mut lower_upper) = (0, 0);
    for w in v.windows(2) {
        if w[1].is_ascii_uppercase() {
            upper_upper += w[0].is_ascii_uppercase() as usize;
            lower_upper += w[0].is_ascii_lowercase() as usize;
        }
    }
    upper_upper < 3 || lower_upper < 3
}

/// `config.password`, `process.env.TOKEN`: a path in code, not a value.
fn dotted_identifier(v: &[u8]) -> bool {
    v.contains(&b'.')
        && v[0] != b'.'
        && v[v.len() - 1] != b'.'
        && v.iter()
            .all(|&c| c.is_ascii_alphabetic() || c == b'_' || c == b'.')
}

/// `/home/alice/project` (`PWD=…`), `~/.ssh/id_rsa`: a file, not a secret.
/// An AWS secret key may start with `/`, so its kind is exempt.
fn path(v: &[u8]) -> bool {
    (v.starts_with(b"/") || v.starts_with(b"~/") || v.starts_with(b"./") || v.starts_with(b"../"))
        && v.iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'/' | b'.' | b'_' | b'-' | b'~'))
}
