//! Values of things named like secrets, in the shapes configs, shells, code
//! and HTTP write them: `DB_PASSWORD=…`, `export API_KEY="…"`, `"api_key":
//! "…"`, `password: …` (YAML), `secret = "…"` (TOML, INI), `'token' => '…'`,
//! `const API_KEY: &str = "…"`, `<password>…</password>`, `?client_secret=…&`,
//! `Authorization: Bearer …`, a bare `Bearer …` or `Basic …`, `--password …`,
//! `aws configure set aws_secret_access_key …`, `curl -u user:…`, and the
//! `password` of a `.netrc` line.
//!
//! Code that only *names* a secret stays: `token = get_token()`,
//! `password: string`, `secret = config.secret`, `f(token=token)`,
//! `token_count = 5`, `${{ secrets.TOKEN }}`, `<your-api-key>`. The rule of
//! thumb: a bare value after `key: ` or `key = ` must look random (a digit or
//! a symbol) unless the line is plainly a config line (`key: value` alone on
//! its line, `KEY=value` with nothing around the `=`).

pub(super) mod argument_lists;
pub(super) mod call_arguments;
pub(crate) mod clear_text;
pub(super) mod columns;
pub(super) mod command_lines;
pub(super) mod command_output;
pub(super) mod device_lines;
mod http_auth;
pub(super) mod logins;
pub(super) mod named_above;
mod names;
pub(super) mod parents;
mod positions;
pub(super) mod setting_commands;
mod siblings;
pub(super) mod sql;
mod values;

use std::ops::Range;

use super::{Found, TOKEN, find};
use names::{
    BARE_KEY, NAMED_KEY, Name, compound, credential_key, may_be_weak, name_of, names_ending_like,
    secret_kind, weak_name, weak_word,
};
use positions::{INLINE_KEY, POSITION_KEY, placed};
use setting_commands::{ENV_ITEM, SECRET_ITEM};
use values::{
    MAX_VALUE, code_word, dotted_code, dotted_identifier, hex_key, identifier, keylike, label,
    name_word, number, path, plain, quote_at, quoted, random, type_name, value_byte,
};

const MAX_KEY: usize = 64;
/// What the `prompts` library puts between a question and its answer.
const ELLIPSIS: &[u8] = "… ".as_bytes();
/// How far before a name a `scheme://` makes it part of a URL (`urls` reads those).
const URL_LOOKBACK: usize = 2048;
/// How far back from a chunk's cut a name whose value reaches the cut is
/// looked for (the hold-back's `key = value` and URLs too): past the longest
/// value read ([`MAX_VALUE`], counted from the value's start) by room for
/// the name, operator and type before it. With only `MAX_VALUE`, a cut in
/// the last bytes of a 4 KiB value found no name and sent the value masked up
/// to the cut; its end, masked in the whole text, left unmasked with the next
/// chunk.
pub(super) const OPEN_LOOKBACK: usize = MAX_VALUE + crate::MAX_LINE_PREFIX;
/// Longest type between a name and its `=` (`token: Option<&str> = …`).
const MAX_TYPE: usize = 48;

/// In [`FIRST`] and [`LAST`]: the word may be a name with its value after it
/// (`password:`, `KEY=`, `Bearer x`, `password x`, `--token x`, `-u x`).
const NAMED: u8 = 1;
/// In [`FIRST`]: the word starts with an operator (`=`, `:`, `:=`, `=>`)
/// whose name is a word before it (`key = v`, `"key": v`, `key: T = v`).
const OPERATOR: u8 = 2;
/// For [`at_word`]: the word is long and right after another, which may be a
/// name from code with no operator (`aws_secret_access_key wJal…`).
const AFTER_NAME: u8 = 4;
/// For [`at_word`]: the word is followed by two blanks, a tab or ` |`: it
/// may label a row of a table (`api_key     …`, `| API Secret | … |`).
const TABLE: u8 = 8;
/// For [`at_word`]: the word is first on its line, a blank after it, and
/// ends like a secret's name (`bindpw …`): see [`directive_class`].
const DIRECTIVE: u8 = 128;
/// Shortest word looked at as [`AFTER_NAME`].
const MIN_AFTER_NAME: usize = 16;
/// The word follows a `<` (a tag's name), starts with `:` or ends with `:`:
/// what [`crate::private_keys::at_name`] looks at.
pub(super) const TAG: u8 = 16;
pub(super) const COLON_FIRST: u8 = 32;
pub(super) const COLON_LAST: u8 = 64;

/// Whether the word `[s, e)` is [`AFTER_NAME`]: long, one blank after a
/// word that may be a name.
#[inline(always)]
pub(super) fn after_name(b: &[u8], s: usize, e: usize) -> u8 {
    // `storePassword "…"` (Gradle's Groovy, a call without parentheses): a
    // quote says where the value starts, whatever its length.
    let quoted = s >= 3 && matches!(b[s - 1], b'"' | b'\'') && b[s - 2] == b' ';
    let blank = s - usize::from(quoted);
    if (quoted || e - s >= MIN_AFTER_NAME)
        && blank >= 2
        && b[blank - 1] == b' '
        && TOKEN[b[blank - 2] as usize]
        // Only the end of the word before is looked at.
        && names_ending_like(&b[blank.saturating_sub(1 + MAX_KEY)..blank - 1]) != 0
    {
        AFTER_NAME
    } else {
        0
    }
}

/// Whether the long word at `s` may be (part of) a keyword's value: after
/// `BY `, `key `, `secret `, a type digit, a quote, or a password's symbol.
/// The cheap test made for every long word; [`keyword_value`] reads it.
#[inline(always)]
pub(super) fn may_follow_keyword(b: &[u8], s: usize) -> bool {
    s >= 5
        && match b[s - 1] {
            // `by`, `key`, `secret`, `ascii-text`, a type digit.
            b' ' => match b[s - 2] {
                b'y' | b'Y' => matches!(b[s - 3], b'b' | b'B' | b'e' | b'E'),
                b't' => matches!(b[s - 3], b'e' | b'x'),
                c => matches!(c, b'0' | b'6' | b'7') && b[s - 3] == b' ',
            },
            b'\'' | b'"' => matches!(b[s - 2], b' ' | b'=' | b'\\' | b'\''),
            b'?' | b'*' | b'!' | b'^' | b'&' | b'#' | b'$' => true,
            _ => false,
        }
}

/// The value of a keyword that the long word at `s` is part of: a
/// password set in SQL ([`sql`]), a secret in a device's configuration
/// ([`device_lines`]).
#[inline(never)]
pub(super) fn keyword_value(b: &[u8], s: usize, found: &mut Vec<Found>) {
    let Some(v) = keyword_value_start(b, s) else {
        return;
    };
    if sql::may_follow(b, v) {
        sql::at_value(b, v, found);
    }
    if device_lines::may_follow(b, v) {
        device_lines::at_value(b, v, found);
    }
    if b[v - 1] != b' ' {
        setting_commands::secure_string_at(b, v, found);
    }
}

/// Where the value that the long word at `s` ends or is starts, if a blank
/// or a quote comes before it: `s`, or a few bytes back where a password's
/// symbols split it into words (`'X?98FtFMfiAt1O'`). Most words follow a
/// blank: one byte looked at.
fn keyword_value_start(b: &[u8], s: usize) -> Option<usize> {
    if s < 5 {
        return None;
    }
    match b[s - 1] {
        b' ' | b'"' => return Some(s),
        b'\'' if b[s - 2] != b'\'' => return Some(s),
        b'\'' => {}
        // Only a password's symbols split a value into words.
        b'?' | b'*' | b'!' | b'^' | b'&' | b'#' | b'$' => {}
        _ => return None,
    }
    let floor = s.saturating_sub(32);
    let mut v = s;
    while v > floor {
        match b[v - 1] {
            // SQL's `''`: a quote inside the literal.
            b'\'' if v >= floor + 2 && b[v - 2] == b'\'' => v -= 2,
            b' ' | b'\'' | b'"' | b'\n' | b'\t' => break,
            _ => v -= 1,
        }
    }
    (v > 4 && matches!(b[v - 1], b' ' | b'\'' | b'"')).then_some(v)
}

/// The word that ends last before `at` (empty if none near).
fn word_before(b: &[u8], at: usize) -> Range<usize> {
    let floor = at.saturating_sub(MAX_KEY + MAX_TYPE);
    let mut e = at;
    while e > floor && !TOKEN[b[e - 1] as usize] {
        e -= 1;
    }
    let mut s = e;
    while s > floor && TOKEN[b[s - 1] as usize] {
        s -= 1;
    }
    s..e
}

