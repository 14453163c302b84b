//! What coding agents print when they run tools: `env`, `kubectl`, `docker
//! inspect`, `vault`, cloud CLIs, `git log -p`, `cat` of credential files,
//! database clients, CI logs, colourised output. Each template follows the
//! tool's documented output format (its manual or reference page), with
//! secrets where the tool shows one.
//!
//! A template is written once and used both ways: a positive fills its secret
//! slots with secrets (one slot, drawn at random, is the row's label; the
//! others are secrets too, as in real output), a negative fills them with
//! what stands in for a secret in such output: placeholders, the tool's own
//! mask, references, local default credentials. Some negatives exist only as
//! negatives (safe ciphertexts, ARNs, pagination tokens, digests).
//!
//! The held-out templates are other tools, or the same tools in other
//! formats: they are run and reported, never tuned against.

use std::ops::Range;

use super::corpus::{Row, Set};
use super::rng::*;
use super::vendors::VENDORS;

/// The `kind` of every row of this corpus.
pub const KIND: &str = "tool-output";

/// What a secret slot holds.
#[derive(Debug, Clone, Copy)]
enum Kind {
    /// A password a person or a tool chose.
    Password,
    /// Hex of this many digits (Datadog, Algolia, legacy tokens).
    Hex(usize),
    /// Standard base64 of this many random bytes (storage keys, `APP_KEY`).
    Base64(usize),
    /// Letters and digits, this many (most API keys without a prefix).
    Alnum(usize),
    /// A UUID used as a key (Heroku, some legacy tokens).
    Uuid,
    /// A vendor token with its documented prefix.
    Vendor,
}

pub struct Doc<'r> {
    r: &'r mut Rng,
    text: String,
    slots: Vec<Range<usize>>,
    negative: bool,
}

impl Doc<'_> {
    fn t(&mut self, s: &str) -> &mut Self {
        self.text.push_str(s);
        self
    }

    /// A secret of `kind` (a positive), or what stands in for one.
    fn s(&mut self, kind: Kind) -> &mut Self {
        let value = if self.negative {
            stand_in(self.r, kind)
        } else {
            secret(self.r, kind)
        };
        self.put(value)
    }

    /// A password where a local example would show the default (`user`
    /// itself, `postgres`, `password`).
    fn local(&mut self, user: &str) -> &mut Self {
        if self.negative {
            let v = (*self.r.pick(&[user, user, "password", "secret", "example"])).to_string();
            self.t(&v)
        } else {
            self.s(Kind::Password)
        }
    }

    /// A password in a URL's userinfo, percent-encoded as URLs carry it.
    fn url_password(&mut self) -> &mut Self {
        if self.negative {
            let v = stand_in(self.r, Kind::Password);
            return self.t(&v);
        }
        let v = password(self.r);
        let encoded: String = v
            .chars()
            .map(|c| match c {
                'a'..='z' | 'A'..='Z' | '0'..='9' | '-' | '.' | '_' | '~' => c.to_string(),
                _ => format!("%{:02X}", c as u32),
            })
            .collect();
        self.put(encoded)
    }

    /// A password on a shell command line: single-quoted when the shell
    /// would read it otherwise, as a working command has it.
    fn shell_password(&mut self) -> &mut Self {
        let v = if self.negative {
            stand_in(self.r, Kind::Password)
        } else {
            password(self.r)
        };
        let quote = v.bytes().any(|c| {
            !(c.is_ascii_alphanumeric()
                || matches!(
                    c,
                    b'-' | b'_' | b'.' | b'~' | b'@' | b'+' | b'=' | b'%' | b'/' | b':' | b','
                ))
        });
        if quote {
            self.t("'");
        }
        if self.negative {
            self.t(&v);
        } else {
            self.put(v);
        }
        if quote {
            self.t("'");
        }
        self
    }

    /// A password as a YAML plain scalar may hold it: double-quoted when a
    /// bare one would be read as something else (`!tag`, `*alias`, `: `).
    fn yaml_password(&mut self) -> &mut Self {
        let v = if self.negative {
            stand_in(self.r, Kind::Password)
        } else {
            password(self.r)
        };
        let quote = v.starts_with(|c: char| "!&*|>%@`'\"{[],#?:-~".contains(c))
            || v.contains(": ")
            || v.contains(" #");
        let v = if quote { format!("\"{v}\"") } else { v };
        if self.negative {
            self.t(&v)
        } else if quote {
            self.t("\"");
            let inner = v[1..v.len() - 1].to_string();
            self.put(inner).t("\"")
        } else {
            self.put(v)
        }
    }

    /// A slot whose value the template made (base64 of a secret, …).
    fn put(&mut self, value: String) -> &mut Self {
        let start = self.text.len();
        self.text.push_str(&value);
        if !self.negative {
            self.slots.push(start..self.text.len());
        }
        self
    }

    fn pick(&mut self, xs: &[&str]) -> String {
        (*self.r.pick(xs)).to_string()
    }

    fn hex(&mut self, n: usize) -> String {
        self.r.chars(HEX, n)
    }

    fn num(&mut self, lo: usize, hi: usize) -> usize {
        self.r.range(lo, hi)
    }

    fn user(&mut self) -> String {
        self.pick(&[
            "alice", "bob", "deploy", "app", "svc-ci", "admin", "jenkins", "etl_user",
        ])
    }

    fn host(&mut self) -> String {
        let h = self.pick(&["db", "cache", "api", "mq", "search", "ledger", "auth"]);
        let d = self.pick(&[
            "internal",
            "prod.example.com",
            "svc.cluster.local",
            "corp.net",
        ]);
        format!("{h}-{}.{d}", self.num(1, 9))
    }

    fn uuid(&mut self) -> String {
        uuid(self.r)
    }

    fn sha(&mut self) -> String {
        self.r.chars(HEX, 40)
    }

    fn date(&mut self) -> String {
        format!(
            "2026-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            self.num(1, 12),
            self.num(1, 28),
            self.num(0, 23),
            self.num(0, 59),
            self.num(0, 59)
        )
    }
}

const WORDS: &[&str] = &[
    "orbit", "maple", "copper", "lantern", "violet", "harbor", "quartz", "meadow", "falcon",
    "ember", "glacier", "thistle", "sparrow", "canyon", "velvet", "tundra", "juniper", "saffron",
];
const SYMBOLS: &[u8] = b"!@#%^&*-_+=?.~";

