//! What stands in for a secret and is none: a value here is never masked as
//! the value of a name or as a URL's password, whatever it is named. One rule
//! for every context, applied before masking:
//!
//! - **a reference** to where the secret is kept: `$TOKEN`, `${DB_PASS}`,
//!   `%DB_PASS%`, `{{ .Values.password }}`, `%(password)s`, `<your-token>`,
//!   `#{secret}`, and the references of secret stores ([`REFERENCES`]:
//!   `op://vault/item/field`, `ref+vault://…`, `vault:secret/data/…#key`,
//!   `@Microsoft.KeyVault(…)`, ARNs, GCP Secret Manager resource names);
//! - **a mask** a tool or a person already applied: a run of three `*`, `•`
//!   or `.` (`********`, `gho_****`, `sk-...abcd`, `•••`), an ellipsis, or
//!   one character repeated after an optional prefix (`xxxxxxxx`, `0000…`,
//!   `AAAA…`, `ghp_xxxxxxxx`);
//! - **an example word** (its letters, case and separators aside, hold
//!   `changeme`, `replaceme`, `placeholder`, `example`, `dummy`, `fake`,
//!   `sample`, `redacted`, `filtered`, `omitted`, `sensitive`, `notreal`),
//!   or a value that begins `your` or ends `here` as a word (`your-api-key`,
//!   `paste-key-here`);
//! - **filler words only**: every word of it (split at `-`, `_`, `.`) is
//!   one that names a secret or fills an example (`test-secret`,
//!   `my_api_key`, `replace-with-your-key`, `foo-bar`);
//! - **a default** that the software ships with and documents, so that it
//!   hides nothing: `postgres`, `root`, `guest`, `admin`, `changeit`,
//!   `toor`, `mysql`, `redis`, `password`, `secret`, `pass`, `test`, and the
//!   passwords of official images' and tools' documentation
//!   (`mysecretpassword`, `my-secret-pw`, `notasecret`, `minioadmin`);
//! - **a documented example**: the exact keys and tokens vendors publish in
//!   their documentation for anyone to paste ([`DOCUMENTED`]: jwt.io's
//!   sample token, Stripe's test keys, Mailgun's sample key, kubeadm's
//!   example bootstrap token);
//! - **base64 of any of these** (a Kubernetes Secret's `data:`, `.npmrc`'s
//!   `_auth` of `user:password`, where a password equal to its user is one
//!   too).
//!
//! It never looks at randomness: a weak real password (`Summer2024!`) is
//! masked like any other.

/// Words that make a value an example (compared on lower-case letters and
/// digits only).
const EXAMPLE_WORDS: [&[u8]; 14] = [
    b"changeme",
    b"replaceme",
    b"placeholder",
    b"example",
    b"dummy",
    b"fake",
    b"sample",
    b"redacted",
    b"filtered",
    b"omitted",
    b"sensitive",
    b"notreal",
    // `xoxb-not-a-real-token`.
    b"notareal",
    b"insertyour",
];

/// Documented defaults (the whole value, any case).
const DEFAULTS: [&[u8]; 16] = [
    b"postgres",
    b"root",
    b"guest",
    b"admin",
    b"changeit",
    b"toor",
    b"mysql",
    b"redis",
    b"password",
    b"secret",
    b"pass",
    b"test",
    // The Docker Official Images' documentation: `postgres`
    // (`POSTGRES_PASSWORD=mysecretpassword`) and `mysql`
    // (`MYSQL_ROOT_PASSWORD=my-secret-pw`).
    b"mysecretpassword",
    b"my-secret-pw",
    // The password of every P12 key file Google Cloud issues.
    b"notasecret",
    // MinIO's default root user and password.
    b"minioadmin",
];

/// A reference to a secret in a secret store, as the tool that resolves it
/// writes it: the value names where the secret is, it does not hold it.
#[cfg_attr(not(test), allow(dead_code))]
struct Reference {
    /// What writes it.
    what: &'static str,
    /// The value starts with this, any case…
    starts: &'static [u8],
    /// …and holds this after it (the part that makes it a reference, not a
    /// value that happens to start the same way).
    holds: &'static [u8],
    /// Values of this shape: each is a stand-in (tested).
    tests: &'static [&'static str],
}