const fn first_table() -> [u8; 256] {
    let mut t = [0; 256];
    t[b'B' as usize] = NAMED;
    t[b'p' as usize] = NAMED;
    t[b'-' as usize] = NAMED;
    t[b'=' as usize] = OPERATOR;
    t[b':' as usize] = OPERATOR | COLON_FIRST;
    t
}

const fn last_table() -> [u8; 256] {
    let mut t = [0; 256];
    t[b'=' as usize] = NAMED;
    t[b':' as usize] = NAMED | COLON_LAST;
    t
}

static FIRST: [u8; 256] = first_table();
static LAST: [u8; 256] = last_table();

/// What the word `[s, e)` may be: [`NAMED`], [`OPERATOR`], or 0 (most
/// words). Called for every word, so a few table lookups and no branch.
#[inline(always)]
pub(super) fn word_class(b: &[u8], s: usize, e: usize) -> u8 {
    // `<password>`: the byte before the word.
    let tag = ((b[s.saturating_sub(1)] == b'<') as u8 * (NAMED | TAG))
        | (crate::private_keys::xml::after_escaped_open(b, s) as u8 * TAG);
    let table = match (b.get(e), b.get(e + 1)) {
        // `│` (box drawing) starts with 0xE2.
        (Some(b'\t'), _) | (Some(b' '), Some(b' ' | b'|' | 0xE2)) => TABLE,
        _ => 0,
    };
    FIRST[b[s] as usize] | LAST[b[e - 1] as usize] | tag | table
}

/// The class of a word first on its line that may be a directive's name
/// whatever its first byte (`bindpw …` in nslcd.conf, `rootpw …`): read as
/// a name, then its value decides. Asked of line-starting words only.
#[inline(always)]
pub(super) fn directive_class(b: &[u8], class: u8, s: usize, e: usize) -> u8 {
    // (Directives are lower case: `requirepass`, `bindpw`, `masterauth`.)
    if class & NAMED == 0
        && e - s >= 6
        && b[s].is_ascii_lowercase()
        && names_ending_like(&b[s..e]) != 0
    {
        DIRECTIVE
    } else {
        0
    }
}

/// Reads the values of the names around the word `[s, e)` of `class`: the
/// word itself, or the words before the operator it starts with or the value
/// it is.
pub(super) fn at_word(b: &[u8], class: u8, s: usize, e: usize, found: &mut Vec<Found>) {
    for_names(b, class, s, e, |_, parsed| {
        parsed.push_to(found);
        false
    });
}

/// `name=value` or `name:value` inside one word; `op` is the operator.
#[inline(always)]
pub(super) fn at_operator(b: &[u8], s: usize, op: usize, found: &mut Vec<Found>) {
    // Most operators follow no name (`127.0.0.1:8080`, `status=200`): told
    // apart here by [`name_at`]'s own first test, without the call (in the
    // plug, a call's entry checks cost more than the test).
    if !may_be_name(&b[s..op])
        && !positions::may_be(b, s, op)
        && !setting_commands::may_be(b, s, op)
    {
        return;
    }
    parse(b, s, op).push_to(found);
}

/// Where a name starts (at or after `from`, before `cut`) whose value, or
/// what decides whether it is one, reaches `cut` (`"password": "hunt`,
/// `Authorization: Bearer `).
pub(super) fn open_at(b: &[u8], from: usize, cut: usize) -> Option<usize> {
    // A name on an earlier line is [`open_before_line`]'s.
    open_on_line(b, from, cut).map(|start| start.max(from))
}

/// Where a name starts on a line before the one of `cut` whose value, or
/// what decides whether it is one, reaches `cut` or may come after it: `-
/// name: DB_PASSWORD` with its `value:` on the next line. The stream keeps
/// only the current line, so the cut must move before the name.
pub(super) fn open_before_line(b: &[u8], cut: usize) -> Option<usize> {
    let line = crate::line_start(b, cut);
    let from = line.max(cut.saturating_sub(OPEN_LOOKBACK));
    let on_line = open_on_line(b, from, cut).filter(|&start| start < from);
    let sibling = siblings::open_at(b, cut).filter(|&start| start < from);
    match (on_line, sibling) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

/// Where a name starts (at or after `from`, before `cut`, or before `from`
/// for the value field of an earlier name field) whose value reaches `cut`.
fn open_on_line(b: &[u8], from: usize, cut: usize) -> Option<usize> {
    let reaches = |p: &Parsed| match p {
        Parsed::Open => true,
        Parsed::Value(v) => v.open || v.seen > cut,
        Parsed::Values(vs) => vs.iter().any(|v| v.open || v.seen > cut),
        Parsed::No => false,
    };
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
        // `name=value` inside the word.
        for (p, &c) in b[s..i].iter().enumerate().skip(1) {
            if (c == b'=' || c == b':') && reaches(&parse(b, s, s + p)) {
                return Some(s);
            }
        }
        let mut class = word_class(b, s, i) | after_name(b, s, i);
        if s == 0 || command_output::may_start_line(b, s) {
            class |= directive_class(b, class, s, i);
        }
        let mut start = None;
        for_names(b, class, s, i, |name, parsed| {
            start = reaches(&parsed).then_some(name);
            start.is_some()
        });
        if start.is_some() {
            return start;
        }
    }
    None
}

/// Calls `f(where the name starts, what follows it)` for each name the word
/// `[s, e)` of `class` may be or end the value of, until `f` says to stop.
fn for_names(b: &[u8], class: u8, s: usize, e: usize, mut f: impl FnMut(usize, Parsed) -> bool) {
    // `<add key="StorageAccountKey" value="…" />` (.NET settings).
    if class & NAMED != 0 && b[s..e].eq_ignore_ascii_case(b"value=") {
        let name = word_before(b, s);
        if !name.is_empty()
            && b[..name.start].ends_with(b"key=\"")
            && b[name.end..s].starts_with(b"\" ")
            && let Some((ks, Name::Secret(kind))) = name_at(b, name.start, name.end)
            && f(name.start, value(b, e, Op::Compact, ks, name.end, 0, kind))
        {
            return;
        }
    }
    if class & (TABLE | DIRECTIVE) != 0 && f(s, parse(b, s, e)) {
        return;
    }
    if class & NAMED != 0 && named_here(b, s, e) {
        if b[s] == b'-' && command_lines::may_be(b, s, e) && f(s, command_lines::flag(b, s, e)) {
            return;
        }
        let mut ke = e;
        while ke > s && matches!(b[ke - 1], b'=' | b':') {
            ke -= 1;
        }
        if ke > s && f(s, parse(b, s, ke)) {
            return;
        }
        // `value:` after `- name: DB_PASSWORD`.
        if let Some((name, parsed)) = siblings::value_of(b, s, ke)
            && f(name, parsed)
        {
            return;
        }
        if let Some((name, parsed)) = parents::value_of(b, s, ke)
            && f(name, parsed)
        {
            return;
        }
    }
    if class & (AFTER_NAME | OPERATOR) == 0 {
        return;
    }
    let one = word_before(b, s);
    if one.is_empty() {
        return;
    }
    if class & AFTER_NAME != 0 && f(one.start, parse(b, one.start, one.end)) {
        return;
    }
    if class & OPERATOR != 0 {
        if f(one.start, parse(b, one.start, one.end)) {
            return;
        }
        // `"value": …` after `"name": "API_TOKEN",`.
        if let Some((name, parsed)) = siblings::value_of(b, one.start, one.end)
            && f(name, parsed)
        {
            return;
        }
        // `"value": …` inside `"db_password": {`.
        if let Some((name, parsed)) = parents::value_of(b, one.start, one.end)
            && f(name, parsed)
        {
            return;
        }
        let two = word_before(b, one.start);
        // `API_KEY: &str = "…"`, `var password string = "…"`: a type
        // between the name and the `=`.
        if b[s] == b'='
            && !two.is_empty()
            && (b[two.end - 1] == b':' || b[..two.start].ends_with(b"var "))
        {
            f(two.start, typed(b, two, s));
        }
    }
}

/// The word `[s, e)` of class [`NAMED`], looked at closer: most `p…` words
/// are not `password x`.
fn named_here(b: &[u8], s: usize, e: usize) -> bool {
    if matches!(b[e - 1], b'=' | b':') || (s > 0 && b[s - 1] == b'<') {
        return true;
    }
    let blank = matches!(b.get(e), Some(b' ' | b'\t') | None);
    match b[s] {
        b'B' => blank && matches!(e - s, 5 | 6),
        b'p' => blank && e - s == 8,
        _ => command_lines::may_be(b, s, e) || (blank && b.get(s + 1) == Some(&b'-')),
    }
}

