//! Settings on command lines, whatever their names: an item `NAME=VALUE` of
//! a command that sets environment variables (`docker run -e`,
//! `--build-arg`, `gcloud run deploy --set-env-vars A=…,B=…`, `az … --settings`,
//! `aws lambda … --environment "Variables={…}"`) or secrets (`fly secrets
//! set`, `kubectl create secret … --from-literal=`, `heroku config:set`,
//! `supabase secrets set`), and the same with a blank (`setx NAME VALUE`,
//! `netlify env:set NAME VALUE`, `gh secret set NAME --body VALUE`), and a
//! value echoed into a command that reads a secret on its input (`echo "…" |
//! docker login --password-stdin`, `| gh auth login --with-token`, `|
//! chpasswd`), a login's argument (`cargo login …`, `ngrok authtoken …`),
//! and code that sets an environment variable (`os.Setenv("NAME", "…")`,
//! `os.environ["NAME"] = "…"`).
//!
//! An environment variable's value is a credential where it looks like a
//! key ([`ENV_ITEM`], the rule of [`super::positions`]); a secret's is one
//! unless it plainly is something else, a host, a path, words
//! ([`SECRET_ITEM`], the rule of [`super::command_output`]). A name that
//! says what else its value is (`DB_HOST`, `API_URL`) declines both.

use super::command_output::secret_like;
use super::names::Name;
use super::positions::says_nothing;
use super::values::{keylike, plain};
use crate::Found;

/// The kind of an environment variable's name read from its command: the
/// value must look like a key.
pub(super) const ENV_ITEM: &str = "env-item";
/// The kind of a secret's name read from its command: the value must not
/// plainly be something else.
pub(super) const SECRET_ITEM: &str = "secret-item";

/// What ends right before a command's first item, and what its items are.
const OPENERS: &[(&[u8], &str)] = &[
    (b" -e ", ENV_ITEM),
    (b" --env ", ENV_ITEM),
    (b" --env=", ENV_ITEM),
    (b" --build-arg ", ENV_ITEM),
    (b" --build-arg=", ENV_ITEM),
    (b" --set-env-vars ", ENV_ITEM),
    (b" --set-env-vars=", ENV_ITEM),
    (b" --update-env-vars ", ENV_ITEM),
    (b" --update-env-vars=", ENV_ITEM),
    (b" --env-vars ", ENV_ITEM),
    (b" --settings ", ENV_ITEM),
    (b"Variables={", ENV_ITEM),
    (b" --from-literal=", SECRET_ITEM),
    (b" secrets set ", SECRET_ITEM),
    (b" secret set ", SECRET_ITEM),
    (b" config:set ", SECRET_ITEM),
    (b" variables --set ", SECRET_ITEM),
];

/// Most items one command's list is read back through (`fly secrets set
/// A=1 B=2 …`).
const MAX_ITEMS: usize = 16;

/// Whether the word at `s` may end with such a name at `ke` (its `=`):
/// after a blank, `{`, `,` or a quote, and a value of a secret's length
/// after the `=` whose first bytes mix classes. The cheap test made before
/// [`name`].
#[inline(always)]
pub(super) fn may_be(b: &[u8], s: usize, ke: usize) -> bool {
    let value = &b[(ke + 1).min(b.len())..(ke + 9).min(b.len())];
    // (Up to the text's end, the value may still grow: a stream's cut.)
    let ends = ke + 9 > b.len();
    s > 0
        && matches!(b[s - 1], b' ' | b'{' | b',' | b'"' | b'\'')
        && b.get(ke) == Some(&b'=')
        && value.iter().all(|&c| super::values::value_byte(c))
        // A key's or a password's first bytes mix classes.
        && (ends || (value.len() >= 6 && crate::mixed(value)))
}

