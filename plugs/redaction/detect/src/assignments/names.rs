//! Which words name a secret: `password`, `DB_PASSWORD`, `dbPassword`,
//! `db.password`, `x-api-key`, `client_secret`, `AccountKey`, … compared on
//! their endings, without case and separators. Names that only end in a
//! secret's name stay (`token_count`, `password_field`, `api_key_id`).

/// What a name introduces.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Name {
    /// `password`, `api_key`, …: the kind to report.
    Secret(&'static str),
    /// `Authorization` / `Proxy-Authorization`: `scheme credentials`.
    Authorization,
    /// `Bearer` or `Basic` before credentials.
    Bearer,
    Basic,
    /// `Cookie` / `Set-Cookie`: `name=value` pairs.
    Cookie,
}

/// Endings of names of secrets, lower case, without separators. `true`: the
/// ending must start a part of the name (`DB_PASS`, `dbPass`, not `bypass`).
const NAMES: [(&[u8], bool); 39] = [
    (b"password", false),
    (b"passwd", false),
    (b"passphrase", false),
    // keytool's and jarsigner's `-storepass`, `-keypass`.
    (b"storepass", false),
    (b"keypass", false),
    (b"pass", true),
    (b"pwd", true),
    // `DB_PW`, `ldapPw`; LDAP's `bindpw` and `rootpw` (slapd, nslcd,
    // pfSense's `ldap_bindpw`), written as one word.
    (b"pw", true),
    (b"bindpw", false),
    (b"rootpw", false),
    (b"secret", false),
    (b"token", false),
    (b"apikey", false),
    (b"accesskey", false),
    (b"secretkey", false),
    (b"privatekey", false),
    (b"accountkey", false),
    (b"signingkey", false),
    (b"encryptionkey", false),
    (b"masterkey", false),
    (b"authkey", false),
    (b"storagekey", false),
    (b"sharedkey", false),
    (b"keydata", false),
    (b"secretkeybase", false),
    (b"mnemonic", false),
    // Azure API Management's `Ocp-Apim-Subscription-Key` header.
    (b"subscriptionkey", false),
    // Sidekiq Enterprise credentials, `BUNDLE_GEMS__CONTRIBSYS__COM=user:pass`.
    (b"contribsyscom", false),
    (b"auth", true),
    (b"sig", true),
    (b"signature", false),
    // Redis's `--requirepass` and `masterauth`.
    (b"requirepass", false),
    (b"masterauth", false),
    // A pre-shared key: WPA's `psk=`, NetworkManager's `…-security.psk:`,
    // strongSwan's `: PSK "…"`.
    (b"psk", true),
    // `wpa2-pre-shared-key=`, `preshared_key`: as `psk`, whatever the value.
    (b"presharedkey", false),
    // A personal access token (`GITHUB_PAT`, Asana's `pat:`): its value
    // must look like a key, as `…_key`'s.
    (b"pat", true),
    // Datadog's `appkey = …` (an `app_key` written as one word): as `…_key`.
    (b"appkey", false),
    // A license, as secrets engines and CI settings name it: its value must
    // look like a key (`license: MIT` stays).
    (b"license", true),
    // Any other `…_key` (`ADAFRUIT_IO_KEY`, `licenseKey`): last, so that the
    // names above come first; its value must look like a key.
    (b"key", true),
];

/// Names ending in `key` whose values are public or not keys at all.
const NOT_KEYS: [&[u8]; 20] = [
    b"publickey",
    // The Push API's VAPID public key, in every page that subscribes.
    b"applicationserverkey",
    // SCRAM's stored credential (Kafka's `stored_key=`, MongoDB's
    // `storedKey:`): a hash of the password, as a salted digest is. (Its
    // `server_key` beside it is read with the line: Midtrans' server key
    // is a secret.)
    b"storedkey",
    // A WebSocket handshake's nonce (`Sec-WebSocket-Key`).
    b"websocketkey",
    b"pubkey",
    // SSH's public keys, as pfSense and Proxmox store a user's.
    b"authorizedkey",
    b"authorizedkeys",
    b"sshkeys",
    b"primarykey",
    b"foreignkey",
    b"sortkey",
    b"partitionkey",
    b"rangekey",
    b"hashkey",
    b"cachekey",
    b"idempotencykey",
    b"hostkey",
    b"objectkey",
    b"translationkey",
    // Segment's and RudderStack's write key: in every page's snippet.
    b"writekey",
];

