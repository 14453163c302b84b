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
}

/// Endings of names of secrets, lower case, without separators. `true`: the
/// ending must start a part of the name (`DB_PASS`, `dbPass`, not `bypass`).
const NAMES: [(&[u8], bool); 30] = [
    (b"password", false),
    (b"passwd", false),
    (b"passphrase", false),
    (b"pass", true),
    (b"pwd", true),
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
    // A license, as secrets engines and CI settings name it: its value must
    // look like a key (`license: MIT` stays).
    (b"license", true),
    // Any other `…_key` (`ADAFRUIT_IO_KEY`, `licenseKey`): last, so that the
    // names above come first; its value must look like a key.
    (b"key", true),
];

/// Names ending in `key` whose values are public or not keys at all.
const NOT_KEYS: [&[u8]; 14] = [
    b"publickey",
    b"pubkey",
    b"primarykey",
    b"foreignkey",
    b"sortkey",
    b"partitionkey",
    b"rangekey",
    b"hashkey",
    b"cachekey",
    b"idempotencykey",
    b"hostkey",
    b"routingkey",
    b"objectkey",
    b"translationkey",
];

/// Names ending in `token` that hold no secret: pagination cursors and
/// idempotency tokens (`"NextToken": "…"` in every AWS list, Azure's
/// `$skiptoken=` and `--starting-token`).
const NOT_TOKENS: [&[u8]; 11] = [
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

/// The kind of a name that is only `…_key`: [`super::value`] asks more of
/// its value, and reports it as `secret-assignment`.
pub(super) const NAMED_KEY: &str = "named-key";

const OTHER_NAMES: [&[u8]; 3] = [b"authorization", b"bearer", b"basic"];
const AUTHORIZATION: u64 = 1 << NAMES.len();

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
        if names_existing(key) {
            return None;
        }
        if name == b"key"
            && (!compound(key) || NOT_KEYS.iter().any(|n| ends_with_name(key, n).is_some()))
        {
            // A bare `key` is too common a name (`"key": "theme"`).
            continue;
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
        } else if name == b"key" || name == b"license" {
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
const CREDENTIAL_KEYS: [&[u8]; 14] = [
    b"app",
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

/// Whether the name is `<one of CREDENTIAL_KEYS>_key`, any case and
/// separators: its value is a key even in hex.
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
