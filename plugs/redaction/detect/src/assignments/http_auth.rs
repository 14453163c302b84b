//! HTTP credentials: the value of an `Authorization` header after its scheme
//! (`Bearer`, `Basic`, `token`, `Digest`, `AWS4-HMAC-SHA256`, …), and a bare
//! `Bearer …` or `Basic …` wherever it is written.

use super::values::{plain, quote_at, quoted};
use super::{Parsed, Value};
use crate::b64;

/// `Authorization: <scheme> <credentials>` (or the credentials alone); the
/// value starts at `i`. A link (`[Authorization]: https://…`) or code
/// (`authorization: AuthorizationRef,`) is no header.
pub(super) fn authorization(b: &[u8], i: usize) -> Parsed {
    let n = b.len();
    let (value_start, value_end, open) = match quote_at(b, i) {
        Some(q) => quoted(b, i, q),
        None => {
            let end = b[i..]
                .iter()
                .position(|&c| matches!(c, b'\n' | b'\r' | b'"' | b'\'' | b'`'))
                .map_or(n, |p| i + p);
            (i, end, end == n)
        }
    };
    let scheme = b[value_start..value_end]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'-')
        .count();
    let has_scheme = scheme > 0 && b.get(value_start + scheme) == Some(&b' ');
    let start = if has_scheme {
        value_start + scheme + 1
    } else {
        value_start
    };
    let mut end = value_end;
    while end > start && b[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    if start >= end && open {
        return Parsed::Open;
    }
    let v = &b[start..end];
    let header = !v.is_empty()
        && !b[value_start..].starts_with(b"http://")
        && !b[value_start..].starts_with(b"https://")
        && !matches!(v[0], b'=' | b'(')
        && !matches!(v[v.len() - 1], b',' | b';' | b'(' | b'{')
        // Without a scheme, one token; `Digest a="b", c="d"` has spaces.
        && (has_scheme || !v.iter().any(u8::is_ascii_whitespace));
    Parsed::Value(Value {
        start,
        end,
        open,
        seen: value_end + 1,
        secret: header && plain(v),
        kind: "authorization",
    })
}

/// The credentials (a token68) at `i`, after `Bearer ` or (`basic`)
/// `Basic `.
pub(super) fn scheme_credentials(b: &[u8], i: usize, basic: bool) -> Parsed {
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
    // Prose says "Bearer tokens" and "Basic authentication".
    let secret = len >= 8
        && plain(v)
        && if basic {
            v.iter().all(|&c| b64(c))
                && (len % 4 == 0 || v.ends_with(b"="))
                && (digit || (inner_upper && lower))
        } else {
            digit
                || (inner_upper && lower)
                || v.iter()
                    .any(|c| matches!(c, b'-' | b'.' | b'_' | b'~' | b'+' | b'/'))
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
