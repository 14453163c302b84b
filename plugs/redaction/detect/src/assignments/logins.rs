//! Logins in a protocol's own words, as a session, a capture or a tracer
//! shows them, where no name says "password":
//!
//! - Redis's `AUTH [user] password`: at `redis-cli`'s prompt
//!   (`127.0.0.1:6379> AUTH …`), after `HELLO 3`, in `MONITOR`'s quoted
//!   words (`"AUTH" "app" "…"`), and in RESP's bulk strings (`*2\r\n$4\r\n
//!   AUTH\r\n$24\r\n…`), escaped as `strace` prints them, or on lines of
//!   their own as `ngrep -W byline` does;
//! - IMAP's `<tag> LOGIN user password`, POP3's and FTP's `PASS password`,
//!   on a client's line (a transcript's `C: `, `swaks`' `~> `, curl's `> `);
//! - SMTP's `AUTH LOGIN`: the line answering the `Password:` challenge
//!   (`334 UGFzc3dvcmQ6`);
//! - SASL PLAIN after `AUTH PLAIN` or `AUTHENTICATE PLAIN`: base64 of
//!   `authzid\0user\0password`, on the line or a line after the server's
//!   go-ahead, masked as it stands.
//!
//! A user's name is no secret: only the password is masked.

use std::sync::LazyLock;

use memchr::memmem::Finder;

use super::values::{quote_at, quoted};
use crate::Found;

const KIND: &str = "secret-assignment";

/// Longest value read (a password, a bulk string, a SASL answer).
const MAX_VALUE: usize = 1024;

/// How far a client's line may run before its command (a prompt, a
/// timestamp, an agent's frame).
const MAX_PREFIX: usize = 64;

/// What a login's reading gives: the password's span and whether the text
/// ended before the login did (read as ended there; a stream waits); that
/// the text ends before any password; or nothing.
#[derive(Debug, PartialEq, Eq)]
enum Read {
    Value(usize, usize, bool),
    Open,
    No,
}

/// How a login is read from its keyword's place.
type Reader = fn(&[u8], usize) -> Read;

/// The keywords a login starts at, how far into the needle the keyword
/// starts, and the reading of each: in capitals, as clients send them and
/// documentation writes them; in lower case only Redis's after a prompt
/// (`> auth `, `> acl setuser `). (One pass per needle, each skipping on its rarest
/// bytes: together 3 % of the scan's time. One pass for all of them, or
/// lower-case needles, which common words match, cost more.)
const KEYWORDS: [(&[u8], usize, Reader); 7] = [
    (b"AUTH", 0, auth),
    (b"> auth ", 2, auth),
    (b"SETUSER", 0, acl_setuser),
    (b"> acl setuser ", 6, acl_setuser),
    (b"LOGIN", 0, login),
    (b"PASS", 0, pass),
    (b"334 ", 0, challenge),
];

/// A searcher for each keyword's needle, built once.
static FINDERS: LazyLock<Vec<Finder<'static>>> = LazyLock::new(|| {
    KEYWORDS
        .iter()
        .map(|(needle, ..)| Finder::new(needle))
        .collect()
});

/// Each keyword in `b`: where, and its reading.
fn keywords(b: &[u8]) -> impl Iterator<Item = (usize, Reader)> + '_ {
    FINDERS
        .iter()
        .zip(KEYWORDS)
        .flat_map(move |(finder, (_, offset, read))| {
            finder.find_iter(b).map(move |p| (p + offset, read))
        })
}

/// Every login's password in `b`.
pub(crate) fn find(b: &[u8], found: &mut Vec<Found>) {
    for (p, read) in keywords(b) {
        if let Read::Value(start, end, _) = read(b, p) {
            found.push(Found {
                start,
                end,
                kind: KIND,
            });
        }
    }
}