enum Parsed {
    No,
    /// A name, and the text ends before its value does.
    Open,
    Value(Value),
    /// A name before several values (`Cookie: a=…; b=…`).
    Values(Vec<Value>),
}

impl Parsed {
    #[inline(always)]
    fn push_to(self, found: &mut Vec<Found>) {
        match self {
            Parsed::Value(v) => v.push_to(found),
            Parsed::Values(vs) => push_all(vs, found),
            Parsed::No | Parsed::Open => {}
        }
    }
}

#[cold]
fn push_all(values: Vec<Value>, found: &mut Vec<Found>) {
    values.into_iter().for_each(|v| v.push_to(found));
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

/// Whether the word `w` may end with a name: false exactly where [`name_at`]
/// returns at its first two tests, made by [`at_operator`] before calling it
/// (`name_at_never_names_what_may_be_name_turns_away` holds the two together).
#[inline(always)]
fn may_be_name(w: &[u8]) -> bool {
    w.ends_with(b"result")
        || w == b"code"
        || names_ending_like(w) != 0
        || may_be_weak(w)
        || w.ends_with(b".core.windows.net")
        // `APP_KEYS`, `token-value` (see [`plural`], [`value_suffixed`]).
        || (w.len() >= 5
            && match w[w.len() - 1] | 0x20 {
                b's' => names_ending_like(&w[..w.len() - 1]) != 0,
                b'e' => w.len() >= 8 && w[w.len() - 5..].eq_ignore_ascii_case(b"value"),
                _ => false,
            })
}

/// The name that ends at `ke` (its word starts at `s`), if it is one: as
/// it is, or a secret's name with `value` after it, or in the plural.
fn name_at(b: &[u8], s: usize, ke: usize) -> Option<(usize, Name)> {
    let found = name_as_is(b, s, ke);
    if found.is_some() || ke <= s {
        return found;
    }
    // Most words end otherwise: one byte tells.
    match b[ke - 1] | 0x20 {
        b'e' => value_suffixed(b, s, ke),
        b's' => plural(b, s, ke),
        _ => None,
    }
}

fn name_as_is(b: &[u8], s: usize, ke: usize) -> Option<(usize, Name)> {
    // `result` of Terraform's `random_password`: the password it made.
    if b[s..ke].ends_with(b"result") && generated_password(b, ke - 6) {
        return Some((ke - 6, Name::Secret("secret-assignment")));
    }
    // An Azure Functions key in a function's URL (`…azurewebsites.net/api/
    // f?code=…`): the key the function is called with.
    if ke >= 5 && &b[ke - 5..ke] == b"?code" && function_url(b, ke - 5) {
        return Some((ke - 4, Name::Secret(NAMED_KEY)));
    }
    // Most words are no name: tell from their last two letters first.
    let candidates = names_ending_like(&b[s..ke]);
    if candidates == 0 && !may_be_weak(&b[s..ke]) {
        return azure_account_key(b, s, ke);
    }
    let ks = b[s..ke]
        .iter()
        .rposition(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')))
        .map_or(s, |p| s + p + 1);
    let key = &b[ks..ke];
    // `https://x-access-token:…@`: a URL's user, read by `urls`; and
    // `Type::TOKEN`, a path in code.
    if key.is_empty()
        || key.len() > MAX_KEY
        || (ks > 0 && b[ks - 1] == b'@' && !(ks >= 2 && b[ks - 2] == b'^'))
        // (Windows' switches: `cmdkey … /pass:…`, `/password:…`.)
        || (ks > 0 && b[ks - 1] == b'/' && !(ks >= 2 && b[ks - 2] == b' ' && b.get(ke) == Some(&b':')))
        // `arn:aws:secretsmanager:…:secret:prod/db-password-AbCdEf`: a name.
        || b[s..ks].starts_with(b"arn:")
        // (Hiera's `profile::db::password: …` is a YAML key: `:` follows.)
        // (`Braintree::Configuration.private_key = …` is a setter's call.)
        || (b[..ks].ends_with(b"::")
            && !(b.get(ke) == Some(&b':') && b.get(ke + 1) != Some(&b':'))
            && !key.contains(&b'.'))
        // `token.` ends a sentence.
        || key.ends_with(b".")
        // Bounded: a word of many operators must not be rescanned from its
        // start at each (a user's message is masked by Blaise too).
        || find(&b[s.max(ks.saturating_sub(URL_LOOKBACK))..ks], b"://").is_some()
    {
        return None;
    }
    let name = match candidates {
        // `--secret NAME` (`gcloud secrets …`, `docker service create`)
        // names a secret: its value is one only where it looks like a key.
        _ if key == b"--secret" => Some(Name::Secret(NAMED_KEY)),
        0 => None,
        c => name_of(key, c),
    };
    // A weak name only as a word of its own (`may_be_weak` reads the word).
    Some((
        ks,
        name.or_else(|| {
            (ks == s || powershell_env(b, s, ks))
                .then(|| weak_name(b, ks, ke))
                .flatten()
        })?,
    ))
}

/// Hadoop's and Spark's name for an Azure storage account's key,
/// `fs.azure.account.key.<account>.dfs.core.windows.net`: the name ends
/// with the account's host, not with `key`.
fn azure_account_key(b: &[u8], s: usize, ke: usize) -> Option<(usize, Name)> {
    names_azure_account_key(&b[s..ke]).then_some((s, Name::Secret(NAMED_KEY)))
}

/// Whether `w` is [`azure_account_key`]'s name.
pub(super) fn names_azure_account_key(w: &[u8]) -> bool {
    w.ends_with(b".core.windows.net") && crate::find(w, b"account.key.").is_some()
}

/// A secret's name with `value` after it (`token-value:` in dbt Cloud's
/// config, `secret_value`, `passwordValue`): the name before it. (`key-value`
/// names a store, not a key.)
#[inline(never)]
fn value_suffixed(b: &[u8], s: usize, ke: usize) -> Option<(usize, Name)> {
    let w = &b[s..ke];
    if w.len() < 8 || !w[w.len() - 5..].eq_ignore_ascii_case(b"value") {
        return None;
    }
    let mut end = ke - 5;
    let camel = b[end].is_ascii_uppercase() && b[end - 1].is_ascii_lowercase();
    if matches!(b[end - 1], b'_' | b'-' | b'.') {
        end -= 1;
    } else if !camel {
        return None;
    }
    match name_as_is(b, s, end)? {
        found @ (_, Name::Secret(kind)) if kind != BARE_KEY => Some(found),
        _ => None,
    }
}

/// A compound secret's name in the plural (`APP_KEYS`, `API_TOKENS`,
/// `adminPasswords`): a list of them, each read as one would be.
#[inline(never)]
fn plural(b: &[u8], s: usize, ke: usize) -> Option<(usize, Name)> {
    // (Not a flag: `--set-secrets=NAME=ref` names them.)
    if ke - s < 5 || !matches!(b[ke - 1], b's' | b'S') || !compound(&b[s..ke]) || b[s] == b'-' {
        return None;
    }
    match name_as_is(b, s, ke - 1)? {
        found @ (_, Name::Secret(kind)) if kind != BARE_KEY => Some(found),
        _ => None,
    }
}

/// `$env:NAME`, PowerShell's environment variable: `NAME` is a word of its
/// own there.
fn powershell_env(b: &[u8], s: usize, ks: usize) -> bool {
    &b[s..ks] == b"env:" && s > 0 && b[s - 1] == b'$'
}

/// Whether the `?` at `q` ends the path of an Azure Functions URL.
#[inline(never)]
fn function_url(b: &[u8], q: usize) -> bool {
    let from = q.saturating_sub(256);
    let start = b[from..q]
        .iter()
        .rposition(|c| c.is_ascii_whitespace() || matches!(c, b'"' | b'\''))
        .map_or(from, |p| from + p + 1);
    find(&b[start..q], b".azurewebsites.net/").is_some()
}

/// Whether the `result` at `ks` is an attribute of a Terraform
/// `random_password` or `random_string` (`terraform show`, `terraform state
/// show`): the nearest `resource "…"` above it, within 2 KiB.
fn generated_password(b: &[u8], ks: usize) -> bool {
    if ks > 0 && (b[ks - 1].is_ascii_alphanumeric() || b[ks - 1] == b'_') {
        return false;
    }
    let from = ks.saturating_sub(2048);
    crate::rfind(&b[from..ks], b"resource \"").is_some_and(|p| {
        let rest = &b[from + p + 10..ks];
        rest.starts_with(b"random_password\"") || rest.starts_with(b"random_string\"")
    }) || crate::rfind(&b[from..ks], b"\"type\": \"random_").is_some_and(|p| {
        // `terraform show -json`, `terraform state pull`: the resource's type.
        let rest = &b[from + p + 16..ks];
        rest.starts_with(b"password\"") || rest.starts_with(b"string\"")
    })
}

/// Whether the query that holds the name at `ks` is a SAML binding's
/// (`SAMLRequest=`, `SAMLResponse=`, `SigAlg=` before it).
fn saml_query(b: &[u8], ks: usize) -> bool {
    let from = ks.saturating_sub(8 * crate::MAX_LINE_PREFIX);
    let before = &b[from..ks];
    let query = memchr::memrchr3(b'\n', b' ', b'"', before).map_or(before, |p| &before[p + 1..]);
    [&b"SigAlg="[..], b"SAMLRequest=", b"SAMLResponse="]
        .iter()
        .any(|m| find(query, m).is_some())
}

/// Reads `name op value` where the name ends at `ke` (its word starts at
/// `s`).
fn parse(b: &[u8], s: usize, ke: usize) -> Parsed {
    let Some((ks, name)) = name_at(b, s, ke)
        .or_else(|| Some((s, weak_word(b, s, ke)?)))
        .or_else(|| cookie_row(b, s, ke))
        // The cheap tests first, inline: in the plug a call costs more.
        .or_else(|| {
            positions::may_be(b, s, ke)
                .then(|| Some((s, positions::name(b, s, ke)?)))
                .flatten()
        })
        .or_else(|| {
            setting_commands::may_be(b, s, ke)
                .then(|| setting_commands::name(b, s, ke))
                .flatten()
        })
        .or_else(|| {
            positions::first_cell(b, s)
                .then(|| Some((s, positions::table_label(b, s, ke)?)))
                .flatten()
        })
    else {
        return Parsed::No;
    };
    // A name that asks for a key's value, set by a command that sets
    // secrets (`fly secrets set SESSION_SEAL=p@ss…`): the command decides.
    let (ks, name) = match name {
        Name::Secret(NAMED_KEY | BARE_KEY) if setting_commands::may_be(b, s, ke) => {
            match setting_commands::name(b, s, ke) {
                Some(item @ (_, Name::Secret(SECRET_ITEM))) => item,
                _ => (ks, name),
            }
        }
        _ => (ks, name),
    };
    let n = b.len();
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
    // PHP's `print_r`: `[secret] => …`; Markdown's bold: `**x-api-key**: …`.
    let quoted_key = quoted_key
        || match b.get(i) {
            Some(b']') if ks > 0 && b[ks - 1] == b'[' => {
                i += 1;
                true
            }
            Some(b'*') if b[i..].starts_with(b"**") && b[..ks].ends_with(b"**") => {
                i += 2;
                true
            }
            _ => false,
        };
    // `\` at the end: the escaped quote is in the next chunk.
    if &b[i..] == b"\\" {
        return Parsed::Open;
    }
    let blanks_before = blanks(b, &mut i);
    if i >= n {
        return Parsed::Open;
    }
    let op = match (b[i], b.get(i + 1)) {
        (b'=', Some(b'=')) | (b':', Some(b':')) => return Parsed::No,
        // `x =~ /re/`: a regex match; `KEY=~7144…` is a value.
        (b'=', Some(b'~'))
            if blanks_before > 0 || matches!(b.get(i + 2), None | Some(b' ' | b'/')) =>
        {
            return Parsed::No;
        }
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
    let kind = match (name, op) {
        (Name::Bearer | Name::Basic, Op::Blank) if blanks_before == 1 => {
            return http_auth::scheme_credentials(b, i, name == Name::Basic);
        }
        (Name::Bearer | Name::Basic, _) | (Name::Authorization, Op::Blank) => return Parsed::No,
        (Name::Cookie, Op::Colon) => {
            blanks(b, &mut i);
            return http_auth::cookies(b, i);
        }
        (Name::Cookie, _) => return Parsed::No,
        (Name::Authorization, Op::Colon | Op::Xml) => {
            if op != Op::Xml {
                blanks(b, &mut i);
            } else if b[i..]
                .iter()
                .take_while(|&&c| c != b'<')
                .all(u8::is_ascii_alphabetic)
                && memchr::memchr(b'<', &b[i..]).is_some()
            {
                // An element named so whose text is a word
                // (`<ExternalAuthorization>false</…>`): a setting.
                return Parsed::No;
            }
            return if i >= n {
                Parsed::Open
            } else {
                http_auth::authorization(b, i)
            };
        }
        // `authorization = …` in code: any other value.
        (Name::Authorization, _) => "authorization",
        (Name::Secret(kind), _) => kind,
    };
    if op == Op::Blank
        && let Some(row) = table_row(b, ks, ke, i, blanks_before, kind)
    {
        return row;
    }
    // `{sig:0width$x}`: a format string's placeholder.
    if op == Op::Colon && ke + 1 == i && ks > 0 && b[ks - 1] == b'{' && b.get(i) != Some(&b' ') {
        return Parsed::No;
    }
    // HAProxy's `stats auth admin:…`, a client's `auth user:…`: a user and
    // a password, after the last word of the name.
    if op == Op::Blank && blanks_before == 1 && names::ends_auth(&b[ks..ke]) && user_pair(b, i) {
        return command_lines::user_password(b, ke);
    }
    if op == Op::Blank && !(long_flag(b, ks, blanks_before) || netrc(b, ks, ke).is_some()) {
        // `aws configure set aws_secret_access_key wJal…`, `git config
        // github.token 0123…`: a name from code, then something random;
        // redis.conf's `requirepass 5f4c…`: a directive, first on its line.
        if !((blanks_before == 1 && compound(&b[ks..ke]))
            || line_head(b, ks)
            || ipsec_secret(b, ks, ke))
        {
            return Parsed::No;
        }
    }
    if op != Op::Blank && op != Op::Xml {
        blanks(b, &mut i);
    }
    // `✔ Enter a secret value: … ` (the `prompts` library's answer).
    if op == Op::Colon && b[i..].starts_with(ELLIPSIS) {
        i += ELLIPSIS.len();
    }
    value(b, i, op, ks, ke, blanks_before, kind)
}

/// `NAME: Type = value` (Rust, TypeScript, Python, Kotlin) or `var NAME
/// Type = value` (Go): the name is the word `name`, the `=` at `op`.
fn typed(b: &[u8], name: Range<usize>, op: usize) -> Parsed {
    let mut ke = name.end;
    if b[ke - 1] == b':' {
        ke -= 1;
    }
    if op - name.end > MAX_TYPE || b.get(op + 1) == Some(&b'=') || ke == name.start {
        return Parsed::No;
    }
    let Some((ks, Name::Secret(kind))) = name_at(b, name.start, ke) else {
        return Parsed::No;
    };
    let type_only = b[name.end..op].iter().all(|&c| {
        c.is_ascii_alphanumeric()
            || matches!(
                c,
                b' ' | b'\t'
                    | b'&'
                    | b'<'
                    | b'>'
                    | b'['
                    | b']'
                    | b'\''
                    | b'*'
                    | b'?'
                    | b'_'
                    | b'.'
                    | b':'
            )
    });
    if !type_only {
        return Parsed::No;
    }
    let mut i = op + 1;
    blanks(b, &mut i);
    if i >= b.len() {
        return Parsed::Open;
    }
    value(b, i, Op::Spaced, ks, ke, 1, kind)
}

/// The value at `i` of the name `[ks, ke)`, after `op`.
fn value(
    b: &[u8],
    mut i: usize,
    op: Op,
    ks: usize,
    ke: usize,
    blanks_before: usize,
    kind: &'static str,
) -> Parsed {
    let n = b.len();
    if i >= n {
        return Parsed::Open;
    }
    if names::scram_server_key(b, ks, ke) {
        return Parsed::No;
    }
    let file = |v: &[u8]| path(v) && kind != "aws-secret-key";
    // `--ks-pass pass:…`, `-passin pass:…` (apksigner's, OpenSSL's): the
    // password after its source's name (`env:`, `file:` name other places).
    if op == Op::Blank && b[ks] == b'-' && b[i..].starts_with(b"pass:") {
        i += 5;
    }
    if i >= n {
        return Parsed::Open;
    }
    // gdb's `password = 0x55bd070e08f6 "…"`: a `char *` printed as its
    // address and the string there.
    if op == Op::Spaced && b[i..].starts_with(b"0x") {
        let digits = crate::run(b, i + 2, |c| c.is_ascii_hexdigit());
        if digits >= 4 && b[i + 2 + digits..].starts_with(b" \"") {
            i += 2 + digits + 1;
        }
    }
    // ODBC's `Pwd={…};`: braces quote a value in a connection string.
    if op == Op::Compact && b[i] == b'{' && ks > 0 && b[ks - 1] == b';' {
        let start = i + 1;
        let close = b[start..(start + MAX_VALUE).min(n)]
            .iter()
            .position(|&c| c == b'}' || c == b'\n');
        let (end, open) = match close {
            Some(p) if b[start + p] == b'}' => (start + p, false),
            Some(_) => return Parsed::No,
            None => ((start + MAX_VALUE).min(n), true),
        };
        let v = &b[start..end];
        return Parsed::Value(Value {
            start,
            end,
            open,
            seen: end + 1,
            secret: plain(v),
            kind: reported(kind),
        });
    }
    if let Some(q) = quote_at(b, i) {
        let (start, end, open) = quoted(b, i, q);
        let v = &b[start..end];
        // `KEY="correct horse"` in a shell or env file is one value;
        // `"label": "Forgot password?"` is prose.
        let spaces_ok = op == Op::Compact || values::app_password(v);
        // In Markdown, `code` after a name is most often a name too.
        let code = q == b"`" && (identifier(v) || dotted_identifier(v));
        // Quoted, `*`, `!` and `&` first are a password's, not YAML's.
        let plain_v = plain(v)
            || (v.len() >= values::MIN_VALUE
                && matches!(v[0], b'*' | b'!' | b'&')
                && !crate::placeholders::stand_in(v));
        let secret = plain_v
            && !code
            && !(op == Op::Colon && sealed(b, ks, v))
            && (spaces_ok || !v.iter().any(u8::is_ascii_whitespace))
            && (spaces_ok || !(name_word(v) || label(v)))
            && !file(v)
            // (A query string's signature is never quoted: quoted, it is an
            // attribute's, `sparkle:edSignature="…"`, a release's.)
            && kind != "signature"
            && key_shaped(kind, v, &b[ks..ke])
            && (kind != BARE_KEY
                || bare_key_line(b, ks, op, (end + q.len()).min(b.len()))
                || positions::prompt_label(b, ks, ke, start));
        // A name read from its place: the value must end that place.
        let (secret, seen) = if placed(kind) {
            let (ends, seen) = positions::ends_place(b, (end + q.len()).min(b.len()), true);
            (secret && ends, seen)
        } else {
            (secret, end + q.len())
        };
        return Parsed::Value(Value {
            start,
            end,
            open,
            seen,
            secret,
            kind: reported(kind),
        });
    }
    if op == Op::Blank && b[i] == b'-' {
        return Parsed::No;
    }
    // In a query string, `&` starts the next parameter.
    let url = ks > 0 && matches!(b[ks - 1], b'?' | b'&');
    // `KEY=value` first on its line (an env file, `env`, `docker inspect`'s
    // `"Env"`): the rest of the line is the value, `&` and a final `.` too.
    let env = op == Op::Compact && !url && env_line(b, ks);
    let start = i;
    let mut seen = 0;
    // (On an env line, a password's brackets, braces and `;` are its own:
    // `FASTLANE_PASSWORD=xx7:[ktno4{l:dq`, a credentials file's
    // `password=Rn#(mb)`; only a blank or a quote ends it.)
    while i < n
        && i - start < MAX_VALUE
        && (value_byte(b[i]) || (env && b[i] > b' ' && !matches!(b[i], b'"' | b'\'' | b'\\')))
        && !crate::nul_shown_at(b, i)
    {
        if b[i] == b'&' && !env {
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
    // A password's commas are its own where no other setting follows them
    // (`Password: jLbw4u,pOEm,CH#5,^8dh`, `SASLPassword:3891JHnc.5!,UdSb}`);
    // `password: x, user: y` and `a,b c` go on with something else.
    let mut comma_open = false;
    if i > start && b.get(i) == Some(&b',') && names::password(&b[ks..ke]) {
        let mut j = i;
        while j < n && j - start < MAX_VALUE && b[j] == b',' {
            // (The text ends at the comma: what follows decides; a stream
            // holds it.)
            if j + 1 == n {
                comma_open = true;
                break;
            }
            let mut rest = 0;
            while j + 1 + rest < n
                && value_byte(b[j + 1 + rest])
                && !matches!(b[j + 1 + rest], b':' | b'=')
                && !crate::nul_shown_at(b, j + 1 + rest)
            {
                rest += 1;
            }
            let after = b.get(j + 1 + rest).copied();
            if rest == 0 || (matches!(after, Some(b':' | b'=')) && !crate::nul_shown_at(b, j)) {
                break;
            }
            j += 1 + rest;
        }
        i = j;
    }
    // A name first on its line owns the line's rest where the value stops at
    // a bracket that closes nothing (`…-security.psk:   w^HH3Oz:k}qfr`): its
    // tail would show. (An opening one is code's: `next_token()`, `ENC[…]`.)
    if i > start && i < n && matches!(b[i], b'}' | b']' | b')') && first_on_line(b, ks) {
        let mut j = i;
        while j < n && j - start < MAX_VALUE && b[j] > b' ' && !matches!(b[j], b'"' | b'\'') {
            j += 1;
        }
        let mut k = j;
        while k < n && matches!(b[k], b' ' | b'\t') {
            k += 1;
        }
        if k == n || matches!(b[k], b'\n' | b'\r') {
            i = j;
        }
    }
    // A password's `|` glued inside it (`✔ Password: O^_HM…|9&J)mX…`, what
    // `step ca init` generates): the line's rest where it has no blank (a
    // table's border has blanks beside it).
    // (The text ends at the `|`: what follows decides; a stream holds it.)
    let pipe_open = i > start && i + 1 == n && b[i] == b'|' && names::password(&b[ks..ke]);
    if i > start && i + 1 < n && b[i] == b'|' && b[i + 1] > b' ' && names::password(&b[ks..ke]) {
        let mut j = i;
        while j < n && j - start < MAX_VALUE && b[j] > b' ' && !matches!(b[j], b'"' | b'\'') {
            j += 1;
        }
        if j == n || matches!(b[j], b'\n' | b'\r') {
            i = j;
        }
    }
    // A Google app password, unquoted (`password abcd efgh ijkl mnop` in
    // an msmtprc): its groups are one value where the line ends after them.
    // (Cut before its end, a stream waits for the rest.)
    let app_open = i - start == 4 && n < start + 19 && values::app_password_start(&b[start..]);
    if i - start == 4 && n >= start + 19 && values::app_password(&b[start..start + 19]) {
        let after = start + 19;
        if after == n || (matches!(b[after], b'\n' | b'\r' | b' ' | b'\t') && line_ends(b, after)) {
            i = after;
        }
    }
    // Blanks up to the end of the text: whether the line ends here is not
    // known yet, and `config_line` depends on it.
    let mut j = i;
    while j < n && matches!(b[j], b' ' | b'\t') {
        j += 1;
    }
    let open = j == n || app_open || comma_open || pipe_open;
    let mut end = i;
    // A config's line: YAML's `key: value`, or INI's `key = value` under a
    // `[section]`.
    let config = (op == Op::Colon || (op == Op::Spaced && ini_section_above(b, ks)))
        && config_line(b, ks, i);
    // Where a value cannot be a name or a path in code (`a.b.c` and
    // `a_b_c` are passphrases there): an env line, a URL, a config line,
    // `"KEY=value"` whole in one string (`"Env"`, systemd's
    // `Environment="…"`), a shell word (`PGPASSWORD=… psql`, an inventory's
    // `host ansible_ssh_pass=…`), a long flag's value.
    let one_string = op == Op::Compact
        && ks > 0
        && matches!(b[ks - 1], b'"' | b'\'')
        && b.get(i) == Some(&b[ks - 1]);
    let shell_word = op == Op::Compact
        && (ks == 0 || matches!(b[ks - 1], b' ' | b'\t' | b'\n'))
        && matches!(b.get(i), None | Some(b' ' | b'\t' | b'\n' | b'\r'));
    let flag = op == Op::Blank && long_flag(b, ks, blanks_before);
    let no_code = env || url || one_string || config || shell_word || flag;
    // `… then set DB_PASSWORD=hunter22.` in prose: the full stop ends the
    // sentence. (Where no code can be, a wider mask is the safe side.)
    while end > start && b[end - 1] == b'.' && !no_code {
        end -= 1;
    }
    let v = &b[start..end];
    // There, `*`, `!` and `&` first are a password's, not YAML's.
    // On a config's line too, where what follows `&`, `*` or `!` could not
    // be an anchor's, an alias's or a tag's name (`password: &gg0&rRQ*…`).
    let symbol_first = v.len() >= values::MIN_VALUE
        && matches!(v[0], b'*' | b'!' | b'&')
        && !crate::placeholders::stand_in(v);
    let plain_v = plain(v)
        || (symbol_first && matches!(op, Op::Compact | Op::Blank) && no_code)
        || (symbol_first
            && config
            && !v[1..]
                .iter()
                .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')));
    let next = b.get(i).copied();
    if op == Op::Colon && sealed(b, ks, v) {
        return Parsed::No;
    }
    // `NAME: Type = …`, `field: Type,`, `token = other;`: code goes on.
    let code_after = matches!(b.get(j), Some(b'=' | b',' | b')' | b';' | b'{' | b'}'));
    let secret = plain_v
        && (kind != "signature"
            || (op == Op::Compact
                && !values::digest_typed(v)
                // A SAML request's signature (`…&SigAlg=…&Signature=…`) signs
                // it; it grants nothing.
                && !(url && saml_query(b, ks))
                // An HMAC in hex outside a URL (`razorpay_signature=…` in a
                // log) signs one message; a presigned URL's grants access.
                && (url || !values::hex_digest(v))))
        && key_shaped(kind, v, &b[ks..ke])
        && (kind != BARE_KEY
            || bare_key_line(b, ks, op, i)
            || positions::prompt_label(b, ks, ke, start))
        && (op == Op::Xml || !matches!(next, Some(b'(' | b'[' | b'<')))
        && (op == Op::Compact || !name_word(v))
        // `secretKey: database-url` (an ExternalSecret's), `secret:
        // stripe-keys`: a name in kebab case names another thing; a
        // password may be words (`correct-horse-battery-staple`).
        && !(v.contains(&b'-')
            && values::dashed_identifier(v)
            && !names::password(&b[ks..ke]))
        && (no_code || !dotted_identifier(v))
        && !file(v)
        && match op {
            // `f(token=token)`: a keyword argument.
            Op::Compact => !(identifier(v) && matches!(next, Some(b')' | b','))),
            Op::Colon if config_line(b, ks, i) => !type_name(v),
            // `initWithToken:label:`, an Objective-C selector.
            Op::Colon if ke + 1 == start && v.ends_with(b":") => false,
            Op::Colon | Op::Spaced => {
                (config || !identifier(v))
                    && !number(v)
                    // (A random key is no name in code: `password: NFjy8e…, timeout: 2`.)
                    && !(code_after
                        && (code_word(v) || dotted_code(v))
                        && !values::neutral_key(v))
            }
            Op::Xml => next == Some(b'<'),
            // `--password x`, `.netrc`'s `password x` (after `login`, or last
            // on its line), or a name from code before something random.
            Op::Blank => {
                (long_flag(b, ks, blanks_before) && !names_a_secret(v))
                    || match netrc(b, ks, ke) {
                        Some(after_login) => after_login || config_line(b, ks, i),
                        // Not `other_name=…`: that is an assignment of its own.
                        None => {
                            (random(v)
                                && !assignment(v)
                                && (compound(&b[ks..ke])
                                    || config_line(b, ks, i)
                                    || (ipsec_secret(b, ks, ke) && line_ends(b, i))))
                                // A directive's line of its own (`requirepass …`,
                                // `bindpw …`): a password shorter than a key.
                                || (kind == "secret-assignment"
                                    && first_on_line(b, ks)
                                    && line_ends(b, i)
                                    && directive_password(v))
                        }
                    }
            }
        };
    // `config_line` and `code_after` look past the blanks after the value.
    let mut seen = seen.max(if matches!(op, Op::Colon | Op::Blank | Op::Spaced) {
        j + 1
    } else {
        i + 1
    });
    // A name read from its place: the value must end that place.
    let secret = secret && {
        if placed(kind) {
            let (ends, looked) = positions::ends_place(b, end, false);
            seen = seen.max(looked);
            ends && (op != Op::Blank || long_flag(b, ks, blanks_before))
        } else {
            true
        }
    };
    Parsed::Value(Value {
        start,
        end,
        open,
        seen,
        secret,
        kind: reported(kind),
    })
}

/// A password after a directive: 8 bytes or more, letters and digits
/// (`changed` in `password changed` is a word), no stand-in.
fn directive_password(v: &[u8]) -> bool {
    // (OpenVPN's `secret client1.key`: a file.)
    !values::file_name(v)
        && v.len() >= 8
        && v.iter().any(u8::is_ascii_digit)
        && v.iter().any(u8::is_ascii_alphabetic)
        && !assignment(v)
        && !crate::placeholders::stand_in(v)
}

/// Whether the name at `ks` is first on its line, after blanks.
fn first_on_line(b: &[u8], ks: usize) -> bool {
    let floor = ks.saturating_sub(64);
    let blanks = b[floor..ks]
        .iter()
        .rev()
        .take_while(|c| matches!(c, b' ' | b'\t'))
        .count();
    let at = ks - blanks;
    at == 0 || b[at - 1] == b'\n'
}

/// Whether an INI `[section]` line comes before `ks` (within 4 KiB): its
/// `key = value` lines are data, not code.
fn ini_section_above(b: &[u8], ks: usize) -> bool {
    let from = ks.saturating_sub(4 << 10);
    b[from..ks].split(|&c| c == b'\n').any(|line| {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        // After a viewer's line number (`cat -n`, Claude Code's `  1→`).
        let line = match line.first() {
            Some(b'[') | None => line,
            Some(_) => match memchr::memchr(b'[', line) {
                Some(p) if crate::decorations::line_prefix(line, 0, p) == p => &line[p..],
                _ => return false,
            },
        };
        line.len() > 2
            && line[0] == b'['
            && line[line.len() - 1] == b']'
            && line[1..line.len() - 1].iter().all(|&c| {
                c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b' ' | b'"' | b':')
            })
    })
}

/// A Bitnami SealedSecret's value: ciphertext made to be committed and
/// shown. Base64 that starts with the RSA-sealed session key's length (512:
/// `Ag[A-D]`): any such value under `encryptedData:`; with no parent in the
/// text (JSON, a stream's later chunk), one longer than that key.
fn sealed(b: &[u8], ks: usize, v: &[u8]) -> bool {
    v.len() >= 16
        && v.starts_with(b"Ag")
        && matches!(v[2], b'A'..=b'D')
        && v.iter().all(|&c| crate::b64(c))
        && match yaml_parent(b, ks) {
            Some(p) => p == b"encryptedData",
            None => v.len() >= 700,
        }
}

/// The key of the YAML mapping that holds the key at `ks`: the nearest line
/// above that is less indented (within 64 lines).
fn yaml_parent(b: &[u8], ks: usize) -> Option<&[u8]> {
    let line = crate::line_start_within(b, ks, crate::MAX_LINE_PREFIX)?;
    let indent = ks - line;
    let mut end = line.checked_sub(1)?;
    for _ in 0..64 {
        // A sibling's line may be long (another sealed value): 4 KiB back.
        let start = crate::line_start_within(b, end, 4096)?;
        let text = &b[start..end];
        let own = text.iter().take_while(|&&c| c == b' ').count();
        if own < text.len() && own < indent {
            let key = text[own..].strip_suffix(b":")?;
            return Some(key);
        }
        end = start.checked_sub(1)?;
    }
    None
}

/// A table's row whose label is the name `[ks, ke)`, its value at `i`: a
/// column table (`vault kv get`'s `api_key      …`, two blanks or a tab
/// after the label) or a box or Markdown table (`| API Secret | … |`). The
/// label cell holds only words; the value is one cell, the last on the row
/// or followed by `|`. `None`: not such a row.
fn table_row(
    b: &[u8],
    ks: usize,
    ke: usize,
    mut i: usize,
    blanks_before: usize,
    kind: &'static str,
) -> Option<Parsed> {
    let n = b.len();
    let line = crate::line_start_within(b, ks, crate::MAX_LINE_PREFIX)?;
    let mut label = &b[line..ks];
    while let [b' ' | b'\t', rest @ ..] = label {
        label = rest;
    }
    let piped = bar(label, 0) > 0;
    if piped {
        label = &label[bar(label, 0)..];
    }
    // `shop:dbPassword` (Pulumi's namespaced configuration keys),
    // `/shop/prod/db_password` (SSM's parameters); a browser's
    // `cookies.txt` line, whose name is its sixth field.
    let words = label.len() <= 40
        && label.iter().all(|&c| {
            c.is_ascii_alphanumeric() || matches!(c, b' ' | b'_' | b'-' | b'.' | b':' | b'/')
        });
    if !(words || netscape_cookie(label)) {
        return None;
    }
    if piped {
        if bar(b, i) == 0 {
            // A `│` cut after its first byte is still to come.
            return (n - i < 3 && b[i..] == "│".as_bytes()[..n - i]).then_some(Parsed::Open);
        }
        i += bar(b, i);
        blanks(b, &mut i);
    } else if bar(b, i) > 0 {
        // `psql`'s expanded rows (`\x`): `secret  | …`, `secret  │ …`.
        i += bar(b, i);
        blanks(b, &mut i);
    } else if blanks_before < 2 && b.get(ke) != Some(&b'\t') {
        return None;
    }
    // `reg query`'s `DefaultPassword    REG_SZ    …`: the value after its type.
    for t in [&b"REG_SZ "[..], b"REG_EXPAND_SZ "] {
        if b[i.min(n)..].starts_with(t) {
            i += t.len();
            blanks(b, &mut i);
        }
    }
    if i >= n {
        return Some(Parsed::Open);
    }
    let start = i;
    while i < n && !b[i].is_ascii_whitespace() && bar(b, i) == 0 && i - start < MAX_VALUE {
        i += 1;
    }
    let end = i;
    let mut j = i;
    while j < n && matches!(b[j], b' ' | b'\t') {
        j += 1;
    }
    let last_cell = j == n || matches!(b[j], b'\n' | b'\r') || (piped && bar(b, j) > 0);
    if !last_cell || end == start {
        return Some(Parsed::No);
    }
    let v = &b[start..end];
    // A row labelled as a secret holds one: `maple.violet.quartz` too.
    let secret = if kind == COOKIE_ROW {
        plain(v)
            && v.len() >= 16
            && (keylike(v) || hex_key(v))
            && !http_auth::not_a_credential(&b[ks..ke])
    } else {
        plain(v)
            && !name_word(v)
            && !label_word(v)
            && !title_word(v)
            && !path(v)
            && key_shaped(kind, v, &b[ks..ke])
            && !columns::under_a_header_that_says_otherwise(b, start)
    };
    Some(Parsed::Value(Value {
        start,
        end,
        open: j == n,
        seen: j + 1,
        secret,
        kind: reported(kind),
    }))
}

/// The cookie's name `[s, ke)` on a Netscape `cookies.txt` line (`curl
/// -c`, `yt-dlp`, browsers' exports), a tab after it: any cookie's value
/// that looks random is masked, as in a `Cookie:` header.
#[inline(never)]
fn cookie_row(b: &[u8], s: usize, ke: usize) -> Option<(usize, Name)> {
    if b.get(ke) != Some(&b'\t') {
        return None;
    }
    let line = crate::line_start_within(b, s, crate::MAX_LINE_PREFIX)?;
    netscape_cookie(&b[line..s]).then_some((s, Name::Secret(COOKIE_ROW)))
}

/// The kind [`cookie_row`] gives its name: [`table_row`] reads the value.
const COOKIE_ROW: &str = "cookie-row";

/// The five fields before a cookie's name in a Netscape `cookies.txt`
/// (`curl -c`, `yt-dlp`, browsers' exports): domain, `TRUE`/`FALSE`, path,
/// `TRUE`/`FALSE`, expiry.
#[inline(never)]
fn netscape_cookie(prefix: &[u8]) -> bool {
    let fields: Vec<&[u8]> = prefix.split(|&c| c == b'\t').collect();
    let flag = |f: &[u8]| f == b"TRUE" || f == b"FALSE";
    fields.len() == 6
        && fields[5].is_empty()
        && flag(fields[1])
        && flag(fields[3])
        && fields[4].iter().all(u8::is_ascii_digit)
}

/// The length of the column rule at `i`: `|`, or a box's `│` / `┃` (as
/// `doppler secrets`, `psql` and many CLIs draw them); 0 if none.
#[inline(never)]
pub(super) fn bar(b: &[u8], i: usize) -> usize {
    match b.get(i..) {
        Some([b'|', ..]) => 1,
        Some([0xE2, 0x94, 0x82 | 0x83, ..]) => 3,
        _ => 0,
    }
}

/// `dbPassword`, `API_TOKEN`: the name of a secret (`pulumi config set
/// --secret dbPassword`), not one.
#[inline(never)]
fn names_a_secret(v: &[u8]) -> bool {
    v.iter().all(|&c| c.is_ascii_alphabetic() || c == b'_') && secret_kind(v).is_some()
}

/// `Value`, `-----`, `true`: a table's header, rule or flag, not a secret.
/// `Balance`, `Expires`: one capitalised word, a header's cell (`Token
/// Balance` over `spl-token accounts`' rows), not a row's value.
fn title_word(v: &[u8]) -> bool {
    v.len() <= 16 && v[0].is_ascii_uppercase() && v[1..].iter().all(u8::is_ascii_lowercase)
}

pub(super) fn label_word(v: &[u8]) -> bool {
    v.iter().all(|&c| c == b'-' || c == b'=' || c == b'+')
        || [
            &b"value"[..],
            b"true",
            b"false",
            b"none",
            b"null",
            b"n/a",
            b"<nil>",
        ]
        .iter()
        .any(|w| v.eq_ignore_ascii_case(w))
}

/// `name=…`: a word that is an assignment of its own.
fn assignment(v: &[u8]) -> bool {
    let n = v
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-'))
        .count();
    n > 0 && v.get(n) == Some(&b'=') && v.get(n + 1).is_some_and(|&c| c != b'=')
}

/// The kind a value is masked as: a `…_key` is one more secret assignment.
fn reported(kind: &'static str) -> &'static str {
    if kind == COOKIE_ROW {
        return "cookie";
    }
    if kind == NAMED_KEY
        || kind == BARE_KEY
        || placed(kind)
        || kind == ENV_ITEM
        || kind == SECRET_ITEM
    {
        "secret-assignment"
    } else {
        kind
    }
}

/// Whether `v` has the shape a name of `kind` asks of its value: under a
/// name that only says `…_key` (or a session, a license, a weak name), a
/// key's (random, letters and digits alternating), or hex where the name
/// says it is a credential whatever its shape (`DD_APP_KEY`, `JSESSIONID`),
/// or a UUID under `secret_id`.
fn key_shaped(kind: &str, v: &[u8], key: &[u8]) -> bool {
    // Digits alone under a key's or a token's name are an account's number
    // (Cloudinary's `api_key`, beside its `api_secret`); a password may be
    // digits.
    if v.len() >= 6 && v.iter().all(u8::is_ascii_digit) && !names::password_like(key) {
        return false;
    }
    // `phase2-auth: mschapv2`, `auth: scram256`: an `auth` is as often a
    // method as a credential, and a method's name is a lower-case word
    // with a version at most.
    if names::ends_auth(key) && values::method_name(v) {
        return false;
    }
    if kind == SECRET_ITEM {
        return command_output::secret_like(v);
    }
    // A session cookie's value by its name field (a browser's storage
    // state, a HAR file): random, hex too.
    if kind == COOKIE_ROW {
        return keylike(v) || hex_key(v);
    }
    // A name nothing names, read from its place: a value that reads as
    // words and numbers with a random tail is a name (`app-2024-05-01-k8m2x9`),
    // `cus_Q8vN2…` an object's id.
    if kind == INLINE_KEY {
        return values::inline_key(v);
    }
    if kind == POSITION_KEY || kind == ENV_ITEM {
        return values::neutral_key(v);
    }
    // A key's id (`access_key: TDYBI4U5…`, Confluent's `key`): its secret
    // is the other value.
    if (kind == NAMED_KEY || kind == BARE_KEY || names::access_key(key)) && values::key_id(v) {
        return false;
    }
    (kind != NAMED_KEY && kind != BARE_KEY && kind != POSITION_KEY && kind != ENV_ITEM)
        || keylike(v)
        // A list of keys (Strapi's `APP_KEYS=a,b,c,d`): each looks like one.
        || (v.contains(&b',') && v.split(|&c| c == b',').all(keylike))
        || (hex_key(v)
            && (credential_key(key) || names::numbered_key(key) || names::session_cookie(key)))
        || (values::uuid(v) && names::uuid_key(key))
}

/// A bare `key` is a credential's name on a config's line of its own: an INI
/// section's `key = …`, YAML's `key: …`, an env file's `KEY=…`; not JSON's
/// `"key"` (a cache's, an object's, a translation's).
fn bare_key_line(b: &[u8], ks: usize, op: Op, value_end: usize) -> bool {
    !(ks > 0 && matches!(b[ks - 1], b'"' | b'\''))
        && config_line(b, ks, value_end)
        && match op {
            Op::Colon => true,
            Op::Spaced | Op::Compact => ini_section_above(b, ks) || env_line(b, ks),
            _ => false,
        }
}

/// Whether a `user:password` pair starts at `i`: a user's name (not a
/// digest's algorithm, `sha256:…`), a `:`, then a value.
fn user_pair(b: &[u8], i: usize) -> bool {
    let user = b[i..(i + 65).min(b.len())]
        .iter()
        .take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
        .count();
    let user_name = &b[i..i + user];
    user > 0
        && b.get(i + user) == Some(&b':')
        && b.get(i + user + 1).is_some_and(|&c| values::value_byte(c))
        && !(user_name.starts_with(b"sha") || user_name.eq_ignore_ascii_case(b"md5"))
        && !user_name.iter().all(u8::is_ascii_digit)
}

/// `--password value` on a command line.
fn long_flag(b: &[u8], ks: usize, blanks: usize) -> bool {
    // PowerShell's parameters: `-Password '…'`, `-ApiKey …`; Java's and Go's
    // long options with one dash: `keytool -storepass …`, `-keypass`,
    // `openssl … -passin pass:…`.
    blanks == 1
        && (b[ks..].starts_with(b"--")
            || (b[ks] == b'-' && b.get(ks + 1).is_some_and(u8::is_ascii_uppercase))
            || (b[ks] == b'-'
                && b.get(ks + 1..ks + 4)
                    .is_some_and(|w| w.iter().all(u8::is_ascii_lowercase))))
}

/// `password value` in a `.netrc`: `Some(true)` after `machine` or `login`
/// on its line; `Some(false)` first on its line, where it is one if its value
/// ends the line (the `login` line may have been an earlier chunk).
fn netrc(b: &[u8], ks: usize, ke: usize) -> Option<bool> {
    if &b[ks..ke] != b"password" {
        return None;
    }
    // A `.netrc` line is short: a long line's last part is read.
    let line = crate::line_start_within(b, ks, crate::MAX_LINE_PREFIX)
        .unwrap_or(ks.saturating_sub(crate::MAX_LINE_PREFIX));
    let before = &b[line..ks];
    if find(before, b"login ").is_some() || find(before, b"machine ").is_some() {
        return Some(true);
    }
    first_on_line(b, ks).then_some(false)
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
    if !line_head(b, ks) {
        return false;
    }
    line_ends(b, value_end)
}

/// Whether only blanks or a comment follow `value_end` on its line.
fn line_ends(b: &[u8], value_end: usize) -> bool {
    let mut j = value_end;
    while j < b.len() && matches!(b[j], b' ' | b'\t') {
        j += 1;
    }
    j == b.len() || matches!(b[j], b'\n' | b'\r' | b'#')
}

/// Whether only a line's decoration comes before the name at `ks`: blanks, a
/// list's `- `, a quote, `grep -n`'s `path:12:`, `cat -n`'s number.
fn line_head(b: &[u8], ks: usize) -> bool {
    let mut i = ks;
    while i > 0 && matches!(b[i - 1], b' ' | b'\t' | b'-' | b'"' | b'\'') {
        i -= 1;
    }
    i == 0 || b[i - 1] == b'\n' || after_grep_prefix(b, i) || after_decoration(b, ks)
}

/// `… : PSK "…"` in an `ipsec.secrets`: the selectors, then the kind of
/// secret after ` : `.
fn ipsec_secret(b: &[u8], ks: usize, ke: usize) -> bool {
    b[ks..ke].eq_ignore_ascii_case(b"psk") && b[..ks].ends_with(b": ")
}

/// Whether the name at `ks` is first on its line, as in an env file: after
/// blanks, `export `, a list's `- `, a quote (`"Env": ["KEY=…"`), and the
/// prefixes tools put before a file's lines (a diff's `+`, `bat`'s gutter,
/// `grep -n`'s `path:12:`).
fn env_line(b: &[u8], ks: usize) -> bool {
    let Some(line) = crate::line_start_within(b, ks, crate::MAX_LINE_PREFIX) else {
        return false;
    };
    let mut head = &b[line..ks];
    // A diff's added or context line.
    if let [b'+' | b' ', rest @ ..] = head
        && !rest.starts_with(b"+")
    {
        head = rest;
    }
    // `bat`'s gutter: a line number, then `│`.
    const BAR: &[u8] = "│".as_bytes();
    if let Some(p) = crate::find(head, BAR)
        && head[..p].iter().all(|c| c.is_ascii_digit() || *c == b' ')
    {
        head = &head[p + BAR.len()..];
    }
    fn trimmed(h: &[u8]) -> &[u8] {
        let n = h.iter().take_while(|c| matches!(c, b' ' | b'\t')).count();
        &h[n..]
    }
    let mut h = trimmed(head);
    if h.is_empty() {
        return true;
    }
    let mut k = ks;
    while k > line && matches!(b[k - 1], b' ' | b'\t') {
        k -= 1;
    }
    if after_grep_prefix(b, k) || after_decoration(b, ks) {
        return true;
    }
    for prefix in [&b"export "[..], b"- ", b"\"", b"'"] {
        if let Some(rest) = h.strip_prefix(prefix) {
            h = trimmed(rest);
        }
    }
    h.is_empty()
}

/// Whether all of the line before `i` is decorations a tool put there (a
/// CI log's timestamp, a line number, a quote mark: `decorations`).
fn after_decoration(b: &[u8], i: usize) -> bool {
    crate::line_start_within(b, i, crate::MAX_LINE_PREFIX)
        .is_some_and(|line| line < i && crate::decorations::line_prefix(b, line, i) == i - line)
}

/// Whether the line holding `i` starts with `grep -n`'s or ripgrep's
/// prefix and nothing else comes before `i`: `path:12:` or `path-12-` (a
/// context line), or `12:` alone (`rg --heading`). What follows it is the
/// file's line as it was.
fn after_grep_prefix(b: &[u8], i: usize) -> bool {
    let Some(line) = crate::line_start_within(b, i, crate::MAX_LINE_PREFIX) else {
        return false;
    };
    let prefix = &b[line..i];
    let Some(&sep) = prefix.last() else {
        return false;
    };
    if !matches!(sep, b':' | b'-') {
        return false;
    }
    let body = &prefix[..prefix.len() - 1];
    let digits = body.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 {
        return false;
    }
    let path = &body[..body.len() - digits];
    path.is_empty()
        || (path.last() == Some(&sep)
            && path.len() > 1
            && !path[..path.len() - 1]
                .iter()
                .any(|c| c.is_ascii_whitespace()))
}

/// Spaces and tabs from `i`, skipped; how many.
fn blanks(b: &[u8], i: &mut usize) -> usize {
    let start = *i;
    while *i < b.len() && matches!(b[*i], b' ' | b'\t') {
        *i += 1;
    }
    // `**Password:** hunter2`: Markdown emphasis around the name.
    if *i == start && b[*i..].starts_with(b"** ") {
        *i += 3;
    }
    *i - start
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `at_operator` skips `name_at` where `may_be_name` says no: a name
    /// `name_at` would find there must never be one `may_be_name` turns
    /// away. Random words ending in names, in parts of names and in
    /// neither, some as a Terraform `random_password`'s `result`.
    #[test]
    fn name_at_never_names_what_may_be_name_turns_away() {
        let parts: [&[u8]; 19] = [
            b"X-",
            b"SESSION",
            b"OP",
            b"password",
            b"PASSWD",
            b"pass",
            b"pwd",
            b"secret",
            b"Token",
            b"api",
            b"key",
            b"_",
            b"-",
            b".",
            b"db",
            b"x",
            b"result",
            b"Authorization",
            b"access",
        ];
        let resource = b"resource \"random_password\" \"db\" {\n  ";
        let mut next = crate::tests::xorshift(0x6a09_e667_f3bc_c908);
        let (mut named, mut turned_away) = (0, 0);
        for _ in 0..50_000 {
            let mut b = Vec::new();
            if next().is_multiple_of(4) {
                b.extend_from_slice(resource);
            }
            let s = b.len();
            for _ in 0..1 + next() % 4 {
                b.extend_from_slice(parts[(next() % parts.len() as u64) as usize]);
            }
            let ke = b.len();
            let may = may_be_name(&b[s..ke]);
            let name = name_at(&b, s, ke);
            assert!(
                may || name.is_none(),
                "{:?}: named, but turned away before",
                String::from_utf8_lossy(&b[s..ke])
            );
            named += name.is_some() as usize;
            turned_away += !may as usize;
        }
        // Both answers come up often: the test can fail either way.
        assert!(
            named > 5_000 && turned_away > 5_000,
            "{named} / {turned_away}"
        );
    }
}
