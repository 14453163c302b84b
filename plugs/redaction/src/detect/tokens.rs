//! Vendor credentials recognisable by their prefix and shape alone: `ghp_…`,
//! `AKIA…`, `xoxb-…`, `sk-proj-…`, JWTs. Each rule follows the format as the
//! vendor (and gitleaks / GitHub secret scanning) describes it, with a
//! minimum length so that a prefix in prose (`ghp_short`) stays.
//!
//! Stripe publishable keys (`pk_live_…`, `pk_test_…`) are masked too: they are
//! public by design, but they name the account, and masking one costs only
//! readability.

use super::{Found, b64, b64url, hex, mixed, run, urls};

/// The known formats that can start at `i` (the word ends at `e`).
pub(super) fn at(b: &[u8], i: usize, e: usize, found: &mut Vec<Found>) {
    let t = &b[i..e];
    let Some(&first) = t.first() else { return };
    // Most words start with a lower-case letter: the second byte turns most
    // of them away before any prefix is compared.
    let second = t.get(1).copied().unwrap_or(0);
    macro_rules! push {
        ($len:expr, $kind:expr) => {
            found.push(Found {
                start: i,
                end: i + $len,
                kind: $kind,
            })
        };
    }
    let alnum = |c: u8| c.is_ascii_alphanumeric();
    let upper_digit = |c: u8| c.is_ascii_uppercase() || c.is_ascii_digit();
    let lower_hex = |c: u8| c.is_ascii_digit() || (b'a'..=b'f').contains(&c);
    let word_char = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    // `prefix` then at least `min` bytes of `ok`: the length of the token.
    let prefixed = |prefix: &[u8], ok: fn(u8) -> bool, min: usize| -> Option<usize> {
        if !t.starts_with(prefix) {
            return None;
        }
        let n = run(t, prefix.len(), ok);
        (n >= min).then_some(prefix.len() + n)
    };
    match first {
        b'A' => {
            if is_aws_key_id(t) {
                push!(20, "aws-access-key");
                aws_secret_after(b, i + 20, found);
            } else if let Some(n) = prefixed(b"AIza", b64url, 35) {
                push!(n.min(39), "google-api-key");
            } else if let Some(n) = prefixed(b"AGE-SECRET-KEY-1", upper_digit, 50) {
                push!(n, "age-secret-key");
            } else if let Some(n) = prefixed(b"ATATT", |c| b64url(c) || c == b'=', 50)
                .or_else(|| prefixed(b"ATCTT", |c| b64url(c) || c == b'=', 50))
            {
                push!(n, "atlassian-token");
            } else if let Some(n) = prefixed(b"ATBB", alnum, 28) {
                push!(n, "atlassian-token");
            } else if t.starts_with(b"AC") && exact(t, 2, 32, lower_hex) {
                push!(34, "twilio-account-sid");
            }
        }
        b'S' if matches!(second, b'K' | b'G') => {
            if t.starts_with(b"SK") && exact(t, 2, 32, lower_hex) {
                push!(34, "twilio-key");
            } else if t.starts_with(b"SG.") {
                let id = run(t, 3, b64url);
                let secret = run(t, 4 + id, b64url);
                if id >= 16 && t.get(3 + id) == Some(&b'.') && secret >= 30 {
                    push!(4 + id + secret, "sendgrid-key");
                }
            }
        }
        b'G' => {
            if let Some(n) = prefixed(b"GOCSPX-", b64url, 24) {
                push!(n, "google-oauth-secret");
            } else if let Some(n) = prefixed(b"GR1348941", b64url, 20) {
                push!(n, "gitlab-token");
            }
        }
        b'H' => {
            if let Some(n) = prefixed(b"HRKU-", b64url, 30) {
                push!(n, "heroku-key");
            }
        }
        b'N' if t.starts_with(b"NRAK-") => {
            if let Some(n) = prefixed(b"NRAK-", upper_digit, 27) {
                push!(n, "newrelic-key");
            }
        }
        b'P' => {
            if let Some(n) = prefixed(b"PMAK-", |c| c.is_ascii_alphanumeric() || c == b'-', 50) {
                push!(n, "postman-key");
            } else if t.starts_with(b"Private-Lines:") {
                super::private_keys::putty(b, i, found);
            }
        }
        b'L' if t.starts_with(b"LS0tLS1CRUdJTi") => {
            // A PEM private key, base64-encoded once more (kubeconfig
            // `client-key-data`, Kubernetes secrets).
            let n = run(t, 0, b64);
            if super::private_keys::is_base64_private_key(&t[..n]) {
                push!(n, "private-key");
            }
        }
        b'E' if t.starts_with(b"EAA") => {
            let n = run(t, 0, b64url);
            if n >= 64 && mixed(&t[..n]) {
                let kind = if t.starts_with(b"EAAA") {
                    "square-token"
                } else {
                    "facebook-token"
                };
                push!(n, kind);
            }
        }
        b'a' if second == b'p' => {
            if let Some(n) = prefixed(b"api_org_", alnum, 30) {
                push!(n, "huggingface-token");
            }
        }
        b'd' if matches!(second, b'o' | b'c' | b'a' | b'p' | b'i') => {
            for p in [b"dop_v1_", b"doo_v1_", b"dor_v1_", b"dos_v1_"] {
                if let Some(n) = prefixed(p, hex, 64) {
                    push!(n, "digitalocean-token");
                    return;
                }
            }
            if let Some(n) =
                prefixed(b"dckr_pat_", b64url, 20).or_else(|| prefixed(b"dckr_oat_", b64url, 20))
            {
                push!(n, "docker-hub-token");
            } else if let Some(n) = prefixed(b"dapi", hex, 32) {
                push!(
                    n + run(t, n, |c| c == b'-' || c.is_ascii_digit()),
                    "databricks-token"
                );
            } else if t.starts_with(b"dp.") {
                // Doppler: dp.st., dp.pt., dp.ct., dp.sa., dp.scim., dp.audit.
                let scope = run(t, 3, |c| c.is_ascii_lowercase());
                if (2..=5).contains(&scope) && t.get(3 + scope) == Some(&b'.') {
                    let n = run(t, 4 + scope, alnum);
                    if n >= 40 {
                        push!(4 + scope + n, "doppler-token");
                    }
                }
            } else if let Some((from, n, kind)) = urls::webhook(t) {
                found.push(Found {
                    start: i + from,
                    end: i + from + n,
                    kind,
                });
            }
        }
        b'g' if matches!(second, b'h' | b'i' | b'l') => {
            if t.len() >= 40
                && t[0..2] == *b"gh"
                && matches!(t[2], b'p' | b'o' | b'u' | b's' | b'r')
                && t[3] == b'_'
                && run(t, 4, alnum) >= 36
            {
                push!(4 + run(t, 4, alnum), "github-token");
            } else if let Some(n) = prefixed(b"github_pat_", word_char, 22) {
                push!(n, "github-token");
            } else if t.starts_with(b"gl")
                && let Some((n, kind)) = gitlab_or_grafana(t)
            {
                push!(n, kind);
            }
        }
        b'h' if matches!(second, b'f' | b'v' | b'o') => {
            if let Some(n) = prefixed(b"hf_", alnum, 30) {
                if mixed(&t[3..n]) {
                    push!(n, "huggingface-token");
                }
            } else if t.len() > 4
                && t.starts_with(b"hv")
                && matches!(t[2], b's' | b'b' | b'r')
                && t[3] == b'.'
            {
                // HashiCorp Vault service, batch and recovery tokens.
                let n = run(t, 4, b64url);
                if n >= 24 {
                    push!(4 + n, "vault-token");
                }
            } else if let Some((from, n, kind)) = urls::webhook(t) {
                found.push(Found {
                    start: i + from,
                    end: i + from + n,
                    kind,
                });
            }
        }
        // Mailgun's older keys: `key-` and 32 lower-case letters and digits.
        b'k' if t.starts_with(b"key-")
            && exact(t, 4, 32, alnum)
            && t[4..36].iter().any(u8::is_ascii_digit) =>
        {
            push!(36, "mailgun-key");
        }
        b'l' if second == b'i' => {
            if let Some(n) = prefixed(b"lin_api_", alnum, 40) {
                push!(n, "linear-key");
            }
        }
        b'n' if matches!(second, b'p' | b'f') => {
            if let Some(n) = prefixed(b"npm_", alnum, 36) {
                push!(n, "npm-token");
            } else if let Some(n) = prefixed(b"nfp_", alnum, 36) {
                push!(n, "netlify-token");
            }
        }
        b'p' if matches!(second, b'y' | b'k' | b'u') => {
            if let Some(n) = prefixed(b"pypi-AgE", b64url, 50) {
                push!(n, "pypi-token");
            } else if let Some(n) = stripe(t, b'p') {
                push!(n, "stripe-key");
            } else if let Some(n) = prefixed(b"pul-", hex, 40) {
                push!(n, "pulumi-token");
            }
        }
        b'r' if second == b'k' => {
            if let Some(n) = stripe(t, b'r') {
                push!(n, "stripe-key");
            }
        }
        b's' if matches!(second, b'k' | b'h' | b'q' | b'n' | b'b') => {
            if let Some(n) = prefixed(b"sk-ant-", b64url, 20) {
                push!(n, "anthropic-key");
            } else if let Some(n) = prefixed(b"sk-", b64url, 20) {
                if mixed(&t[3..n]) {
                    push!(n, "openai-key");
                }
            } else if let Some(n) = stripe(t, b's') {
                push!(n, "stripe-key");
            } else if t.starts_with(b"shp") && t.get(5) == Some(&b'_') {
                // Shopify: shpat_ (access), shpca_ (custom app), shppa_
                // (private app), shpss_ (shared secret).
                if matches!(&t[3..5], b"at" | b"ca" | b"pa" | b"ss") && run(t, 6, hex) >= 32 {
                    push!(6 + run(t, 6, hex), "shopify-token");
                }
            } else if let Some(n) = prefixed(b"sq0atp-", b64url, 22) {
                push!(n, "square-token");
            } else if let Some(n) = prefixed(b"sq0csp-", b64url, 40) {
                push!(n, "square-token");
            } else if let Some(n) = prefixed(b"sntrys_", |c| b64(c) || c == b'_', 40)
                .or_else(|| prefixed(b"sntryu_", hex, 64))
            {
                push!(n, "sentry-token");
            } else if let Some(n) = prefixed(b"sbp_", hex, 40) {
                push!(n, "supabase-token");
            }
        }
        b'w' if second == b'h' => {
            if let Some(n) = prefixed(b"whsec_", b64, 24) {
                push!(n, "stripe-key");
            }
        }
        b'x' if matches!(second, b'o' | b'a') => {
            if let Some(n) = slack(t) {
                push!(n, "slack-token");
            }
        }
        b'y' if second == b'a' => {
            if let Some(n) = prefixed(b"ya29.", b64url, 20) {
                push!(n, "google-oauth-token");
            }
        }
        b'e' if t.starts_with(b"eyJ") => {
            let h = run(t, 0, b64url);
            if h > 10 && t.get(h) == Some(&b'.') {
                let p = run(t, h + 1, b64url);
                if p > 10 && t.get(h + 1 + p) == Some(&b'.') {
                    let sig = run(t, h + 2 + p, b64url);
                    push!(h + 2 + p + sig, "jwt");
                }
            }
        }
        b'M' | b'N' | b'O' => {
            if let Some(n) = discord_bot(t) {
                push!(n, "discord-token");
            }
        }
        b'0'..=b'9' => {
            if let Some(n) = digits_first(t) {
                push!(n.0, n.1);
            }
        }
        _ => {}
    }
    if t.len() >= 37 && t[3].is_ascii_digit() && t[4] == b'Q' && t[5] == b'~' {
        // Azure AD client secrets: three characters, a digit, `Q~`.
        let mut n = run(t, 0, |c| {
            c.is_ascii_alphanumeric() || matches!(c, b'_' | b'~' | b'.' | b'-')
        });
        // A full stop after it ends the sentence.
        while t[n - 1] == b'.' {
            n -= 1;
        }
        if (34..=40).contains(&n) {
            push!(n, "azure-client-secret");
        }
    }
}

