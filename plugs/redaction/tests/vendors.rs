//! Vendor formats (those gitleaks' default rules know, and more) masked
//! whatever surrounds them, AWS secrets and secrets named by their key in the
//! shapes tools print them, and look-alikes left alone.
//!
//! The samples are generated from each vendor's published format with a
//! seeded generator: random, never live credentials.

use blaise_plug::{EntryKind, TranscriptEntry};
use redaction::detect::Redactor;
use redaction::stream::Streams;

/// A small deterministic generator (xorshift64*): the same samples each run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn pick(&mut self, alphabet: &str, n: usize) -> String {
        let a = alphabet.as_bytes();
        (0..n)
            .map(|_| a[(self.next() % a.len() as u64) as usize] as char)
            .collect()
    }

    /// A format: `{x:n}` is `n` random characters of alphabet `x`, anything
    /// else is literal.
    fn shape(&mut self, format: &str) -> String {
        let mut out = String::new();
        let mut rest = format;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let close = rest[open..].find('}').expect("closed") + open;
            let (class, n) = rest[open + 1..close].split_once(':').expect("class:n");
            let n: usize = n.parse().expect("count");
            let alphabet = match class {
                "a" => ALNUM,
                "l" => "abcdefghijklmnopqrstuvwxyz0123456789",
                "L" => "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
                "U" => "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
                "h" => "0123456789abcdef",
                "d" => "0123456789",
                "u" => "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
                "w" => "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-",
                "b" => "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/",
                "g" => "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
                other => panic!("alphabet {other}"),
            };
            out.push_str(&self.pick(alphabet, n));
            rest = &rest[close + 1..];
        }
        out.push_str(rest);
        out
    }
}