/// Where a login that the text ends inside starts, if one reaches `cut`
/// (its keyword's line): read to the text's end, its password may still
/// change (a second argument, a second bulk string, the answer's line).
pub(crate) fn open_at(b: &[u8], cut: usize) -> Option<usize> {
    // A login is read over a few lines at most (RESP's bulk strings, a
    // challenge and its answer), each value up to [`MAX_VALUE`] bytes: from
    // the line eight lines up, within twice that.
    let floor = cut.saturating_sub(2 * MAX_VALUE);
    let from = memchr::memrchr_iter(b'\n', &b[floor..cut])
        .nth(8)
        .map_or(floor, |p| floor + p + 1);
    keywords(&b[from..cut])
        .filter_map(|(p, read)| {
            let p = from + p;
            matches!(read(b, p), Read::Open | Read::Value(_, _, true))
                .then(|| crate::line_start(b, p))
        })
        .min()
}

/// Whether `[p, p + n)` is a word of its own: no letter, digit or `_`
/// glued before (an escape's `\n` aside: `\r\nAUTH`) or after it.
fn whole_word(b: &[u8], p: usize, n: usize) -> bool {
    let before = p == 0 || !is_word(b[p - 1]) || (b[p - 1] == b'n' && p >= 2 && b[p - 2] == b'\\');
    before && b.get(p + n).is_none_or(|&c| !is_word(c))
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The client's part of the line before `p` (trimmed), if `p` is where a
/// client's command starts: first on its line, or after a prompt or a
/// transcript's mark (`127.0.0.1:6379>`, `C:`, `~>`, `->`, `>`, an agent's
/// frame `⎿`).
fn client_prefix(b: &[u8], p: usize) -> Option<&[u8]> {
    let Some(line) = crate::line_start_within(b, p, MAX_PREFIX) else {
        // tcpdump's header before its decoded payload is long.
        let line = crate::line_start_within(b, p, 4 * MAX_PREFIX)?;
        let prefix = b[line..p].trim_ascii();
        return PROTOCOLS
            .iter()
            .any(|m| prefix.ends_with(m))
            .then_some(prefix);
    };
    let prefix = b[line..p].trim_ascii();
    // A debug log's quoted bytes (`smtplib`'s `send: '…'`, `imaplib`'s
    // `> b'…'`), a capture's decoded payload (tcpdump's `IMAP: …`).
    let unquoted = prefix
        .strip_suffix(b"b'")
        .or_else(|| prefix.strip_suffix(b"'"))
        .or_else(|| prefix.strip_suffix(b"\""))
        .map(|p| p.trim_ascii_end());
    if let Some(q) = unquoted
        && (q.ends_with(b"send:") || q.ends_with(b">"))
    {
        return Some(prefix);
    }
    if PROTOCOLS.iter().any(|m| prefix.ends_with(m)) {
        return Some(prefix);
    }
    let client = prefix.is_empty()
        || prefix.ends_with(b">")
        || prefix == b"C:"
        || prefix.ends_with(b" C:")
        || prefix.ends_with("⎿".as_bytes())
        || prefix.ends_with("└".as_bytes())
        || prefix.ends_with("│".as_bytes());
    client.then_some(prefix)
}

/// How tcpdump names the protocol whose payload it decodes after a
/// packet's header.
const PROTOCOLS: [&[u8]; 4] = [b"IMAP:", b"POP3:", b"FTP:", b"SMTP:"];

/// What a keyword's reading gives where no blank follows it at `i`: open at
/// the text's end, nothing before another byte; `None` where a blank is
/// there (its arguments follow).
fn no_blank_at(b: &[u8], i: usize) -> Option<Read> {
    match b.get(i) {
        None => Some(Read::Open),
        Some(b' ') => None,
        _ => Some(Read::No),
    }
}

/// Whether a client's prefix marks the line as sent (a prompt, `C:`), not
/// only first on its line: `AUTH failed` and `PASS src/app.test.js` are a
/// log's and a test runner's.
fn marked(prefix: &[u8]) -> bool {
    // Redis's prompt (`127.0.0.1:6379>`, `redis>`), a transcript's client
    // marks (`C:`, `swaks`' `~>` and `->`); not Python's `>>>` nor a
    // quote's `>`.
    let redis = prefix.strip_suffix(b">").is_some_and(|p| {
        let port = p.iter().rev().take_while(|c| c.is_ascii_digit()).count();
        (port > 0 && p[..p.len() - port].ends_with(b":"))
            || p.ends_with(b"redis")
            || p.ends_with(b"valkey")
            || p.ends_with(b"keydb")
    });
    redis || prefix.ends_with(b"C:") || prefix.ends_with(b"~>") || prefix.ends_with(b"->")
}

/// The words from `i` to the line's end (at most `max + 1`, bare or
/// quoted), and whether the text ended before the line did.
fn arguments(b: &[u8], mut i: usize, max: usize) -> (Vec<(usize, usize)>, bool) {
    let mut words = Vec::new();
    loop {
        while b.get(i) == Some(&b' ') {
            i += 1;
        }
        match b.get(i) {
            None => return (words, true),
            Some(b'\n') => return (words, false),
            Some(b'\r') if b.get(i + 1) == Some(&b'\n') => return (words, false),
            Some(b'\r') if i + 1 == b.len() => return (words, true),
            _ => {}
        }
        let (s, e) = match quote_at(b, i) {
            Some(q) => {
                let (s, e, open) = quoted(b, i, q);
                if open {
                    words.push((s, e));
                    return (words, true);
                }
                i = (e + q.len()).min(b.len());
                (s, e)
            }
            None => {
                let e = i + b[i..]
                    .iter()
                    .take(MAX_VALUE)
                    .take_while(|c| !c.is_ascii_whitespace())
                    .count();
                let s = i;
                i = e;
                (s, e)
            }
        };
        words.push((s, e));
        if words.len() > max {
            return (words, false);
        }
    }
}

/// `[s, e)` as a login's password (`open`: the text ended before the
/// login did): masked if it is one; else open while the text may still
/// change it.
fn password_read(b: &[u8], s: usize, e: usize, open: bool) -> Read {
    if password(&b[s..e]) {
        Read::Value(s, e, open)
    } else if open {
        Read::Open
    } else {
        Read::No
    }
}

/// A password as a login gives it, not a stand-in or a mask (`XXXX`,
/// `****`, `<password>`, `$REDIS_PASSWORD`).
fn password(v: &[u8]) -> bool {
    !v.is_empty()
        && !v.iter().all(|&c| matches!(c, b'*' | b'x' | b'X' | b'.'))
        && !crate::placeholders::stand_in(v)
        && !v.starts_with(b"<")
}

/// `AUTH` (or `auth`) at `p`.
fn auth(b: &[u8], p: usize) -> Read {
    // IMAP's `AUTHENTICATE PLAIN`.
    if b[p..].starts_with(b"AUTHENTICATE PLAIN") {
        return plain_mechanism(b, p + 13);
    }
    if !whole_word(b, p, 4) {
        return Read::No;
    }
    let e = p + 4;
    // MONITOR's quoted words: `"AUTH" "app" "…"`.
    if p > 0 && b[p - 1] == b'"' && b.get(e) == Some(&b'"') {
        return match b.get(e + 1) {
            None => Read::Open,
            Some(b' ') => last_of(b, e + 1, true),
            _ => Read::No,
        };
    }
    if let Some(breaks) = resp_breaks_before(b, p) {
        return resp(b, e, breaks);
    }
    if let Some(read) = no_blank_at(b, e) {
        return read;
    }
    // A mechanism (`AUTH PLAIN`, `AUTH LOGIN`, `AUTH CRAM-MD5`) is SMTP's:
    // PLAIN's answer is told by its encoding, LOGIN's by its challenge.
    let word = e + 1 + crate::run(b, e + 1, |c| c == b' ');
    let name_len = crate::run(b, word, |c| {
        c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'-'
    });
    if b.get(word + name_len)
        .is_none_or(|c| c.is_ascii_whitespace())
        && MECHANISMS.contains(&&b[word..word + name_len])
    {
        return if &b[word..word + name_len] == b"PLAIN" {
            plain_mechanism(b, word)
        } else {
            Read::No
        };
    }
    let line = crate::line_start_within(b, p, 4 * MAX_PREFIX);
    let hello = line.is_some_and(|line| {
        let t = b[line..p].trim_ascii_end();
        t.len() >= 7 && t[..t.len() - 1].ends_with(b"HELLO ") && t[t.len() - 1].is_ascii_digit()
    });
    if hello {
        // `HELLO 3 AUTH user password [SETNAME name]`.
        let (words, open) = arguments(b, e, 4);
        return match words.get(1) {
            Some(&(s, e)) if password(&b[s..e]) => Read::Value(s, e, open && words.len() == 2),
            None if open => Read::Open,
            _ => Read::No,
        };
    }
    // At a prompt (lower case only there: `redis> auth …`), a client's
    // mark, or on `redis-cli`'s command line.
    let cli = || {
        line.is_some_and(|line| {
            let before = &b[line..p];
            [&b"redis-cli "[..], b"valkey-cli ", b"keydb-cli "]
                .iter()
                .any(|c| crate::find(before, c).is_some())
        })
    };
    let at_prompt = match client_prefix(b, p) {
        // (Lower case at a prompt that is Redis's, not a quote's `>`.)
        Some(prefix) if b[p] == b'a' => marked(prefix),
        Some(prefix) => marked(prefix) || cli(),
        None => b[p] == b'A' && cli(),
    };
    if !at_prompt {
        return Read::No;
    }
    last_of(b, e, false)
}

/// SASL's mechanisms, as `AUTH` names them (`AUTH ADMIN …` is Redis's,
/// with a user's name).
const MECHANISMS: [&[u8]; 13] = [
    b"PLAIN",
    b"LOGIN",
    b"CRAM-MD5",
    b"DIGEST-MD5",
    b"XOAUTH2",
    b"OAUTHBEARER",
    b"GSSAPI",
    b"NTLM",
    b"EXTERNAL",
    b"ANONYMOUS",
    b"SCRAM-SHA-1",
    b"SCRAM-SHA-256",
    b"SCRAM-SHA-512",
];

/// The last of one or two arguments from `i` to the line's end, the
/// password (`AUTH password`, `AUTH user password`); quoted ones only
/// where `quoted_only`.
fn last_of(b: &[u8], i: usize, quoted_only: bool) -> Read {
    let (words, open) = arguments(b, i, 2);
    if words.is_empty() && open {
        return Read::Open;
    }
    if !(1..=2).contains(&words.len()) {
        return Read::No;
    }
    if quoted_only && words.iter().any(|&(s, _)| s == 0 || b[s - 1] != b'"') {
        return Read::No;
    }
    let (s, e) = words[words.len() - 1];
    password_read(b, s, e, open)
}

/// How RESP's line breaks are shown.
#[derive(Clone, Copy)]
enum Breaks {
    /// Escaped, on one line (`strace`'s `\r\n`).
    Escaped(&'static [u8]),
    /// Lines of their own, the CR as it is, escaped (`socat -v`'s `\r`),
    /// as `.` (`ngrep -W byline`) or not shown; in an agent's frame or a
    /// box (blanks, `│`).
    Lines,
}

/// What a line break's reading at a place gives.
enum Step {
    /// It is there; what follows starts here.
    To(usize),
    /// The text ends inside it.
    Open,
    No,
}

const BAR: &[u8] = "│".as_bytes();

/// The line break at `i`, shown as `breaks` says.
fn break_at(b: &[u8], i: usize, breaks: Breaks) -> Step {
    let Some(rest) = b.get(i..) else {
        return Step::Open;
    };
    match breaks {
        Breaks::Escaped(sep) if crate::starts(rest, sep) => Step::To(i + sep.len()),
        Breaks::Escaped(sep) if sep.starts_with(rest) => Step::Open,
        Breaks::Escaped(_) => Step::No,
        // (A CR escaped, cut after its `\\`.)
        Breaks::Lines if rest == b"\\" => Step::Open,
        Breaks::Lines => {
            let mut j = i + cr_len(rest);
            j += frame_len(&b[j..]);
            match b.get(j) {
                None => return Step::Open,
                Some(b'\n') => j += 1,
                _ => return Step::No,
            }
            j += frame_len(&b[j..]);
            if j >= b.len() {
                return Step::Open;
            }
            Step::To(j)
        }
    }
}

/// How a CR is shown at the start of `t`: as it is, escaped or as `.`.
fn cr_len(t: &[u8]) -> usize {
    if t.starts_with(b"\\r") {
        2
    } else if matches!(t.first(), Some(b'\r' | b'.')) {
        1
    } else {
        0
    }
}

/// Blanks and a box's `│` among them, at the start of `t`.
fn frame_len(t: &[u8]) -> usize {
    let mut j = crate::run(t, 0, |c| c == b' ');
    if t[j..].starts_with(BAR) {
        j += BAR.len();
        j += crate::run(t, j, |c| c == b' ');
    }
    j
}

/// The line breaks between `$4` and `AUTH` at `p`: this `AUTH` is a bulk
/// string of RESP.
fn resp_breaks_before(b: &[u8], p: usize) -> Option<Breaks> {
    for sep in [&b"\\r\\n"[..], b"\\n"] {
        if p >= sep.len() + 2
            && &b[p - sep.len()..p] == sep
            && &b[p - sep.len() - 2..p - sep.len()] == b"$4"
        {
            return Some(Breaks::Escaped(sep));
        }
    }
    // Back over the next line's frame, the line break, this line's frame
    // and its CR.
    let mut j = p - b[..p].iter().rev().take_while(|&&c| c == b' ').count();
    if b[..j].ends_with(BAR) {
        j -= BAR.len();
        j -= b[..j].iter().rev().take_while(|&&c| c == b' ').count();
    }
    j = j.checked_sub(1).filter(|&nl| b[nl] == b'\n')?;
    j -= b[..j].iter().rev().take_while(|&&c| c == b' ').count();
    if b[..j].ends_with(BAR) {
        j -= BAR.len();
        j -= b[..j].iter().rev().take_while(|&&c| c == b' ').count();
    }
    if b[..j].ends_with(b"\\r") {
        j -= 2;
    } else if j > 0 && matches!(b[j - 1], b'\r' | b'.') {
        j -= 1;
    }
    (j >= 2 && &b[j - 2..j] == b"$4").then_some(Breaks::Lines)
}

/// After RESP's `AUTH` (ending at `i`): one bulk string, the password, or
/// two, a user's name and the password.
fn resp(b: &[u8], i: usize, breaks: Breaks) -> Read {
    let first = match bulk(b, i, breaks) {
        Read::Value(s, e, false) => (s, e),
        other => return other,
    };
    let (s, e, open) = match bulk(b, first.1, breaks) {
        Read::Value(s, e, open) => (s, e, open),
        // The first is the password until a second comes.
        Read::Open => (first.0, first.1, true),
        Read::No => (first.0, first.1, false),
    };
    password_read(b, s, e, open)
}

/// The bulk string `<break>$<n><break><value>` at `i`: its value, open
/// while the text ends before the break after it.
fn bulk(b: &[u8], i: usize, breaks: Breaks) -> Read {
    let mut j = match break_at(b, i, breaks) {
        Step::To(j) => j,
        Step::Open => return Read::Open,
        Step::No => return Read::No,
    };
    match b.get(j) {
        None => return Read::Open,
        Some(b'$') => j += 1,
        _ => return Read::No,
    }
    let digits = crate::run(&b[..b.len().min(j + 5)], j, |c| c.is_ascii_digit());
    if j + digits >= b.len() {
        return Read::Open;
    }
    if digits == 0 {
        return Read::No;
    }
    let n: usize = std::str::from_utf8(&b[j..j + digits])
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(0);
    let start = match break_at(b, j + digits, breaks) {
        Step::To(start) => start,
        Step::Open => return Read::Open,
        Step::No => return Read::No,
    };
    // Its length as declared, where the break follows; escapes (`\"`,
    // `\x00`) make the shown value longer: then to the next break.
    let (end, open) = if matches!(break_at(b, start + n, breaks), Step::To(_)) {
        (start + n, false)
    } else {
        let limit = b.len().min(start + MAX_VALUE);
        let next = match breaks {
            Breaks::Escaped(sep) => crate::find(&b[start..limit], sep).map(|p| start + p),
            Breaks::Lines => memchr::memchr(b'\n', &b[start..limit]).map(|p| {
                // Back over the frame and the CR before the line's end.
                let line = &b[start..start + p];
                let mut t = line.trim_ascii_end();
                t = t.strip_suffix(BAR).map_or(t, <[u8]>::trim_ascii_end);
                t = t
                    .strip_suffix(b"\\r")
                    .or_else(|| t.strip_suffix(b"\r"))
                    .or_else(|| t.strip_suffix(b"."))
                    .unwrap_or(t);
                start + t.len()
            }),
        };
        match next {
            Some(end) => (end, false),
            None if limit == b.len() => (b.len(), true),
            None => return Read::No,
        }
    };
    if end <= start || b[start..end].contains(&b'\n') {
        return Read::No;
    }
    Read::Value(start, end, open)
}

/// Redis's `ACL SETUSER name on >password ~keys +@read …` at `p`: each rule
/// that adds or removes a password (`>…`, `<…`) holds one; `#…` is its
/// hash.
fn acl_setuser(b: &[u8], p: usize) -> Read {
    if !whole_word(b, p, 7) {
        return Read::No;
    }
    // The rules to the line's end, however many, within what `open_at`
    // looks back over (a rule past it is not read, whole or streamed).
    let from = p + 7;
    let limit = b.len().min(from + 2 * MAX_VALUE);
    let line = &b[from..limit];
    let (line, open) = match memchr::memchr(b'\n', line) {
        Some(nl) => (&line[..nl], false),
        None => (line, limit == b.len()),
    };
    let end = from + line.len();
    // The first rule after the user's name that adds or removes a password.
    let (mut i, mut first, mut rule) = (from, true, None);
    while i < end {
        i += crate::run(&b[..end], i, |c| c.is_ascii_whitespace());
        let e = i + crate::run(&b[..end], i, |c| !c.is_ascii_whitespace());
        if e == i {
            break;
        }
        // (Quoted for the shell: `'>p@ss'`.)
        let (ws, we) = match b[i] {
            q @ (b'\'' | b'"') if e > i + 2 && b[e - 1] == q => (i + 1, e - 1),
            _ => (i, e),
        };
        if !first && we > ws + 1 && matches!(b[ws], b'>' | b'<') {
            rule = Some((ws + 1, we));
            break;
        }
        (first, i) = (false, e);
    }
    match rule {
        // (More rules may follow on the line: one password is read, the
        // first, and the line held until it ends.)
        Some((s, e)) => password_read(b, s, e, open),
        None if open => Read::Open,
        None => Read::No,
    }
}

/// IMAP's `<tag> LOGIN user password` at `p` (`LOGIN` or `login`).
fn login(b: &[u8], p: usize) -> Read {
    if !whole_word(b, p, 5) || p < 2 || b[p - 1] != b' ' {
        return Read::No;
    }
    // The tag: a short word of letters, digits and dots, first on a
    // client's line.
    let tag_len = b[..p - 1]
        .iter()
        .rev()
        .take(11)
        .take_while(|&&c| c.is_ascii_alphanumeric() || c == b'.')
        .count();
    let tag = &b[p - 1 - tag_len..p - 1];
    // `a1`, `A001`, `.`; a word alone is a sentence's (`I login as …`).
    // (`2.` opens a list's item: `2. LOGIN with SSO`.)
    let tag_like = (tag.iter().any(u8::is_ascii_digit) && tag.last() != Some(&b'.'))
        || tag == b"."
        || tag == b"a";
    if !(1..=10).contains(&tag_len) || !tag_like || client_prefix(b, p - 1 - tag_len).is_none() {
        return Read::No;
    }
    if let Some(read) = no_blank_at(b, p + 5) {
        return read;
    }
    let (words, open) = arguments(b, p + 5, 2);
    if words.len() < 2 && open {
        return Read::Open;
    }
    if words.len() != 2 {
        return Read::No;
    }
    let (s, e) = words[1];
    password_read(b, s, e, open)
}

/// POP3's and FTP's `PASS password` at `p`, on a client's line.
fn pass(b: &[u8], p: usize) -> Read {
    if !whole_word(b, p, 4) {
        return Read::No;
    }
    // On a marked line, or after the user's name (`USER alice`), as POP3
    // and FTP send them.
    // (The server's answer between: `+OK`, `331 Password required`.)
    let after_user = || {
        let mut line = crate::line_start(b, p);
        (0..3).any(|_| {
            if line == 0 {
                return false;
            }
            let above = crate::line_start(b, line - 1);
            let t = &b[above..line - 1];
            line = above;
            crate::find(t, b"USER ").is_some_and(|u| client_prefix(b, above + u).is_some())
        })
    };
    if !client_prefix(b, p).is_some_and(|prefix| {
        // (curl's `> PASS …` too, an FTP session in `-v`.)
        marked(prefix)
            || prefix == b">"
            || (prefix.is_empty() || prefix.ends_with("⎿".as_bytes())) && after_user()
    }) {
        return Read::No;
    }
    if let Some(read) = no_blank_at(b, p + 4) {
        return read;
    }
    let (words, open) = arguments(b, p + 4, 1);
    match words[..] {
        // (Not a path: a test runner's `PASS src/app.test.js`, quoted.)
        [(s, e)] if password(&b[s..e]) && !super::values::path(&b[s..e]) => Read::Value(s, e, open),
        _ if open => Read::Open,
        _ => Read::No,
    }
}

/// SMTP's challenge `334 <base64>` at `p`: where it asks for the password
/// (`UGFzc3dvcmQ6`, `Password:`), the client's next line is its answer, in
/// base64.
fn challenge(b: &[u8], p: usize) -> Read {
    if p > 0 && is_word(b[p - 1]) {
        return Read::No;
    }
    let s = p + 4;
    let e = s + b[s..]
        .iter()
        .take(32)
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='))
        .count();
    let asked = crate::decode::decode(&b[s..e]);
    if !asked.trim_ascii().eq_ignore_ascii_case(b"password:") {
        return Read::No;
    }
    // (`smtplib` logs the reply again before the answer: `reply: retcode
    // (334); Msg: b'UGFzc3dvcmQ6'`.)
    let e = match memchr::memchr(b'\n', &b[e..b.len().min(e + MAX_VALUE)]) {
        Some(nl) if crate::starts(trimmed_from(b, e + nl + 1), b"reply: retcode (334)") => {
            e + nl + 1
        }
        _ => e,
    };
    // (`swaks --protect-prompt` sends its stand-in, `PROTECTED`.)
    answer_line(b, e, |d| {
        !d.eq_ignore_ascii_case(b"protected") && !d.iter().all(|&c| c == b'*')
    })
}

/// The base64 answer on the client's line after the one `i` is in: the
/// word after its prefix, when `ok` holds for its decoding.
fn answer_line(b: &[u8], i: usize, ok: impl Fn(&[u8]) -> bool) -> Read {
    let Some(nl) = memchr::memchr(b'\n', &b[i..b.len().min(i + MAX_VALUE)]) else {
        return if b.len() < i + MAX_VALUE {
            Read::Open
        } else {
            Read::No
        };
    };
    let line = i + nl + 1;
    match memchr::memchr(b'\n', &b[line..b.len().min(line + MAX_VALUE)]) {
        Some(end) => base64_word_on(b, line, line + end, false, ok),
        None if b.len() < line + MAX_VALUE => match base64_word_on(b, line, b.len(), true, ok) {
            Read::No => Read::Open,
            read => read,
        },
        None => Read::No,
    }
}

/// The last word of `b[line..end]` (its client's mark before it), if it is
/// the only one after the mark, base64, and `ok` for its decoding.
fn base64_word_on(
    b: &[u8],
    line: usize,
    end: usize,
    open: bool,
    ok: impl Fn(&[u8]) -> bool,
) -> Read {
    base64_word_after(b, line, end, open, true, ok)
}

/// [`base64_word_on`]; `own_line`: the word must be alone on a client's
/// line (not after `AUTH PLAIN` on it).
fn base64_word_after(
    b: &[u8],
    line: usize,
    end: usize,
    open: bool,
    own_line: bool,
    ok: impl Fn(&[u8]) -> bool,
) -> Read {
    let t = shown_line_end(b[line..end].trim_ascii_end());
    let mut s = line
        + t.iter()
            .rposition(|c| c.is_ascii_whitespace())
            .map_or(0, |p| p + 1);
    let e = line + t.len();
    // A debug log's quoted bytes: `send: 'Vk53…\r\n'`, `b'…'`.
    if b[s..e].starts_with(b"b'") {
        s += 2;
    } else if matches!(b.get(s), Some(b'\'' | b'"')) {
        s += 1;
    }
    let w = &b[s.min(e)..e];
    let base64 = w.len() >= 4
        && w.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='));
    if !base64 || (own_line && client_prefix(b, s).is_none()) || !ok(&crate::decode::decode(w)) {
        return Read::No;
    }
    Read::Value(s, e, open)
}

/// `PLAIN` at `p` after `AUTH` or `AUTHENTICATE`: its base64 answer on the
/// line, or on a line after the server's go-ahead (`334 `, `+ `), if it
/// decodes as SASL PLAIN's does.
fn plain_mechanism(b: &[u8], p: usize) -> Read {
    if !whole_word(b, p, 5) {
        return Read::No;
    }
    let before = b[crate::line_start_within(b, p, MAX_PREFIX).unwrap_or(p)..p].trim_ascii_end();
    if !(before.ends_with(b"AUTH") || before.ends_with(b"AUTHENTICATE")) {
        return Read::No;
    }
    let e = p + 5;
    let Some(nl) = memchr::memchr(b'\n', &b[e..b.len().min(e + MAX_VALUE)]) else {
        if b.len() >= e + MAX_VALUE {
            return Read::No;
        }
        return match base64_word_after(b, e, b.len(), true, false, sasl_plain) {
            Read::No => Read::Open,
            read => read,
        };
    };
    if !b[e..e + nl].trim_ascii().is_empty() {
        return base64_word_after(b, e, e + nl, false, false, sasl_plain);
    }
    // The server's go-ahead, then the answer.
    let go = e + nl + 1;
    let Some(go_end) = memchr::memchr(b'\n', &b[go..b.len().min(go + MAX_VALUE)]) else {
        return if b.len() < go + MAX_VALUE {
            Read::Open
        } else {
            Read::No
        };
    };
    let server = b[go..go + go_end].trim_ascii();
    let server = server
        .iter()
        .position(|&c| c == b'3' || c == b'+')
        .map_or(server, |q| &server[q..]);
    if !(server.starts_with(b"334") || server.starts_with(b"+")) {
        return Read::No;
    }
    answer_line(b, go, sasl_plain)
}

/// `t` without how a tool shows a line's end after it: escaped (`\r\n`),
/// `ngrep`'s `.`, a closing quote.
fn shown_line_end(mut t: &[u8]) -> &[u8] {
    loop {
        let before = t.len();
        for end in [&b"\\r"[..], b"\\n", b"'", b"\"", b"."] {
            t = t.strip_suffix(end).unwrap_or(t);
        }
        if t.len() == before {
            return t;
        }
    }
}

/// The text from the first non-blank byte at or after `i` (a timestamp
/// aside: `11:17:19.903 reply: …`).
fn trimmed_from(b: &[u8], i: usize) -> &[u8] {
    let t = &b[i.min(b.len())..];
    let t = t.trim_ascii_start();
    // A clock's time first, as `smtplib`'s debuglevel 2 writes it.
    if t.first().is_some_and(u8::is_ascii_digit) {
        let time = t
            .iter()
            .take_while(|c| c.is_ascii_digit() || matches!(c, b':' | b'.'))
            .count();
        return t[time..].trim_ascii_start();
    }
    t
}

/// SASL PLAIN's message: `authzid\0user\0password`, two NULs, the rest
/// printable, a password after the second.
pub(crate) fn sasl_plain(d: &[u8]) -> bool {
    let mut nuls = memchr::memchr_iter(0, d);
    let (Some(_), Some(second), None) = (nuls.next(), nuls.next(), nuls.next()) else {
        return false;
    };
    second + 1 < d.len()
        && !d[second + 1..].eq_ignore_ascii_case(b"protected")
        && d.iter()
            .all(|&c| c == 0 || c.is_ascii_graphic() || c == b' ' || c >= 0x80)
}
