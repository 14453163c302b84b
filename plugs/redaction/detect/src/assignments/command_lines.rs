//! Secrets on command lines that no `name=value` gives away: `curl -u
//! user:password` (also `--user`, `--proxy-user`, and skopeo's, podman's
//! `--creds`, `--src-creds`, `--dest-creds`), MySQL's glued
//! `-pPASSWORD`, and the short password flags of the clients that have one
//! (`sshpass -p`, `ldapsearch -w`, `redis-cli -a`, `sqlcmd -P`, `mongosh
//! -p`, `docker login -p`, net-snmp's `-A`/`-X` passphrases and `-c`
//! community), read only after that program on the same line;
//! curl's cookies (`-b 'sid=…; …'`, `--cookie`, as a browser's "Copy as
//! cURL" writes them), read as a `Cookie:` header's.
//! (`--password value` is a name with its value after a blank: see
//! [`super::long_flag`].)

use super::values::{MIN_VALUE, plain, quote_at, quoted, value_byte};
use super::{Parsed, Value};
use crate::{Found, find};

/// Whether the word `[s, e)` (starting with `-`) may be one of these flags:
/// called for every such word.
pub(super) fn may_be(b: &[u8], s: usize, e: usize) -> bool {
    match b.get(s + 1) {
        Some(b'u' | b'w' | b'a' | b'P' | b'b' | b'A' | b'X' | b'c' | b's') => e - s == 2,
        Some(b'p') => true,
        Some(b'-') => matches!(
            &b[s..e],
            b"--user"
                | b"--proxy-user"
                | b"--cookie"
                | b"--creds"
                | b"--src-creds"
                | b"--dest-creds"
        ),
        _ => false,
    }
}

/// The flag whose word is `[s, e)`, and its password.
pub(super) fn flag(b: &[u8], s: usize, e: usize) -> Parsed {
    match &b[s..e] {
        b"-u" | b"--user" | b"--proxy-user" => user_password(b, e),
        // skopeo's, podman's and buildah's registry credentials.
        b"--creds" | b"--src-creds" | b"--dest-creds" => user_password(b, e),
        b"-b" | b"--cookie" => cookie_argument(b, e),
        // HTTPie's `http -a user:password`.
        b"-a" if after_program(b, s, &[b"http ", b"https ", b"xh "]) => user_password(b, e),
        // `mysql -p'…'`: glued, quoted.
        b"-p" if quote_at(b, e).is_some() => mysql_password(b, s),
        w @ (b"-p" | b"-w" | b"-a" | b"-P" | b"-A" | b"-X" | b"-c" | b"-s") => {
            program_password(b, s, e, w[1])
        }
        w if w.starts_with(b"-p") => mysql_password(b, s),
        _ => Parsed::No,
    }
}

/// The programs whose short flag is followed by a password (each followed
/// by a blank on the line, before the flag).
const PASSWORD_FLAGS: [(u8, &[&[u8]]); 9] = [
    (
        b'p',
        &[
            b"sshpass ",
            b"mongosh ",
            b"mongo ",
            b"mongodump ",
            b"mongorestore ",
            b"mongoexport ",
            b"mongoimport ",
            b" login ",
            b"cypher-shell ",
        ],
    ),
    (
        b'w',
        &[
            b"ldapsearch ",
            b"ldapadd ",
            b"ldapmodify ",
            b"ldapdelete ",
            b"ldapwhoami ",
            b"ldappasswd ",
            b"ldapcompare ",
            b"ldapmodrdn ",
        ],
    ),
    (b'a', &[b"redis-cli ", b"keydb-cli ", b"valkey-cli "]),
    // `ldappasswd -s`: the new password.
    (b's', &[b"ldappasswd "]),
    (b'P', &[b"sqlcmd ", b"bcp ", b"osql "]),
    // net-snmp: SNMPv3's authentication and privacy passphrases, v2c's
    // community (`public` stays: a word, not a value).
    (b'A', SNMP),
    // Mosquitto's clients.
    (
        b'P',
        &[b"mosquitto_pub ", b"mosquitto_sub ", b"mosquitto_rr "],
    ),
    (b'X', SNMP),
    (b'c', SNMP),
];