const ALNUM: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/// Kind, what comes before the secret and stays (a webhook's host), and the
/// formats of its samples.
const VENDORS: &[(&str, &str, &[&str])] = &[
    (
        "sendgrid-key",
        "",
        &["SG.{w:22}.{w:43}", "SG.{a:22}.{w:43}"],
    ),
    ("npm-token", "", &["npm_{a:36}"]),
    (
        "docker-hub-token",
        "",
        &["dckr_pat_{w:27}", "dckr_oat_{w:32}"],
    ),
    ("linear-key", "", &["lin_api_{a:40}"]),
    (
        "digitalocean-token",
        "",
        &["dop_v1_{h:64}", "doo_v1_{h:64}", "dor_v1_{h:64}"],
    ),
    (
        "pypi-token",
        "",
        &[
            "pypi-AgEIcHlwaS5vcmc{w:70}",
            "pypi-AgENdGVzdC5weXBpLm9yZw{w:120}",
        ],
    ),
    (
        "slack-webhook",
        "https://hooks.slack.com/services/",
        &["T{U:8}/B{U:10}/{a:24}", "T{U:10}/B{U:11}/{a:24}"],
    ),
    (
        "slack-webhook",
        "https://hooks.slack.com/workflows/",
        &["T{U:9}/A{U:10}/{d:18}/{a:24}"],
    ),
    ("huggingface-token", "", &["hf_{L:34}", "api_org_{L:34}"]),
    ("age-secret-key", "", &["AGE-SECRET-KEY-1{g:58}"]),
    (
        "shopify-token",
        "",
        &[
            "shpat_{h:32}",
            "shpss_{h:32}",
            "shpca_{h:32}",
            "shppa_{h:32}",
        ],
    ),
    (
        "telegram-token",
        "",
        &["{d:9}:AA{w:33}", "{d:10}:AA{w:33}", "{d:8}:AA{w:33}"],
    ),
    (
        "telegram-token",
        "https://api.telegram.org/bot",
        &["{d:10}:AA{w:33}"],
    ),
    (
        "aws-access-key",
        "",
        &["AKIA{u:16}", "ASIA{u:16}", "ABIA{u:16}"],
    ),
    (
        "github-token",
        "",
        &["ghp_{a:36}", "github_pat_11{U:20}_{a:59}"],
    ),
    (
        "gitlab-token",
        "",
        &["glpat-{w:20}", "glrt-t1_{w:27}.01{l:7}"],
    ),
    ("stripe-key", "", &["sk_live_{a:24}", "rk_prod_{a:99}"]),
    (
        "anthropic-key",
        "",
        &["sk-ant-api03-{w:93}AA", "sk-ant-admin01-{w:93}AA"],
    ),
    ("openai-key", "", &["sk-proj-{w:58}T3BlbkFJ{w:58}"]),
    // Formats added for the rules gitleaks has.
    (
        "1password-secret-key",
        "",
        &[
            "A3-{U:6}-{U:11}-{U:5}-{U:5}-{U:5}",
            "A3-{U:6}-{U:6}-{U:5}-{U:5}-{U:5}-{U:5}",
        ],
    ),
    (
        "aws-bedrock-key",
        "",
        &[
            "ABSK{b:130}",
            "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t{b:200}",
        ],
    ),
    ("clickhouse-key", "", &["4b1d{a:38}"]),
    (
        "flutterwave-key",
        "",
        &["FLWPUBK_TEST-{h:32}-X", "FLWSECK_TEST-{h:32}-X"],
    ),
    (
        "fly-token",
        "",
        &["fm1a_{b:120}", "fm1r_{b:140}", "fo1_{w:43}"],
    ),
    (
        "harness-token",
        "",
        &["pat.{w:22}.{a:24}.{a:20}", "sat.{w:22}.{a:24}.{a:20}"],
    ),
    (
        "intra42-secret",
        "",
        &["s-s4t2ud-{h:64}", "s-s4t2af-{h:64}"],
    ),
    ("maxmind-key", "", &["{a:6}_{a:29}_mmk"]),
    ("octopus-key", "", &["API-{U:26}"]),
    ("openshift-token", "", &["sha256~{w:43}"]),
    (
        "sourcegraph-token",
        "",
        &["sgp_{h:16}_{h:40}", "sgp_local_{h:40}", "sgp_{h:40}"],
    ),
    ("scalingo-token", "", &["tk-us-{w:48}"]),
    (
        "settlemint-token",
        "",
        &["sm_pat_{a:16}", "sm_aat_{a:16}", "sm_sat_{a:16}"],
    ),
    ("airtable-token", "", &["pat{a:14}.{h:64}"]),
    ("alibaba-key", "", &["LTAI{a:20}"]),
    ("defined-networking-token", "", &["dnkey-{U:26}-{U:52}"]),
    ("mailgun-key", "", &["pubkey-{h:32}", "key-{h:32}"]),
    (
        "authress-key",
        "",
        &[
            "sc_{l:12}.{l:5}.acc_{l:20}.{b:60}",
            "authress_{l:8}.{l:4}.acc-{l:16}.{b:44}",
        ],
    ),
    (
        "slack-token",
        "",
        &["xoxe.xoxb-1-{U:165}", "xoxe-1-{U:146}"],
    ),
    (
        "teams-webhook",
        "https://acme.webhook.office.com/webhookb2/",
        &[
            "{h:8}-{h:4}-{h:4}-{h:4}-{h:12}@{h:8}-{h:4}-{h:4}-{h:4}-{h:12}/IncomingWebhook/{h:32}/{h:8}-{h:4}-{h:4}-{h:4}-{h:12}",
        ],
    ),
    ("facebook-token", "", &["EAAC{a:120}"]),
    ("jwt", "", &["ZXlKaGJHY2lPaUpJVXpJMU5pSjk{b:100}"]),
];

/// Where a vendor secret turns up: `@@` is the secret.
const CONTEXTS: &[&str] = &[
    "@@",
    "{\"token\": \"@@\"}",
    "{\"value\":\"@@\",\"n\":1}",
    "credentials:\n  value: @@\n  region: eu\n",
    "SERVICE_TOKEN=@@",
    "export SERVICE_TOKEN=\"@@\"",
    "docker run -e VALUE='@@' app",
    "curl 'https://api.example.com/v1/items?key=@@&page=2'",
    "curl -H \"Authorization: Bearer @@\" https://api.example.com",
    "The key was @@.",
    "Rotate it (@@) now",
    "keys: @@, then more",
    "Use `@@` to log in",
    "[@@]",
    "it ends with @@",
    "@@\nnext line",
    "line one\r\n@@\r\n",
    "{\"text\": \"first line\\n@@\\nsecond\"}",
    "<value>@@</value>",
    "token = \"@@\"",
    "- @@",
    "x @@; y",
    "key:@@",
];

