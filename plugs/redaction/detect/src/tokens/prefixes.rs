//! The vendor tokens that are a fixed prefix and a run of one kind of bytes
//! (`ghp_` and 36 letters or digits): one table, looked up by first byte.
//!
//! Stripe publishable keys (`pk_live_…`, `pk_test_…`) and Mapbox public
//! tokens (`pk.eyJ…`) are masked too: they are public by design, but they
//! name the account, and masking one costs only readability.

use crate::{b64, b64url, hex, mixed, run};

/// A token: `prefix`, then at least `min` bytes that satisfy `body` (at most
/// `max` of them are masked), with at least two of lower case, upper case
/// and digits among them when `mixed`.
struct Rule {
    prefix: &'static [u8],
    body: fn(u8) -> bool,
    min: usize,
    max: usize,
    mixed: bool,
    /// The run of `body` bytes must be exactly `min` long (`LTAI` and 20, not
    /// the start of a longer identifier).
    exact: bool,
    kind: &'static str,
}

const ANY: usize = usize::MAX;

const fn rule(prefix: &'static [u8], body: fn(u8) -> bool, min: usize, kind: &'static str) -> Rule {
    Rule {
        prefix,
        body,
        min,
        max: ANY,
        mixed: false,
        exact: false,
        kind,
    }
}

/// A rule whose body must look random (`sk-` is also how CSS classes start).
const fn random(
    prefix: &'static [u8],
    body: fn(u8) -> bool,
    min: usize,
    kind: &'static str,
) -> Rule {
    Rule {
        mixed: true,
        ..rule(prefix, body, min, kind)
    }
}

/// A rule whose body has a fixed length.
const fn fixed(
    prefix: &'static [u8],
    body: fn(u8) -> bool,
    len: usize,
    kind: &'static str,
) -> Rule {
    Rule {
        max: len,
        ..rule(prefix, body, len, kind)
    }
}

/// A rule for a short prefix whose body has a fixed length and looks random:
/// a longer run is an identifier that happens to start the same way.
const fn exact(
    prefix: &'static [u8],
    body: fn(u8) -> bool,
    len: usize,
    kind: &'static str,
) -> Rule {
    Rule {
        exact: true,
        mixed: true,
        ..fixed(prefix, body, len, kind)
    }
}

fn alnum(c: u8) -> bool {
    c.is_ascii_alphanumeric()
}
fn word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}
fn upper_digit(c: u8) -> bool {
    c.is_ascii_uppercase() || c.is_ascii_digit()
}
fn lower_hex(c: u8) -> bool {
    c.is_ascii_digit() || (b'a'..=b'f').contains(&c)
}
fn hex_dash(c: u8) -> bool {
    hex(c) || c == b'-'
}
fn alnum_dash(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-'
}
fn b64url_padded(c: u8) -> bool {
    b64url(c) || c == b'='
}
fn b64url_dotted(c: u8) -> bool {
    b64url(c) || c == b'.'
}
fn b64_word(c: u8) -> bool {
    b64(c) || c == b'_'
}