/// net-snmp's clients.
const SNMP: &[&[u8]] = &[
    b"snmpwalk ",
    b"snmpget ",
    b"snmpgetnext ",
    b"snmpbulkwalk ",
    b"snmpbulkget ",
    b"snmpset ",
    b"snmptable ",
    b"snmptrap ",
    b"snmpstatus ",
];

/// `sshpass -p PASSWORD`, `ldapsearch … -w PASSWORD`: the value after the
/// flag `-<flag>` (the word `[s, e)`) where the line runs such a program.
fn program_password(b: &[u8], s: usize, e: usize, flag: u8) -> Parsed {
    // The program is read from the line's start (a long line: its last part).
    let line = crate::line_start_within(b, s, 4 * crate::MAX_LINE_PREFIX)
        .unwrap_or(s.saturating_sub(4 * crate::MAX_LINE_PREFIX));
    let before = &b[line..s];
    let known = PASSWORD_FLAGS
        .iter()
        .filter(|(f, _)| *f == flag)
        .flat_map(|(_, programs)| programs.iter())
        .any(|p| find(before, p).is_some())
        // `-p` after a user's flag on the same command (`add-user.sh -u
        // jms -p …`, `influx -username x -p …`): a password whatever the
        // program (`docker run -u 1000 -p 8080:80` gives a port: no letters).
        || (flag == b'p'
            && [&b" -u "[..], b" --user ", b" -U ", b" --username ", b" -username "]
                .iter()
                .any(|u| find(before, u).is_some())
            // MySQL's `-p dbname` asks for the password (the word is a
            // database); `sudo -u x mkdir -p dir`: the flag is another
            // program's.
            && ![&b"mysql"[..], b"mariadb", b"mkdir ", b"install "]
                .iter()
                .any(|p| find(before, p).is_some()));
    if !known {
        return Parsed::No;
    }
    let n = b.len();
    if e >= n || (b[e] == b' ' && e + 1 >= n) {
        return Parsed::Open;
    }
    if b[e] != b' ' {
        return Parsed::No;
    }
    let i = e + 1;
    let (start, end, open) = match quote_at(b, i) {
        Some(q) => quoted(b, i, q),
        None => {
            let end = i + b[i..]
                .iter()
                .take_while(|c| !c.is_ascii_whitespace())
                .count();
            (i, end, end == n)
        }
    };
    let v = &b[start..end];
    Parsed::Value(Value {
        start,
        end,
        open,
        seen: end + 1,
        // A flag's value: `*`, `!` or `&` first are a password's, not YAML's.
        // A community is as often the default (`public`, `private`): a
        // random one only.
        secret: v.len() >= MIN_VALUE
            && v[0] != b'-'
            && (flag != b'c' || super::command_output::secret_like(v))
            && (flag != b'p' || v.iter().any(u8::is_ascii_alphabetic))
            && !super::values::path(v)
            && (plain(v)
                || (matches!(v[0], b'*' | b'!' | b'&') && !crate::placeholders::stand_in(v))),
        kind: "secret-assignment",
    })
}

/// `-u user:password`: the password, after the first `:`.
/// curl's `-b '…'`: the quoted cookies after the flag (a bare word is a
/// cookie jar's file, or another program's `-b`).
fn cookie_argument(b: &[u8], e: usize) -> Parsed {
    let n = b.len();
    let i = e + 1;
    if i >= n {
        return if e >= n || b[e] == b' ' {
            Parsed::Open
        } else {
            Parsed::No
        };
    }
    if b[e] != b' ' {
        return Parsed::No;
    }
    match quote_at(b, i) {
        Some(q) => {
            let (start, end, _) = quoted(b, i, q);
            super::http_auth::cookies_within(b, start, end)
        }
        None => Parsed::No,
    }
}