/// The name that ends at `ke`, in a word that starts at `s`: the last item
/// of `--from-literal=name=…`, `A=1,NAME=…`, `{NAME=…`, if a command that
/// sets environment variables or secrets takes it.
#[inline(never)]
pub(super) fn name(b: &[u8], s: usize, ke: usize) -> Option<(usize, Name)> {
    let ks = b[s..ke]
        .iter()
        .rposition(|&c| matches!(c, b'=' | b',' | b'{'))
        .map_or(s, |p| s + p + 1);
    // Where it is first (most `name=value` words are no command's item).
    let kind = item_of(b, ks)?;
    says_nothing(&b[ks..ke]).then_some((ks, Name::Secret(kind)))
}

/// The kind of the items of the command whose item starts at `ks`: the
/// items before it on its line read back (`A=1,B=2,`, `A=1 B=2 `) to what
/// opens the list.
fn item_of(b: &[u8], ks: usize) -> Option<&'static str> {
    let floor = ks.saturating_sub(4 * crate::MAX_LINE_PREFIX);
    let mut at = ks;
    for _ in 0..MAX_ITEMS {
        let mut head = &b[floor..at];
        // `-e "NAME=…"`: the item quoted.
        if at == ks
            && let Some(unquoted) = head.strip_suffix(b"\"").or_else(|| head.strip_suffix(b"'"))
        {
            head = unquoted;
        }
        if let Some((_, kind)) = OPENERS.iter().find(|(o, _)| head.ends_with(o)) {
            return Some(kind);
        }
        // The separator before this item, then the item before it.
        let (&sep, rest) = head.split_last()?;
        if !matches!(sep, b' ' | b',') {
            return None;
        }
        let start = rest
            .iter()
            .rposition(|&c| matches!(c, b' ' | b',' | b'{' | b'\n'))
            .map_or(0, |p| p + 1);
        let item = &rest[start..];
        if !item.first().is_some_and(u8::is_ascii_alphabetic) || !item.contains(&b'=') {
            return None;
        }
        at = floor + start;
    }
    None
}

/// Commands whose name and value are separated by a blank: the word before
/// the name (`setx NAME VALUE`, `netlify env:set NAME VALUE`, fish's and
/// `dotenv`'s `set NAME VALUE`).
const BLANK_COMMANDS: &[&[u8]] = &[b"setx", b"env:set", b"set"];

/// fish's scopes and export flags between `set` and the name (`set -gx`).
const FISH_FLAGS: &[&[u8]] = &[b"-x", b"-gx", b"-xg", b"-Ux", b"-xU", b"-g", b"-U"];

/// What a call that sets an environment variable opens with, before its
/// name in quotes (`os.Setenv("NAME", "…")`, `os.environ["NAME"] = "…"`).
const ENV_CALLS: &[&[u8]] = &[
    b"SetEnvironmentVariable(",
    b"Setenv(",
    b"set_var(",
    b"setenv(",
    b"setdefault(",
    b"setProperty(",
    b"environ[",
    b"ENV[",
    b"env[",
];

/// Whether the word `[s, e)` (8 bytes or more) may be a value
/// [`after_blank`] reads: what may come before each kind, a byte or two
/// (called for most long words). A key's value is 16 bytes or more; a
/// short one follows `--body`, `authtoken` or `install`; prose is words of
/// letters, a value has letters of both cases or digits.
#[inline(always)]
pub(crate) fn may_follow(b: &[u8], s: usize, e: usize) -> bool {
    if s < 3 {
        return false;
    }
    let quote = matches!(b[s - 1], b'"' | b'\'');
    let before = s - usize::from(quote);
    let call = quote && matches!(&b[before - 2..before], b", " | b"= " | b"]=");
    let blank = b[before - 1] == b' ';
    let head = &b[..before - 1];
    let short_ok =
        || head.ends_with(b"--body") || head.ends_with(b"authtoken") || head.ends_with(b"install");
    // A bare value has no `:`, and `=` only as padding (`KEY=…`, `a:b` are
    // read as assignments and URLs).
    let w = &b[s..e];
    let bare = || memchr::memchr2(b':', b'=', w).is_none_or(|p| w[p] == b'=' && p + 2 >= w.len());
    (call || (blank && (e - s >= 16 || short_ok()) && bare())) && crate::mixed(w)
}

