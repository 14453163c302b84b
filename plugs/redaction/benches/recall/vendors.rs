//! Vendor secrets, shaped as their documentation describes them (prefix,
//! length, alphabet, checksum where there is one). Each is random: none is a
//! real credential.

use super::rng::*;

/// Around the planted secret inside a value, so that contexts can encode the
/// value and still say where the secret ended up.
pub const OPEN: char = '\u{E000}';
pub const CLOSE: char = '\u{E001}';

/// A value to plant: `before` + secret + `after`.
pub struct Secret {
    pub before: String,
    pub secret: String,
    pub after: String,
    /// What a config or the environment calls it (`GITHUB_TOKEN`).
    pub name: &'static str,
    /// Several lines, or a whole file: only contexts that carry a file.
    pub block: bool,
}

impl Secret {
    fn token(secret: String, name: &'static str) -> Secret {
        Secret {
            before: String::new(),
            secret,
            after: String::new(),
            name,
            block: false,
        }
    }

    fn within(before: String, secret: String, after: String, name: &'static str) -> Secret {
        Secret {
            before,
            secret,
            after,
            name,
            block: false,
        }
    }

    fn file(before: String, secret: String, after: String, name: &'static str) -> Secret {
        Secret {
            before,
            secret,
            after,
            name,
            block: true,
        }
    }

    /// The value with the secret between `OPEN` and `CLOSE`.
    pub fn marked(&self) -> String {
        format!("{}{OPEN}{}{CLOSE}{}", self.before, self.secret, self.after)
    }
}

pub type Gen = fn(&mut Rng) -> Secret;

/// Vendor name and generator.
pub const VENDORS: &[(&str, Gen)] = &[
    ("aws-access-key-id", aws_key_id),
    ("aws-secret-access-key", aws_secret),
    ("github-classic", github_classic),
    ("github-fine-grained", github_fine_grained),
    ("gitlab-pat", gitlab),
    ("slack-bot", slack_bot),
    ("slack-user", slack_user),
    ("slack-webhook", slack_webhook),
    ("stripe-secret", stripe),
    ("openai", openai),
    ("anthropic", anthropic),
    ("google-api-key", google_api_key),
    ("gcp-service-account", gcp_service_account),
    ("sendgrid", sendgrid),
    ("npm", npm),
    ("pypi", pypi),
    ("dockerhub-pat", dockerhub),
    ("huggingface", huggingface),
    ("linear", linear),
    ("digitalocean", digitalocean),
    ("shopify", shopify),
    ("telegram-bot", telegram),
    ("twilio-api-key", twilio),
    ("age-secret-key", age),
    ("azure-storage-key", azure_storage),
    ("jwt", jwt),
    ("pem-private-key", pem_private_key),
    ("postgres-url", postgres_url),
    ("mongodb-url", mongodb_url),
    ("mailgun", mailgun),
    ("atlassian", atlassian),
    ("vault", vault),
    ("groq", groq),
    ("heroku", heroku),
];

fn aws_key_id(r: &mut Rng) -> Secret {
    let prefix = *r.pick(&["AKIA", "AKIA", "AKIA", "ASIA", "AROA", "AIDA"]);
    Secret::token(
        format!("{prefix}{}", r.chars(UPPER32, 16)),
        "AWS_ACCESS_KEY_ID",
    )
}

fn aws_secret(r: &mut Rng) -> Secret {
    let secret = r.chars(B64, 40);
    let id = format!("AKIA{}", r.chars(UPPER32, 16));
    match r.below(3) {
        0 => Secret::file(
            format!(
                "{{\n    \"Credentials\": {{\n        \"AccessKeyId\": \"ASIA{}\",\n        \"SecretAccessKey\": \"",
                r.chars(UPPER32, 16)
            ),
            secret,
            format!(
                "\",\n        \"SessionToken\": \"IQoJb3JpZ2luX2VjE{}\",\n        \"Expiration\": \"2026-12-01T07:14:09+00:00\"\n    }},\n    \"AssumedRoleUser\": {{\n        \"Arn\": \"arn:aws:sts::{}:assumed-role/deploy/ci\"\n    }}\n}}\n",
                r.chars(B64, 120),
                r.chars(DIGITS, 12)
            ),
            "AWS_SECRET_ACCESS_KEY",
        ),
        1 => Secret::file(
            format!("[default]\naws_access_key_id = {id}\naws_secret_access_key = "),
            secret,
            "\nregion = eu-west-1\n".into(),
            "AWS_SECRET_ACCESS_KEY",
        ),
        _ => Secret::token(secret, "AWS_SECRET_ACCESS_KEY"),
    }
}