/// The references of secret stores.
const REFERENCES: [Reference; 9] = [
    Reference {
        what: "1Password secret reference (`op read`, `op run`, `op inject`)",
        starts: b"op://",
        holds: b"/",
        tests: &[
            "op://Production/Postgres/password",
            "op://dev/GitHub/token",
            "op://app-prod/db/one-time password?attribute=otp",
        ],
    },
    Reference {
        what: "vals and helm-secrets (`ref+vault://`, `ref+awssecrets://`, …)",
        starts: b"ref+",
        holds: b"://",
        tests: &[
            "ref+vault://secret/data/myapp#/password",
            "ref+awssecrets://prod/db#/password",
            "ref+gcpsecrets://my-project/db-password",
        ],
    },
    Reference {
        what: "Bank-Vaults' vault-env (`vault:<path>#<key>`)",
        starts: b"vault:",
        holds: b"#",
        tests: &[
            "vault:secret/data/myapp#api_key",
            "vault:secret/data/accounts/aws#AWS_SECRET_ACCESS_KEY#2",
        ],
    },
    Reference {
        what: "Azure App Service and Functions Key Vault reference",
        starts: b"@Microsoft.KeyVault(",
        holds: b"",
        tests: &[
            "@Microsoft.KeyVault(SecretUri=https://myvault.vault.azure.net/secrets/DbPassword/ec96f02080254f109c51a1f14cdb1931)",
            "@Microsoft.KeyVault(VaultName=myvault;SecretName=DbPassword)",
        ],
    },
    Reference {
        what: "Azure Key Vault secret identifier",
        starts: b"https://",
        holds: b".vault.azure.net/secrets/",
        tests: &["https://myvault.vault.azure.net/secrets/DbPassword"],
    },
    Reference {
        what: "an ARN (Secrets Manager secret, SSM parameter, KMS key)",
        starts: b"arn:aws",
        holds: b":",
        tests: &[
            "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-password-AbCdEf",
            "arn:aws:ssm:eu-west-1:123456789012:parameter/prod/api/token",
        ],
    },
    Reference {
        what: "GCP Secret Manager resource name",
        starts: b"projects/",
        holds: b"/secrets/",
        tests: &["projects/my-project/secrets/db-password/versions/latest"],
    },
    Reference {
        what: "TeamCity's token for a secure value (`credentialsJSON:<uuid>`)",
        starts: b"credentialsJSON:",
        holds: b"-",
        tests: &["credentialsJSON:8f4dfb0a-7aea-46f3-a324-c4b1f62f082e"],
    },
    Reference {
        what: "Spring Cloud GCP Secret Manager (`sm://`)",
        starts: b"sm://",
        holds: b"",
        tests: &["sm://db-password", "sm://my-project/db-password/3"],
    },
];

/// Keys and tokens that vendors publish in their documentation for anyone to
/// paste, exactly as published: they authenticate nothing of anyone's (the
/// test keys reach only a demo account), and masking them hides only the
/// example. Only these exact strings: any other token of the same shape is
/// masked.
const DOCUMENTED: [(&str, &str); 18] = [
    (
        "Azurite's and the Azure storage emulator's well-known account key",
        "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
    ),
    (
        "jwt.io's debugger sample (HS256, `John Doe`)",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    ),
    (
        "jwt.io's debugger sample (HS256, `John Doe`, `admin`)",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiYWRtaW4iOnRydWUsImlhdCI6MTUxNjIzOTAyMn0.KMUFsIDTnFmyG3nMiGM6H9FNFUROf3wh7SmqJp-QV30",
    ),
    (
        "RFC 7519's example JWT (section 3.1, `joe`), JWS's in RFC 7515",
        "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
    ),
    (
        "Stripe's API reference sample secret key",
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    ),
    (
        "Stripe's sample publishable key",
        "pk_test_TYooMQauvdEDq54NiTphI7jx",
    ),
    (
        "Stripe's earlier API reference sample secret key",
        "sk_test_BQokikJOvBiI2HlWgH4olfQ2",
    ),
    (
        "Stripe's earlier sample publishable key",
        "pk_test_6pRNASCoBOKtIshFeQd4XMUh",
    ),
    (
        "Mailgun's documentation sample API key",
        "key-3ax6xnjp29jd6fds4gc373sgvjxteol0",
    ),
    (
        "kubeadm's example bootstrap token (`kubeadm config print init-defaults`)",
        "abcdef.0123456789abcdef",
    ),
    (
        "RFC 6749's client credentials (`s6BhdRkqt3:gX1fBat3bV`), in Basic",
        "czZCaGRSa3F0MzpnWDFmQmF0M2JW",
    ),
    (
        "RFC 6749's example access token (section 4.1.4, also 5.1)",
        "2YotnFZFEjr1zCsicMWpAA",
    ),
    ("RFC 6749's example refresh token", "tGzv3JOkF0XG5Qx2TlKWIA"),
    (
        "RFC 6749's example authorization code",
        "SplxlOBeZQQYbYS6WxSbIA",
    ),
    (
        "RFC 6749's example client secret (section 2.3.1)",
        "7Fjfp0ZBr1KtDRbnfVdmIw",
    ),
    ("RFC 6750's example bearer token", "mF_9.B5f-4.1JqM"),
    (
        "RFC 7636's example code verifier (appendix B)",
        "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
    ),
    (
        "ZITADEL's documented master key",
        "MasterkeyNeedsToHave32Characters",
    ),
];