/// The long word `[s, e)` (after a blank or a quote) as the value of a
/// setting that has no `=` before it: `setx NAME VALUE`, `netlify env:set
/// NAME VALUE`, `set -gx NAME VALUE` (masked where it looks like a key), `gh
/// secret set NAME --body VALUE` (where it is not plainly something else),
/// `os.Setenv("NAME", "VALUE")`, `os.environ["NAME"] = "VALUE"` (where it
/// looks like a key, or is plain under a secret's name).
#[inline(never)]
pub(crate) fn after_blank(b: &[u8], s: usize, e: usize, found: &mut Vec<Found>) {
    let quote = matches!(b[s - 1], b'"' | b'\'');
    let before = s - usize::from(quote);
    // The whole value: the word may stop at a symbol (`p4ss**w0rd`).
    let end = value_end(b, s);
    if end < e || (quote && b.get(end) != Some(&b[s - 1])) {
        return;
    }
    let v = &b[s..end];
    let secret = if quote && let Some((ks, ke)) = env_call(b, before) {
        let name = &b[ks..ke];
        if super::names::secret_kind(name).is_some() {
            plain(v)
        } else {
            says_nothing(name) && keylike(v)
        }
    } else {
        before > 0 && b[before - 1] == b' ' && blank_setting(b, before - 1, v)
    };
    if secret {
        found.push(Found {
            start: s,
            end,
            kind: "secret-assignment",
        });
    }
}

/// Where the unquoted value that starts at `s` ends: its value bytes.
fn value_end(b: &[u8], s: usize) -> usize {
    let limit = (s + super::MAX_VALUE).min(b.len());
    s + b[s..limit]
        .iter()
        .take_while(|&&c| super::values::value_byte(c))
        .count()
}

/// Where a value that [`after_blank`] reads by its place starts, if `cut`
/// may cut it: it waits for its end.
pub(crate) fn open_value_at(b: &[u8], cut: usize) -> Option<usize> {
    let floor = cut.saturating_sub(super::MAX_VALUE);
    let start = b[floor..cut]
        .iter()
        .rposition(|&c| !super::values::value_byte(c))
        .map_or(floor, |p| floor + p + 1);
    let before = start.checked_sub(1)?;
    let blank = if matches!(b[before], b'"' | b'\'') {
        before.checked_sub(1)?
    } else {
        before
    };
    // (`word_before` asks for the blank after the word.)
    let one = word_before(b, blank)?;
    blank_place(b, one).map(|_| start)
}

/// Whether `v`, after the blank at `blank`, is the value of a setting of
/// [`blank_place`]'s. A key's shape is tested before the words before it
/// are read: most long words are no key.
fn blank_setting(b: &[u8], blank: usize, v: &[u8]) -> bool {
    let Some(one) = word_before(b, blank) else {
        return false;
    };
    let trigger = matches!(
        &b[one.0..one.1],
        b"--body"
            | b"login"
            | b"authtoken"
            | b"add-authtoken"
            | b"install"
            | b"setapikey"
            | b"--relogin"
    );
    // (An S3 secret key after `mc alias set … URL ACCESS_KEY` is random too.)
    if !trigger && !keylike(v) {
        return false;
    }
    match blank_place(b, one) {
        Some(Place::Key) => keylike(v),
        Some(Place::LoginKey) => keylike(v) || super::values::hex_key(v),
        Some(Place::Secret) => secret_like(v),
        None => false,
    }
}

/// What a value by its place must look like.
enum Place {
    /// Random as a key's (`keylike`).
    Key,
    /// A key's, or a key in hex (`wandb login <40 hex>`).
    LoginKey,
    /// Not plainly something else (`secret_like`).
    Secret,
}

