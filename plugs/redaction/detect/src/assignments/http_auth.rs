//! HTTP credentials: the value of an `Authorization` header after its scheme
//! (`Bearer`, `Basic`, `token`, `Digest`, `AWS4-HMAC-SHA256`, …), a bare
//! `Bearer …` or `Basic …` wherever it is written, and the cookies of a
//! `Cookie:` or `Set-Cookie:` header whose values look random (a session's).

use super::values::{hex_key, keylike, plain, quote_at, quoted};
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
        && !matches!(v[v.len() - 1], b',' | b';' | b'(' | b'{' | b'[')
        // (`Slice(["REDACTED"])`: a value's type in a span's attributes.)
        && (has_scheme || !v.contains(&b'('))
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
            basic_credentials(v) && (digit || (inner_upper && lower))
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

/// Whether `v` may be Basic credentials: base64 (`=` only as its padding)
/// of `user:password`, or the start of it where a stream cut it (no
/// padding yet).
fn basic_credentials(v: &[u8]) -> bool {
    let pad = v.iter().rev().take_while(|&&c| c == b'=').count();
    let body = &v[..v.len() - pad];
    pad <= 2
        && body.iter().all(|&c| b64(c) && c != b'=')
        && (pad == 0 || v.len().is_multiple_of(4))
        && crate::decode::decode(v).contains(&b':')
}

/// What `Set-Cookie` says about its cookie, after it: never a credential.
const COOKIE_ATTRIBUTES: [&[u8]; 9] = [
    b"path",
    b"domain",
    b"expires",
    b"max-age",
    b"samesite",
    b"secure",
    b"httponly",
    b"priority",
    b"partitioned",
];

/// The cookies of a `Cookie:` or `Set-Cookie:` header whose value starts at
/// `i`: `name=value` pairs up to the end of the line, each value masked
/// where it looks random (a session's id, a signed session, a token),
/// whatever the cookie is called; `theme=dark`, `lang=en`, the attributes
/// (`Path=/`, `Expires=…`) stay.
pub(super) fn cookies(b: &[u8], i: usize) -> Parsed {
    let n = b.len();
    if i >= n {
        return Parsed::Open;
    }
    let end = memchr::memchr(b'\n', &b[i..]).map_or(n, |p| i + p);
    cookies_within(b, i, end)
}

/// The cookies of a header's value `[i, end)` (a HAR file's `{"name":
/// "Cookie", "value": "…"}`: up to its closing quote).
pub(super) fn cookies_within(b: &[u8], i: usize, end: usize) -> Parsed {
    let n = b.len();
    let mut values = Vec::new();
    let mut at = i;
    while at < end {
        let pair_end = memchr::memchr(b';', &b[at..end]).map_or(end, |p| at + p);
        let pair = &b[at..pair_end];
        if let Some(eq) = pair.iter().position(|&c| c == b'=') {
            let name = pair[..eq].trim_ascii();
            let mut vs = at + eq + 1;
            let mut ve = pair_end;
            while vs < ve && matches!(b[vs], b' ' | b'"') {
                vs += 1;
            }
            while ve > vs && matches!(b[ve - 1], b' ' | b'"' | b'\r' | b'\'') {
                ve -= 1;
            }
            let v = &b[vs..ve];
            let attribute = COOKIE_ATTRIBUTES
                .iter()
                .any(|a| name.eq_ignore_ascii_case(a))
                || not_a_credential(name);
            values.push(Value {
                start: vs,
                end: ve,
                open: ve == n,
                seen: (pair_end + 1).min(end + 1),
                secret: !attribute
                    && !name.is_empty()
                    && plain(v)
                    && v.len() >= 16
                    // `CheckForPermission`: a word in camel case, no key.
                    && !super::values::identifier(v)
                    && (keylike(v) || hex_key(v) || session_signed(v)),
                kind: "cookie",
            });
        }
        at = pair_end + 1;
    }
    Parsed::Values(values)
}