/// The words of a value made only of them: names of secrets and the filler
/// of examples.
const FILLER: [&[u8]; 40] = [
    b"test",
    b"tests",
    b"testing",
    b"secret",
    b"secrets",
    b"password",
    b"passwd",
    b"pass",
    b"token",
    b"key",
    b"api",
    b"apikey",
    b"auth",
    b"my",
    b"your",
    b"our",
    b"the",
    b"a",
    b"with",
    b"for",
    b"foo",
    b"bar",
    b"baz",
    b"dev",
    b"local",
    b"demo",
    b"mock",
    b"default",
    b"admin",
    b"user",
    b"value",
    b"here",
    b"replace",
    b"insert",
    b"enter",
    b"paste",
    b"put",
    b"todo",
    b"tbd",
    b"fixme",
];

/// Whether `v` only stands in for a secret (see the module's rule).
pub(crate) fn stand_in(v: &[u8]) -> bool {
    !v.is_empty()
        && (reference(v)
            || masked(v)
            || example(v)
            || filler(v)
            || default(v)
            || documented(v)
            || encoded(v)
            || kms_ciphertext(v)
            || password_hash(v)
            || unsigned_jwt(v))
}

/// A JWT with no signature whose header says `"alg":"none"`
/// (`eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.`): anyone can
/// make one, so it proves nothing, as a credential must.
pub(crate) fn unsigned_jwt(v: &[u8]) -> bool {
    if !v.starts_with(b"eyJ") || !v.ends_with(b".") {
        return false;
    }
    let Some(dot) = memchr::memchr(b'.', v) else {
        return false;
    };
    // (A payload between the two dots: `eyJ….` alone has none.)
    v.get(dot + 1..v.len() - 1)
        .is_some_and(|payload| !payload.is_empty() && payload.iter().all(|&c| crate::b64url(c)))
        // (Decoded as it is: `{"alg":"none"}` alone is shorter than the
        // base64 that is read as text.)
        && {
            let h: Vec<u8> = crate::decode::decode(&v[..dot])
                .into_iter()
                .filter(|c| !c.is_ascii_whitespace())
                .collect();
            crate::find(&h, b"\"alg\":\"none\"").is_some()
        }
}

/// A password's hash as a password store keeps it: Django's
/// (`pbkdf2_sha256$720000$…`, `argon2$argon2id$…`), the modular crypt
/// format (`$2b$12$…`, `$argon2id$…`, `$6$…`, `$y$…`), PostgreSQL's
/// (`SCRAM-SHA-256$4096:…`, `md5` and 32 hex). What it hides is the
/// password, which it does not give back: a user table's dump shows no
/// credential (as a digest shows none).
fn password_hash(v: &[u8]) -> bool {
    const DJANGO: [&[u8]; 9] = [
        b"pbkdf2_sha256$",
        b"pbkdf2_sha1$",
        b"argon2$",
        b"bcrypt_sha256$",
        b"bcrypt$",
        b"scrypt$",
        b"sha1$",
        b"md5$",
        b"crypt$",
    ];
    const CRYPT: [&[u8]; 16] = [
        b"1",
        b"2a",
        b"2b",
        b"2x",
        b"2y",
        b"5",
        b"6",
        b"7",
        b"y",
        b"gy",
        b"apr1",
        b"argon2i",
        b"argon2d",
        b"argon2id",
        b"scrypt",
        b"pbkdf2",
    ];
    // RFC 2307's schemes, as LDAP's `userPassword` and htpasswd keep them
    // (`{SSHA}…`, `{SHA}…`, `{PBKDF2-SHA256}…`); `{PLAIN}` and
    // `{CLEARTEXT}` hold the password itself.
    if v.first() == Some(&b'{')
        && let Some(close) = memchr::memchr(b'}', &v[..v.len().min(24)])
    {
        let scheme = &v[1..close];
        let hashed = [
            "SHA",
            "SSHA",
            "SHA256",
            "SSHA256",
            "SHA512",
            "SSHA512",
            "MD5",
            "SMD5",
            "CRYPT",
            "BCRYPT",
            "ARGON2",
            "PBKDF2",
            "PBKDF2-SHA256",
            "PBKDF2-SHA512",
            "BLF-CRYPT",
            "SHA512-CRYPT",
            "SHA256-CRYPT",
        ]
        .iter()
        .any(|h| scheme.eq_ignore_ascii_case(h.as_bytes()));
        return hashed && v.len() > close + 8;
    }
    // Every form has a `$` among its first 15 bytes (most values none).
    if v.len() < 20 || memchr::memchr(b'$', &v[..15]).is_none() {
        return v.len() == 35 && v.starts_with(b"md5") && v[3..].iter().all(u8::is_ascii_hexdigit);
    }
    if let Some(rest) = v.strip_prefix(b"$") {
        let id_end = rest.iter().position(|&c| c == b'$').unwrap_or(rest.len());
        let id = &rest[..id_end];
        // (`$pbkdf2-sha256$…`: passlib's names the digest after a `-`.)
        let id = id.split(|&c| c == b'-').next().unwrap_or(id);
        return id_end < rest.len() && CRYPT.contains(&id);
    }
    DJANGO.iter().any(|p| v.starts_with(p)) || v.starts_with(b"SCRAM-SHA-256$")
}