/// The setting whose value follows the word `one` and a blank (`setx NAME
/// ␣` and its kin; `one` is the name or a flag). The words before are read
/// first; the line only for the few that need it.
fn blank_place(b: &[u8], one: (usize, usize)) -> Option<Place> {
    // A long line's last part (a line is never read whole: one endless
    // line must cost what short ones do).
    let on_line = |command: &[u8]| {
        let line = crate::line_start_within(b, one.0, 4 * crate::MAX_LINE_PREFIX)
            .unwrap_or(one.0.saturating_sub(4 * crate::MAX_LINE_PREFIX));
        crate::find(&b[line..one.0], command).is_some()
    };
    let secret = |yes: bool| yes.then_some(Place::Secret);
    match &b[one.0..one.1] {
        b"--body" => return secret(on_line(b"gh secret set ")),
        // `cargo login <token>`, `wandb login <hex>`: a random argument.
        b"login" => return Some(Place::LoginKey),
        // `nuget setapikey <key>`, `wandb login --relogin <hex>`.
        b"setapikey" => return Some(Place::LoginKey),
        b"--relogin" => return on_line(b" login ").then_some(Place::LoginKey),
        b"authtoken" | b"add-authtoken" => return Some(Place::Secret),
        b"install" => return secret(on_line(b"cloudflared service ")),
        _ => {}
    }
    // `mc alias set NAME URL ACCESS_KEY SECRET_KEY`: the last, after a URL.
    let floor = one.0.saturating_sub(super::MAX_VALUE);
    let arg =
        memchr::memrchr(b' ', &b[floor..one.0.saturating_sub(1)]).map_or(floor, |p| floor + p);
    if crate::find(&b[arg..one.0], b"://").is_some() {
        return secret(on_line(b"mc alias set ") || on_line(b"mc config host add "));
    }
    let mut two = one.0.checked_sub(1).and_then(|at| word_before(b, at))?;
    let word = &b[two.0..two.1];
    if FISH_FLAGS.contains(&word) {
        match two.0.checked_sub(1).and_then(|at| word_before(b, at)) {
            Some(set) if &b[set.0..set.1] == b"set" => two = set,
            _ => return None,
        }
    }
    (BLANK_COMMANDS.contains(&&b[two.0..two.1]) && says_nothing(&b[one.0..one.1]))
        .then_some(Place::Key)
}

/// The name in quotes of an environment variable set by a call, where its
/// value opens at `at`: `("NAME", ` or `["NAME"] = ` before it.
fn env_call(b: &[u8], at: usize) -> Option<(usize, usize)> {
    let start = at.saturating_sub(super::MAX_KEY + 32);
    let head = &b[start..at];
    let head = head
        .strip_suffix(b", ")
        .or_else(|| head.strip_suffix(b","))
        .or_else(|| head.strip_suffix(b"] = "))
        .or_else(|| head.strip_suffix(b"]="))?;
    let q = *head.last()?;
    if !matches!(q, b'"' | b'\'') {
        return None;
    }
    let open = head[..head.len() - 1].iter().rposition(|&c| c == q)?;
    let opener = &head[..open];
    if !ENV_CALLS.iter().any(|c| opener.ends_with(c)) {
        return None;
    }
    Some((start + open + 1, start + head.len() - 1))
}

/// What reads a secret on its input, after the `|`: a word of its own.
const STDIN_READERS: &[&[u8]] = &[
    b"--password-stdin",
    // openconnect's.
    b"--passwd-on-stdin",
    b"--with-token",
    b"chpasswd",
];

/// How an echo of a value starts, up to the value (and its quote).
const ECHOES: &[&[u8]] = &[
    b"echo ",
    b"echo -n ",
    b"echo -e ",
    b"printf '%s' ",
    b"printf \"%s\" ",
    b"printf '%s\\n' ",
];