fn samples() -> Vec<(&'static str, String, String)> {
    let mut rng = Rng(0x5eed_cafe_f00d_0001);
    let mut all = Vec::new();
    for (kind, lead, formats) in VENDORS {
        // At least three samples of every kind.
        let each = 3usize.div_ceil(formats.len()).max(1);
        for format in *formats {
            for _ in 0..each {
                all.push((*kind, lead.to_string(), rng.shape(format)));
            }
        }
    }
    all
}

fn redactor() -> Redactor {
    Redactor::new(&[])
}

fn report(failures: &[String], of: usize) {
    assert!(
        failures.is_empty(),
        "{} of {of} failed:\n{}",
        failures.len(),
        failures[..failures.len().min(4000)].join("\n")
    );
}

fn chunk(text: &str, last: bool) -> TranscriptEntry {
    TranscriptEntry {
        stream_id: "v".into(),
        kind: EntryKind::ToolOutput,
        text: text.into(),
        last,
        replay: false,
    }
}

/// The text sent as one stream, cut at `cuts`.
fn streamed(r: &Redactor, text: &str, cuts: &[usize]) -> String {
    let mut streams = Streams::default();
    let mut out = String::new();
    let mut from = 0;
    for &cut in cuts {
        out.push_str(&streams.filter(r, chunk(&text[from..cut], false)).text);
        from = cut;
    }
    out.push_str(&streams.filter(r, chunk(&text[from..], true)).text);
    out
}

/// Cut in two at every byte, and one character at a time: the same as whole.
fn streams_the_same(r: &Redactor, text: &str, failures: &mut Vec<String>) {
    let whole = r.redact(text);
    for cut in (1..text.len()).filter(|&c| text.is_char_boundary(c)) {
        let got = streamed(r, text, &[cut]);
        if got != whole {
            failures.push(format!(
                "{:?} | {:?}\n   got {got:?}\n  want {whole:?}",
                &text[..cut],
                &text[cut..]
            ));
            return;
        }
    }
    let cuts: Vec<usize> = text.char_indices().map(|(i, _)| i).skip(1).collect();
    let got = streamed(r, text, &cuts);
    if got != whole {
        failures.push(format!(
            "{text:?} char by char\n   got {got:?}\n  want {whole:?}"
        ));
    }
}

#[test]
fn vendor_secrets_are_masked_in_every_context() {
    let r = redactor();
    let (mut failures, mut count) = (Vec::new(), 0);
    for (kind, lead, secret) in samples() {
        for context in CONTEXTS {
            count += 1;
            let input = context.replace("@@", &format!("{lead}{secret}"));
            let want = context.replace("@@", &format!("{lead}[REDACTED:{kind}]"));
            let got = r.redact(&input);
            // A URL whose path is the secret may be masked whole as the value
            // of its name (`token = "https://hooks…"`).
            let whole = |kind| context.replace("@@", &format!("[REDACTED:{kind}]"));
            let generic = got == whole("secret-assignment") || got == whole("authorization");
            if got != want && !(!lead.is_empty() && generic) {
                failures.push(format!(
                    "{kind}: {input:?}\n   got {got:?}\n  want {want:?}"
                ));
            }
        }
    }
    report(&failures, count);
    assert!(count >= 12 * 3 * 40, "{count}");
}

#[test]
fn vendor_secrets_stream_the_same() {
    let r = redactor();
    let mut failures = Vec::new();
    let samples = samples();
    for (i, (_, lead, secret)) in samples.iter().enumerate() {
        // Every context for one sample of each kind, one context for the rest:
        // enough to cross every cut, and still fast.
        for (j, context) in CONTEXTS.iter().enumerate() {
            if i % 3 == 0 || j % 6 == i % 6 {
                let text = context.replace("@@", &format!("{lead}{secret}"));
                streams_the_same(&r, &text, &mut failures);
            }
        }
    }
    report(&failures, samples.len());
}