/// An AWS KMS ciphertext blob as base64 (`aws kms encrypt`'s
/// `CiphertextBlob`, an encrypted env var): its header (version 1, then a
/// key reference, `AQICAHh…`, `AQECAHh…`, `AQIBAHh…`) and a long body. Only
/// KMS opens it: it is no secret where it is shown, as a sealed secret is not.
fn kms_ciphertext(v: &[u8]) -> bool {
    v.len() >= 100
        && (v.starts_with(b"AQICAH") || v.starts_with(b"AQECAH") || v.starts_with(b"AQIBAH"))
        && v.iter().all(|&c| crate::b64(c))
}

/// Whether a vendor token's match is a mask or the documentation's example
/// (`sk_live_xxxx…`, `gho_****`, `AKIAIOSFODNN7EXAMPLE`, jwt.io's sample):
/// only the rules that random characters cannot meet by chance.
pub(crate) fn masked_token(v: &[u8]) -> bool {
    masked(v)
        || long_example_word(v)
        || documented(v)
        || unsigned_jwt(v)
        || repeated_parts(v)
        || example_after_prefix(v)
}

/// `xoxb-your-token`, `ghp_YOUR_TOKEN_HERE`: a vendor's prefix, then words
/// that ask for the token ([`example`]).
fn example_after_prefix(v: &[u8]) -> bool {
    v.iter()
        .take(10)
        .position(|&c| matches!(c, b'-' | b'_'))
        .is_some_and(|p| asks_for_value(&v[p + 1..]))
}

/// `SG.XXXXXXXX….YYYYYYYY…`, `T00000000/B00000000/XXXXXXXX…`: every long
/// part (split at `.`, `-`, `_`, `/`) one character repeated after at most
/// a letter: a documentation's shape of a token, not one.
fn repeated_parts(v: &[u8]) -> bool {
    let mut long = 0;
    let all = v
        .split(|c| matches!(c, b'.' | b'-' | b'_' | b'/'))
        .filter(|p| p.len() >= 6)
        .all(|p| {
            long += 1;
            p[1..].iter().all(|&c| c == p[1])
        });
    all && long >= 2
}

/// One of the [`DOCUMENTED`] examples, exactly.
fn documented(v: &[u8]) -> bool {
    DOCUMENTED.iter().any(|(_, d)| d.as_bytes() == v)
}

fn filler(v: &[u8]) -> bool {
    v.len() <= 64
        && v.iter()
            .all(|&c| c.is_ascii_alphabetic() || matches!(c, b'_' | b'-' | b'.'))
        && v.split(|&c| matches!(c, b'_' | b'-' | b'.'))
            .all(|w| !w.is_empty() && FILLER.iter().any(|f| w.eq_ignore_ascii_case(f)))
}