/// Names ending in `token` that hold no secret: pagination cursors and
/// idempotency tokens (`"NextToken": "…"` in every AWS list, Azure's
/// `$skiptoken=` and `--starting-token`), a form's anti-forgery token.
const NOT_TOKENS: [&[u8]; 16] = [
    // Anti-forgery tokens a page hands every visitor (Rails', Django's,
    // ASP.NET's): they prove a form came from the page, not who sends it.
    b"authenticitytoken",
    b"csrftoken",
    b"xsrftoken",
    b"csrfmiddlewaretoken",
    b"requestverificationtoken",
    b"nexttoken",
    b"pagetoken",
    b"nextpagetoken",
    b"continuationtoken",
    b"paginationtoken",
    b"resumptiontoken",
    b"synctoken",
    b"clienttoken",
    b"idempotencytoken",
    b"skiptoken",
    b"startingtoken",
];

/// The kind of a name that is only `…_key` (or a session, a license, a
/// weak name): [`super::value`] asks its value to look like a key, and
/// reports it as `secret-assignment`.
pub(super) const NAMED_KEY: &str = "named-key";

/// The kind of a bare `key`: as [`NAMED_KEY`], and only on a config's line
/// of its own (an INI section's, YAML's, an env file's).
pub(super) const BARE_KEY: &str = "bare-key";

const OTHER_NAMES: [&[u8]; 4] = [b"authorization", b"bearer", b"basic", b"cookie"];
const AUTHORIZATION: u64 = 1 << NAMES.len();
const COOKIE: u64 = 1 << (NAMES.len() + 3);

/// Per pair of last two letters (`26 * first + second`): which names end
/// with it, bit `i` for `NAMES[i]`, then `OTHER_NAMES`.
const fn endings() -> [u64; 26 * 26] {
    let mut t = [0; 26 * 26];
    let mut i = 0;
    while i < NAMES.len() + OTHER_NAMES.len() {
        let name: &[u8] = if i < NAMES.len() {
            NAMES[i].0
        } else {
            OTHER_NAMES[i - NAMES.len()]
        };
        let (a, z) = (name[name.len() - 2], name[name.len() - 1]);
        t[(a - b'a') as usize * 26 + (z - b'a') as usize] |= 1 << i;
        i += 1;
    }
    t
}

static ENDINGS: [u64; 26 * 26] = endings();

/// The names the key may be, from its last two letters: most keys are
/// turned away here, before anything else is looked at.
#[inline(always)]
pub(super) fn names_ending_like(key: &[u8]) -> u64 {
    let mut last = [0u8; 2];
    let mut n = 0;
    let mut i = key.len();
    while i > 0 && n < 2 {
        i -= 1;
        let c = key[i];
        if !matches!(c, b'_' | b'-' | b'.') {
            // Lower case for letters; anything else fails the range check.
            last[n] = c | 0x20;
            n += 1;
        }
    }
    let [z, a] = last;
    if n == 2 && a.is_ascii_lowercase() && z.is_ascii_lowercase() {
        ENDINGS[(a - b'a') as usize * 26 + (z - b'a') as usize]
    } else {
        0
    }
}

