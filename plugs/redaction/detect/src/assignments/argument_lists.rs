//! A flag and its value as two strings of a list: an MCP server's `"args":
//! ["-y", "…-mcp", "--api-key", "…"]`, a container's `command`, a TOML
//! array. The flag names the value as `--api-key …` does on a command line.

use super::command_output::secret_like;
use super::names::{password, secret_kind};
use super::values::{hex_key, keylike, plain, quoted};
use super::{key_shaped, reported};
use crate::Found;

/// Longest flag read before a value.
const MAX_FLAG: usize = 64;

/// The string whose first word starts at `s` (right after its quote), if
/// the string before it in its list is a flag that names a secret.
#[inline(never)]
pub(crate) fn at_value(b: &[u8], s: usize, found: &mut Vec<Found>) {
    let q = s - 1;
    // `, ` (or a line break) back to the flag's closing quote: most
    // strings after a `,` are an object's keys, after a value.
    let mut i = q;
    while i > 0 && matches!(b[i - 1], b' ' | b'\t' | b'\n' | b'\r') && q - i < 16 {
        i -= 1;
    }
    if i == 0 || b[i - 1] != b',' {
        return;
    }
    i -= 1;
    while i > 0 && matches!(b[i - 1], b' ' | b'\t' | b'\n' | b'\r') && q - i < 32 {
        i -= 1;
    }
    if i < 2 || b[i - 1] != b[q] {
        return;
    }
    let close = i - 1;
    let floor = close.saturating_sub(MAX_FLAG);
    let Some(open) = b[floor..close]
        .iter()
        .rposition(|&c| c == b[q])
        .map(|p| floor + p)
    else {
        return;
    };
    let flag = &b[open + 1..close];
    let name = match flag {
        [b'-', b'-', name @ ..] => name,
        // PowerShell's `-Password`.
        [b'-', first, ..] if first.is_ascii_uppercase() => &flag[1..],
        _ => return,
    };
    if name.is_empty()
        || !name
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_'))
    {
        return;
    }
    let Some(kind) = secret_kind(name) else {
        return;
    };
    let (start, end, _) = quoted(b, q, &b[q..q + 1]);
    let v = &b[start..end];
    if start < end
        && plain(v)
        && (password(name)
            || (key_shaped(kind, v, name) && (keylike(v) || hex_key(v) || secret_like(v))))
    {
        found.push(Found {
            start,
            end,
            kind: reported(kind),
        });
    }
}