/// Base64 (of 4 to 256 characters) whose text is a stand-in, or
/// `user:password` with a stand-in password or the user's own name.
fn encoded(v: &[u8]) -> bool {
    if !(4..=256).contains(&v.len())
        || !v.len().is_multiple_of(4)
        || !v
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='))
    {
        return false;
    }
    let body = v
        .strip_suffix(b"==")
        .or_else(|| v.strip_suffix(b"="))
        .unwrap_or(v);
    let text = crate::decode::decode(body);
    if text.is_empty()
        || !text.iter().all(|c| (0x20..0x7f).contains(c) || *c >= 0x80)
        || std::str::from_utf8(&text).is_err()
    {
        return false;
    }
    let inner = |t: &[u8]| reference(t) || masked(t) || example(t) || filler(t) || default(t);
    match text.iter().position(|&c| c == b':') {
        Some(colon) if colon > 0 && colon + 1 < text.len() => {
            let (user, password) = (&text[..colon], &text[colon + 1..]);
            user == password || inner(password)
        }
        _ => inner(&text),
    }
}

fn reference(v: &[u8]) -> bool {
    // `\$TOKEN`: a shell's `$` escaped in a string that is run again
    // (`bash -lc "curl --user \"api:\$KEY\""`).
    let v = match v.strip_prefix(b"\\") {
        Some(rest) if rest.len() > 1 && rest[0] == b'$' => rest,
        _ => v,
    };
    let (first, last) = (v[0], v[v.len() - 1]);
    (first == b'$'
        && v.len() > 1
        && (v[1].is_ascii_alphabetic() || matches!(v[1], b'_' | b'{' | b'(')))
        || v.starts_with(b"{{")
        || v.starts_with(b"%(")
        || v.starts_with(b"#{")
        || v.starts_with(b"%{")
        || v.starts_with(b"<%")
        || (first == b'<' && last == b'>')
        || (first == b'[' && last == b']')
        || (first == b'(' && last == b')')
        || windows_variable(v)
        || format_directive(v)
        || replaced_token(v)
        || field_path(v)
        || REFERENCES.iter().any(|r| {
            v.len() > r.starts.len()
                && v[..r.starts.len()].eq_ignore_ascii_case(r.starts)
                && (r.holds.is_empty() || crate::find(&v[r.starts.len()..], r.holds).is_some())
        })
}

/// `%s&ts=%ld`, `%.*s`, `%v`: a format's directive (what `strings` shows of
/// a binary, a logging call), where a value goes, not one.
fn format_directive(v: &[u8]) -> bool {
    if v[0] != b'%' {
        return false;
    }
    // Flags, width and precision, a length (`l`, `ll`, `h`, `z`), the
    // conversion; then no letter or digit: `%d9Gk#2pLx` is a password.
    let mut i = 1;
    i += crate::run(v, i, |c| matches!(c, b'.' | b'*' | b'-' | b'0'..=b'9'));
    i += crate::run(v, i, |c| matches!(c, b'l' | b'h' | b'z')).min(2);
    v.get(i)
        .is_some_and(|c| matches!(c, b's' | b'd' | b'v' | b'q' | b'x' | b'u' | b'f'))
        && v.get(i + 1).is_none_or(|c| !c.is_ascii_alphanumeric())
}

/// `__SendGridApiKey__`, `__DB_PASSWORD__`: a token a release pipeline
/// replaces (Azure DevOps' Replace Tokens, Octopus), a name between double
/// underscores.
fn replaced_token(v: &[u8]) -> bool {
    v.len() > 4
        && v.starts_with(b"__")
        && v.ends_with(b"__")
        && v[2].is_ascii_alphabetic()
        && v[2..v.len() - 2]
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
}

/// `.properties.token`, `.Values.auth.password`: a path into a document
/// (jq's, a Helm or Go template's), what a filter reads, not a value.
fn field_path(v: &[u8]) -> bool {
    v.len() > 2
        && v[0] == b'.'
        && v[1].is_ascii_alphabetic()
        && v.split(|&c| c == b'.').skip(1).all(|part| {
            !part.is_empty()
                && part[0].is_ascii_alphabetic()
                && part.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_')
        })
}

/// `%DB_PASSWORD%`: a variable in `cmd.exe`, a `.bat` file or an MSBuild
/// property (`$(DbPassword)` is `reference`'s `$(`); TeamCity's parameters
/// are dotted (`%env.SIGNING_PASSWORD%`).
fn windows_variable(v: &[u8]) -> bool {
    v.len() > 2
        && v[0] == b'%'
        && v[v.len() - 1] == b'%'
        && (v[1].is_ascii_alphabetic() || v[1] == b'_')
        && v[1..v.len() - 1]
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.'))
}

