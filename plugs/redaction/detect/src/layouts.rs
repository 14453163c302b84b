//! Credential files whose layout alone says where the password is: a
//! `.pgpass` line (`host:port:database:user:password`, the port a number or
//! `*`), and the Oracle thin JDBC URL (`jdbc:oracle:thin:user/password@…`).

use super::{Found, find};

/// Longest `.pgpass` line read.
const MAX_LINE: usize = 1024;

/// Whether a word first on its line may start a `.pgpass` line: `host:`
/// then a port (digits) or `*`, or a `:` right after a `*`.
pub(super) fn may_be_pgpass(w: &[u8]) -> bool {
    match memchr::memchr(b':', w) {
        Some(0) => true,
        Some(p) => w
            .get(p + 1..)
            .is_some_and(|rest| rest.first().is_some_and(|c| c.is_ascii_digit())),
        None => false,
    }
}

/// A `.pgpass` line whose first word starts at `s` (at the line's start or
/// after its `*`s): its password.
pub(super) fn pgpass(b: &[u8], s: usize, found: &mut Vec<Found>) {
    // A host is at most 253 bytes: a line that starts further back is none.
    let Some(s) = super::line_start_within(b, s, 256) else {
        return;
    };
    if let Some(f) = pgpass_password(b, s) {
        found.push(f);
    }
}

/// Whether the line that starts at `line` and reaches `cut` may be a
/// `.pgpass` line whose password the cut splits: it waits whole.
pub(super) fn pgpass_open(b: &[u8], line: usize, cut: usize) -> bool {
    b[line..cut].iter().filter(|&&c| c == b':').count() >= 4 && {
        let head = &b[line..cut];
        // Four fields so far, the second a port.
        let mut fields = head.splitn(5, |&c| c == b':');
        let _host = fields.next();
        fields
            .next()
            .is_some_and(|p| p == b"*" || (!p.is_empty() && p.iter().all(u8::is_ascii_digit)))
            && !head.iter().any(|c| c.is_ascii_whitespace())
    }
}

fn pgpass_password(b: &[u8], s: usize) -> Option<Found> {
    // Most lines that start like one (a timestamp, `host:8080 …`) fail in
    // their first fields: read those before looking for the line's end.
    let head = &b[s..(s + MAX_LINE).min(b.len())];
    let mut colons = 0;
    for &c in head {
        match c {
            b':' => {
                colons += 1;
                if colons == 4 {
                    break;
                }
            }
            b'\n' | b' ' | b'\t' => return None,
            _ => {}
        }
    }
    if colons < 4 {
        return None;
    }
    let end = memchr::memchr(b'\n', head).map_or(s + head.len(), |p| s + p);
    let line = &b[s..end];
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let mut fields = line.splitn(5, |&c| c == b':');
    let (Some(host), Some(port), Some(db), Some(user), Some(password)) = (
        fields.next(),
        fields.next(),
        fields.next(),
        fields.next(),
        fields.next(),
    ) else {
        return None;
    };
    let name = |f: &[u8]| {
        !f.is_empty()
            && f.len() <= 253
            && (f == b"*"
                || f.iter()
                    .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'_')))
    };
    let port_ok = port == b"*"
        || (!port.is_empty() && port.len() <= 5 && port.iter().all(u8::is_ascii_digit));
    // (A password's own `:` is escaped, `\:`: more fields are another
    // file's, `/etc/shadow`'s `svc:*:19676:0:99999:7:::`.)
    let unescaped_colon = password
        .iter()
        .enumerate()
        .any(|(i, &c)| c == b':' && (i == 0 || password[i - 1] != b'\\'));
    if !(name(host) && port_ok && name(db) && name(user))
        || unescaped_colon
        || password.is_empty()
        || password.iter().any(|c| c.is_ascii_whitespace())
        || super::placeholders::stand_in(password)
    {
        return None;
    }
    let start = s + host.len() + port.len() + db.len() + user.len() + 4;
    Some(Found {
        start,
        end: start + password.len(),
        kind: "connection-password",
    })
}

/// The password of Go's MySQL DSN (`user:password@tcp(host:3306)/db`,
/// `@unix(/run/mysqld.sock)`) whose word starts at `s`, its `@` at `at`:
/// after the user's `:`, to the `@`.
pub(super) fn go_dsn(b: &[u8], s: usize, at: usize, found: &mut Vec<Found>) {
    if !(b[at + 1..].starts_with(b"tcp(") || b[at + 1..].starts_with(b"unix(")) {
        return;
    }
    // Within the word (after a name glued to it: `DSN=user:…`): a password
    // that symbols split into words is not read, as a stream could not hold
    // its first words back before the `@tcp(` that says what they are.
    let from = b[s..at]
        .iter()
        .rposition(|&c| c == b'=')
        .map_or(s, |p| s + p + 1);
    let Some(colon) = memchr::memchr(b':', &b[from..at]).map(|p| from + p) else {
        return;
    };
    let user = &b[from..colon];
    let password = &b[colon + 1..at];
    if user.is_empty()
        || password.is_empty()
        || !user
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
        || super::placeholders::stand_in(password)
    {
        return;
    }
    found.push(Found {
        start: colon + 1,
        end: at,
        kind: "connection-password",
    });
}