/// Sorted by first byte (a test checks it); a longer prefix before a
/// shorter one it starts with.
const RULES: &[Rule] = &[
    exact(b"4b1d", alnum, 38, "clickhouse-key"),
    rule(b"ABSK", b64, 109, "aws-bedrock-key"),
    exact(b"API-", upper_digit, 26, "octopus-key"),
    rule(b"AGE-SECRET-KEY-1", upper_digit, 50, "age-secret-key"),
    rule(b"ATATT", b64url_padded, 50, "atlassian-token"),
    rule(b"ATCTT", b64url_padded, 50, "atlassian-token"),
    rule(b"ATBB", alnum, 28, "atlassian-token"),
    rule(b"AKCp", alnum, 60, "jfrog-token"),
    rule(b"AQVN", b64url, 33, "yandex-key"),
    Rule {
        max: 35,
        ..rule(b"AIza", b64url, 35, "google-api-key")
    },
    fixed(b"AC", lower_hex, 32, "twilio-account-sid"),
    rule(b"CCIPAT_", b64url, 30, "circleci-token"),
    rule(b"CFPAT-", b64url, 40, "contentful-token"),
    rule(b"CLOJARS_", alnum, 50, "clojars-token"),
    rule(b"EZAK", alnum, 50, "easypost-key"),
    rule(b"EZTK", alnum, 50, "easypost-key"),
    random(b"EAAA", b64url, 60, "square-token"),
    random(b"EAA", alnum, 60, "facebook-token"),
    rule(b"FLWPUBK_TEST-", alnum_dash, 30, "flutterwave-key"),
    rule(b"FLWPUBK-", alnum_dash, 30, "flutterwave-key"),
    rule(b"FLWSECK_TEST-", alnum_dash, 30, "flutterwave-key"),
    rule(b"FLWSECK-", alnum_dash, 30, "flutterwave-key"),
    rule(b"GOCSPX-", b64url, 24, "google-oauth-secret"),
    rule(b"GR1348941", b64url, 20, "gitlab-token"),
    rule(b"HRKU-", b64url, 30, "heroku-key"),
    exact(b"LTAI", alnum, 20, "alibaba-key"),
    rule(b"NRAK-", upper_digit, 27, "newrelic-key"),
    rule(b"NRII-", b64url, 32, "newrelic-key"),
    rule(b"NRJS-", hex, 19, "newrelic-key"),
    rule(b"PMAK-", alnum_dash, 50, "postman-key"),
    fixed(b"SK", lower_hex, 32, "twilio-key"),
    // A JWT, base64-encoded once more (`eyJ` → `ZXlK`).
    random(b"ZXlK", b64, 80, "jwt"),
    rule(b"api_org_", alnum, 30, "huggingface-token"),
    rule(b"access-sandbox-", hex_dash, 36, "plaid-token"),
    rule(b"access-development-", hex_dash, 36, "plaid-token"),
    rule(b"access-production-", hex_dash, 36, "plaid-token"),
    rule(
        b"bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t",
        b64,
        20,
        "aws-bedrock-key",
    ),
    rule(b"bkua_", alnum, 40, "buildkite-token"),
    rule(b"cmVmdGtuOjAxOjE", b64url_padded, 40, "jfrog-token"),
    rule(b"dop_v1_", hex, 64, "digitalocean-token"),
    rule(b"doo_v1_", hex, 64, "digitalocean-token"),
    rule(b"dor_v1_", hex, 64, "digitalocean-token"),
    rule(b"dos_v1_", hex, 64, "digitalocean-token"),
    rule(b"dckr_pat_", b64url, 20, "docker-hub-token"),
    rule(b"dckr_oat_", b64url, 20, "docker-hub-token"),
    rule(b"dapi", hex_dash, 32, "databricks-token"),
    rule(b"dnkey-", alnum_dash, 40, "defined-networking-token"),
    rule(b"dp.st.", alnum, 40, "doppler-token"),
    rule(b"dp.pt.", alnum, 40, "doppler-token"),
    rule(b"dp.ct.", alnum, 40, "doppler-token"),
    rule(b"dp.sa.", alnum, 40, "doppler-token"),
    rule(b"dp.scim.", alnum, 40, "doppler-token"),
    rule(b"dp.audit.", alnum, 40, "doppler-token"),
    rule(b"dt0c01.", b64url_dotted, 80, "dynatrace-token"),
    rule(b"duffel_test_", b64url, 40, "duffel-token"),
    rule(b"duffel_live_", b64url, 40, "duffel-token"),
    rule(b"fio-u-", b64url, 60, "frameio-token"),
    rule(b"figd_", b64url, 40, "figma-token"),
    rule(b"fm1a_", b64, 100, "fly-token"),
    rule(b"fm1r_", b64, 100, "fly-token"),
    rule(b"fm2_", b64url_padded, 50, "fly-token"),
    rule(b"fo1_", b64url, 40, "fly-token"),
    rule(b"github_pat_", word, 22, "github-token"),
    rule(b"ghp_", alnum, 36, "github-token"),
    rule(b"gho_", alnum, 36, "github-token"),
    rule(b"ghu_", alnum, 36, "github-token"),
    rule(b"ghs_", alnum, 36, "github-token"),
    rule(b"ghr_", alnum, 36, "github-token"),
    rule(b"glpat-", b64url_dotted, 20, "gitlab-token"),
    rule(b"gldt-", b64url, 20, "gitlab-token"),
    rule(b"glrt-", b64url_dotted, 20, "gitlab-token"),
    rule(b"glrtr-", b64url, 20, "gitlab-token"),
    rule(b"glptt-", b64url, 20, "gitlab-token"),
    rule(b"glsoat-", b64url, 20, "gitlab-token"),
    rule(b"glft-", b64url, 20, "gitlab-token"),
    rule(b"glimt-", b64url, 20, "gitlab-token"),
    rule(b"glagent-", b64url, 20, "gitlab-token"),
    rule(b"gloas-", b64url, 20, "gitlab-token"),
    rule(b"glcbt-", b64url, 20, "gitlab-token"),
    rule(b"glffct-", b64url, 20, "gitlab-token"),
    random(b"glsa_", b64url_padded, 32, "grafana-token"),
    random(b"glc_", b64url_padded, 32, "grafana-token"),
    rule(b"gsk_", alnum, 48, "groq-key"),
    random(b"hf_", alnum, 30, "huggingface-token"),
    rule(b"hvs.", b64url, 24, "vault-token"),
    rule(b"hvb.", b64url, 24, "vault-token"),
    rule(b"hvr.", b64url, 24, "vault-token"),
    rule(b"ico-", alnum, 32, "infracost-key"),
    Rule {
        max: 32,
        mixed: true,
        ..rule(b"key-", alnum, 32, "mailgun-key")
    },
    rule(b"lin_api_", alnum, 40, "linear-key"),
    rule(b"lsv2_pt_", word, 32, "langsmith-key"),
    rule(b"lsv2_sk_", word, 32, "langsmith-key"),
    rule(b"npm_", alnum, 36, "npm-token"),
    rule(b"nfp_", alnum, 36, "netlify-token"),
    rule(b"napi_", alnum, 60, "neon-key"),
    rule(b"ntn_", alnum, 40, "notion-token"),
    rule(b"ops_eyJ", b64url_dotted, 100, "1password-token"),
    rule(b"pypi-AgE", b64url, 50, "pypi-token"),
    rule(b"pk_live_", alnum, 16, "stripe-key"),
    rule(b"pk_test_", alnum, 16, "stripe-key"),
    rule(b"pk.eyJ", b64url_dotted, 40, "mapbox-token"),
    fixed(b"pubkey-", hex, 32, "mailgun-key"),
    rule(b"pul-", hex, 40, "pulumi-token"),
    rule(b"pscale_tkn_", b64url, 32, "planetscale-token"),
    rule(b"pscale_pw_", b64url, 32, "planetscale-token"),
    rule(b"pscale_oauth_", b64url, 32, "planetscale-token"),
    rule(b"pnu_", alnum, 36, "prefect-key"),
    rule(b"pplx-", alnum, 40, "perplexity-key"),
    rule(b"pcsk_", b64url, 40, "pinecone-key"),
    rule(b"p8e-", alnum, 32, "adobe-secret"),
    rule(b"rk_live_", alnum, 16, "stripe-key"),
    rule(b"rk_test_", alnum, 16, "stripe-key"),
    rule(b"rk_prod_", alnum, 16, "stripe-key"),
    rule(b"rubygems_", hex, 48, "rubygems-key"),
    rule(b"rdme_", alnum, 60, "readme-key"),
    rule(b"rnd_", alnum, 30, "render-key"),
    rule(b"r8_", alnum, 36, "replicate-token"),
    rule(b"s-s4t2ud-", hex, 64, "intra42-secret"),
    rule(b"s-s4t2af-", hex, 64, "intra42-secret"),
    rule(b"sk-ant-", b64url, 20, "anthropic-key"),
    random(b"sk-", b64url, 20, "openai-key"),
    rule(b"sk_live_", alnum, 16, "stripe-key"),
    rule(b"sk_test_", alnum, 16, "stripe-key"),
    rule(b"sk_prod_", alnum, 16, "stripe-key"),
    rule(b"sk.eyJ", b64url_dotted, 40, "mapbox-token"),
    rule(b"sha256~", b64url, 43, "openshift-token"),
    rule(b"shpat_", hex, 32, "shopify-token"),
    rule(b"shpca_", hex, 32, "shopify-token"),
    rule(b"shppa_", hex, 32, "shopify-token"),
    rule(b"shpss_", hex, 32, "shopify-token"),
    rule(b"shippo_live_", hex, 40, "shippo-token"),
    rule(b"shippo_test_", hex, 40, "shippo-token"),
    rule(b"sgp_", word, 40, "sourcegraph-token"),
    exact(b"sm_aat_", alnum, 16, "settlemint-token"),
    exact(b"sm_pat_", alnum, 16, "settlemint-token"),
    exact(b"sm_sat_", alnum, 16, "settlemint-token"),
    rule(b"sq0atp-", b64url, 22, "square-token"),
    rule(b"sq0csp-", b64url, 40, "square-token"),
    rule(b"squ_", hex, 40, "sonarqube-token"),
    rule(b"sqp_", hex, 40, "sonarqube-token"),
    rule(b"sqa_", hex, 40, "sonarqube-token"),
    rule(b"sntrys_", b64_word, 40, "sentry-token"),
    rule(b"sntryu_", hex, 64, "sentry-token"),
    rule(b"sbp_", hex, 40, "supabase-token"),
    rule(b"sb_secret_", b64url, 30, "supabase-token"),
    random(b"sl.", b64url, 100, "dropbox-token"),
    rule(b"tskey-auth-", b64url, 20, "tailscale-key"),
    rule(b"tskey-api-", b64url, 20, "tailscale-key"),
    rule(b"tskey-client-", b64url, 20, "tailscale-key"),
    rule(b"tk-us-", b64url, 48, "scalingo-token"),
    rule(b"tfp_", b64url, 40, "typeform-token"),
    rule(b"v1.0-", hex_dash, 100, "cloudflare-key"),
    rule(b"whsec_", b64, 24, "stripe-key"),
    rule(b"xoxe.xoxp-", alnum_dash, 10, "slack-token"),
    rule(b"xoxe.xoxb-", alnum_dash, 10, "slack-token"),
    rule(b"xoxb-", alnum_dash, 10, "slack-token"),
    rule(b"xoxp-", alnum_dash, 10, "slack-token"),
    rule(b"xoxa-", alnum_dash, 10, "slack-token"),
    rule(b"xoxr-", alnum_dash, 10, "slack-token"),
    rule(b"xoxs-", alnum_dash, 10, "slack-token"),
    rule(b"xoxe-", alnum_dash, 10, "slack-token"),
    rule(b"xoxc-", alnum_dash, 10, "slack-token"),
    rule(b"xoxo-", alnum_dash, 10, "slack-token"),
    rule(b"xapp-", alnum_dash, 20, "slack-token"),
    rule(b"xkeysib-", alnum_dash, 64, "brevo-key"),
    rule(b"xai-", alnum, 60, "xai-key"),
    rule(b"ya29.", b64url, 20, "google-oauth-token"),
];