/// A run of three `*`, `.` or `•`, an ellipsis, or one character repeated
/// (separators aside, `00000000-0000-…`) in the whole value or after a
/// prefix of at most 16 bytes that ends at its first or last separator
/// (`ghp_xxxx…`, `sk-proj-xxxx…`).
///
/// Every vendor token found and every named value is read here, so it reads
/// from the end and stops at the first character that rules a repetition
/// out: for a random value, a byte or two.
fn masked(v: &[u8]) -> bool {
    const BULLETS: &[u8] = "••".as_bytes();
    const ELLIPSIS: &[u8] = "…".as_bytes();
    // (OkHttp's `HttpLoggingInterceptor` prints a redacted header as `██`.)
    const BLOCKS: &[u8] = "██".as_bytes();
    let mut from = 0;
    while let Some(p) = memchr::memchr2(b'*', b'.', &v[from..]) {
        let i = from + p;
        if v.get(i + 1) == Some(&v[i]) && v.get(i + 2) == Some(&v[i]) {
            return true;
        }
        from = i + 1;
    }
    if !v.is_ascii()
        && (crate::find(v, ELLIPSIS).is_some()
            || crate::find(v, BULLETS).is_some()
            || crate::find(v, BLOCKS).is_some())
    {
        return true;
    }
    // A mask that keeps the last few characters (CircleCI's `xxxxb96d`, a
    // card's `XXXXXXXXXXXX4242`).
    let xs = v.iter().take_while(|&&c| c | 0x20 == b'x').count();
    if xs >= 4 && v.len() - xs <= 6 {
        return true;
    }
    let sep = |c: &u8| matches!(c, b'-' | b'_' | b'.');
    let Some(last) = v.iter().rposition(|c| !sep(c)) else {
        return false;
    };
    // The last character that is not a separator, and the last one before
    // it that differs: a repetition starts after that one.
    let differs = v[..last].iter().rposition(|c| !sep(c) && *c != v[last]);
    // (After a prefix, `xxx` is enough: `sk_test_xxx`.)
    let repeated_from = |start: usize| {
        (v.len() - start >= 4 || (start > 0 && v.len() - start == 3 && v[start] | 0x20 == b'x'))
            && start <= last
            && differs.is_none_or(|k| k < start)
    };
    if repeated_from(0) {
        return true;
    }
    // A prefix ends at a separator within the first 16 bytes, after the
    // character that differs.
    if differs.is_some_and(|k| k >= 16) {
        return false;
    }
    let after = |p: Option<usize>| p.is_some_and(|p| p <= 16 && repeated_from(p + 1));
    after(v.iter().position(sep)) || after(v.iter().rposition(sep))
}

fn long_example_word(v: &[u8]) -> bool {
    let mut buf = [0u8; 128];
    let mut n = 0;
    for &c in v {
        if c.is_ascii_alphanumeric() && n < buf.len() {
            buf[n] = c.to_ascii_lowercase();
            n += 1;
        }
    }
    holds_example_word(&buf[..n], 7)
}

/// Per byte: the [`EXAMPLE_WORDS`] (as bits) that start with it.
static EXAMPLE_STARTS: [u16; 256] = {
    assert!(EXAMPLE_WORDS.len() <= 16, "one bit per word");
    let mut t = [0u16; 256];
    let mut k = 0;
    while k < EXAMPLE_WORDS.len() {
        t[EXAMPLE_WORDS[k][0] as usize] |= 1 << k;
        k += 1;
    }
    t
};

/// Per byte: the [`EXAMPLE_WORDS`] (as bits) whose second letter it is.
static EXAMPLE_SECONDS: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut k = 0;
    while k < EXAMPLE_WORDS.len() {
        t[EXAMPLE_WORDS[k][1] as usize] |= 1 << k;
        k += 1;
    }
    t
};

/// Whether `letters` hold one of the [`EXAMPLE_WORDS`] of at least
/// `min_len` letters. Compared only where a word's first letter is: values
/// are read in every transcript entry, and a compare at each position is a
/// `memcmp` call in wasm.
fn holds_example_word(letters: &[u8], min_len: usize) -> bool {
    letters.windows(2).enumerate().any(|(i, pair)| {
        // The words that start with this letter and the next.
        let mut words = EXAMPLE_STARTS[pair[0] as usize] & EXAMPLE_SECONDS[pair[1] as usize];
        while words != 0 {
            let w = EXAMPLE_WORDS[words.trailing_zeros() as usize];
            if w.len() >= min_len && letters[i..].starts_with(w) {
                return true;
            }
            words &= words - 1;
        }
        false
    })
}

fn example(v: &[u8]) -> bool {
    let mut letters = [0u8; 64];
    let mut n = 0;
    for &c in v.iter().take(256) {
        if c.is_ascii_alphanumeric() && n < letters.len() {
            letters[n] = c.to_ascii_lowercase();
            n += 1;
        }
    }
    holds_example_word(&letters[..n], 0) || asks_for_value(v)
}