fn github_classic(r: &mut Rng) -> Secret {
    let prefix = *r.pick(&["ghp_", "ghp_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_"]);
    let body = r.chars(ALNUM, 30);
    let sum = base62(crc32(body.as_bytes()), 6);
    Secret::token(format!("{prefix}{body}{sum}"), "GITHUB_TOKEN")
}

fn github_fine_grained(r: &mut Rng) -> Secret {
    Secret::token(
        format!(
            "github_pat_11{}_{}",
            r.chars(UPPER_NUM, 20),
            r.chars(ALNUM, 59)
        ),
        "GH_TOKEN",
    )
}

fn gitlab(r: &mut Rng) -> Secret {
    Secret::token(
        format!(
            "glpat-{}",
            r.chars(
                b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
                20
            )
        ),
        "GITLAB_TOKEN",
    )
}

fn slack_bot(r: &mut Rng) -> Secret {
    let (a, b) = (r.range(10, 13), r.range(10, 13));
    Secret::token(
        format!(
            "xoxb-{}-{}-{}",
            r.chars(DIGITS, a),
            r.chars(DIGITS, b),
            r.chars(ALNUM, 24)
        ),
        "SLACK_BOT_TOKEN",
    )
}

fn slack_user(r: &mut Rng) -> Secret {
    Secret::token(
        format!(
            "xoxp-{}-{}-{}-{}",
            r.chars(DIGITS, 12),
            r.chars(DIGITS, 12),
            r.chars(DIGITS, 13),
            r.chars(HEX, 32)
        ),
        "SLACK_USER_TOKEN",
    )
}

fn slack_webhook(r: &mut Rng) -> Secret {
    Secret::within(
        format!(
            "https://hooks.slack.com/services/T{}/B{}/",
            r.chars(UPPER_NUM, 10),
            r.chars(UPPER_NUM, 10)
        ),
        r.chars(ALNUM, 24),
        String::new(),
        "SLACK_WEBHOOK_URL",
    )
}

fn stripe(r: &mut Rng) -> Secret {
    let prefix = *r.pick(&["sk_live_", "sk_live_", "rk_live_", "sk_test_"]);
    let n = *r.pick(&[24, 99]);
    let body = if n == 24 {
        r.chars(ALNUM, 24)
    } else {
        format!("51{}", r.chars(ALNUM, 97))
    };
    Secret::token(format!("{prefix}{body}"), "STRIPE_SECRET_KEY")
}

fn openai(r: &mut Rng) -> Secret {
    let token = match r.below(3) {
        0 => format!("sk-{}T3BlbkFJ{}", r.chars(ALNUM, 20), r.chars(ALNUM, 20)),
        1 => format!(
            "sk-proj-{}T3BlbkFJ{}",
            r.chars(B64URL, 74),
            r.chars(B64URL, 74)
        ),
        _ => format!(
            "sk-svcacct-{}T3BlbkFJ{}",
            r.chars(B64URL, 74),
            r.chars(B64URL, 74)
        ),
    };
    Secret::token(token, "OPENAI_API_KEY")
}

fn anthropic(r: &mut Rng) -> Secret {
    let kind = *r.pick(&["api03", "api03", "admin01"]);
    Secret::token(
        format!("sk-ant-{kind}-{}AA", r.chars(B64URL, 93)),
        "ANTHROPIC_API_KEY",
    )
}

fn google_api_key(r: &mut Rng) -> Secret {
    Secret::token(format!("AIza{}", r.chars(B64URL, 35)), "GOOGLE_API_KEY")
}

/// A PKCS#8 / PKCS#1 body: base64 lines of 64.
fn pem_body(r: &mut Rng, start: &str, bytes: usize, sep: &str) -> String {
    let mut raw = String::from(start);
    raw.push_str(&r.chars(B64, bytes * 4 / 3 - start.len()));
    raw.push('=');
    raw.as_bytes()
        .chunks(64)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect::<Vec<_>>()
        .join(sep)
}