fn password(r: &mut Rng) -> String {
    match r.below(6) {
        // A person's: words, digits, a symbol.
        0 => {
            let w = r.pick(WORDS);
            let mut w = w.to_string();
            w[..1].make_ascii_uppercase();
            format!(
                "{w}{}{}{}",
                r.range(10, 9999),
                SYMBOLS[r.below(SYMBOLS.len())] as char,
                r.pick(WORDS)
            )
        }
        // A passphrase.
        1 => (0..4)
            .map(|_| *r.pick(WORDS))
            .collect::<Vec<_>>()
            .join(*r.pick(&["-", ".", "_"])),
        // `pwgen -s 16`, a password manager's.
        2 => {
            let n = r.range(12, 24);
            r.chars(ALNUM, n)
        }
        // `openssl rand -base64 24`.
        3 => {
            let n = r.range(15, 24);
            b64(&r.bytes(n))
        }
        // With symbols throughout.
        4 => {
            let mut set = ALNUM.to_vec();
            set.extend_from_slice(SYMBOLS);
            let n = r.range(10, 20);
            let mut p = r.chars(&set, n);
            p.push(SYMBOLS[r.below(SYMBOLS.len())] as char);
            p.push_str(&r.range(0, 9).to_string());
            p
        }
        // Short and human.
        _ => format!(
            "{}{}{}",
            r.pick(WORDS),
            r.range(1, 99),
            SYMBOLS[r.below(SYMBOLS.len())] as char
        ),
    }
}

fn secret(r: &mut Rng, kind: Kind) -> String {
    match kind {
        Kind::Password => password(r),
        Kind::Hex(n) => r.chars(HEX, n),
        Kind::Base64(n) => b64(&r.bytes(n)),
        Kind::Alnum(n) => r.chars(ALNUM, n),
        Kind::Uuid => uuid(r),
        Kind::Vendor => loop {
            let (_, generate) = VENDORS[r.below(VENDORS.len())];
            let s = generate(r);
            // Only the bare token: the templates give the context.
            if !s.block && s.before.is_empty() && s.after.is_empty() {
                break s.secret;
            }
        },
    }
}

/// What output shows instead of a secret: a placeholder, a tool's mask, a
/// reference to where the secret is kept.
const STAND_INS: &[&str] = &[
    "change-me",
    "changeme",
    "CHANGE_ME",
    "<password>",
    "<your-api-key>",
    "<TOKEN>",
    "your-api-key-here",
    "your_secret_here",
    "xxxxxxxxxxxxxxxx",
    "XXXXXXXXXXXXXXXXXXXX",
    "REPLACE_ME",
    "replace-with-your-key",
    "example-password",
    "dummy-secret",
    "placeholder",
    "fake-token-for-tests",
    "test-secret",
    "${DB_PASSWORD}",
    "$API_TOKEN",
    "{{ .Values.auth.password }}",
    "${{ secrets.DEPLOY_TOKEN }}",
    "%(password)s",
    "********",
    "****************",
    "•••••••••••",
    "[hidden]",
    "REDACTED",
    "<redacted>",
    "[FILTERED]",
    "(sensitive value)",
    "<sensitive>",
    "***",
];