/// `your-api-key`, `YOUR_TOKEN`, `paste-key-here`: words that ask for a
/// value, not one.
fn asks_for_value(v: &[u8]) -> bool {
    let words = v
        .iter()
        .all(|&c| c.is_ascii_alphabetic() || matches!(c, b'_' | b'-' | b' ' | b'.'));
    let lower = |s: &[u8], w: &[u8]| s.len() >= w.len() && s.eq_ignore_ascii_case(w);
    words
        && ((v.len() > 4 && lower(&v[..4], b"your") && !v[4].is_ascii_lowercase())
            || (v.len() > 5
                && lower(&v[v.len() - 4..], b"here")
                && matches!(v[v.len() - 5], b'_' | b'-' | b' ' | b'.')))
}

fn default(v: &[u8]) -> bool {
    DEFAULTS.iter().any(|d| v.eq_ignore_ascii_case(d))
}

#[cfg(test)]
mod tests {
    use super::{masked, stand_in, unsigned_jwt};

    /// [`masked`] as the rule reads, pass by pass.
    fn masked_reference(v: &[u8]) -> bool {
        if v.windows(3).any(|w| w == b"***" || w == b"...")
            || (!v.is_ascii()
                && (crate::find(v, "…".as_bytes()).is_some()
                    || crate::find(v, "••".as_bytes()).is_some()
                    || crate::find(v, "██".as_bytes()).is_some()))
        {
            return true;
        }
        // The last few kept after a mask of `x`s.
        let xs = v.iter().take_while(|c| matches!(c, b'x' | b'X')).count();
        if xs >= 4 && v.len() <= xs + 6 {
            return true;
        }
        let sep = |c: &u8| matches!(c, b'-' | b'_' | b'.');
        let repeated = |body: &[u8]| {
            let mut chars = body.iter().filter(|c| !sep(c));
            let first = chars.next();
            body.len() >= 4 && first.is_some_and(|f| chars.all(|c| c == f))
        };
        // After a prefix, `xxx` too.
        let repeated_after = |body: &[u8]| {
            repeated(body)
                || (body.len() == 3
                    && body[0] | 0x20 == b'x'
                    && body.iter().filter(|c| !sep(c)).all(|&c| c == body[0]))
        };
        let after = |p: Option<usize>| p.filter(|&p| p <= 16).map(|p| &v[p + 1..]);
        repeated(v)
            || after(v.iter().position(sep)).is_some_and(repeated_after)
            || after(v.iter().rposition(sep)).is_some_and(repeated_after)
    }

    #[test]
    fn masked_reads_as_the_rule_says() {
        // Short values over a small alphabet, so that repetitions, prefixes
        // and runs of every kind come up.
        let alphabet: [&[u8]; 9] = [
            b"x",
            b"x",
            b"0",
            b"a",
            b"-",
            b"_",
            b".",
            b"*",
            "\u{2022}".as_bytes(),
        ];
        let mut next = crate::tests::xorshift(0x853c_49e6_748f_ea9b);
        let mut masked_seen = 0;
        for _ in 0..200_000 {
            let len = (next() % 30) as usize;
            let mut v = Vec::new();
            for _ in 0..len {
                v.extend_from_slice(alphabet[(next() % 9) as usize]);
            }
            assert_eq!(
                masked(&v),
                masked_reference(&v),
                "{:?}",
                String::from_utf8_lossy(&v)
            );
            masked_seen += masked(&v) as usize;
        }
        assert!(
            masked_seen > 10_000,
            "the values cover both answers: {masked_seen}"
        );
    }

    /// Every reference shape and documented example, as its table gives it.
    #[test]
    fn each_reference_and_documented_example_is_a_stand_in() {
        for r in super::REFERENCES {
            assert!(!r.tests.is_empty(), "{} has a test string", r.what);
            for t in r.tests {
                assert!(stand_in(t.as_bytes()), "{t:?} ({}) is a stand-in", r.what);
            }
        }
        for (what, d) in super::DOCUMENTED {
            assert!(stand_in(d.as_bytes()), "{what}");
            assert!(super::masked_token(d.as_bytes()), "{what}");
        }
        // Only the exact strings: the same shapes with other values are not.
        for v in [
            "sk_test_4eC39HqLyjWDarjtT1zdp7dX",
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5d",
            "op:/x",
            "vault:s3cr3t-P4ss",
            "ref+hunter2",
            "arnold-Schw4rz",
            "%hunter2",
            "sm:/x9Lm2qVr",
        ] {
            assert!(!stand_in(v.as_bytes()), "{v} is a value");
        }
    }