/// The name a key is, if it names a secret; `candidates` from
/// [`names_ending_like`].
pub(super) fn name_of(key: &[u8], candidates: u64) -> Option<Name> {
    match key {
        b"Bearer" | b"BEARER" => return Some(Name::Bearer),
        b"Basic" | b"BASIC" => return Some(Name::Basic),
        // Test runners: `--- PASS: TestLogin2 (0.00s)`.
        b"PASS" => return None,
        _ => {}
    }
    if candidates & AUTHORIZATION != 0 && ends_with_name(key, b"authorization").is_some() {
        return Some(Name::Authorization);
    }
    // `Cookie:`, `Set-Cookie:` (a header, not `my_cookie`).
    if candidates & COOKIE != 0
        && key.len() <= 10
        && ends_with_name(key, b"cookie") == Some(key.len() - 6)
    {
        return Some(Name::Cookie);
    }
    let mut bits = candidates & (AUTHORIZATION - 1);
    while bits != 0 {
        let (name, starts_part) = NAMES[bits.trailing_zeros() as usize];
        bits &= bits - 1;
        let Some(first) = ends_with_name(key, name) else {
            continue;
        };
        if name == b"token" && NOT_TOKENS.iter().any(|n| ends_with_name(key, n).is_some()) {
            return None;
        }
        // Helm's `existingSecret: my-db-secret` (and `existingSecretPasswordKey`,
        // `auth.existingSecret`): the name of a Kubernetes Secret that holds
        // the value, not the value.
        if names_existing(key)
            || names_hashed(key)
            || says_public(key)
            || says_partial(key)
            || says_from(key)
        {
            return None;
        }
        // Azure's `primaryKey`/`secondaryKey` pair: a key where the value
        // looks like one (a database's primary key is a column's name).
        if name == b"key" && ends_with_name(key, b"primarykey").is_some() {
            return Some(Name::Secret(NAMED_KEY));
        }
        if name == b"key"
            && NOT_KEYS.iter().any(|n| ends_with_name(key, n).is_some())
            && !algolia_write_key(key)
        {
            continue;
        }
        if name == b"key" && !compound(key) {
            // A bare `key` is too common a name (`"key": "theme"`): only a
            // config's line of its own holds a key under it.
            return (first == 0).then_some(Name::Secret(BARE_KEY));
        }
        if starts_part && first > 0 {
            let (prev, cur) = (key[first - 1], key[first]);
            let camel = prev.is_ascii_lowercase() && cur.is_ascii_uppercase();
            if prev.is_ascii_alphanumeric() && !camel {
                continue;
            }
        }
        let aws = [&b"secretaccesskey"[..], b"awssecretkey", b"awssecret"]
            .iter()
            .any(|n| ends_with_name(key, n).is_some());
        return Some(Name::Secret(if aws {
            "aws-secret-key"
        } else if name == b"key" || name == b"license" || name == b"appkey" || name == b"pat" {
            NAMED_KEY
        } else if name == b"sig" || name == b"signature" {
            // Masked in query strings (SAS, presigned URLs) only: elsewhere
            // signatures are mostly public (JWS, TUF, webhooks).
            "signature"
        } else {
            "secret-assignment"
        }));
    }
    None
}

/// Algolia's write key writes to the index: a secret, unlike Segment's
/// and RudderStack's, which every page's snippet carries.
fn algolia_write_key(key: &[u8]) -> bool {
    ends_with_name(key, b"writekey").is_some()
        && key.windows(7).any(|w| w.eq_ignore_ascii_case(b"algolia"))
}

/// Whether the name says it holds no secret though it ends like one's
/// (`NextToken`, `cacheKey`, `existingSecret`): what a name read from its
/// place alone must not be either.
pub(super) fn declines(key: &[u8]) -> bool {
    names_existing(key)
        || names_hashed(key)
        || NOT_TOKENS.iter().any(|n| ends_with_name(key, n).is_some())
        || NOT_KEYS.iter().any(|n| ends_with_name(key, n).is_some())
}

/// The kind of a secret the name `key` names (`db_password`, `apiToken`),
/// if it names one (not `Authorization`, `Bearer`, `Cookie`).
pub(super) fn secret_kind(key: &[u8]) -> Option<&'static str> {
    let candidates = names_ending_like(key);
    if candidates == 0 {
        return None;
    }
    match name_of(key, candidates)? {
        Name::Secret(kind) => Some(kind),
        _ => None,
    }
}

/// Whether the name's last word is `auth` (`UPSTREAM_AUTH`,
/// `phase2-auth`).
pub(super) fn ends_auth(key: &[u8]) -> bool {
    ends_with_name(key, b"auth").is_some_and(|i| {
        i == 0 || matches!(key[i - 1], b'_' | b'-' | b'.') || key[i].is_ascii_uppercase()
    })
}

/// Whether the name `[ks, ke)` is SCRAM's `server_key` (`serverKey`) with
/// its `stored_key` just before it: a hash of the password, not Midtrans'
/// server key.
pub(super) fn scram_server_key(b: &[u8], ks: usize, ke: usize) -> bool {
    ends_with_name(&b[ks..ke], b"serverkey").is_some() && {
        // (On its line, or the lines before: `mongosh` prints a field a line.)
        let before = &b[ks.saturating_sub(256)..ks];
        crate::find(before, b"stored_key").is_some() || crate::find(before, b"storedKey").is_some()
    }
}