pub(super) fn user_password(b: &[u8], e: usize) -> Parsed {
    let n = b.len();
    if matches!(b.get(e), Some(b'=')) || e >= n {
        return if e >= n { Parsed::Open } else { Parsed::No };
    }
    if b[e] != b' ' {
        return Parsed::No;
    }
    let i = e + 1;
    if i >= n {
        return Parsed::Open;
    }
    let (start, end, open) = match quote_at(b, i) {
        Some(q) => quoted(b, i, q),
        None => {
            let end = i + b[i..].iter().take_while(|&&c| value_byte(c)).count();
            (i, end, end == n)
        }
    };
    let Some(colon) = b[start..end].iter().position(|&c| c == b':') else {
        return if open { Parsed::Open } else { Parsed::No };
    };
    let password = start + colon + 1;
    // `user:'p@ss word'`: the password quoted after the colon.
    if let Some(q) = quote_at(b, password) {
        let (ps, pe, popen) = quoted(b, password, q);
        return Parsed::Value(Value {
            start: ps,
            end: pe,
            open: popen,
            seen: pe + 1,
            secret: plain(&b[ps..pe]),
            kind: "secret-assignment",
        });
    }
    Parsed::Value(Value {
        start: password,
        end,
        open,
        seen: end + 1,
        secret: plain(&b[password..end]),
        kind: "secret-assignment",
    })
}

/// Whether one of `programs` comes before `s` on its line (a long line's
/// last part).
fn after_program(b: &[u8], s: usize, programs: &[&[u8]]) -> bool {
    let line = crate::line_start_within(b, s, 4 * crate::MAX_LINE_PREFIX)
        .unwrap_or(s.saturating_sub(4 * crate::MAX_LINE_PREFIX));
    programs.iter().any(|p| find(&b[line..s], p).is_some())
}

/// `mysql -u root -pS3cret!`: only after `mysql` (or `mariadb`, `mysqldump`,
/// …) on the same line, where `-p` glued to a value is the password.
fn mysql_password(b: &[u8], s: usize) -> Parsed {
    let line = crate::line_start_within(b, s, 4 * crate::MAX_LINE_PREFIX)
        .unwrap_or(s.saturating_sub(4 * crate::MAX_LINE_PREFIX));
    let before = &b[line..s];
    if find(before, b"mysql").is_none() && find(before, b"mariadb").is_none() {
        return Parsed::No;
    }
    let (start, end) = match quote_at(b, s + 2) {
        Some(q) => {
            let (start, end, _) = quoted(b, s + 2, q);
            (start, end)
        }
        None => {
            let start = s + 2;
            let n = b[start..]
                .iter()
                .take_while(|&&c| !c.is_ascii_whitespace())
                .count();
            (start, start + n)
        }
    };
    Parsed::Value(Value {
        start,
        end,
        open: end == b.len(),
        seen: end + 1,
        secret: end - start >= MIN_VALUE && plain(&b[start..end]),
        kind: "secret-assignment",
    })
}

/// A command that takes a user's name and then the password as arguments:
/// its word, the program before it on the line (none: the word is the
/// program), how many arguments come before the password, the flags that
/// take a value, and the flag letter that must be given (batch mode: without
/// it the program asks, and the argument is no password).
struct UserCommand {
    word: &'static [u8],
    program: Option<&'static [u8]>,
    before: usize,
    valued_flags: &'static [u8],
    needs: Option<u8>,
}

const USER_COMMANDS: [UserCommand; 5] = [
    // `rabbitmqctl add_user NAME PASSWORD`.
    UserCommand {
        word: b"add_user",
        program: Some(b"rabbitmqctl"),
        before: 1,
        valued_flags: b"n",
        needs: None,
    },
    UserCommand {
        word: b"change_password",
        program: Some(b"rabbitmqctl"),
        before: 1,
        valued_flags: b"n",
        needs: None,
    },
    UserCommand {
        word: b"authenticate_user",
        program: Some(b"rabbitmqctl"),
        before: 1,
        valued_flags: b"n",
        needs: None,
    },
    // `mosquitto_passwd -b FILE NAME PASSWORD`.
    UserCommand {
        word: b"mosquitto_passwd",
        program: None,
        before: 2,
        valued_flags: b"HI",
        needs: Some(b'b'),
    },
    // `htpasswd -b FILE NAME PASSWORD`, `htpasswd -nb NAME PASSWORD`.
    UserCommand {
        word: b"htpasswd",
        program: None,
        before: 2,
        valued_flags: b"Cr",
        needs: Some(b'b'),
    },
];