fn stand_in(r: &mut Rng, kind: Kind) -> String {
    // Half the time a mask shaped like the kind: the tool kept the shape.
    if r.chance(0.5) {
        return match kind {
            Kind::Hex(n) | Kind::Alnum(n) => match r.below(3) {
                0 => "x".repeat(n),
                1 => format!("{}{}", "*".repeat(n.saturating_sub(4)), r.chars(HEX, 4)),
                _ => "0".repeat(n),
            },
            Kind::Base64(n) => match r.below(2) {
                0 => "A".repeat(n.div_ceil(3) * 4),
                _ => "DATA+OMITTED".into(),
            },
            Kind::Uuid => "00000000-0000-0000-0000-000000000000".into(),
            Kind::Vendor => {
                let p = *r.pick(&["ghp_", "gho_", "glpat-", "sk-", "xoxb-", "npm_", "sk_live_"]);
                match r.below(3) {
                    0 => format!("{p}{}", "*".repeat(r.range(20, 36))),
                    1 => format!("{p}...{}", r.chars(ALNUM, 4)),
                    _ => format!("{p}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
                }
            }
            Kind::Password => (*r.pick(STAND_INS)).to_string(),
        };
    }
    (*r.pick(STAND_INS)).to_string()
}

type Template = fn(&mut Doc);

/// `d.t(&format!(…))`, with the arguments formatted before `d` is borrowed.
macro_rules! w {
    ($d:expr, $($arg:tt)*) => {{
        let text = format!($($arg)*);
        $d.t(&text)
    }};
}

/// Templates of the tuning set.
const TUNING: &[(&str, Template)] = &[
    ("env", env),
    ("kubectl-secret-yaml", kubectl_secret),
    ("docker-inspect", docker_inspect),
    ("vault-kv-get", vault_kv_get),
    ("az-keys-list", az_keys_list),
    ("git-log-p-dotenv", git_log_dotenv),
    ("terraform-show", terraform_show),
    ("gh-auth-status", gh_auth_status),
    ("cat-dotenv-frameworks", dotenv_frameworks),
    ("cat-pgpass", pgpass),
    ("cat-kaggle-json", kaggle_json),
    ("cat-npmrc", npmrc),
    ("helm-values", helm_values),
    ("github-actions-log", actions_log),
    ("db-client-commands", db_clients),
    ("odbc-jdbc-strings", connection_strings),
    ("vendor-headers", vendor_headers),
    ("heroku-config", heroku_config),
    ("jq-color", jq_color),
    ("bat-dotenv", bat_dotenv),
    ("grep-color", grep_color),
    ("provider-block", provider_block),
    ("git-diff-private-key", diff_private_key),
    ("box-table", box_table),
    ("ini-credential-files", ini_files),
    ("rails-spring-config", app_config_yaml),
    ("ansible-group-vars", ansible_vars),
    ("kubectl-describe-aligned", describe_aligned),
    ("compose-list-env", compose_list),
    ("ml-tool-credentials", ml_credentials),
    ("java-keystore", java_keystore),
    ("systemd-and-ps", systemd_ps),
];

/// Templates only the held-out set has.
const HELD_OUT: &[(&str, Template)] = &[
    ("docker-compose-config", compose_config),
    ("aws-sso-cache", aws_cache_json),
    ("pip-conf-and-pypirc", pypirc),
    ("rails-credentials-show", rails_credentials),
    ("mlflow-dbt-profiles", dbt_profiles),
    ("redis-mongo-uris", service_uris),
    ("curl-verbose", curl_verbose),
    ("ansible-inventory", ansible_inventory),
    ("k8s-configmap-env-dump", kubectl_describe),
    ("putty-key", putty_key),
    ("keystore-yaml", keystore_yaml),
    ("okta-azdo", okta_azdo),
];

/// Templates that are only ever negatives.
const NEGATIVE_ONLY: &[(&str, Template)] = &[
    ("sealed-secret", sealed_secret),
    ("sops-file", sops_file),
    ("ansible-vault", ansible_vault),
    ("aws-arns-and-pages", arns_and_pages),
    ("image-digests", image_digests),
    ("local-defaults", local_defaults),
];

/// `n` positives from `set`'s templates; the held-out set uses only its own.
pub fn positives(seed: u64, n: usize, set: Set, first_id: usize) -> Vec<Row> {
    let mut r = Rng::new(seed);
    let templates = if set == Set::HeldOut {
        HELD_OUT
    } else {
        TUNING
    };
    (0..n)
        .map(|i| {
            let (name, template) = templates[i % templates.len()];
            let (text, slots) = expand(&mut r, template, false);
            let label = slots[r.below(slots.len())].clone();
            let cuts = if r.chance(super::corpus::STREAMED) {
                super::corpus::cuts(&mut r, &text, Some(&label))
            } else {
                Vec::new()
            };
            Row {
                id: first_id + i,
                set,
                kind: KIND,
                context: name,
                text,
                secret: Some(label),
                cuts,
            }
        })
        .collect()
}

/// `n` negatives: every template with stand-ins, and the negative-only ones.
pub fn negatives(seed: u64, n: usize, first_id: usize) -> Vec<Row> {
    let mut r = Rng::new(seed);
    let all: Vec<_> = TUNING
        .iter()
        .chain(HELD_OUT)
        .chain(NEGATIVE_ONLY)
        .chain(NEGATIVE_ONLY)
        .collect();
    (0..n)
        .map(|i| {
            let (name, template) = *all[i % all.len()];
            let (text, _) = expand(&mut r, template, true);
            let cuts = if r.chance(super::corpus::STREAMED) {
                super::corpus::cuts(&mut r, &text, None)
            } else {
                Vec::new()
            };
            Row {
                id: first_id + i,
                set: Set::Negative,
                kind: KIND,
                context: name,
                text,
                secret: None,
                cuts,
            }
        })
        .collect()
}

fn expand(r: &mut Rng, template: Template, negative: bool) -> (String, Vec<Range<usize>>) {
    let mut d = Doc {
        r,
        text: String::new(),
        slots: Vec::new(),
        negative,
    };
    template(&mut d);
    (d.text, d.slots)
}

/// The text as `git diff` shows a new file: a header, then `+` before each
/// line; the slots follow.
fn as_added_file(d: &mut Doc, path: &str, body: impl FnOnce(&mut Doc)) {
    let index = format!("{}..{}", d.hex(7), d.hex(7));
    w!(
        d,
        "diff --git a/{path} b/{path}\nnew file mode 100644\nindex 0000000..{}\n--- /dev/null\n+++ b/{path}\n",
        &index[9..]
    );
    let from = d.text.len();
    let slots_before = d.slots.len();
    body(d);
    let added = d.text.split_off(from);
    let lines = added.lines().count();
    w!(d, "@@ -0,0 +1,{lines} @@\n");
    let base = d.text.len();
    // Where each byte of `added` lands once every line starts with `+`.
    let mut map = Vec::with_capacity(added.len() + 1);
    let mut out = String::with_capacity(added.len() + lines);
    let mut line_start = true;
    for (i, c) in added.char_indices() {
        if line_start {
            out.push('+');
        }
        for k in 0..c.len_utf8() {
            map.push((i + k, out.len() + k));
        }
        out.push(c);
        line_start = c == '\n';
    }
    let at = |p: usize| {
        map.iter()
            .find(|&&(from, _)| from == p)
            .map_or(out.len(), |&(_, to)| to)
    };
    for slot in &mut d.slots[slots_before..] {
        let (s, e) = (slot.start - from, slot.end - from);
        *slot = base + at(s)..base + at(e - 1) + 1;
    }
    d.t(&out);
}

// ---- tuning templates -------------------------------------------------------

fn env(d: &mut Doc) {
    let user = d.user();
    w!(
        d,
        "SHELL=/bin/bash\nHOSTNAME={}\nLANG=C.UTF-8\nHOME=/home/{user}\nUSER={user}\nPATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin\n",
        d.hex(12)
    );
    let lines: [fn(&mut Doc); 8] = [
        |d| {
            d.t("DATABASE_PASSWORD=").s(Kind::Password).t("\n");
        },
        |d| {
            d.t("DD_API_KEY=").s(Kind::Hex(32)).t("\n");
        },
        |d| {
            d.t("DD_APP_KEY=").s(Kind::Hex(40)).t("\n");
        },
        |d| {
            d.t("ALGOLIA_ADMIN_KEY=").s(Kind::Hex(32)).t("\n");
        },
        |d| {
            d.t("SENTRY_AUTH_TOKEN=").s(Kind::Vendor).t("\n");
        },
        |d| {
            d.t("REDIS_PASSWORD=").s(Kind::Password).t("\n");
        },
        |d| {
            d.t("HEROKU_API_KEY=").s(Kind::Uuid).t("\n");
        },
        |d| {
            d.t("MAPS_API_KEY=").s(Kind::Alnum(39)).t("\n");
        },
    ];
    for _ in 0..d.num(2, 4) {
        let line = lines[d.num(0, lines.len() - 1)];
        line(d);
    }
    let sha = d.sha();
    w!(
        d,
        "GIT_COMMIT={sha}\nTERM=xterm-256color\nOLDPWD=/workspace\n_=/usr/bin/env\n"
    );
}

fn kubectl_secret(d: &mut Doc) {
    let name = d.pick(&["db-credentials", "app-secrets", "api-keys", "registry-auth"]);
    d.t("apiVersion: v1\ndata:\n");
    let pw = secret(d.r, Kind::Password);
    let (k1, k2) = if d.r.chance(0.5) {
        ("password", "api-key")
    } else {
        ("DB_PASS", "STRIPE_SECRET")
    };
    if d.negative {
        w!(d, "  {k1}: ");
        let v = stand_in(d.r, Kind::Password);
        d.t(&b64(v.as_bytes()));
    } else {
        w!(d, "  {k1}: ").put(b64(pw.as_bytes()));
    }
    d.t("\n");
    let user = d.user();
    w!(d, "  username: {}\n", b64(user.as_bytes()));
    if d.negative {
        let v = stand_in(d.r, Kind::Vendor);
        w!(d, "  {k2}: {}\n", b64(v.as_bytes()));
    } else {
        let v = secret(d.r, Kind::Alnum(32));
        w!(d, "  {k2}: ").put(b64(v.as_bytes())).t("\n");
    }
    let date = d.date();
    let uid = d.uuid();
    w!(
        d,
        "kind: Secret\nmetadata:\n  creationTimestamp: \"{date}\"\n  name: {name}\n  namespace: default\n  resourceVersion: \"{}\"\n  uid: {uid}\ntype: Opaque\n",
        d.num(1000, 999_999)
    );
}

fn docker_inspect(d: &mut Doc) {
    let id = d.r.chars(HEX, 64);
    let user = d.user();
    let host = d.host();
    w!(
        d,
        "[\n    {{\n        \"Id\": \"{id}\",\n        \"Created\": \"{}\",\n        \"Path\": \"docker-entrypoint.sh\",\n        \"Config\": {{\n            \"Hostname\": \"{}\",\n            \"Env\": [\n                \"POSTGRES_USER={user}\",\n                \"POSTGRES_PASSWORD=",
        d.date(),
        &id[..12]
    );
    d.s(Kind::Password);
    w!(d, "\",\n                \"CACHE_URL=redis://:");
    d.url_password();
    w!(d, "@{host}:6379/0\",\n                \"SECRET_KEY_BASE=");
    d.s(Kind::Hex(128));
    d.t("\",\n                \"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin\",\n                \"PG_MAJOR=16\"\n            ],\n            \"Image\": \"postgres:16\"\n        }\n    }\n]\n");
}

fn vault_kv_get(d: &mut Doc) {
    let path = d.pick(&["secret/app/prod", "kv/payments", "secret/data/ci"]);
    let date = d.date();
    w!(
        d,
        "====== Secret Path ======\n{path}\n\n======= Metadata =======\nKey                Value\n---                -----\ncreated_time       {date}\ncustom_metadata    <nil>\ndeletion_time      n/a\ndestroyed          false\nversion            {}\n\n====== Data ======\nKey             Value\n---             -----\n",
        d.num(1, 40)
    );
    let rows: [(&str, Kind); 5] = [
        ("api_key", Kind::Alnum(32)),
        ("db_password", Kind::Password),
        ("signing_secret", Kind::Base64(32)),
        ("smtp_pass", Kind::Password),
        ("license", Kind::Hex(32)),
    ];
    for _ in 0..d.num(2, 3) {
        let (k, kind) = rows[d.num(0, rows.len() - 1)];
        w!(d, "{k:<16}").s(kind).t("\n");
    }
}

fn az_keys_list(d: &mut Doc) {
    d.t("[\n");
    for i in 1..=2 {
        w!(
            d,
            "  {{\n    \"creationTime\": \"{}\",\n    \"keyName\": \"key{i}\",\n    \"permissions\": \"FULL\",\n    \"value\": \"",
            d.date()
        );
        d.s(Kind::Base64(64));
        d.t(if i == 1 { "\"\n  },\n" } else { "\"\n  }\n" });
    }
    d.t("]\n");
}

fn git_log_dotenv(d: &mut Doc) {
    let user = d.user();
    let sha = d.sha();
    w!(
        d,
        "commit {sha}\nAuthor: {user} <{user}@example.com>\nDate:   Mon Nov 30 10:{:02}:12 2026 +0000\n\n    add local config\n\n",
        d.num(0, 59)
    );
    as_added_file(d, ".env", |d| {
        d.t("APP_ENV=production\nAPP_DEBUG=false\nSTRIPE_SECRET=");
        d.s(Kind::Vendor);
        d.t("\nMAIL_PASSWORD=");
        d.s(Kind::Password);
        d.t("\nPUSHER_APP_SECRET=");
        d.s(Kind::Alnum(20));
        d.t("\n");
    });
}

fn terraform_show(d: &mut Doc) {
    let id = d.pick(&["main", "primary", "app"]);
    let user = d.user();
    w!(
        d,
        "# aws_db_instance.{id}:\nresource \"aws_db_instance\" \"{id}\" {{\n    allocated_storage = 20\n    arn               = \"arn:aws:rds:us-east-1:{}:db:{id}\"\n    engine            = \"postgres\"\n    username          = \"{user}\"\n    password          = \"",
        d.num(100_000_000_000, 999_999_999_999)
    );
    d.s(Kind::Password);
    d.t("\"\n}\n\n# random_password.api:\nresource \"random_password\" \"api\" {\n    length  = 32\n    result  = \"");
    d.s(Kind::Password);
    d.t("\"\n    special = true\n}\n");
}

fn gh_auth_status(d: &mut Doc) {
    let user = d.user();
    w!(
        d,
        "github.com\n  ✓ Logged in to github.com account {user} (keyring)\n  - Active account: true\n  - Git operations protocol: https\n  - Token: "
    );
    if d.negative {
        let stars = "*".repeat(36);
        w!(d, "gho_{stars}");
    } else {
        d.s(Kind::Vendor);
    }
    d.t("\n  - Token scopes: 'gist', 'read:org', 'repo', 'workflow'\n");
}

fn dotenv_frameworks(d: &mut Doc) {
    d.t("APP_NAME=Laravel\nAPP_ENV=local\nAPP_KEY=base64:");
    d.s(Kind::Base64(32));
    d.t("\nAPP_URL=http://localhost\n\nDJANGO_SECRET_KEY='django-insecure-");
    if d.negative {
        d.t("change-me'\n");
    } else {
        let mut set = LOWER_NUM.to_vec();
        set.extend_from_slice(b"!@#$%^&*(-_=+)");
        let k = d.r.chars(&set, 50);
        d.put(k).t("'\n");
    }
    d.t("FLASK_SECRET_KEY=");
    d.s(Kind::Hex(64));
    d.t("\nSESSION_SECRET=");
    d.s(Kind::Password);
    d.t("\nLOG_LEVEL=debug\n");
}

fn pgpass(d: &mut Doc) {
    for _ in 0..d.num(1, 3) {
        let host = d.host();
        let port = d.pick(&["5432", "5433", "*", "6432"]);
        let db = d.pick(&["app", "analytics", "*", "billing"]);
        let user = d.user();
        w!(d, "{host}:{port}:{db}:{user}:")
            .s(Kind::Password)
            .t("\n");
    }
}

fn kaggle_json(d: &mut Doc) {
    let user = d.user();
    w!(d, "{{\"username\":\"{user}\",\"key\":\"")
        .s(Kind::Hex(32))
        .t("\"}\n");
}

fn npmrc(d: &mut Doc) {
    d.t("registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=");
    d.s(Kind::Vendor);
    d.t("\n@corp:registry=https://npm.corp.net/\n//npm.corp.net/:_auth=");
    let user = d.user();
    if d.negative {
        let v = stand_in(d.r, Kind::Password);
        d.t(&b64(format!("{user}:{v}").as_bytes()));
    } else {
        let pw = password(d.r);
        d.put(b64(format!("{user}:{pw}").as_bytes()));
    }
    d.t("\n//npm.corp.net/:always-auth=true\n");
}

fn helm_values(d: &mut Doc) {
    d.t("replicaCount: 2\nimage:\n  repository: ghcr.io/corp/api\n  tag: \"1.4.2\"\npostgresql:\n  enabled: true\n  auth:\n    username: app\n    postgresPassword: ");
    d.yaml_password();
    d.t("\n    password: ");
    d.yaml_password();
    d.t("\n    database: app\nredis:\n  auth:\n    enabled: true\n    password: \"");
    d.s(Kind::Password);
    d.t("\"\nconfig:\n  secretKey: ");
    d.s(Kind::Alnum(40));
    d.t("\n  jwtSigningKey: ");
    d.s(Kind::Base64(48));
    d.t("\n");
}

fn actions_log(d: &mut Doc) {
    let ts = |d: &mut Doc| {
        format!(
            "2026-11-30T10:{:02}:{:02}.{:07}Z",
            d.num(0, 59),
            d.num(0, 59),
            d.num(0, 9_999_999)
        )
    };
    let user = d.user();
    let t1 = ts(d);
    let t2 = ts(d);
    w!(
        d,
        "{t1} ##[group]Run docker login registry.corp.net -u {user} -p "
    );
    d.shell_password();
    w!(d, "\n{t2} docker login registry.corp.net -u {user} -p ");
    d.shell_password();
    let t3 = ts(d);
    let t4 = ts(d);
    w!(
        d,
        "\n{t3} shell: /usr/bin/bash -e {{0}}\n{t4} env:\n{}   NPM_TOKEN: ***\n",
        ts(d)
    );
    let t5 = ts(d);
    w!(d, "{t5}   SONAR_TOKEN: ");
    d.s(Kind::Hex(40));
    let t6 = ts(d);
    w!(
        d,
        "\n{t6} ##[endgroup]\n{} WARNING! Using --password via the CLI is insecure. Use --password-stdin.\n",
        ts(d)
    );
}

fn db_clients(d: &mut Doc) {
    let host = d.host();
    let user = d.user();
    let cmds: [fn(&mut Doc, &str, &str); 7] = [
        |d, h, u| {
            w!(d, "$ mysql -h {h} -u {u} -p")
                .shell_password()
                .t(" app -e 'select 1'\n");
        },
        |d, h, u| {
            w!(d, "$ PGPASSWORD=")
                .shell_password()
                .t(&format!(" psql -h {h} -U {u} app\n"));
        },
        |d, h, _| {
            w!(
                d,
                "$ ldapsearch -x -H ldap://{h} -D \"cn=admin,dc=corp,dc=net\" -w "
            )
            .shell_password()
            .t(" -b \"dc=corp,dc=net\"\n");
        },
        |d, h, u| {
            d.t("$ sshpass -p '")
                .s(Kind::Password)
                .t(&format!("' ssh {u}@{h}\n"));
        },
        |d, h, _| {
            w!(d, "$ redis-cli -h {h} -a ")
                .shell_password()
                .t(" ping\nPONG\n");
        },
        |d, h, _| {
            w!(d, "$ sqlcmd -S {h} -U sa -P ")
                .shell_password()
                .t(" -Q \"SELECT @@VERSION\"\n");
        },
        |d, h, u| {
            w!(d, "$ mongosh --host {h} -u {u} -p ")
                .shell_password()
                .t(" --authenticationDatabase admin\n");
        },
    ];
    for _ in 0..d.num(1, 2) {
        let c = cmds[d.num(0, cmds.len() - 1)];
        c(d, &host, &user);
    }
}

fn connection_strings(d: &mut Doc) {
    let host = d.host();
    let user = d.user();
    match d.num(0, 2) {
        0 => {
            w!(
                d,
                "Driver={{ODBC Driver 18 for SQL Server}};Server=tcp:{host},1433;Database=app;Uid={user};Pwd={{"
            );
            d.s(Kind::Password);
            d.t("};Encrypt=yes;TrustServerCertificate=no;\n");
        }
        1 => {
            w!(
                d,
                "spring.datasource.url=jdbc:mysql://{host}:3306/app?user={user}&password="
            );
            d.url_password();
            d.t("&useSSL=true\n");
        }
        _ => {
            w!(d, "jdbc:oracle:thin:{user}/");
            d.s(Kind::Password);
            w!(d, "@{host}:1521/ORCLPDB1\n");
        }
    }
}

fn vendor_headers(d: &mut Doc) {
    d.t("> POST /api/v2/series HTTP/2\n> Host: api.datadoghq.com\n> Content-Type: application/json\n> DD-API-KEY: ");
    d.s(Kind::Hex(32));
    d.t("\n> DD-APPLICATION-KEY: ");
    d.s(Kind::Hex(40));
    d.t("\n\n> GET /1/indexes HTTP/1.1\n> X-Algolia-Application-Id: ");
    let app = d.r.chars(UPPER_NUM, 10);
    d.t(&app);
    d.t("\n> X-Algolia-API-Key: ");
    d.s(Kind::Hex(32));
    d.t("\n");
}

fn heroku_config(d: &mut Doc) {
    let app = d.pick(&["api-prod", "shop-staging", "worker"]);
    let host = d.host();
    let user = d.user();
    w!(
        d,
        "=== {app} Config Vars\nDATABASE_URL:      postgres://{user}:"
    );
    d.url_password();
    w!(
        d,
        "@{host}:5432/{}\nLANG:              en_US.UTF-8\nMAILGUN_API_KEY:   ",
        d.hex(8)
    );
    d.s(Kind::Vendor);
    d.t("\nRACK_ENV:          production\nSECRET_KEY_BASE:   ");
    d.s(Kind::Hex(128));
    d.t("\n");
}

/// `jq -C`: keys in bold blue, strings in green.
fn jq_color(d: &mut Doc) {
    let key = |d: &mut Doc, k: &str| {
        w!(d, "  \x1b[34;1m\"{k}\"\x1b[0m\x1b[1;39m:");
    };
    d.t("\x1b[1;39m{\n");
    key(d, "client_id");
    let id = d.uuid();
    w!(d, " \x1b[0;32m\"{id}\"\x1b[0m\x1b[1;39m,\n");
    key(d, "client_secret");
    d.t(" \x1b[0;32m\"")
        .s(Kind::Alnum(34))
        .t("\"\x1b[0m\x1b[1;39m,\n");
    key(d, "api_token");
    d.t(" \x1b[0;32m\"")
        .s(Kind::Vendor)
        .t("\"\x1b[0m\x1b[1;39m,\n");
    key(d, "region");
    d.t(" \x1b[0;32m\"eu-west-1\"\x1b[0m\x1b[1;39m\n\x1b[1;39m}\x1b[0m\n");
}

/// `bat .env`: a number column, then each part of a line in its colour.
fn bat_dotenv(d: &mut Doc) {
    let rows: [(&str, Kind); 4] = [
        ("API_SECRET", Kind::Alnum(32)),
        ("DB_PASSWORD", Kind::Password),
        ("GITHUB_TOKEN", Kind::Vendor),
        ("SIGNING_KEY", Kind::Base64(32)),
    ];
    d.t("\x1b[38;5;238m───────┬────────────────────────────────────────\x1b[0m\n       \x1b[38;5;238m│ \x1b[0mFile: \x1b[1m.env\x1b[0m\n\x1b[38;5;238m───────┼────────────────────────────────────────\x1b[0m\n");
    for (n, (k, kind)) in rows.iter().enumerate() {
        w!(
            d,
            "\x1b[38;5;238m   {}\x1b[0m   \x1b[38;5;238m│\x1b[0m \x1b[38;5;203m{k}\x1b[0m\x1b[38;5;231m=\x1b[0m\x1b[38;5;186m",
            n + 1
        );
        d.s(*kind);
        d.t("\x1b[0m\n");
    }
}

/// `grep --color=always -rn`: file, line number and the match coloured.
fn grep_color(d: &mut Doc) {
    let files = ["config/database.yml", "deploy/values.yaml", "settings.py"];
    for (i, (name, kind)) in [
        ("password", Kind::Password),
        ("token", Kind::Vendor),
        ("secret", Kind::Alnum(24)),
    ]
    .iter()
    .enumerate()
    {
        w!(
            d,
            "\x1b[35m\x1b[K{}\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[K\x1b[32m\x1b[K{}\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[K  \x1b[01;31m\x1b[K{name}\x1b[m\x1b[K: ",
            files[i],
            d.num(3, 200)
        );
        // The files are YAML: a password is quoted where YAML needs it.
        if matches!(kind, Kind::Password) {
            d.yaml_password();
        } else {
            d.s(*kind);
        }
        d.t("\n");
    }
}

fn provider_block(d: &mut Doc) {
    d.t("provider \"datadog\" {\n  api_key = \"");
    d.s(Kind::Hex(32));
    d.t("\"\n  app_key = \"");
    d.s(Kind::Hex(40));
    d.t("\"\n  api_url = \"https://api.datadoghq.eu/\"\n}\n\nprovider \"algolia\" {\n  app_id  = \"");
    let app = d.r.chars(UPPER_NUM, 10);
    d.t(&app);
    d.t("\"\n  api_key = \"");
    d.s(Kind::Hex(32));
    d.t("\"\n}\n");
}

fn diff_private_key(d: &mut Doc) {
    let user = d.user();
    w!(
        d,
        "commit {}\nAuthor: {user} <{user}@example.com>\n\n    deploy key\n\n",
        d.sha()
    );
    as_added_file(d, "deploy/id_rsa", |d| {
        if d.negative {
            d.t("-----BEGIN OPENSSH PRIVATE KEY-----\n<paste the deploy key here>\n-----END OPENSSH PRIVATE KEY-----\n");
            return;
        }
        let mut key = String::from("-----BEGIN RSA PRIVATE KEY-----\n");
        let body = b64(&d.r.bytes(48 * 12));
        for line in body.as_bytes().chunks(64) {
            key.push_str(std::str::from_utf8(line).unwrap());
            key.push('\n');
        }
        key.push_str("-----END RSA PRIVATE KEY-----");
        d.put(key).t("\n");
    });
}

/// A CLI's box table (`openstack … show`, `heroku`-like plugins).
fn box_table(d: &mut Doc) {
    let border = "+---------------+------------------------------------------+\n";
    d.t(border);
    d.t("| Field         | Value                                    |\n");
    d.t(border);
    let id = d.uuid();
    w!(d, "| id            | {id:<40} |\n");
    for (label, kind) in [
        ("API Secret", Kind::Alnum(32)),
        ("Password", Kind::Password),
    ] {
        w!(d, "| {label:<13} | ");
        let start = d.text.len();
        d.s(kind);
        let len = d.text.len() - start;
        d.t(&" ".repeat(40usize.saturating_sub(len)));
        d.t(" |\n");
    }
    d.t("| enabled       | True                                     |\n");
    d.t(border);
}

/// `.my.cnf`, `.s3cfg`, `rclone.conf`, `.databrickscfg`: INI sections with
/// `key = value`.
fn ini_files(d: &mut Doc) {
    let user = d.user();
    w!(d, "[client]\nuser = {user}\npassword = ");
    d.s(Kind::Password);
    d.t("\nhost = ");
    let host = d.host();
    // A key id is masked too: a negative shows the documentation's example.
    let id = if d.negative {
        "AKIAIOSFODNN7EXAMPLE".to_string()
    } else {
        format!("AKIA{}", d.r.chars(UPPER32, 16))
    };
    w!(d, "{host}\n\n[default]\naccess_key = {id}\nsecret_key = ");
    d.s(Kind::Base64(30));
    d.t("\nhost_base = s3.amazonaws.com\n\n[remote-backup]\ntype = sftp\nhost = ");
    w!(d, "{host}\nuser = {user}\npass = ");
    d.s(Kind::Alnum(43));
    d.t("\n\n[DEFAULT]\nhost = https://adb-1234567890123456.7.azuredatabricks.net\ntoken = ");
    if d.negative {
        d.t("dapi<your-token>");
    } else {
        let t = format!("dapi{}", d.r.chars(HEX, 32));
        d.put(t);
    }
    d.t("\n");
}

/// Rails `database.yml` and Spring `application.yml`: nested YAML.
fn app_config_yaml(d: &mut Doc) {
    let user = d.user();
    let host = d.host();
    w!(
        d,
        "production:\n  adapter: postgresql\n  host: {host}\n  username: {user}\n  password: "
    );
    d.yaml_password();
    d.t("\n  pool: 5\n---\nspring:\n  datasource:\n    url: jdbc:postgresql://");
    w!(d, "{host}:5432/app\n    username: {user}\n    password: ");
    d.yaml_password();
    d.t("\n  mail:\n    host: smtp.example.com\n    password: \"");
    d.s(Kind::Password);
    d.t("\"\n");
}

fn ansible_vars(d: &mut Doc) {
    d.t("---\nmysql_root_password: ");
    d.yaml_password();
    d.t("\napp_secret_key: ");
    d.s(Kind::Alnum(40));
    let host = d.host();
    w!(d, "\n\n[db]\n{host} ansible_ssh_pass=");
    d.shell_password();
    d.t(" ansible_sudo_pass=");
    d.shell_password();
    d.t("\n");
}

/// `kubectl describe` and `docker info`-like output: `Name:` and the value
/// aligned in a column.
fn describe_aligned(d: &mut Doc) {
    d.t("Name:             worker-5f6d\nNamespace:        jobs\nEnvironment:\n  QUEUE_URL:        amqp://mq:5672\n  WEBHOOK_SECRET:   ");
    d.s(Kind::Alnum(32));
    d.t("\n  MONGO_PASSWORD:   ");
    d.s(Kind::Password);
    d.t("\n  ALGOLIA_WRITE_KEY:  ");
    d.s(Kind::Hex(32));
    d.t("\nMounts:\n  /var/run/secrets from kube-api-access (ro)\n");
}

/// Compose's list form of `environment:`.
fn compose_list(d: &mut Doc) {
    d.t("services:\n  cache:\n    image: redis:7\n    command: redis-server --requirepass ");
    d.shell_password();
    d.t("\n  web:\n    environment:\n      - RAILS_ENV=production\n      - SECRET_KEY_BASE=");
    d.s(Kind::Hex(128));
    d.t("\n      - SMTP_PASSWORD=");
    d.s(Kind::Password);
    d.t("\n");
}

/// Credential files of data and ML tools: `~/.config/wandb`, Snowflake's
/// `connections.toml`, MLflow's env, `~/.huggingface/token`.
fn ml_credentials(d: &mut Doc) {
    let user = d.user();
    d.t("$ cat ~/.snowflake/connections.toml\n[default]\naccount = \"xy12345.eu-west-1\"\n");
    w!(d, "user = \"{user}\"\npassword = \"");
    d.s(Kind::Password);
    d.t("\"\nwarehouse = \"COMPUTE_WH\"\n$ env | grep MLFLOW\nMLFLOW_TRACKING_USERNAME=");
    w!(d, "{user}\nMLFLOW_TRACKING_PASSWORD=");
    d.s(Kind::Password);
    d.t("\n$ cat ~/.netrc\nmachine api.wandb.ai\n  login user\n  password ");
    d.s(Kind::Hex(40));
    d.t("\n");
}

/// A PKCS#12 keystore as base64 in an env var and in JSON, with its
/// password in `.properties`.
fn java_keystore(d: &mut Doc) {
    d.t("KAFKA_SSL_KEYSTORE_B64=");
    if d.negative {
        d.t("<base64 of keystore.p12>");
    } else {
        let der = pkcs12(d);
        d.put(der);
    }
    d.t("\nssl.keystore.type=PKCS12\nssl.keystore.password=");
    d.s(Kind::Password);
    d.t("\nssl.key.password=");
    d.s(Kind::Password);
    d.t("\n{\"name\": \"client-cert\", \"pfx\": \"");
    if d.negative {
        d.t("");
    } else {
        let der = pkcs12(d);
        d.put(der);
    }
    d.t("\"}\n");
}

/// Base64 of a PKCS#12 file: a DER SEQUENCE, then `INTEGER 3` (its
/// version), then the rest.
fn pkcs12(d: &mut Doc) -> String {
    let n = d.num(1200, 2600);
    let mut der = vec![
        0x30,
        0x82,
        (n >> 8) as u8,
        n as u8,
        0x02,
        0x01,
        0x03,
        0x30,
        0x82,
    ];
    der.extend(d.r.bytes(n - 5));
    b64(&der)
}

/// `systemctl cat` and `ps` output: secrets on command lines and in unit
/// files.
fn systemd_ps(d: &mut Doc) {
    d.t("# /etc/systemd/system/exporter.service\n[Service]\nEnvironment=\"EXPORTER_PASSWORD=");
    d.s(Kind::Password);
    d.t("\"\nExecStart=/usr/local/bin/exporter --web.listen-address=:9100\n\n$ ps aux | grep redis\nredis     1234  0.3  0.1  62000  9100 ?  Ssl  10:01   0:12 redis-server *:6379 --requirepass ");
    d.shell_password();
    d.t("\n");
}

// ---- held-out templates -----------------------------------------------------

fn compose_config(d: &mut Doc) {
    d.t("name: shop\nservices:\n  db:\n    environment:\n      MYSQL_DATABASE: shop\n      MYSQL_ROOT_PASSWORD: ");
    d.yaml_password();
    d.t("\n    image: mysql:8.4\n  api:\n    environment:\n      ALGOLIA_API_KEY: ");
    d.s(Kind::Hex(32));
    d.t("\n      JWT_SECRET: ");
    d.s(Kind::Base64(32));
    d.t("\n    image: shop-api:latest\n");
}

fn aws_cache_json(d: &mut Doc) {
    w!(
        d,
        "{{\"startUrl\": \"https://corp.awsapps.com/start\", \"region\": \"us-east-1\", \"accessToken\": \""
    );
    if d.negative {
        d.t("<access-token>");
    } else {
        let t = format!("aoa{}:{}", d.r.chars(ALNUM, 60), d.r.chars(B64, 80));
        d.put(t);
    }
    w!(
        d,
        "\", \"expiresAt\": \"{}\", \"clientSecret\": \"",
        d.date()
    );
    d.s(Kind::Base64(96));
    d.t("\"}\n");
}

fn pypirc(d: &mut Doc) {
    let user = d.user();
    w!(
        d,
        "[distutils]\nindex-servers =\n    pypi\n    internal\n\n[pypi]\nusername = __token__\npassword = "
    );
    d.s(Kind::Vendor);
    w!(
        d,
        "\n\n[internal]\nrepository = https://pypi.corp.net/\nusername = {user}\npassword = "
    );
    d.s(Kind::Password);
    d.t("\n");
}

fn rails_credentials(d: &mut Doc) {
    d.t("aws:\n  access_key_id: ");
    // A key id alone is no secret, but it is masked: a negative shows the
    // documentation's example instead.
    let id = if d.negative {
        "AKIAIOSFODNN7EXAMPLE".to_string()
    } else {
        format!("AKIA{}", d.r.chars(UPPER32, 16))
    };
    d.t(&id);
    d.t("\n  secret_access_key: ");
    d.s(Kind::Base64(30));
    d.t("\n\n# Used as the base secret for all MessageVerifiers in Rails.\nsecret_key_base: ");
    d.s(Kind::Hex(128));
    // Stripe's publishable keys are public, but masked like its others.
    let pk = if d.negative {
        "<from the dashboard>".to_string()
    } else {
        format!("pk_live_{}", d.r.chars(ALNUM, 24))
    };
    w!(d, "\nstripe:\n  publishable_key: {pk}");
    d.t("\n  webhook_secret: ");
    d.s(Kind::Vendor);
    d.t("\n");
}

fn dbt_profiles(d: &mut Doc) {
    let user = d.user();
    let host = d.host();
    w!(
        d,
        "analytics:\n  target: prod\n  outputs:\n    prod:\n      type: snowflake\n      account: {}.eu-central-1\n      user: {user}\n      password: ",
        d.r.chars(LOWER, 7)
    );
    d.yaml_password();
    w!(
        d,
        "\n      role: TRANSFORMER\n    dev:\n      type: postgres\n      host: {host}\n      user: {user}\n      pass: "
    );
    d.yaml_password();
    d.t("\n      dbname: analytics\n");
}

fn service_uris(d: &mut Doc) {
    let host = d.host();
    let user = d.user();
    w!(d, "REDIS_URL=rediss://default:");
    d.url_password();
    w!(d, "@{host}:6380\nMONGO_URI=mongodb+srv://{user}:");
    d.url_password();
    w!(
        d,
        "@cluster0.{}.mongodb.net/?retryWrites=true\nAMQP_URL=amqps://{user}:",
        d.r.chars(LOWER_NUM, 5)
    );
    d.url_password();
    w!(d, "@{host}/vhost\n");
}

fn curl_verbose(d: &mut Doc) {
    d.t("*   Trying 10.0.3.7:443...\n* Connected to api.example.com (10.0.3.7) port 443\n> GET /v1/me HTTP/2\n> Host: api.example.com\n> User-Agent: curl/8.5.0\n> X-Api-Key: ");
    d.s(Kind::Alnum(40));
    d.t("\n> apikey: ");
    d.s(Kind::Hex(32));
    d.t("\n> Accept: */*\n>\n< HTTP/2 200\n< content-type: application/json\n");
}

fn ansible_inventory(d: &mut Doc) {
    let host = d.host();
    w!(d, "[web]\n{host} ansible_user=deploy ansible_password=");
    d.s(Kind::Password);
    d.t(" ansible_become_pass=");
    d.s(Kind::Password);
    d.t("\n\n[db:vars]\npostgres_admin_password=");
    d.s(Kind::Password);
    d.t("\n");
}

fn kubectl_describe(d: &mut Doc) {
    d.t("Name:         api-7d9f8c6b5-x2x9q\nNamespace:    prod\nContainers:\n  api:\n    Image:          ghcr.io/corp/api:2.1.0\n    Environment:\n      LOG_LEVEL:          info\n      STRIPE_API_KEY:     ");
    d.s(Kind::Vendor);
    d.t("\n      SMTP_PASSWORD:      ");
    d.s(Kind::Password);
    d.t(
        "\n      DB_PASSWORD:        <set to the key 'password' in secret 'db'>  Optional: false\n",
    );
}

fn putty_key(d: &mut Doc) {
    let user = d.user();
    w!(
        d,
        "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: {user}@laptop\nPublic-Lines: 2\n{}\n{}\nPrivate-Lines: 1\n",
        b64(&d.r.bytes(48)),
        b64(&d.r.bytes(3))
    );
    if d.negative {
        d.t("<private lines elided>\n");
    } else {
        let p = b64(&d.r.bytes(36));
        d.put(p).t("\n");
    }
    w!(d, "Private-MAC: {}\n", d.r.chars(HEX, 64));
}

fn keystore_yaml(d: &mut Doc) {
    d.t("apiVersion: v1\nkind: Secret\nmetadata:\n  name: tls-keystore\ntype: Opaque\ndata:\n  keystore.p12: ");
    if d.negative {
        d.t("DATA+OMITTED");
    } else {
        let mut der = vec![0x30, 0x82, 0x0a, 0x5c, 0x02, 0x01, 0x03, 0x30, 0x82];
        der.extend(d.r.bytes(600));
        d.put(b64(&der));
    }
    d.t("\n  keystore-password: ");
    if d.negative {
        d.t(&b64(b"changeit"));
    } else {
        let pw = password(d.r);
        d.put(b64(pw.as_bytes()));
    }
    d.t("\n");
}

fn okta_azdo(d: &mut Doc) {
    d.t("$ curl -s -H \"Authorization: SSWS ");
    if d.negative {
        d.t("${OKTA_API_TOKEN}");
    } else {
        let t = format!("00{}", d.r.chars(B64URL, 40));
        d.put(t);
    }
    d.t("\" https://corp.okta.com/api/v1/users?limit=1\n$ az devops login --organization https://dev.azure.com/corp\nToken: ");
    if d.negative {
        d.t("****");
    } else {
        let t = d.r.chars(b"abcdefghijklmnopqrstuvwxyz234567", 52);
        d.put(t);
    }
    d.t("\n");
}

// ---- negative-only templates ------------------------------------------------

/// kubeseal's format: the length of the RSA-sealed session key (two bytes,
/// 512 for a 4096-bit key), that key, then the AES-GCM ciphertext.
fn sealed(d: &mut Doc, n: usize) -> String {
    let mut c = vec![0x02, 0x00];
    c.extend(d.r.bytes(512 + n));
    b64(&c)
}

fn sealed_secret(d: &mut Doc) {
    d.t("apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata:\n  name: db\n  namespace: prod\nspec:\n  encryptedData:\n    password: ");
    let v = sealed(d, 40);
    w!(d, "{v}\n    api-key: ");
    let v = sealed(d, 60);
    w!(d, "{v}\n  template:\n    metadata:\n      name: db\n");
}

fn sops_file(d: &mut Doc) {
    d.t("database:\n    password: ENC[AES256_GCM,data:");
    let data = b64(&d.r.bytes(18));
    let iv = b64(&d.r.bytes(32));
    let tag = b64(&d.r.bytes(16));
    w!(
        d,
        "{data},iv:{iv},tag:{tag},type:str]\napi_token: ENC[AES256_GCM,data:{},iv:{},tag:{},type:str]\nsops:\n    kms: []\n    age:\n        - recipient: age1{}\n    lastmodified: \"{}\"\n    mac: ENC[AES256_GCM,data:{},iv:{},tag:{},type:str]\n    version: 3.9.1\n",
        b64(&d.r.bytes(30)),
        b64(&d.r.bytes(32)),
        b64(&d.r.bytes(16)),
        d.r.chars(b"qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58),
        d.date(),
        b64(&d.r.bytes(32)),
        b64(&d.r.bytes(32)),
        b64(&d.r.bytes(16))
    );
}

fn ansible_vault(d: &mut Doc) {
    d.t("db_password: !vault |\n          $ANSIBLE_VAULT;1.1;AES256\n");
    for _ in 0..5 {
        let l = d.r.chars(HEX, 80);
        w!(d, "          {l}\n");
    }
}

fn arns_and_pages(d: &mut Doc) {
    let acct = d.num(100_000_000_000, 999_999_999_999);
    let key = d.uuid();
    w!(
        d,
        "{{\n    \"KeyArn\": \"arn:aws:kms:us-east-1:{acct}:key/{key}\",\n    \"SecretArn\": \"arn:aws:secretsmanager:us-east-1:{acct}:secret:prod/db-password-{}\",\n    \"NextToken\": \"{}\",\n    \"NextMarker\": \"{}\"\n}}\n",
        d.r.chars(ALNUM, 6),
        b64(&d.r.bytes(90)),
        d.r.chars(ALNUM, 40)
    );
}

fn image_digests(d: &mut Doc) {
    for _ in 0..3 {
        let repo = d.pick(&["ghcr.io/corp/api", "postgres", "redis", "node"]);
        w!(
            d,
            "{repo}@sha256:{}   {}   {} MB\n",
            d.r.chars(HEX, 64),
            d.r.chars(HEX, 12),
            d.num(20, 900)
        );
    }
    w!(
        d,
        "ETag: \"{}\"\nx-request-id: {}\n",
        d.r.chars(HEX, 32),
        d.uuid()
    );
}

fn local_defaults(d: &mut Doc) {
    let (user, pw) = *d.r.pick(&[
        ("postgres", "postgres"),
        ("root", "root"),
        ("guest", "guest"),
        ("admin", "admin"),
        ("sa", "password"),
    ]);
    w!(
        d,
        "# docker run -p 5432:5432 -e POSTGRES_PASSWORD=postgres postgres\nDATABASE_URL=postgresql://{user}:{pw}@localhost:5432/app_dev\nAMQP_URL=amqp://guest:guest@127.0.0.1:5672/\n"
    );
    d.t("DEV_DB_PASSWORD=").local(user).t("\n");
}