/// A cookie that holds no credential whatever its value looks like: an
/// analytics or consent cookie (`_ga`, `ajs_anonymous_id`, `_hjSessionUser_…`,
/// `__stripe_mid`, `mp_…_mixpanel`), a load balancer's or a CDN's routing
/// and bot-score cookie (`AWSALB`, `ARRAffinity`, `BIGipServer…`, Cloudflare's
/// `__cf_bm`), or one whose name says what else it holds (`visitor_id`,
/// `theme`); a session's (`sessionid`, `sid`) stays one.
pub(super) fn not_a_credential(name: &[u8]) -> bool {
    // (The browser's prefixes only say how the cookie may be set.)
    let name = strip_prefix_ignoring_case(name, b"__host-")
        .or_else(|| strip_prefix_ignoring_case(name, b"__secure-"))
        .unwrap_or(name);
    const ANALYTICS: [&[u8]; 51] = [
        b"__gads",
        b"__gpi",
        b"_sp_id",
        b"_sp_ses",
        b"_shopify_y",
        b"_shopify_s",
        b"__kla_id",
        b"_vwo_",
        b"_mkto_trk",
        b"__cf_bm",
        b"_cfuvid",
        b"__cfruid",
        b"__cflb",
        b"awsalb",
        b"awselb",
        b"arraffinity",
        b"bigipserver",
        b"_ga",
        b"_gid",
        b"_gat",
        b"_gcl_",
        b"_fbp",
        b"_fbc",
        b"ajs_",
        b"_hj",
        b"_clck",
        b"_clsk",
        b"__stripe_mid",
        b"mp_",
        b"amplitude",
        b"amp_",
        b"_uet",
        b"intercom-id",
        b"intercom-device-id",
        b"optimizely",
        b"_pk_",
        b"__utm",
        b"_dc_gtm",
        b"_ttp",
        b"_scid",
        b"li_sugr",
        b"bcookie",
        b"lidc",
        b"_rdt_",
        b"__hs",
        b"hubspotutk",
        b"_tt_",
        b"_pin_unauth",
        b"optanon",
        b"cookieconsent",
        b"cookieyes",
    ];
    // Advertising and consent cookies named by a word of their own.
    const EXACT: [&[u8]; 11] = [
        b"ide",
        b"nid",
        b"muid",
        b"test_cookie",
        b"1p_jar",
        b"ar_debug",
        b"li_gc",
        b"usermatchhistory",
        b"analyticssynchistory",
        b"__qca",
        b"_hjid",
    ];
    let lower = |p: &[u8]| name.len() >= p.len() && name[..p.len()].eq_ignore_ascii_case(p);
    // An anti-forgery token (`csrftoken`, `XSRF-TOKEN`, `_csrf`, ASP.NET
    // Core's `.AspNetCore.Antiforgery.…`): the page hands it to every
    // visitor, it proves only that a form came from the page.
    let anti_forgery = lower(b"_csrf")
        || lower(b"csrf")
        || lower(b"xsrf")
        || lower(b".aspnetcore.antiforgery")
        || super::names::declines(name);
    EXACT.iter().any(|e| name.eq_ignore_ascii_case(e))
        || anti_forgery
        || ANALYTICS.iter().any(|p| lower(p))
        || (!super::names::session_cookie(name) && super::positions::says_what_it_is(name))
}

fn strip_prefix_ignoring_case<'a>(name: &'a [u8], prefix: &[u8]) -> Option<&'a [u8]> {
    (name.len() > prefix.len() && name[..prefix.len()].eq_ignore_ascii_case(prefix))
        .then(|| &name[prefix.len()..])
}

/// A signed session as frameworks write it: base64 payload, `.` or `--`,
/// signature (Flask's `eyJ….Zk9x….sig`, Rails' `…--…`, Express's
/// `s%3A….sig`): two or more random parts.
fn session_signed(v: &[u8]) -> bool {
    let random_parts = v
        .split(|&c| c == b'.' || c == b'-')
        .filter(|p| p.len() >= 6 && crate::mixed(p))
        .count();
    random_parts >= 2
}