/// Whether the word `[s, e)` may be one of [`USER_COMMANDS`]' words: its
/// first byte and length (called for most long words).
#[inline(always)]
pub(crate) fn may_be_user_command(b: &[u8], s: usize, e: usize) -> bool {
    matches!(
        (b[s], e - s),
        (b'a', 8 | 17) | (b'c', 15) | (b'm', 16) | (b'h', 8)
    )
}

/// The password of the user command whose word is `[s, e)`, masked.
#[inline(never)]
pub(crate) fn at_user_command(b: &[u8], s: usize, e: usize, found: &mut Vec<Found>) {
    if let Some((start, end, _)) = user_command(b, s, e) {
        found.push(Found {
            start,
            end,
            kind: "secret-assignment",
        });
    }
}

/// Where a user command's line starts, if the command runs to `cut` (its
/// password may not have come whole).
pub(crate) fn user_command_open_at(b: &[u8], cut: usize) -> Option<usize> {
    let line = crate::line_start_within(b, cut, 4 * crate::MAX_LINE_PREFIX)?;
    let text = &b[..cut];
    USER_COMMANDS.iter().find_map(|c| {
        let p = line + find(&text[line..], c.word)?;
        let e = p + c.word.len();
        match user_command(text, p, e) {
            Some((_, _, true)) => Some(line),
            // (Its arguments so far are too few: the password may come.)
            None if memchr::memchr(b'\n', &text[e..]).is_none() => Some(line),
            _ => None,
        }
    })
}

/// The password's span of the user command whose word is `[s, e)`, and
/// whether the text ended before it did.
fn user_command(b: &[u8], s: usize, e: usize) -> Option<(usize, usize, bool)> {
    let word = &b[s..e];
    let c = USER_COMMANDS.iter().find(|c| c.word == word)?;
    if s > 0 && !matches!(b[s - 1], b' ' | b'\t' | b'(' | b'\n' | b'/') {
        return None;
    }
    if let Some(program) = c.program
        && !after_program(b, s, &[program])
    {
        return None;
    }
    let mut flags = Vec::new();
    let mut arguments = Vec::new();
    let mut i = e;
    let mut skip_next = false;
    loop {
        i += crate::run(b, i, |c| c == b' ' || c == b'\t');
        let Some(&first) = b.get(i) else {
            break;
        };
        if matches!(first, b'\n' | b'|' | b';' | b'&' | b')' | b'>' | b'<') {
            break;
        }
        let (start, end, next) = match quote_at(b, i) {
            Some(q) => {
                let (start, end, open) = quoted(b, i, q);
                if open {
                    arguments.push((start, end, true));
                    break;
                }
                (start, end, end + q.len())
            }
            None => {
                let end = i + b[i..]
                    .iter()
                    .take(super::MAX_VALUE)
                    .take_while(|c| !c.is_ascii_whitespace() && !matches!(c, b'|' | b';' | b')'))
                    .count();
                (i, end, end)
            }
        };
        if skip_next {
            skip_next = false;
        } else if first == b'-' && start == i && end > i + 1 {
            let letters = &b[i + 1..end];
            flags.extend_from_slice(letters);
            skip_next = letters.last().is_some_and(|l| c.valued_flags.contains(l));
        } else {
            arguments.push((start, end, end == b.len()));
        }
        i = next;
        if arguments.len() > c.before + 1 {
            break;
        }
    }
    if c.needs.is_some_and(|f| !flags.contains(&f)) {
        return None;
    }
    // `htpasswd -n` prints the line and takes no file.
    let before = if c.word == b"htpasswd" && flags.contains(&b'n') {
        c.before - 1
    } else {
        c.before
    };
    let &(start, end, open) = arguments.get(before)?;
    let v = &b[start..end];
    (v.len() >= 4 && !crate::placeholders::stand_in(v) && !v.starts_with(b"$"))
        .then_some((start, end, open))
}