fn gcp_service_account(r: &mut Rng) -> Secret {
    let project = format!(
        "{}-{}",
        r.pick(&["acme", "build", "prod", "data"]),
        r.range(100000, 999999)
    );
    let body = pem_body(
        r,
        "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ",
        1190,
        "\\n",
    );
    Secret::file(
        format!(
            "{{\n  \"type\": \"service_account\",\n  \"project_id\": \"{project}\",\n  \"private_key_id\": \"{}\",\n  \"private_key\": \"-----BEGIN PRIVATE KEY-----\\n",
            r.chars(HEX, 40)
        ),
        body,
        format!(
            "\\n-----END PRIVATE KEY-----\\n\",\n  \"client_email\": \"ci@{project}.iam.gserviceaccount.com\",\n  \"client_id\": \"{}\",\n  \"auth_uri\": \"https://accounts.google.com/o/oauth2/auth\",\n  \"token_uri\": \"https://oauth2.googleapis.com/token\"\n}}\n",
            r.chars(DIGITS, 21)
        ),
        "GOOGLE_APPLICATION_CREDENTIALS_JSON",
    )
}

fn sendgrid(r: &mut Rng) -> Secret {
    Secret::token(
        format!("SG.{}.{}", r.chars(B64URL, 22), r.chars(B64URL, 43)),
        "SENDGRID_API_KEY",
    )
}

fn npm(r: &mut Rng) -> Secret {
    let body = r.chars(ALNUM, 30);
    let sum = base62(crc32(body.as_bytes()), 6);
    Secret::token(format!("npm_{body}{sum}"), "NPM_TOKEN")
}

fn pypi(r: &mut Rng) -> Secret {
    let n = r.range(60, 150);
    Secret::token(
        format!("pypi-AgEIcHlwaS5vcmcCJD{}", r.chars(B64URL, n)),
        "TWINE_PASSWORD",
    )
}

fn dockerhub(r: &mut Rng) -> Secret {
    Secret::token(
        format!("dckr_pat_{}", r.chars(B64URL, 27)),
        "DOCKERHUB_TOKEN",
    )
}

fn huggingface(r: &mut Rng) -> Secret {
    Secret::token(format!("hf_{}", r.chars(LETTERS, 34)), "HF_TOKEN")
}

fn linear(r: &mut Rng) -> Secret {
    Secret::token(format!("lin_api_{}", r.chars(ALNUM, 40)), "LINEAR_API_KEY")
}

fn digitalocean(r: &mut Rng) -> Secret {
    let prefix = *r.pick(&["dop_v1_", "dop_v1_", "doo_v1_", "dor_v1_"]);
    Secret::token(
        format!("{prefix}{}", r.chars(HEX, 64)),
        "DIGITALOCEAN_TOKEN",
    )
}

fn shopify(r: &mut Rng) -> Secret {
    let prefix = *r.pick(&["shpat_", "shpat_", "shpss_", "shpca_", "shppa_"]);
    Secret::token(
        format!("{prefix}{}", r.chars(HEX, 32)),
        "SHOPIFY_ACCESS_TOKEN",
    )
}

fn telegram(r: &mut Rng) -> Secret {
    let n = r.range(8, 10);
    Secret::token(
        format!("{}:AA{}", r.chars(DIGITS, n), r.chars(B64URL, 33)),
        "TELEGRAM_BOT_TOKEN",
    )
}

fn twilio(r: &mut Rng) -> Secret {
    Secret::token(format!("SK{}", r.chars(HEX, 32)), "TWILIO_API_KEY")
}

