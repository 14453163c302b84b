//! Credentials in URLs: the password of `scheme://user:password@host`
//! (databases, brokers, HTTP basic auth, any scheme), a token in the place of
//! the user (`https://<token>@host`), and webhook URLs whose path is the
//! secret (Slack, Discord).

use super::{Found, b64url, find, mixed, rfind, run};

/// Longest authority (`user:password@host:port`) looked at: CodeArtifact's
/// token in a pip index URL is about a kilobyte.
const MAX_AUTHORITY: usize = 2048;

const WEBHOOKS: [(&[u8], &str); 5] = [
    (b"hooks.slack.com/services/", "slack-webhook"),
    (b"hooks.slack.com/workflows/", "slack-webhook"),
    (b"hooks.slack.com/triggers/", "slack-webhook"),
    (b"discord.com/api/webhooks/", "discord-webhook"),
    (b"discordapp.com/api/webhooks/", "discord-webhook"),
];

/// Masks the credentials after each `://` of the word that starts at `s`
/// and ends at `e`. The authority is read past the word: a password may hold
/// bytes that end words (`postgres://app:p@ss!w0rd@db`).
pub(super) fn credentials(b: &[u8], s: usize, e: usize, found: &mut Vec<Found>) {
    let mut from = s;
    while let Some(p) = find(&b[from..e], b"://") {
        let sep = from + p;
        if scheme_start(b, s, sep).is_some() {
            userinfo(b, sep + 3, found);
        }
        from = sep + 3;
    }
}

/// Where a URL starts (at or after `from`) whose authority reaches `cut`.
pub(super) fn open_at(b: &[u8], from: usize, cut: usize) -> Option<usize> {
    let sep = from + rfind(&b[from..cut], b"://")?;
    let (end, _) = authority(b, sep + 3);
    if end < cut {
        return None;
    }
    scheme_start(b, from, sep)
}

/// A webhook URL's host and path at the start of `t`: where its secret part
/// starts, how long it is, and its kind.
pub(super) fn webhook(t: &[u8]) -> Option<(usize, usize, &'static str)> {
    for (prefix, kind) in WEBHOOKS {
        if t.starts_with(prefix) {
            let n = run(t, prefix.len(), |c| b64url(c) || c == b'/');
            return (n >= 20).then_some((prefix.len(), n, kind));
        }
    }
    None
}

/// The scheme before `://` at `sep` (letters, digits, `+`, `.`, `-`,
/// starting with a letter), not reaching back before `floor`.
fn scheme_start(b: &[u8], floor: usize, sep: usize) -> Option<usize> {
    let start = b[floor..sep]
        .iter()
        .rposition(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-')))
        .map_or(floor, |p| floor + p + 1);
    (sep - start >= 2 && b[start].is_ascii_alphabetic()).then_some(start)
}

/// The end of the authority that starts at `from`, and whether the text
/// ended first.
fn authority(b: &[u8], from: usize) -> (usize, bool) {
    let limit = (from + MAX_AUTHORITY).min(b.len());
    let mut i = from;
    while i < limit
        && !matches!(
            b[i],
            b' ' | b'\t' | b'\r' | b'\n' | b'/' | b'?' | b'"' | b'\'' | b'`' | b'<' | b'>' | b'\\'
        )
        // `cat -A` shows a NUL as `^@` (`/proc/…/environ`): the next
        // variable starts there, not a host.
        && !crate::nul_shown_at(b, i)
    {
        i += 1;
    }
    (i, i == b.len())
}

fn userinfo(b: &[u8], from: usize, found: &mut Vec<Found>) {
    let (end, _) = authority(b, from);
    // The last `@`: a password may hold an unencoded `@`.
    let Some(at) = b[from..end].iter().rposition(|&c| c == b'@') else {
        return;
    };
    let at = from + at;
    let user = &b[from..at];
    match user_end(user) {
        Some(colon) => {
            let password = &b[from + colon + 1..at];
            // `postgres:postgres@localhost`: a default, not a secret.
            if !password.is_empty() && !is_placeholder(password) && password != &user[..colon] {
                found.push(Found {
                    start: from + colon + 1,
                    end: at,
                    kind: "connection-password",
                });
            }
        }
        // `https://<token>@github.com`: a user that is a random string.
        None if user.len() >= 16 && mixed(user) && user.iter().all(|&c| b64url(c) || c == b'.') => {
            found.push(Found {
                start: from,
                end: at,
                kind: "url-credential",
            });
        }
        None => {}
    }
}

/// Where the user ends (its `:`), outside a variable's braces: Compose's
/// `${POSTGRES_USER:-app}:${POSTGRES_PASSWORD}` has its user's default
/// after a `:` of its own.
fn user_end(user: &[u8]) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &c) in user.iter().enumerate() {
        match c {
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            b':' if depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

/// `$PASSWORD`, `${DB_PASS}`, `<password>`, `***`, a format's `%s` or
/// `{}`: a stand-in, not a value.
fn is_placeholder(p: &[u8]) -> bool {
    p[0] == b'$'
        || p.starts_with(b"{{")
        || (p[0] == b'{' && p[p.len() - 1] == b'}')
        || (p[0] == b'%' && p.len() <= 3 && p[p.len() - 1].is_ascii_alphabetic())
        || (p[0] == b'<' && p[p.len() - 1] == b'>')
        || p.iter().all(|&c| c == b'*' || c == b'x' || c == b'X')
        || super::placeholders::stand_in(p)
}