/// Whether the name is an access key's (`access_key`, `AccessKey`), whose
/// value is as often the key's id (S3-style, MinIO's) as a secret.
pub(super) fn access_key(key: &[u8]) -> bool {
    ends_with_name(key, b"accesskey").is_some()
}

/// Whether the name is a password's (`db_password`, `spring.mail.password`,
/// `keyPassphrase`, `PGPASS`): any value under it is one.
pub(super) fn password(key: &[u8]) -> bool {
    // (A WPA pre-shared key is a passphrase: `raven-kestrel-ember-cinder`.)
    [&b"password"[..], b"passwd", b"passphrase", b"presharedkey"]
        .iter()
        .any(|n| ends_with_name(key, n).is_some())
}

/// Whether the name is a password's, short names too (`DB_PASS`,
/// `MYSQL_PWD`, `DB_PW`, `PIN`): a value of digits may be one.
pub(super) fn password_like(key: &[u8]) -> bool {
    password(key)
        || [&b"pass"[..], b"pwd", b"pw", b"pin"].iter().any(|n| {
            ends_with_name(key, n).is_some_and(|i| {
                i == 0 || matches!(key[i - 1], b'_' | b'-' | b'.') || key[i].is_ascii_uppercase()
            })
        })
}

/// Whether the name says its value is a hash of the secret
/// (`hashed_secret` in a detect-secrets baseline, `hashedPassword`): a
/// digest, which gives nothing back.
fn names_hashed(key: &[u8]) -> bool {
    const WORD: &[u8] = b"hashed";
    key.len() > WORD.len() && key[..WORD.len()].eq_ignore_ascii_case(WORD)
}

/// Whether one of the name's words says its value is only part of a
/// secret, or a secret made unreadable: `truncated_key` (WooCommerce's last
/// seven characters), `masked_token`, `redacted_password`,
/// `encrypted_password`.
fn says_partial(key: &[u8]) -> bool {
    words(key).any(|w| {
        [&b"truncated"[..], b"masked", b"redacted", b"encrypted"]
            .iter()
            .any(|p| w.eq_ignore_ascii_case(p))
    })
}

/// Whether one of the name's words says its value is public:
/// `NEXT_PUBLIC_…` (Next.js builds it into every page), `publishable`
/// (Stripe's, Clerk's), `SEARCH_ONLY` (Algolia's browser key). A vendor's
/// secret under such a name is still found by its format.
fn says_public(key: &[u8]) -> bool {
    let mut before: &[u8] = &[];
    words(key).any(|w| {
        let public = w.eq_ignore_ascii_case(b"public")
            || w.eq_ignore_ascii_case(b"publishable")
            || (w.eq_ignore_ascii_case(b"only") && before.eq_ignore_ascii_case(b"search"));
        before = w;
        public
    })
}

/// Whether one of the name's words is `from`: its value says where the
/// secret comes from (Drone's and Woodpecker's `from_secret:
/// docker_password`, Kubernetes' `valueFrom`), not the secret.
fn says_from(key: &[u8]) -> bool {
    words(key).any(|w| w.eq_ignore_ascii_case(b"from"))
}

/// The words of a name: split at `_`, `-`, `.`, `:`, where lower case
/// turns upper (`NEXT_PUBLIC_KEY`, `searchOnlyKey`) and before the last
/// capital of a run of them (`SUPublicEDKey`: `SU`, `Public`, `ED`, `Key`).
pub(super) fn words(key: &[u8]) -> impl Iterator<Item = &[u8]> {
    let separator = |c: u8| matches!(c, b'_' | b'-' | b'.' | b':');
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < key.len() && separator(key[at]) {
            at += 1;
        }
        if at >= key.len() {
            return None;
        }
        let start = at;
        at += 1;
        while at < key.len()
            && !separator(key[at])
            && !(key[at - 1].is_ascii_lowercase() && key[at].is_ascii_uppercase())
            && !(key[at - 1].is_ascii_uppercase()
                && key[at].is_ascii_uppercase()
                && key.get(at + 1).is_some_and(u8::is_ascii_lowercase))
        {
            at += 1;
        }
        Some(&key[start..at])
    })
}