fn age(r: &mut Rng) -> Secret {
    let key = format!("AGE-SECRET-KEY-1{}", r.chars(BECH32_UP, 58));
    if r.chance(0.5) {
        Secret::file(
            format!(
                "# created: 2026-11-30T19:02:11Z\n# public key: age1{}\n",
                r.chars(b"qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58)
            ),
            key,
            "\n".into(),
            "SOPS_AGE_KEY",
        )
    } else {
        Secret::token(key, "SOPS_AGE_KEY")
    }
}

fn azure_storage(r: &mut Rng) -> Secret {
    let account = format!(
        "{}{}",
        r.pick(&["acme", "prod", "logs", "media"]),
        r.chars(LOWER_NUM, 8)
    );
    let key = b64(&r.bytes(64));
    Secret::within(
        format!("DefaultEndpointsProtocol=https;AccountName={account};AccountKey="),
        key,
        ";EndpointSuffix=core.windows.net".into(),
        "AZURE_STORAGE_CONNECTION_STRING",
    )
}

fn jwt(r: &mut Rng) -> Secret {
    let header = *r.pick(&[
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
        "eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ",
        "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9",
    ]);
    let payload = format!(
        "{{\"sub\":\"{}\",\"iss\":\"https://auth.example.com\",\"iat\":{},\"exp\":{},\"scope\":\"read write\"}}",
        r.chars(DIGITS, 10),
        r.range(1_700_000_000, 1_800_000_000),
        r.range(1_800_000_000, 1_900_000_000)
    );
    let sig = if header.contains("IUzI1") {
        r.chars(B64URL, 43)
    } else {
        r.chars(B64URL, 86)
    };
    Secret::token(
        format!("{header}.{}.{sig}", b64url(payload.as_bytes())),
        "ACCESS_TOKEN",
    )
}

fn pem_private_key(r: &mut Rng) -> Secret {
    let (label, start, bytes) = *r.pick(&[
        ("RSA PRIVATE KEY", "MIIEpAIBAAKCAQEA", 1190),
        ("PRIVATE KEY", "MIIEvgIBADANBgkqhkiG9w0BAQEFAASC", 1192),
        ("EC PRIVATE KEY", "MHcCAQEEI", 121),
        (
            "OPENSSH PRIVATE KEY",
            "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
            300,
        ),
    ]);
    Secret::file(
        format!("-----BEGIN {label}-----\n"),
        pem_body(r, start, bytes, "\n"),
        format!("\n-----END {label}-----\n"),
        "PRIVATE_KEY",
    )
}

fn password(r: &mut Rng) -> String {
    let n = r.range(14, 28);
    r.chars(
        b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!*-_.",
        n,
    )
}

fn postgres_url(r: &mut Rng) -> Secret {
    let user = *r.pick(&["app", "postgres", "ci_user", "analytics"]);
    let scheme = *r.pick(&["postgres", "postgresql"]);
    Secret::within(
        format!("{scheme}://{user}:"),
        password(r),
        format!(
            "@{}.{}.internal:5432/{}?sslmode=require",
            r.pick(&["db", "pg-main", "primary"]),
            r.chars(LOWER, 6),
            r.pick(&["app", "orders", "warehouse"])
        ),
        "DATABASE_URL",
    )
}

fn mongodb_url(r: &mut Rng) -> Secret {
    Secret::within(
        format!("mongodb+srv://{}:", r.pick(&["admin", "svc-api", "reader"])),
        password(r),
        format!(
            "@cluster0.{}.mongodb.net/?retryWrites=true&w=majority",
            r.chars(LOWER_NUM, 5)
        ),
        "MONGODB_URI",
    )
}

fn mailgun(r: &mut Rng) -> Secret {
    let key = if r.chance(0.5) {
        format!("key-{}", r.chars(HEX, 32))
    } else {
        format!(
            "{}-{}-{}",
            r.chars(HEX, 32),
            r.chars(HEX, 8),
            r.chars(HEX, 8)
        )
    };
    Secret::token(key, "MAILGUN_API_KEY")
}

fn atlassian(r: &mut Rng) -> Secret {
    Secret::token(
        format!(
            "ATATT3xFfGF0{}={}",
            r.chars(B64URL, 174),
            r.chars(HEX_UP, 8)
        ),
        "JIRA_API_TOKEN",
    )
}

fn vault(r: &mut Rng) -> Secret {
    Secret::token(format!("hvs.CAESI{}", r.chars(B64URL, 86)), "VAULT_TOKEN")
}

fn groq(r: &mut Rng) -> Secret {
    Secret::token(format!("gsk_{}", r.chars(ALNUM, 52)), "GROQ_API_KEY")
}

fn heroku(r: &mut Rng) -> Secret {
    Secret::token(format!("HRKU-AA{}", r.chars(B64URL, 58)), "HEROKU_API_KEY")
}