/// Exactly `len` bytes of `ok` from `from`, and no more.
fn exact(t: &[u8], from: usize, len: usize, ok: impl Fn(u8) -> bool) -> bool {
    run(t, from, &ok) == len && !t.get(from + len).is_some_and(|c| c.is_ascii_alphanumeric())
}

/// AWS access key ids: a four-letter kind and 16 base-32 characters. `A3T`
/// ids are the oldest kind.
fn is_aws_key_id(t: &[u8]) -> bool {
    const KINDS: [&[u8; 4]; 12] = [
        b"AKIA", b"ASIA", b"ABIA", b"ACCA", b"AGPA", b"AIDA", b"AIPA", b"ANPA", b"ANVA", b"APKA",
        b"AROA", b"ASCA",
    ];
    t.len() >= 20
        && (KINDS.iter().any(|k| t.starts_with(*k))
            || (t.starts_with(b"A3T") && t[3].is_ascii_alphanumeric()))
        && exact(t, 4, 16, |c| c.is_ascii_uppercase() || c.is_ascii_digit())
}

/// Where an AWS key id starts that ends right before `at` (but for up to
/// four separators): its secret may come next.
pub(super) fn aws_key_id_before(b: &[u8], at: usize) -> Option<usize> {
    let mut end = at;
    while end > 0
        && at - end < 4
        && matches!(
            b[end - 1],
            b':' | b',' | b' ' | b'\t' | b';' | b'|' | b'"' | b'\''
        )
    {
        end -= 1;
    }
    let start = end.checked_sub(20)?;
    let boundary = start == 0 || !b[start - 1].is_ascii_alphanumeric();
    (boundary && is_aws_key_id(&b[start..end])).then_some(start)
}