/// Whether the name has `existing` as one of its words (`existingSecret`,
/// `EXISTING_SECRET`, `auth.existingSecret`).
fn names_existing(key: &[u8]) -> bool {
    const WORD: &[u8] = b"existing";
    key.windows(WORD.len()).enumerate().any(|(i, w)| {
        w.eq_ignore_ascii_case(WORD)
            && (i == 0 || !key[i - 1].is_ascii_alphabetic() || key[i].is_ascii_uppercase())
    })
}

/// `DB_PASSWORD`, `apiKey`, `github.token`: a name as code and configs write
/// it, not a word of prose.
pub(super) fn compound(key: &[u8]) -> bool {
    let inside = &key[1.min(key.len())..key.len().saturating_sub(1)];
    inside.iter().any(|c| matches!(c, b'_' | b'.' | b'-'))
        || key
            .windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
}

/// Whether `key` ends with `name` (lower case), without regard to case or to
/// the separators `_`, `-`, `.`: where the match starts.
fn ends_with_name(key: &[u8], name: &[u8]) -> Option<usize> {
    let mut i = key.len();
    for &want in name.iter().rev() {
        loop {
            i = i.checked_sub(1)?;
            if !matches!(key[i], b'_' | b'-' | b'.') {
                break;
            }
        }
        // Lower case for letters; nothing else can match a letter.
        if key[i] | 0x20 != want {
            return None;
        }
    }
    Some(i)
}

/// What comes before `key` in names of keys that are credentials whatever
/// their shape, hex included (Datadog's `DD_APP_KEY` and
/// `DD-APPLICATION-KEY`, Algolia's admin and search keys, license keys).
const CREDENTIAL_KEYS: [&[u8]; 23] = [
    b"app",
    // ASP.NET's `<machineKey validationKey="…" decryptionKey="…">` (hex),
    // which sign and encrypt its cookies and view state.
    b"validation",
    b"decryption",
    // PagerDuty's Events API `routing_key` (32 hex); a message broker's
    // routing key is words (`orders.created`), never key-shaped.
    b"routing",
    b"webhook",
    b"hmac",
    b"jwt",
    b"session",
    // Vault's unseal and recovery keys.
    b"unseal",
    // kubeadm's `--certificate-key`, which decrypts the cluster's keys.
    b"certificate",
    b"application",
    b"admin",
    b"master",
    b"license",
    b"licence",
    b"write",
    b"search",
    b"service",
    b"client",
    b"integration",
    b"ingest",
    b"server",
    b"personal",
];

/// Whether the name is `<one of CREDENTIAL_KEYS>_key` or a license, any
/// case and separators: its value is a key even in hex.
pub(super) fn credential_key(key: &[u8]) -> bool {
    if ends_with_name(key, b"license").is_some() {
        return true;
    }
    let Some(k) = ends_with_name(key, b"key") else {
        return false;
    };
    CREDENTIAL_KEYS.iter().any(|q| {
        ends_with_name(&key[..k], q).is_some_and(|at| {
            at == 0
                || !key[at - 1].is_ascii_alphabetic()
                || (key[at - 1].is_ascii_lowercase() && key[at].is_ascii_uppercase())
        })
    })
}

/// `key1`, `key2`: Azure's two keys of a resource (`az cognitiveservices
/// account keys list`, `az storage account keys list`).
#[inline(never)]
pub(super) fn numbered_key(key: &[u8]) -> bool {
    key.len() == 4 && key[..3].eq_ignore_ascii_case(b"key") && key[3].is_ascii_digit()
}