/// Whether the word `[s, e)` may be one of [`STDIN_READERS`]: its first
/// byte and length.
#[inline(always)]
pub(crate) fn may_read_stdin(b: &[u8], s: usize, e: usize) -> bool {
    matches!((b[s], e - s), (b'-', 16 | 17 | 12) | (b'c', 8))
}

/// The word `[s, e)` as a command that reads a secret on its input: the
/// value echoed into it on its line (`echo "…" | docker login
/// --password-stdin`), masked where it is not plainly something else
/// (`chpasswd`'s `user:` stays).
#[inline(never)]
pub(crate) fn at_reader(b: &[u8], s: usize, e: usize, found: &mut Vec<Found>) {
    let word = &b[s..e];
    if !STDIN_READERS.contains(&word) {
        return;
    }
    let line = crate::line_start_within(b, s, 2 * crate::MAX_LINE_PREFIX)
        .unwrap_or(s.saturating_sub(2 * crate::MAX_LINE_PREFIX));
    let Some(pipe) = memchr::memrchr(b'|', &b[line..s]).map(|p| line + p) else {
        traced_echo(b, line, s, word, found);
        return;
    };
    // The echo's last argument, quoted or a word.
    let mut end = pipe;
    while end > line && b[end - 1] == b' ' {
        end -= 1;
    }
    let (start, value_end) = match b[..end].last() {
        Some(&q @ (b'"' | b'\'')) => {
            let Some(open) = memchr::memrchr(q, &b[line..end - 1]).map(|p| line + p) else {
                return;
            };
            (open, end - 1)
        }
        _ => {
            let open = memchr::memrchr(b' ', &b[line..end]).map_or(line, |p| line + p + 1);
            (open, end)
        }
    };
    let value_start = start + usize::from(matches!(b[start], b'"' | b'\''));
    if !ECHOES.iter().any(|echo| b[line..start].ends_with(echo)) {
        return;
    }
    let value = &b[value_start..value_end];
    let from = if word == b"chpasswd" {
        memchr::memchr(b':', value).map_or(0, |p| p + 1)
    } else {
        0
    };
    if secret_like(&value[from..]) {
        found.push(Found {
            start: value_start + from,
            end: value_end,
            kind: "secret-assignment",
        });
    }
}

/// `set -x` traces each command of a pipeline on a line of its own: `+ echo
/// VALUE` on the line before the reader's `+ docker login …
/// --password-stdin` (the reader `[s, e)`, its line from `line`). Each
/// line may carry a CI log's timestamp.
fn traced_echo(b: &[u8], line: usize, s: usize, word: &[u8], found: &mut Vec<Found>) {
    if word == b"chpasswd" || !traced(b, line, s) {
        return;
    }
    let Some((start, end)) = traced_echo_value(b, line) else {
        return;
    };
    if secret_like(&b[start..end]) {
        found.push(Found {
            start,
            end,
            kind: "secret-assignment",
        });
    }
}

/// Whether the line from `line` (up to `to`) is a trace's: `+ ` (or `++ `)
/// after any viewer's decoration.
fn traced(b: &[u8], line: usize, to: usize) -> bool {
    let end = memchr::memchr(b'\n', &b[line..to]).map_or(to, |p| line + p);
    let at = trace_start(b, line, end);
    let plus = b[at..end].iter().take_while(|&&c| c == b'+').count();
    plus > 0 && b.get(at + plus) == Some(&b' ')
}

/// Where a trace's `+` may start on the line `[line, end)`: after a
/// viewer's decoration (a timestamp), unless the line starts with it (a
/// viewer would read that `+` as a diff's).
fn trace_start(b: &[u8], line: usize, end: usize) -> usize {
    if b.get(line) == Some(&b'+') {
        line
    } else {
        line + crate::viewers::viewer_prefix(b, line, end)
    }
}