/// An AWS secret access key right after its key id (`AKIA…:secret`, the
/// `id,secret` of a credentials CSV): 40 base64 characters.
fn aws_secret_after(b: &[u8], mut i: usize, found: &mut Vec<Found>) {
    let start = i;
    while i < b.len()
        && i - start < 4
        && matches!(
            b[i],
            b':' | b',' | b' ' | b'\t' | b';' | b'|' | b'"' | b'\''
        )
    {
        i += 1;
    }
    if i == start {
        return;
    }
    let n = run(b, i, |c| {
        c.is_ascii_alphanumeric() || c == b'/' || c == b'+'
    });
    if n == 40 && mixed(&b[i..i + 40]) {
        found.push(Found {
            start: i,
            end: i + 40,
            kind: "aws-secret-key",
        });
    }
}

/// Stripe: `sk_`, `rk_` (restricted) or `pk_` (publishable), then `live_`,
/// `test_` or `prod_`.
fn stripe(t: &[u8], kind: u8) -> Option<usize> {
    if t.len() < 24 || t[0] != kind || &t[1..3] != b"k_" {
        return None;
    }
    let mode = [&b"live_"[..], b"test_", b"prod_"]
        .into_iter()
        .find(|m| t[3..].starts_with(m))?;
    let n = run(t, 3 + mode.len(), |c| c.is_ascii_alphanumeric());
    (n >= 16).then_some(3 + mode.len() + n)
}