    #[test]
    fn an_unsigned_jwt_is_told_and_short_shapes_do_not_panic() {
        let none = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0";
        let payload = "eyJzdWIiOiJ1c2VyXzEyMyJ9";
        assert!(unsigned_jwt(format!("{none}.{payload}.").as_bytes()));
        // `{"alg":"none"}` alone, RFC 7519's own example (section 6.1).
        assert!(unsigned_jwt(b"eyJhbGciOiJub25lIn0.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ."));
        // Signed, or no payload: not this.
        assert!(!unsigned_jwt(format!("{none}.{payload}.c2ln").as_bytes()));
        let hs256 = "eyJhbGciOiJIUzI1NiJ9";
        assert!(!unsigned_jwt(format!("{hs256}.{payload}.").as_bytes()));
        for short in [
            "eyJ.",
            "eyJ..",
            &format!("{none}."),
            &format!("{none}.."),
            "eyJ",
        ] {
            assert!(!unsigned_jwt(short.as_bytes()), "{short}");
        }
    }

    #[test]
    fn stand_ins_are_told_from_values() {
        for v in [
            "change-me",
            "CHANGE_ME",
            "<password>",
            "${DB_PASSWORD}",
            "{{ .Values.auth.password }}",
            "********",
            "gho_************************************",
            "sk-...abcd",
            "sk-proj-xxxxxxxxxxxxxxxxxxxxxxxx",
            "npm_...u0vl",
            "•••••••••••",
            "xxxxxxxxxxxxxxxx",
            "00000000000000000000000000000000",
            "00000000-0000-0000-0000-000000000000",
            "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "[hidden]",
            "(sensitive value)",
            "DATA+OMITTED",
            "your-api-key-here",
            "YOUR_TOKEN",
            "fake-token-for-tests",
            "dummy-secret",
            "postgres",
            "changeit",
            "test-secret",
            "replace-with-your-key",
            "my_api_key",
            "Y2hhbmdlaXQ=",
            "ZXRsX3VzZXI6ZmFrZS10b2tlbi1mb3ItdGVzdHM=",
            "YWRtaW46YWRtaW4=",
            "%DB_PASSWORD%",
            "mysecretpassword",
            "my-secret-pw",
            "sk_test_xxx",
            // Password hashes.
            "pbkdf2_sha256$720000$DHa4mIXR9uDrXtDgibljYb$fwr0AWzGMr8UBa/XfnkP3q3Z+O6ed8FfY5MWhYMuh0I=",
            "argon2$argon2id$v=19$m=65536,t=3,p=1$hdrv3ehZ4ISIg2SCyWC1eg$tAvsZILWNosypgQgU0LOiNV431HVDNREmhF+LQfSgLA",
            "$2b$12$KIXQJQ8bW0Xy1r6cQ9zG5eJ3fH7k8L2mN4pR6sT8uV0wX2yZ4aB6C",
            "$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG",
            "$6$rounds=5000$saltsalt$Xk9mQ2vL8pR4tN6wY1zA3bC5dE7fG9hJ0kL2mN4pQ6rS8tU0vW2xY4zA6bC8dE0fG2hJ4kL6mN8pQ0rS2tU4v",
            "SCRAM-SHA-256$4096:c2FsdHNhbHQ=$c3RvcmVkS2V5:c2VydmVyS2V5",
            "md5a3556571e93b0d20722ba62be61e8c2d",
        ] {
            assert!(stand_in(v.as_bytes()), "{v} is a stand-in");
        }
        for v in [
            "Summer2024!",
            "hunter2-Xk9",
            "glacier-lantern-meadow-tundra",
            "YourStrong!Passw0rd",
            "s3cr3t-P4ss",
            "a5glMH4im0cN7EHxiuu9JbZLS8pefdxi",
            "P@ssw0rd!2024",
            "xoxb-1234-5678-abcdefabcdef",
            "c2VjcmV0LXZhbHVlLVg5aw==",
            "YWRtaW46UzNjcmV0IQ==",
        ] {
            assert!(!stand_in(v.as_bytes()), "{v} is a value");
        }
        assert!(super::masked_token(b"AKIAIOSFODNN7EXAMPLE"));
        assert!(super::masked_token(
            b"sk_live_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        ));
        assert!(!super::masked_token(
            b"ghp_R4nd0mFakeCharsAreRareButPossible1234"
        ));
    }
}