/// Whether the word `[s, e)`, first on its line, may be a user's name in a
/// Jetty realm file (`admin: password, admin`).
#[inline(always)]
pub(super) fn may_be_realm_user(b: &[u8], s: usize, e: usize) -> bool {
    (s == 0 || b[s - 1] == b'\n')
        && (b[e..].starts_with(b": ") || (b[e - 1] == b':' && b.get(e) == Some(&b' ')))
}

/// A Jetty realm file's line (`realm.properties`, ActiveMQ's
/// `jetty-realm.properties`): `user: password, role[, role…]`, its password
/// masked where the file shows it is one: its header (`# username:
/// password [,rolename ...]`) or another user's obfuscated or hashed
/// password (`OBF:`, `MD5:`, `CRYPT:`) within the lines above.
#[inline(never)]
pub(super) fn realm_line(b: &[u8], s: usize, e: usize, found: &mut Vec<Found>) {
    // (The word may hold its `:`.)
    let e = if b[e - 1] == b':' { e - 1 } else { e };
    let Some(value) = realm_password(b, e) else {
        return;
    };
    let v = &b[value.0..value.1];
    if v.starts_with(b"OBF:") || v.starts_with(b"MD5:") || v.starts_with(b"CRYPT:") {
        return;
    }
    if realm_above(b, s) && !super::placeholders::stand_in(v) {
        found.push(Found {
            start: value.0,
            end: value.1,
            kind: "secret-assignment",
        });
    }
}

/// Where a realm file's line starts that the text ends in, its password
/// (to its `,`) not read whole yet: it waits for the line's end.
pub(super) fn realm_open_at(b: &[u8], cut: usize) -> Option<usize> {
    let line = super::line_start_within(b, cut, super::MAX_LINE_PREFIX)?;
    if memchr::memchr(b'\n', &b[line..]).is_some() {
        return None;
    }
    let user = b[line..]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
        .count();
    if user == 0 || !b[line + user..].starts_with(b": ") {
        return None;
    }
    realm_above(b, line).then_some(line)
}

/// Whether the lines above `line` show a realm file: its header, or another
/// user's obfuscated or hashed password (read as [`realm_line`] reads a
/// line, so that a stream holds what the whole text masks).
fn realm_above(b: &[u8], line: usize) -> bool {
    let from = line.saturating_sub(MAX_REALM_ABOVE);
    let above = &b[from..line];
    crate::find(above, b"[,rolename").is_some()
        || above.split(|&c| c == b'\n').any(|l| {
            let user = l
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
                .count();
            user > 0
                && realm_password(l, user).is_some_and(|(ps, _)| {
                    let p = &l[ps..];
                    p.starts_with(b"OBF:") || p.starts_with(b"MD5:") || p.starts_with(b"CRYPT:")
                })
        })
}

/// How far above a realm line its file's header or another user is looked
/// for: within what a stream keeps of the text before what it holds.
const MAX_REALM_ABOVE: usize = 768;

/// After the user's name ending at `e` (`: ` next): the password's span,
/// if one or more roles follow it to the line's end.
fn realm_password(b: &[u8], e: usize) -> Option<(usize, usize)> {
    if !b[e..].starts_with(b": ") {
        return None;
    }
    let start = e + 2;
    let line_end = memchr::memchr(b'\n', &b[start.min(b.len())..]).map_or(b.len(), |p| start + p);
    let line = b.get(start..line_end)?;
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let comma = memchr::memchr(b',', line)?;
    let password = &line[..comma];
    let roles = &line[comma + 1..];
    let role_ok = |r: &[u8]| {
        let r = r.trim_ascii();
        !r.is_empty()
            && r.iter()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-'))
    };
    (!password.is_empty()
        && !password.iter().any(u8::is_ascii_whitespace)
        && roles.split(|&c| c == b',').all(role_ok))
    .then_some((start, start + comma))
}

/// Where an Oracle thin URL starts (at or after `from`) that reaches `cut`.
pub(super) fn oracle_open(b: &[u8], from: usize, cut: usize) -> Option<usize> {
    let at = from + super::rfind(&b[from..cut], b"jdbc:oracle:thin:")?;
    (!b[at..cut].iter().any(u8::is_ascii_whitespace)).then_some(at)
}

/// `jdbc:oracle:thin:user/password@host…` at `s`: the password.
pub(super) fn oracle_thin(b: &[u8], s: usize, found: &mut Vec<Found>) {
    const PREFIX: &[u8] = b"jdbc:oracle:thin:";
    let from = s + PREFIX.len();
    let end = b[from..]
        .iter()
        .position(|c| c.is_ascii_whitespace() || matches!(c, b'"' | b'\'' | b'`'))
        .map_or(b.len(), |p| from + p);
    let auth = &b[from..end];
    // `user/password@`: the last `@` ends it (a password may hold one).
    let (Some(slash), Some(at)) = (
        auth.iter().position(|&c| c == b'/'),
        auth.iter().rposition(|&c| c == b'@'),
    ) else {
        return;
    };
    if slash == 0 || at <= slash + 1 || find(&auth[..slash], b"//").is_some() {
        return;
    }
    let password = &auth[slash + 1..at];
    if super::placeholders::stand_in(password) {
        return;
    }
    found.push(Found {
        start: from + slash + 1,
        end: from + at,
        kind: "connection-password",
    });
}