/// Slack: bot, user, app-level, refresh and configuration tokens.
fn slack(t: &[u8]) -> Option<usize> {
    let body = |from: usize| run(t, from, |c| c.is_ascii_alphanumeric() || c == b'-');
    let start = if t.starts_with(b"xoxe.xox") { 5 } else { 0 };
    let rest = &t[start..];
    if rest.len() > 5
        && rest.starts_with(b"xox")
        && matches!(
            rest[3],
            b'b' | b'p' | b'a' | b'r' | b's' | b'e' | b'c' | b'o'
        )
        && rest[4] == b'-'
    {
        let n = body(start + 5);
        return (n >= 10).then_some(start + 5 + n);
    }
    if t.starts_with(b"xapp-") {
        let n = body(5);
        return (n >= 20).then_some(5 + n);
    }
    None
}

/// GitLab's prefixed tokens (personal, deploy, runner, trigger, feed, …) and
/// Grafana's (`glsa_` service accounts, `glc_` cloud), which share `gl`.
fn gitlab_or_grafana(t: &[u8]) -> Option<(usize, &'static str)> {
    const GITLAB: [&[u8]; 12] = [
        b"glpat-",
        b"gldt-",
        b"glrt-",
        b"glrtr-",
        b"glptt-",
        b"glsoat-",
        b"glft-",
        b"glimt-",
        b"glagent-",
        b"gloas-",
        b"glcbt-",
        b"glffct-",
    ];
    for p in GITLAB {
        if t.starts_with(p) {
            let n = run(t, p.len(), b64url);
            return (n >= 20).then_some((p.len() + n, "gitlab-token"));
        }
    }
    for p in [&b"glsa_"[..], b"glc_"] {
        if t.starts_with(p) {
            let n = run(t, p.len(), |c| b64url(c) || c == b'=');
            return (n >= 32 && mixed(&t[p.len()..p.len() + n]))
                .then_some((p.len() + n, "grafana-token"));
        }
    }
    None
}

/// Discord bot tokens: base64 of the bot's id, a timestamp, an HMAC.
fn discord_bot(t: &[u8]) -> Option<usize> {
    let id = run(t, 0, b64url);
    if !(23..=28).contains(&id) || t.get(id) != Some(&b'.') {
        return None;
    }
    let ts = run(t, id + 1, b64url);
    if !(6..=7).contains(&ts) || t.get(id + 1 + ts) != Some(&b'.') {
        return None;
    }
    let mac = run(t, id + 2 + ts, b64url);
    let n = id + 2 + ts + mac;
    ((27..=40).contains(&mac) && mixed(&t[..n])).then_some(n)
}

/// Formats that start with a digit: Telegram bot tokens (`123456789:AA…`),
/// Google OAuth refresh tokens (`1//0…`), Mailchimp keys (`<32 hex>-us12`).
fn digits_first(t: &[u8]) -> Option<(usize, &'static str)> {
    let digits = run(t, 0, |c| c.is_ascii_digit());
    if (8..=10).contains(&digits) && t.get(digits) == Some(&b':') {
        let n = run(t, digits + 1, b64url);
        if n == 35 {
            return Some((digits + 36, "telegram-token"));
        }
    }
    if t.starts_with(b"1//0") {
        let n = run(t, 4, b64url);
        if n >= 30 {
            return Some((4 + n, "google-oauth-token"));
        }
    }
    if t.len() >= 35 && &t[32..35] == b"-us" && t[..32].iter().all(|&c| hex(c)) {
        let n = run(t, 35, |c| c.is_ascii_digit());
        if (1..=2).contains(&n) {
            return Some((35 + n, "mailchimp-key"));
        }
    }
    None
}