/// Where each first byte's rules start in [`RULES`] (and end, at the next
/// byte's start).
const fn index() -> [u8; 257] {
    let mut t = [0u8; 257];
    let mut c = 0;
    let mut i = 0;
    while c < 257 {
        while i < RULES.len() && (RULES[i].prefix[0] as usize) < c {
            i += 1;
        }
        t[c] = i as u8;
        c += 1;
    }
    t
}

static INDEX: [u8; 257] = index();

/// Per first byte: the second bytes of its rules, as bits `second % 64`.
const fn seconds() -> [u64; 256] {
    let mut t = [0u64; 256];
    let mut i = 0;
    while i < RULES.len() {
        let p = RULES[i].prefix;
        t[p[0] as usize] |= 1 << (p[1] % 64);
        i += 1;
    }
    t
}

static SECONDS: [u64; 256] = seconds();

/// The token of a table rule at the start of `t`: its length and kind.
#[inline]
pub(super) fn at(t: &[u8]) -> Option<(usize, &'static str)> {
    let first = *t.first()? as usize;
    let second = *t.get(1)?;
    // Most words start with a letter some prefix starts with: the second
    // byte turns most of them away before a prefix is compared.
    if SECONDS[first] & (1 << (second % 64)) == 0 {
        return None;
    }
    for r in &RULES[INDEX[first] as usize..INDEX[first + 1] as usize] {
        if r.prefix[1] != second || !t.starts_with(r.prefix) {
            continue;
        }
        let mut n = run(t, r.prefix.len(), r.body);
        // A full stop after a dotted token ends the sentence.
        while n > 0 && t[r.prefix.len() + n - 1] == b'.' {
            n -= 1;
        }
        if n < r.min || (r.exact && n != r.min) {
            continue;
        }
        let n = n.min(r.max);
        let body = &t[r.prefix.len()..r.prefix.len() + n];
        if r.mixed && !mixed(body) {
            continue;
        }
        return Some((r.prefix.len() + n, r.kind));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_sorted_by_first_byte_and_longer_prefixes_come_first() {
        for (i, a) in RULES.iter().enumerate() {
            assert!(a.prefix.len() >= 2, "{:?}", a.prefix);
            for b in &RULES[i + 1..] {
                assert!(a.prefix[0] <= b.prefix[0], "{:?} {:?}", a.prefix, b.prefix);
                assert!(
                    !b.prefix.starts_with(a.prefix) || b.prefix == a.prefix,
                    "{:?} hides {:?}",
                    a.prefix,
                    b.prefix
                );
            }
        }
    }
}