/// A session cookie's name (`sessionid`, `PHPSESSID`, `JSESSIONID`,
/// `connect.sid`, `user_session`, `_shop_session`, `laravel_session`): its
/// value, where it looks random, is the session.
#[inline(never)]
pub(super) fn session_cookie(name: &[u8]) -> bool {
    let lower = |suffix: &[u8]| {
        name.len() >= suffix.len() && name[name.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
    };
    lower(b"session") || lower(b"sessionid") || lower(b"sessid") || lower(b"sid") || lower(b"_sess")
}

/// Whether a UUID under the name is a credential: Vault's AppRole
/// `secret_id`, Cypress's `record_key` (a session's UUID is mostly an id
/// that logs carry).
pub(super) fn uuid_key(key: &[u8]) -> bool {
    ends_with_name(key, b"secretid").is_some() || ends_with_name(key, b"recordkey").is_some()
}

/// The parts of a custom header's name (`X-…`) that say its value is no
/// credential: an identifier, a trace, a signature or a digest
/// (`X-Request-Id`, `X-Amzn-Trace-Id`, `X-Hub-Signature-256`, `x-amz-id-2`).
const NOT_CREDENTIAL_HEADERS: [&[u8]; 39] = [
    // What a request asks for or carries (`X-Amz-Target`, `X-GUploader-
    // UploadID`, `Sec-WebSocket-Key`'s nonce), how a client describes itself
    // (OpenAI's `x-stainless-runtime`), caching and forwarding.
    b"target",
    b"upload",
    b"websocket",
    b"forwarded",
    b"powered",
    b"cache",
    b"content",
    b"region",
    b"retry",
    b"runtime",
    b"lang",
    b"arch",
    b"package",
    b"platform",
    b"organization",
    b"id",
    b"ids",
    b"trace",
    b"request",
    b"correlation",
    b"span",
    b"signature",
    b"hmac",
    b"sha256",
    b"hash",
    b"digest",
    b"checksum",
    b"etag",
    b"nonce",
    b"version",
    b"timestamp",
    // A mail's headers (`X-SG-EID`, `X-Entity-Ref-ID`, `X-Gm-Message-State`,
    // `X-Google-Smtp-Source`, `X-Microsoft-Antispam-Message-Info`): ids,
    // routing and filtering, random as they are.
    b"eid",
    b"entity",
    b"message",
    b"smtp",
    b"antispam",
    b"spam",
    b"dkim",
    b"mailer",
];

/// Words that make an env name with one of them among its parts the name of
/// a credential (`OP_SESSION_my`, `TOKEN_GITHUB`, `SECRET_PROD`).
const CREDENTIAL_PARTS: [&[u8]; 10] = [
    b"session",
    b"token",
    b"secret",
    b"password",
    b"passwd",
    b"key",
    b"apikey",
    b"auth",
    b"credential",
    b"credentials",
];

/// Last parts of env names that hold no credential whatever comes before
/// them (`API_KEY_ID`, `SECRET_NAME`, `TOKEN_URL`).
const NOT_CREDENTIAL_LAST: [&[u8]; 9] = [
    b"id", b"ids", b"name", b"url", b"uri", b"path", b"file", b"type", b"host",
];

/// Whether the word `w` may be a weak name that [`weak_name`] reads where a
/// value is glued to it (`X-Api-Token:abc`, `OP_SESSION_my=…`): a cheap
/// test that holds wherever that one may. (The others, `Unseal Key 1: …`,
/// `New value: …`, `secret_id …`, are read only with a blank or a quote
/// after the operator.)
#[inline(always)]
pub(super) fn may_be_weak(w: &[u8]) -> bool {
    match w {
        [b'x' | b'X', b'-', ..] => true,
        // `bw … --session KEY`, `op … --session TOKEN`.
        [b'-', b'-', b's', ..] => w == b"--session",
        [first, ..] if first.is_ascii_uppercase() => memchr::memchr(b'_', w).is_some(),
        _ => false,
    }
}

/// A name that says less than [`NAMES`] but is a credential's where its
/// value looks random (reported as [`NAMED_KEY`]): the key `[ks, ke)` of `b`,
/// a word of its own.
///
/// - a custom header (`X-Honeycomb-Team`, `X-JFrog-Art-Api`), not one of an
///   identifier, a trace or a signature;
/// - an env name with a credential word among its parts (`OP_SESSION_my`,
///   `VAULT_SECRET_ID`), not ending in one that names something else
///   (`API_KEY_ID`, `SECRET_NAME`);
/// - the `--session` flag of Bitwarden's and 1Password's CLIs.
pub(super) fn weak_name(b: &[u8], ks: usize, ke: usize) -> Option<Name> {
    let key = &b[ks..ke];
    let is = |part: &[u8], list: &[&[u8]]| list.iter().any(|w| part.eq_ignore_ascii_case(w));
    if key == b"--session" {
        return Some(Name::Secret(NAMED_KEY));
    }
    if key.len() > 4 && (key[0] | 0x20) == b'x' && key[1] == b'-' {
        let credential = words(&key[2..]).all(|part| !is(part, &NOT_CREDENTIAL_HEADERS));
        return credential.then_some(Name::Secret(NAMED_KEY));
    }
    if key[0].is_ascii_uppercase() && key.contains(&b'_') {
        let mut parts = key.split(|&c| c == b'_');
        let last = parts.next_back()?;
        let before = parts.next_back();
        // `VAULT_SECRET_ID`: AppRole's secret, not an id.
        let secret_id = last.eq_ignore_ascii_case(b"id")
            && before.is_some_and(|p| p.eq_ignore_ascii_case(b"secret"));
        // `BW_SESSION`: Bitwarden's session key.
        let credential = (before
            .into_iter()
            .chain(parts)
            .any(|part| is(part, &CREDENTIAL_PARTS))
            || last.eq_ignore_ascii_case(b"session"))
            && (!is(last, &NOT_CREDENTIAL_LAST) || secret_id)
            && !last.is_empty();
        return credential.then_some(Name::Secret(NAMED_KEY));
    }
    None
}

/// A word that names a credential only where it stands: the key `[ks, ke)`
/// of `b`, with a blank or a quote after its operator.
///
/// - a numbered key (`Unseal Key 1:`, `Recovery Key 3:` of `vault operator
///   init`), as [`NAMED_KEY`];
/// - a prompt's `New value:` or `Secret value:`;
/// - Vault's AppRole `secret_id` (AWS's `SecretId` names a secret and does
///   not look random), a tool's `credential = …`: as [`NAMED_KEY`].
#[inline(always)]
pub(super) fn weak_word(b: &[u8], ks: usize, ke: usize) -> Option<Name> {
    let key = &b[ks..ke];
    let may_be = match key {
        [d] | [_, d] => d.is_ascii_digit(),
        [b'k' | b'K', _, _, d] => d.is_ascii_digit(),
        [first, ..] => {
            matches!(
                (first | 0x20, key.len()),
                (b'v', 5) | (b's', 9) | (b'c', 10 | 11)
            )
        }
        [] => false,
    };
    if !may_be {
        return None;
    }
    weak_word_body(b, ks, ke)
}

#[inline(never)]
fn weak_word_body(b: &[u8], ks: usize, ke: usize) -> Option<Name> {
    let key = &b[ks..ke];
    let is = |part: &[u8], list: &[&[u8]]| list.iter().any(|w| part.eq_ignore_ascii_case(w));
    // Glued to its value, it is no label (`value=3`); but for slapd's
    // `syncrepl … binddn=… credentials=…`, the bind's password.
    if matches!(b.get(ke), Some(b'=' | b':'))
        && b.get(ke + 1)
            .is_some_and(|&c| super::super::TOKEN[c as usize])
    {
        let bind = key.eq_ignore_ascii_case(b"credentials") && b.get(ke) == Some(&b'=') && {
            // (Within what a stream keeps of the text before it.)
            let from = ks.saturating_sub(768);
            crate::find(&b[from..ks], b"binddn=").is_some()
        };
        return bind.then_some(Name::Secret("secret-assignment"));
    }
    if is(
        key,
        &[b"secret_id", b"secret-id", b"credential", b"credentials"],
    ) {
        return Some(Name::Secret(NAMED_KEY));
    }
    // The word before the key, on its line, after one blank.
    let before = || {
        let e = ks.checked_sub(1).filter(|&e| b[e] == b' ')?;
        let n = b[..e]
            .iter()
            .rev()
            .take_while(|c| c.is_ascii_alphabetic())
            .count();
        (n > 0).then(|| &b[e - n..e])
    };
    if numbered_key(key) {
        return Some(Name::Secret(NAMED_KEY));
    }
    if key.iter().all(u8::is_ascii_digit) {
        return before()
            .filter(|w| w.eq_ignore_ascii_case(b"key"))
            .map(|_| Name::Secret(NAMED_KEY));
    }
    if key.eq_ignore_ascii_case(b"value") {
        return before()
            .filter(|w| is(w, &[b"new", b"secret", b"enter", b"hidden", b"sensitive"]))
            .map(|_| Name::Secret("secret-assignment"));
    }
    None
}