/// The value a trace's `+ echo VALUE` prints on the line before `line`:
/// where it starts and ends.
fn traced_echo_value(b: &[u8], line: usize) -> Option<(usize, usize)> {
    let end = line.checked_sub(1)?;
    let start = crate::line_start_within(b, end, 2 * crate::MAX_LINE_PREFIX)?;
    if !traced(b, start, end) {
        return None;
    }
    let at = trace_start(b, start, end);
    let at = at + b[at..end].iter().take_while(|&&c| c == b'+').count() + 1;
    let echo = ECHOES.iter().find(|e| b[at..end].starts_with(e))?;
    let mut v = (at + echo.len(), b[..end].trim_ascii_end().len());
    if v.1 > v.0 + 1 && matches!(b[v.0], b'"' | b'\'') && b[v.1 - 1] == b[v.0] {
        v = (v.0 + 1, v.1 - 1);
    }
    (v.1 > v.0 && !b[v.0..v.1].contains(&b' ')).then_some(v)
}

/// Where a command that echoes a value starts on the line of `cut`: what
/// it pipes into, later on the line, decides whether the value is a secret
/// ([`at_reader`]), so the stream holds the line back from there. A
/// trace's `+ echo VALUE` is held with the line after it, which may be the
/// reader's.
pub(crate) fn open_at(b: &[u8], cut: usize) -> Option<usize> {
    let line = crate::line_start_within(b, cut, 4 * crate::MAX_LINE_PREFIX)?;
    // PowerShell's `ConvertTo-SecureString '…'`: `-AsPlainText` may follow.
    let secure = crate::find(&b[line..cut], SECURE_STRING).map(|at| line + at);
    let echo = if let Some((value, _)) = traced_echo_value(b, line) {
        Some(crate::line_start(b, value))
    } else {
        let head = &b[line..cut];
        crate::find(head, b"echo ")
            .or_else(|| crate::find(head, b"printf "))
            .map(|at| line + at)
    };
    match (secure, echo) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

/// PowerShell's cmdlet that makes a secure string of its argument.
const SECURE_STRING: &[u8] = b"ConvertTo-SecureString ";

/// The quoted value at `v` given to `ConvertTo-SecureString` (after it, or
/// after its `-String`) with `-AsPlainText` on the line: a password in
/// clear in a script or a console's history.
#[inline(never)]
pub(crate) fn secure_string_at(b: &[u8], v: usize, found: &mut Vec<Found>) {
    let q = b[v - 1];
    if !matches!(q, b'\'' | b'"') || v < 2 || b[v - 2] != b' ' {
        return;
    }
    let head = &b[..v - 1];
    if !(head.ends_with(SECURE_STRING) || head.ends_with(b"ConvertTo-SecureString -String ")) {
        return;
    }
    let limit = (v + super::MAX_VALUE).min(b.len());
    let Some(end) = b[v..limit]
        .iter()
        .position(|&c| c == q || c == b'\n')
        .map(|p| v + p)
    else {
        return;
    };
    if b[end] != q {
        return;
    }
    let line_end = memchr::memchr(b'\n', &b[end..]).map_or(b.len(), |p| end + p);
    let value = &b[v..end];
    if crate::find(&b[end..line_end], b"-AsPlainText").is_some() && plain(value) {
        found.push(Found {
            start: v,
            end,
            kind: "secret-assignment",
        });
    }
}

/// The word that ends at `end` (a blank after it), of bytes a name or a
/// command has.
fn word_before(b: &[u8], end: usize) -> Option<(usize, usize)> {
    if b.get(end) != Some(&b' ') {
        return None;
    }
    let floor = end.saturating_sub(super::MAX_KEY);
    let start = b[floor..end]
        .iter()
        .rposition(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b':')))
        .map_or(floor, |p| floor + p + 1);
    (start < end && (start == 0 || matches!(b[start - 1], b' ' | b'\n' | b'>')))
        .then_some((start, end))
}
