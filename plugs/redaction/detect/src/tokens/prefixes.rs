//! The vendor tokens that are a fixed prefix and a run of one kind of bytes
//! (`ghp_` and 36 letters or digits): one table, looked up by first byte.
//!
//! Stripe publishable keys (`pk_live_…`, `pk_test_…`) and Mapbox public
//! tokens (`pk.eyJ…`) are masked too: they are public by design, but they
//! name the account, and masking one costs only readability. So are Google
//! API keys (`AIza…`) in a web app's Firebase config: a browser's key and a
//! server's have one format, and only the key's restrictions, which the text
//! does not show, tell them apart ([`public_by_design`]).

use crate::{b64, b64url, hex, mixed, run};

/// A token: `prefix`, then at least `min` bytes that satisfy `body` (at most
/// `max` of them are masked), with at least two of lower case, upper case
/// and digits among them when `mixed`.
struct Rule {
    prefix: &'static [u8],
    body: &'static [bool; 256],
    min: usize,
    max: usize,
    mixed: bool,
    /// The run of `body` bytes must be exactly `min` long (`LTAI` and 20, not
    /// the start of a longer identifier).
    exact: bool,
    /// The whole token's own check (a checksum the format carries).
    valid: fn(&[u8]) -> bool,
    kind: &'static str,
}

fn any_token(_: &[u8]) -> bool {
    true
}

const ANY: usize = usize::MAX;

const fn rule(
    prefix: &'static [u8],
    body: &'static [bool; 256],
    min: usize,
    kind: &'static str,
) -> Rule {
    Rule {
        prefix,
        body,
        min,
        max: ANY,
        mixed: false,
        exact: false,
        valid: any_token,
        kind,
    }
}

/// A rule whose body must look random (`sk-` is also how CSS classes start).
const fn random(
    prefix: &'static [u8],
    body: &'static [bool; 256],
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
    body: &'static [bool; 256],
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
    body: &'static [bool; 256],
    len: usize,
    kind: &'static str,
) -> Rule {
    Rule {
        exact: true,
        mixed: true,
        ..fixed(prefix, body, len, kind)
    }
}

/// A NATS NKEY seed (`SU…`, `SA…`, `SO…`; 58 bytes of base32): its
/// CRC-16 checks, as `nkeys` writes it.
const fn nkey_seed(prefix: &'static [u8]) -> Rule {
    Rule {
        valid: super::checksums::nkey,
        ..fixed(prefix, &BASE32, 56, "nats-nkey-seed")
    }
}

/// A Slack token: after its prefix, groups joined by `-`, the first a
/// number (a team's or an app's id, or a version: `xoxb-1234…-…`,
/// `xoxe.xoxp-1-…`); `xoxb-not-a-real-token` is a fixture's name.
const fn slack(prefix: &'static [u8]) -> Rule {
    Rule {
        valid: super::checksums::slack_groups,
        ..rule(prefix, &ALNUM_DASH, 10, "slack-token")
    }
}

/// Which bytes a body may hold, one table per kind: a lookup per byte, where
/// a function pointer would be a call per byte in the plug.
macro_rules! bytes {
    ($name:ident, $c:ident => $test:expr) => {
        static $name: [bool; 256] = {
            let mut t = [false; 256];
            let mut i = 0;
            while i < 256 {
                let $c = i as u8;
                t[i] = $test;
                i += 1;
            }
            t
        };
    };
}

bytes!(ALNUM, c => c.is_ascii_alphanumeric());
bytes!(BASE32, c => c.is_ascii_uppercase() || matches!(c, b'2'..=b'7'));
bytes!(WORD, c => c.is_ascii_alphanumeric() || c == b'_');
bytes!(UPPER_DIGIT, c => c.is_ascii_uppercase() || c.is_ascii_digit());
bytes!(LOWER_HEX, c => c.is_ascii_digit() || matches!(c, b'a'..=b'f'));
bytes!(HEX, c => hex(c));
bytes!(HEX_DASH, c => hex(c) || c == b'-');
bytes!(ALNUM_DASH, c => c.is_ascii_alphanumeric() || c == b'-');
bytes!(B64, c => b64(c));
bytes!(B64URL, c => b64url(c));
bytes!(B64URL_PADDED, c => b64url(c) || c == b'=');
bytes!(B64URL_DOTTED, c => b64url(c) || c == b'.');
bytes!(B64_WORD, c => b64(c) || c == b'_');

/// Sorted by first byte (a test checks it); a longer prefix before a
/// shorter one it starts with.
const RULES: &[Rule] = &[
    exact(b"4b1d", &ALNUM, 38, "clickhouse-key"),
    rule(b"ABSK", &B64, 109, "aws-bedrock-key"),
    exact(b"API-", &UPPER_DIGIT, 26, "octopus-key"),
    rule(b"AGE-SECRET-KEY-1", &UPPER_DIGIT, 50, "age-secret-key"),
    rule(b"ATATT", &B64URL_PADDED, 50, "atlassian-token"),
    rule(b"ATCTT", &B64URL_PADDED, 50, "atlassian-token"),
    rule(b"ATBB", &ALNUM, 28, "atlassian-token"),
    rule(b"AKCp", &ALNUM, 60, "jfrog-token"),
    rule(b"AQVN", &B64URL, 33, "yandex-key"),
    Rule {
        max: 35,
        ..rule(b"AIza", &B64URL, 35, "google-api-key")
    },
    rule(b"CCIPAT_", &B64URL, 30, "circleci-token"),
    rule(b"CFPAT-", &B64URL, 40, "contentful-token"),
    rule(b"CLOJARS_", &ALNUM, 50, "clojars-token"),
    rule(b"EZAK", &ALNUM, 50, "easypost-key"),
    rule(b"EZTK", &ALNUM, 50, "easypost-key"),
    random(b"EAAA", &B64URL, 60, "square-token"),
    random(b"EAA", &ALNUM, 60, "facebook-token"),
    rule(b"FLWPUBK_TEST-", &ALNUM_DASH, 30, "flutterwave-key"),
    rule(b"FLWPUBK-", &ALNUM_DASH, 30, "flutterwave-key"),
    rule(b"FLWSECK_TEST-", &ALNUM_DASH, 30, "flutterwave-key"),
    rule(b"FLWSECK-", &ALNUM_DASH, 30, "flutterwave-key"),
    rule(b"GOCSPX-", &B64URL, 24, "google-oauth-secret"),
    rule(b"GR1348941", &B64URL, 20, "gitlab-token"),
    rule(b"HRKU-", &B64URL, 30, "heroku-key"),
    exact(b"LTAI", &ALNUM, 20, "alibaba-key"),
    rule(b"NRAK-", &UPPER_DIGIT, 27, "newrelic-key"),
    rule(b"NRII-", &B64URL, 32, "newrelic-key"),
    rule(b"NRJS-", &HEX, 19, "newrelic-key"),
    // Jetty's obfuscated password (`OBF:1x8x1…`, realm files, `jetty.xml`):
    // undone by anyone with Jetty's `Password` class.
    rule(b"OBF:", &ALNUM, 12, "jetty-password"),
    rule(b"PMAK-", &ALNUM_DASH, 50, "postman-key"),
    fixed(b"SK", &LOWER_HEX, 32, "twilio-key"),
    nkey_seed(b"SU"),
    nkey_seed(b"SA"),
    nkey_seed(b"SO"),
    nkey_seed(b"SN"),
    nkey_seed(b"SC"),
    nkey_seed(b"SX"),
    // A JWT, base64-encoded once more (`eyJ` → `ZXlK`).
    random(b"ZXlK", &B64, 80, "jwt"),
    rule(b"api_org_", &ALNUM, 30, "huggingface-token"),
    rule(b"access-sandbox-", &HEX_DASH, 36, "plaid-token"),
    rule(b"access-development-", &HEX_DASH, 36, "plaid-token"),
    rule(b"access-production-", &HEX_DASH, 36, "plaid-token"),
    rule(
        b"bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t",
        &B64,
        20,
        "aws-bedrock-key",
    ),
    rule(b"bkua_", &ALNUM, 40, "buildkite-token"),
    rule(b"cmVmdGtuOjAxOjE", &B64URL_PADDED, 40, "jfrog-token"),
    random(b"csk-", &ALNUM, 40, "cerebras-key"),
    rule(b"dop_v1_", &HEX, 64, "digitalocean-token"),
    rule(b"doo_v1_", &HEX, 64, "digitalocean-token"),
    rule(b"dor_v1_", &HEX, 64, "digitalocean-token"),
    rule(b"dos_v1_", &HEX, 64, "digitalocean-token"),
    rule(b"dckr_pat_", &B64URL, 20, "docker-hub-token"),
    rule(b"dckr_oat_", &B64URL, 20, "docker-hub-token"),
    rule(b"dapi", &HEX_DASH, 32, "databricks-token"),
    rule(b"dnkey-", &ALNUM_DASH, 40, "defined-networking-token"),
    rule(b"dp.st.", &ALNUM, 40, "doppler-token"),
    rule(b"dp.pt.", &ALNUM, 40, "doppler-token"),
    rule(b"dp.ct.", &ALNUM, 40, "doppler-token"),
    rule(b"dp.sa.", &ALNUM, 40, "doppler-token"),
    rule(b"dp.scim.", &ALNUM, 40, "doppler-token"),
    rule(b"dp.audit.", &ALNUM, 40, "doppler-token"),
    rule(b"dt0c01.", &B64URL_DOTTED, 80, "dynatrace-token"),
    rule(b"duffel_test_", &B64URL, 40, "duffel-token"),
    rule(b"duffel_live_", &B64URL, 40, "duffel-token"),
    rule(b"fio-u-", &B64URL, 60, "frameio-token"),
    rule(b"figd_", &B64URL, 40, "figma-token"),
    rule(b"fm1a_", &B64, 100, "fly-token"),
    rule(b"fm1r_", &B64, 100, "fly-token"),
    rule(b"fm2_", &B64URL_PADDED, 50, "fly-token"),
    rule(b"fo1_", &B64URL, 40, "fly-token"),
    rule(b"github_pat_", &WORD, 22, "github-token"),
    rule(b"ghp_", &ALNUM, 36, "github-token"),
    rule(b"gho_", &ALNUM, 36, "github-token"),
    rule(b"ghu_", &ALNUM, 36, "github-token"),
    rule(b"ghs_", &ALNUM, 36, "github-token"),
    rule(b"ghr_", &ALNUM, 36, "github-token"),
    rule(b"glpat-", &B64URL_DOTTED, 20, "gitlab-token"),
    rule(b"gldt-", &B64URL, 20, "gitlab-token"),
    rule(b"glrt-", &B64URL_DOTTED, 20, "gitlab-token"),
    rule(b"glrtr-", &B64URL, 20, "gitlab-token"),
    rule(b"glptt-", &B64URL, 20, "gitlab-token"),
    rule(b"glsoat-", &B64URL, 20, "gitlab-token"),
    rule(b"glft-", &B64URL, 20, "gitlab-token"),
    rule(b"glimt-", &B64URL, 20, "gitlab-token"),
    rule(b"glagent-", &B64URL, 20, "gitlab-token"),
    rule(b"gloas-", &B64URL, 20, "gitlab-token"),
    rule(b"glcbt-", &B64URL, 20, "gitlab-token"),
    rule(b"glffct-", &B64URL, 20, "gitlab-token"),
    random(b"glsa_", &B64URL_PADDED, 32, "grafana-token"),
    random(b"glc_", &B64URL_PADDED, 32, "grafana-token"),
    rule(b"gsk_", &ALNUM, 48, "groq-key"),
    random(b"hf_", &ALNUM, 30, "huggingface-token"),
    rule(b"hvs.", &B64URL, 24, "vault-token"),
    rule(b"hvb.", &B64URL, 24, "vault-token"),
    rule(b"hvr.", &B64URL, 24, "vault-token"),
    rule(b"ico-", &ALNUM, 32, "infracost-key"),
    Rule {
        max: 32,
        mixed: true,
        ..rule(b"key-", &ALNUM, 32, "mailgun-key")
    },
    rule(b"lin_api_", &ALNUM, 40, "linear-key"),
    rule(b"lin_oauth_", &HEX, 64, "linear-key"),
    rule(b"lsv2_pt_", &WORD, 32, "langsmith-key"),
    rule(b"lsv2_sk_", &WORD, 32, "langsmith-key"),
    rule(b"mlsn.", &HEX, 64, "mailersend-token"),
    rule(b"nvapi-", &B64URL, 60, "nvidia-key"),
    rule(b"npm_", &ALNUM, 36, "npm-token"),
    rule(b"nfp_", &ALNUM, 36, "netlify-token"),
    rule(b"napi_", &ALNUM, 60, "neon-key"),
    rule(b"ntn_", &ALNUM, 40, "notion-token"),
    rule(b"ops_eyJ", &B64URL_DOTTED, 100, "1password-token"),
    // Ory's (Hydra's and Ory Network's) access, refresh and authorization
    // code tokens (`ory_at_….…`), API keys and session tokens.
    rule(b"ory_ac_", &B64URL_DOTTED, 40, "ory-token"),
    rule(b"ory_at_", &B64URL_DOTTED, 40, "ory-token"),
    rule(b"ory_pat_", &ALNUM, 24, "ory-token"),
    rule(b"ory_rt_", &B64URL_DOTTED, 40, "ory-token"),
    rule(b"ory_st_", &ALNUM, 24, "ory-token"),
    rule(b"pypi-AgE", &B64URL, 50, "pypi-token"),
    rule(b"pk_live_", &ALNUM, 16, "stripe-key"),
    rule(b"pk_test_", &ALNUM, 16, "stripe-key"),
    rule(b"pk.eyJ", &B64URL_DOTTED, 40, "mapbox-token"),
    fixed(b"pubkey-", &HEX, 32, "mailgun-key"),
    rule(b"pul-", &HEX, 40, "pulumi-token"),
    rule(b"pscale_tkn_", &B64URL, 32, "planetscale-token"),
    rule(b"pscale_pw_", &B64URL, 32, "planetscale-token"),
    rule(b"pscale_oauth_", &B64URL, 32, "planetscale-token"),
    rule(b"pnu_", &ALNUM, 36, "prefect-key"),
    rule(b"pplx-", &ALNUM, 40, "perplexity-key"),
    rule(b"pcsk_", &B64URL, 40, "pinecone-key"),
    rule(b"p8e-", &ALNUM, 32, "adobe-secret"),
    rule(b"rk_live_", &ALNUM, 16, "stripe-key"),
    rule(b"rk_test_", &ALNUM, 16, "stripe-key"),
    rule(b"rk_prod_", &ALNUM, 16, "stripe-key"),
    random(b"re_", &WORD, 30, "resend-key"),
    rule(b"rubygems_", &HEX, 48, "rubygems-key"),
    rule(b"rdme_", &ALNUM, 60, "readme-key"),
    rule(b"rnd_", &ALNUM, 30, "render-key"),
    rule(b"r8_", &ALNUM, 36, "replicate-token"),
    rule(b"s-s4t2ud-", &HEX, 64, "intra42-secret"),
    rule(b"s-s4t2af-", &HEX, 64, "intra42-secret"),
    exact(b"secret_", &ALNUM, 43, "notion-token"),
    rule(b"sk-ant-", &B64URL, 20, "anthropic-key"),
    random(b"sk-", &B64URL, 20, "openai-key"),
    rule(b"sk_live_", &ALNUM, 16, "stripe-key"),
    rule(b"sk_test_", &ALNUM, 16, "stripe-key"),
    rule(b"sk_prod_", &ALNUM, 16, "stripe-key"),
    rule(b"sk.eyJ", &B64URL_DOTTED, 40, "mapbox-token"),
    rule(b"sha256~", &B64URL, 43, "openshift-token"),
    rule(b"shpat_", &HEX, 32, "shopify-token"),
    rule(b"shpca_", &HEX, 32, "shopify-token"),
    rule(b"shppa_", &HEX, 32, "shopify-token"),
    rule(b"shpss_", &HEX, 32, "shopify-token"),
    rule(b"shippo_live_", &HEX, 40, "shippo-token"),
    rule(b"shippo_test_", &HEX, 40, "shippo-token"),
    rule(b"sgp_", &WORD, 40, "sourcegraph-token"),
    exact(b"sm_aat_", &ALNUM, 16, "settlemint-token"),
    exact(b"sm_pat_", &ALNUM, 16, "settlemint-token"),
    exact(b"sm_sat_", &ALNUM, 16, "settlemint-token"),
    rule(b"sq0atp-", &B64URL, 22, "square-token"),
    rule(b"sq0csp-", &B64URL, 40, "square-token"),
    rule(b"squ_", &HEX, 40, "sonarqube-token"),
    rule(b"sqp_", &HEX, 40, "sonarqube-token"),
    rule(b"sqa_", &HEX, 40, "sonarqube-token"),
    rule(b"sntrys_", &B64_WORD, 40, "sentry-token"),
    rule(b"sntryu_", &HEX, 64, "sentry-token"),
    rule(b"sbp_", &HEX, 40, "supabase-token"),
    rule(b"sb_secret_", &B64URL, 30, "supabase-token"),
    random(b"sl.", &B64URL, 100, "dropbox-token"),
    rule(b"tvly-", &B64URL, 30, "tavily-key"),
    rule(b"tskey-auth-", &B64URL, 20, "tailscale-key"),
    rule(b"tskey-api-", &B64URL, 20, "tailscale-key"),
    rule(b"tskey-client-", &B64URL, 20, "tailscale-key"),
    rule(b"tk-us-", &B64URL, 48, "scalingo-token"),
    rule(b"tfp_", &B64URL, 40, "typeform-token"),
    rule(b"v1.0-", &HEX_DASH, 100, "cloudflare-key"),
    rule(b"whsec_", &B64, 24, "stripe-key"),
    slack(b"xoxe.xoxp-"),
    slack(b"xoxe.xoxb-"),
    slack(b"xoxb-"),
    slack(b"xoxp-"),
    slack(b"xoxa-"),
    slack(b"xoxr-"),
    slack(b"xoxs-"),
    slack(b"xoxe-"),
    slack(b"xoxc-"),
    slack(b"xoxo-"),
    rule(b"xapp-", &ALNUM_DASH, 20, "slack-token"),
    rule(b"xkeysib-", &ALNUM_DASH, 64, "brevo-key"),
    // Brevo's SMTP key: 64 hex, `-`, 16 letters and digits.
    rule(b"xsmtpsib-", &ALNUM_DASH, 64, "brevo-key"),
    rule(b"xai-", &ALNUM, 60, "xai-key"),
    rule(b"ya29.", &B64URL, 20, "google-oauth-token"),
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

/// Whether a masked `token` is one of the keys that are public by design
/// but masked on purpose (the README says which): a page's Stripe or Clerk
/// publishable key, a Mapbox public token, a Google API key. Scores do not
/// count masking them as a false positive.
pub fn public_by_design(token: &str) -> bool {
    ["pk_live_", "pk_test_", "pk.eyJ", "AIza"]
        .iter()
        .any(|p| token.starts_with(p))
}

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
        if r.prefix[1] != second || !crate::starts(&t[2..], &r.prefix[2..]) {
            continue;
        }
        let mut n = run(t, r.prefix.len(), |c| r.body[c as usize]);
        // A full stop after a dotted token ends the sentence.
        while n > 0 && t[r.prefix.len() + n - 1] == b'.' {
            n -= 1;
        }
        if n < r.min || (r.exact && n != r.min) {
            continue;
        }
        let n = n.min(r.max);
        let body = &t[r.prefix.len()..r.prefix.len() + n];
        if (r.mixed && !mixed(body)) || !(r.valid)(&t[..r.prefix.len() + n]) {
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
