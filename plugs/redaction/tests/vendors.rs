//! Vendor formats (those gitleaks' default rules know, and more) masked
//! whatever surrounds them, AWS secrets and secrets named by their key in the
//! shapes tools print them, and look-alikes left alone.
//!
//! The samples are generated from each vendor's published format with a
//! seeded generator: random, never live credentials.

mod support;

use support::{Rng, streamed, without_kinds};

use redaction::detect::Redactor;

/// What the vendor samples draw: alphabets and shapes.
impl Rng {
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
            // Only `{x:n}` is a shape; any other brace is text (JSON, code).
            let spec = rest[open..].find('}').and_then(|close| {
                let (class, n) = rest[open + 1..open + close].split_once(':')?;
                Some((class, n.parse::<usize>().ok()?, open + close))
            });
            let Some((class, n, close)) = spec.filter(|(class, _, _)| class.len() == 1) else {
                out.push('{');
                rest = &rest[open + 1..];
                continue;
            };
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
    ("linear-key", "", &["lin_api_{a:40}", "lin_oauth_{h:64}"]),
    ("nvidia-key", "", &["nvapi-{w:64}"]),
    ("tavily-key", "", &["tvly-{a:32}", "tvly-dev-{a:32}"]),
    ("resend-key", "", &["re_{a:8}_{a:24}"]),
    ("notion-token", "", &["secret_{a:43}", "ntn_{a:46}"]),
    ("cerebras-key", "", &["csk-{l:48}"]),
    ("mailersend-token", "", &["mlsn.{h:64}"]),
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
    // Mailgun's private API and webhook signing keys as issued now.
    ("mailgun-key", "", &["{h:32}-{h:8}-{h:8}"]),
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
    (
        "azure-client-secret",
        "",
        &[
            "b{a:2}{d:1}Q~{a:34}",
            "w{a:2}{d:1}Q~{a:31}",
            "d{a:2}{d:1}Q~{a:33}",
        ],
    ),
    ("twitter-token", "", &["{d:18}-{a:40}", "{d:19}-{a:31}"]),
    ("dropbox-token", "", &["{a:11}AAAAAAAAAA{w:43}"]),
    ("jwt", "", &["ZXlKaGJHY2lPaUpJVXpJMU5pSjk{b:100}"]),
    // Fly.io's macaroons, one or several joined by `,`.
    (
        "fly-token",
        "FlyV1 ",
        &["fm2_{b:180}==,fm2_{b:120}", "fm2_{b:200}", "fm1r_{b:96}"],
    ),
    // k3s join tokens: the CA's hash, a user, its password.
    (
        "k3s-token",
        "",
        &["K10{h:64}::server:{h:32}", "K10{h:64}::node:{a:24}"],
    ),
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
    "| prod | @@ |",
    "[\"@@\", \"x\"]",
    "{\"body\": \"{\\\"k\\\":\\\"@@\\\"}\"}",
    "<input value=\"@@\"/>",
    "q=%22@@%22",
    "@@: rejected",
    "{'k': '@@', 'n': 1}",
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
            let accepted = got == want || (!lead.is_empty() && generic);
            if !accepted {
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
    let mut texts = 0;
    for (i, (_, lead, secret)) in samples.iter().enumerate() {
        // Every context for one sample of each kind, one context for the rest:
        // enough to cross every cut, and still fast.
        for (j, context) in CONTEXTS.iter().enumerate() {
            if i % 3 == 0 || j % 6 == i % 6 {
                let text = context.replace("@@", &format!("{lead}{secret}"));
                // Streaming the same as a whole proves nothing if the whole
                // masks nothing.
                if !r.redact(&text).contains(secret.as_str()) {
                    streams_the_same(&r, &text, &mut failures);
                } else {
                    failures.push(format!("not masked whole: {text}"));
                }
                texts += 1;
            }
        }
    }
    report(&failures, texts);
}

/// Texts whose secrets are given away by their names: each `«…»` masked,
/// nothing else changed. `{x:n}` are random characters, as in [`VENDORS`].
const NAMED: &[&str] = &[
    // `aws sts assume-role` / `get-session-token` output.
    "{\n    \"Credentials\": {\n        \"AccessKeyId\": \"«ASIA{u:16}»\",\n        \"SecretAccessKey\": \"«{b:40}»\",\n        \"SessionToken\": \"«IQoJb3JpZ2luX2VjE{b:300}»\",\n        \"Expiration\": \"2026-11-30T20:12:59+00:00\"\n    },\n    \"AssumedRoleUser\": {\n        \"AssumedRoleId\": \"AROA3XFRBF23EXAMPLE:s3-access\"\n    }\n}",
    "{\"Credentials\":{\"AccessKeyId\":\"«ASIA{u:16}»\",\"SecretAccessKey\":\"«{b:40}»\",\"SessionToken\":\"«FwoGZXIvYXdzE{b:200}»\"}}",
    "[default]\naws_access_key_id = «AKIA{u:16}»\naws_secret_access_key = «{b:40}»\naws_session_token = «IQoJb3JpZ2luX2VjE{b:180}»\nregion = eu-west-1\n",
    "[profile ci]\naws_access_key_id=«AKIA{u:16}»\naws_secret_access_key=«{b:40}»\n",
    "AWS_SECRET_ACCESS_KEY=«{b:40}»",
    "export AWS_SECRET_ACCESS_KEY=\"«{b:40}»\"\nexport AWS_SESSION_TOKEN=\"«FwoGZXIvYXdzE{b:120}»\"",
    "docker run -e AWS_SECRET_ACCESS_KEY=«{b:40}» -e AWS_REGION=us-east-1 app",
    "aws:\n  access_key_id: «AKIA{u:16}»\n  secret_access_key: «{b:40}»\n",
    "  secret_access_key: '«{b:40}»'\n",
    "aws configure set aws_secret_access_key «{b:40}»",
    "my-tool --access-key-id «AKIA{u:16}» --secret-access-key «{b:40}» --region eu-west-1",
    "my-tool --secret-access-key=«{b:40}»",
    "SecretAccessKey : «{b:40}»",
    "provider \"aws\" {\n  access_key = \"«AKIA{u:16}»\"\n  secret_key = \"«{b:40}»\"\n}",
    "s3 = Aws::S3::Client.new(:secret_access_key => '«{b:40}»')",
    "{\"aws_session_token\": \"«{b:64}»\"}",
    // Unknown vendors, named by their keys.
    "{\"client_id\": \"app-1234\", \"client_secret\": \"«{a:40}»\"}",
    "{\"client_secret\" : \"«{a:32}»\"}",
    "{\"api_key\"  :  \"«{a:32}»\"}",
    "const config = { clientSecret: \"«{a:40}»\", region: \"eu\" };",
    "{\"clientSecret\":\"«{w:40}»\"}",
    "apiKey = '«{a:32}»'",
    "this.apiKey = \"«{a:32}»\";",
    "curl -H 'x-api-key: «{a:40}»' https://api.example.com/v1",
    "X-Api-Key: «{a:40}»\r\nAccept: */*\r\n",
    "Ocp-Apim-Subscription-Key: «{h:32}»",
    "X-Auth-Token: «{a:40}»",
    "my-cli --api-key=«{a:32}» --verbose",
    "my-cli --api-key «{a:32}» --verbose",
    "my-cli --client-secret «{a:32}»",
    "[stripe]\nsecret = \"«{a:32}»\"\n",
    "[database]\nhost = \"db\"\npassword = \"«{a:20}»\"\n",
    "[auth]\nprivate_key = «{b:44}»\naccess_key = «{a:24}»\nauth_key = «{a:32}»\n",
    "DJANGO_SECRET_KEY='«{w:50}»'",
    "access_key: «{a:24}»",
    "token: «{h:40}»",
    "secret: «{h:8}-{h:4}-{h:4}-{h:4}-{h:12}»",
    "<add key=\"ApiKey\" value=\"«{a:32}»\" />",
    "\"password\" : \"«{a:12}!{d:3}»\"",
    "ADAFRUIT_IO_KEY=«{a:32}»",
    "stripeKey: \"«{a:32}»\"",
    "license-key = «{a:24}»",
    "HEROKU_API_KEY=«{h:8}-{h:4}-{h:4}-{h:4}-{h:12}»",
    "\"headers\": {\"x-api-key\": \"«{a:40}»\"}",
    "spring.datasource.password=«{a:20}»",
    "BUNDLE_GEMS__CONTRIBSYS__COM=«{h:8}:{h:8}»",
    "Password = «{a:20}»",
    // The name in one field, the value in the next: Kubernetes env lists,
    // ECS task definitions, SSM parameters, Helm, CloudFormation, HCL.
    "env:\n  - name: LOG_LEVEL\n    value: info\n  - name: AWS_SECRET_ACCESS_KEY\n    value: \"«{b:40}»\"\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db\n        key: password\n  - name: PORT\n    value: \"8080\"\n",
    "        - name: API_TOKEN\n          value: «{a:32}»\n        - name: REGION\n          value: eu-west-1\n",
    "- name: SENTRY_AUTH\n  # rotated monthly\n  value: '«{a:24}»'\n",
    "\"environment\": [{\"name\": \"STAGE\", \"value\": \"prod\"}, {\"name\": \"API_TOKEN\", \"value\": \"«{a:40}»\"}]",
    "[{\"name\":\"GITHUB_TOKEN\",\"value\":\"«{a:40}»\"},{\"name\":\"CI\",\"value\":\"true\"}]",
    "{\n    \"Parameter\": {\n        \"Name\": \"/prod/db/password\",\n        \"Type\": \"SecureString\",\n        \"Value\": \"«{a:24}»\",\n        \"Version\": 3\n    }\n}",
    "\"environment\": [\n    {\n        \"name\": \"STRIPE_SECRET\",\n        \"value\": \"«{a:32}»\"\n    },\n    {\n        \"name\": \"PORT\",\n        \"value\": \"8080\"\n    }\n]",
    "{\"name\": \"DB_PASSWORD\", \"slotSetting\": false, \"value\": \"«{a:16}!{d:2}»\"}",
    "set:\n  - key: PASSWORD\n    value: «{a:20}»\n",
    "[{\"ParameterKey\": \"DBPassword\", \"ParameterValue\": \"«{a:20}»\"}]",
    "environment = [\n  { name = \"DB_PASSWORD\", value = \"«{a:20}»\" },\n]",
    "{\"stdout\": \"[{\\\"name\\\":\\\"API_KEY\\\",\\\"value\\\":\\\"«{a:32}»\\\"}]\"}",
    "env: [{name: SLACK_TOKEN, value: \"«{a:32}»\"}]",
    // Mailgun's private key, with no name near it.
    "mg.messages.create(domain, {key: '«{h:32}-{h:8}-{h:8}»'})",
    // A private key glued to its name.
    "KEY=«-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA{b:60}\n{b:64}\n{b:64}\n-----END RSA PRIVATE KEY-----»",
    "PRIVATE_KEY=\"«-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC{b:40}\\n{b:64}\\n-----END PRIVATE KEY-----\\n»\"",
    "ssh_key:«-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ{b:40}\n{b:64}\n-----END OPENSSH PRIVATE KEY-----»",
];

/// The text, with its shapes filled, and what it must become.
fn unmark(rng: &mut Rng, marked: &str) -> (String, String) {
    support::unmark(&rng.shape(marked))
}

#[test]
fn secrets_named_by_their_keys_are_masked() {
    let r = redactor();
    let mut rng = Rng(0x5eed_0000_aa55_0002);
    let mut failures = Vec::new();
    for marked in NAMED {
        // Three samples of each.
        for _ in 0..3 {
            let (input, want) = unmark(&mut rng, marked);
            let got = without_kinds(&r.redact(&input));
            if got != want {
                failures.push(format!("{input:?}\n   got {got:?}\n  want {want:?}"));
            }
            streams_the_same(&r, &input, &mut failures);
        }
    }
    report(&failures, NAMED.len() * 3);
}

/// Look-alikes: random strings nothing says are secret, and prose about
/// the formats. Each format is filled several times.
const LOOK_ALIKES: &[&str] = &[
    // git
    "commit {h:40}",
    "{h:40}",
    "\"sha\": \"{h:40}\", \"parent\": \"{h:40}\"",
    "git checkout {h:7} && git cherry-pick {h:40}",
    "Merge pull request #1234 from acme/fix-{l:8} at {h:40}",
    // UUIDs
    "request_id={h:8}-{h:4}-{h:4}-{h:4}-{h:12} status=200",
    "{\"id\": \"{h:8}-{h:4}-{h:4}-{h:4}-{h:12}\"}",
    "X-Request-Id: {h:8}-{h:4}-{h:4}-{h:4}-{h:12}",
    // hashes and digests
    "checksum = \"{h:64}\"",
    "{h:64}  blaise-1.2.0-x86_64.tar.gz",
    "sha512sum: {h:128}",
    "\"integrity\": \"sha512-{b:86}==\"",
    "  integrity sha512-{b:86}==\n",
    "image: nginx@sha256:{h:64}",
    "\"digest\": \"sha256:{h:64}\"",
    "golang.org/x/text v0.3.7 h1:{b:43}=",
    "github.com/acme/lib v1.2.3/go.mod h1:{b:43}=",
    "\"etag\": \"W/\\\"{h:32}\\\"\"",
    // encoded data
    "<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA{b:240}==\">",
    "background: url(data:image/gif;base64,R0lGODlhAQABAIAAAP{b:60}=);",
    // public keys and certificates
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{b:43} alice@laptop",
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{b:300} bob@ci",
    "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA{b:20}\n{b:64}\n{b:64}\n-----END PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE{b:44}\n{b:64}\n{b:64}\n-----END CERTIFICATE-----",
    "\"public_key\": \"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{b:43}\"",
    // code
    "var e=function(t,n){return t.{L:6}(n)},r=e(o,{d:3}),i=r.{L:8};",
    "!function(e){var t={};function n(r){if(t[r])return t[r].exports}}({d:4});",
    "let userAccountSettings = fetchSettings(accountId, {d:2});",
    "fn parse_header(input: &[u8]) -> Result<Header, Error> { todo_{l:6}(input) }",
    "token_count = {d:3}",
    "\"token_type\": \"Bearer\", \"expires_in\": {d:4}",
    "{\"key\": \"user.settings.theme\", \"value\": \"dark\"}",
    "\"api_key_id\": \"{h:8}-{h:4}-{h:4}-{h:4}-{h:12}\"",
    "\"client_secret\": \"${CLIENT_SECRET}\"",
    "password: <your-password>",
    "api_key = os.environ[\"API_KEY\"]",
    "primary_key = \"id\"",
    "cache_key = \"user:{d:6}:profile\"",
    "public_key: \"{h:64}\"",
    "ssh_host_key: \"{h:64}\"",
    "\"key\": \"{a:32}\"",
    "cache_key: \"users_v2_{l:6}_list\"",
    "s3_object_key: \"uploads/2026/11/{l:12}.png\"",
    "translation_key = \"home.title.welcome\"",
    "idempotency_key: {h:8}-{h:4}-{h:4}-{h:4}-{h:12}",
    "gpg_key: {h:40}",
    "kms_key_arn = \"arn:aws:kms:eu-west-1:123456789012:key/{h:8}-{h:4}-{h:4}-{h:4}-{h:12}\"",
    "sort_key = \"createdAt\"",
    "lookup_key = \"customer_email_lowercase\"",
    // prose about the formats
    "GitHub tokens start with ghp_ and are 40 characters long.",
    "npm tokens look like npm_ followed by 36 letters and digits.",
    "A SendGrid key has the form SG.<id>.<secret>.",
    "Slack bot tokens begin with xoxb- and webhooks with https://hooks.slack.com/services/.",
    "Set AWS_SECRET_ACCESS_KEY in your environment, never in the code.",
    "Telegram bot tokens look like 123456789:AA… and go after /bot in the URL.",
    "age keys start with AGE-SECRET-KEY-1; public ones with age1.",
    "Shopify access tokens start with shpat_, shared secrets with shpss_.",
    "Docker Hub personal access tokens start with dckr_pat_.",
    "Linear API keys start with lin_api_ and Hugging Face tokens with hf_.",
    "DigitalOcean tokens start with dop_v1_; PyPI tokens with pypi-AgEIcHlwaS5vcmc.",
    // identifiers that start like tokens
    "API-GATEWAY-DEPLOYMENT-STAGE-PROD",
    "job {d:16}-{h:24} done",
    "trace_id={d:17}-{h:32}",
    "\"publicKey\": \"{b:44}\"",
    "ssh_public_key = \"{b:68}\"",
    "call +1-555-0100 or 4155550100-ext or order 123456789012345-00000000000000000000",
    "LTAICONFIGURATIONMANAGERS",
    "sm_pat_config and sgp_local settings",
    "patch.{L:10}.ts and pat.id",
    "sha256~ is not a token",
    "https://example.webhook.office.com/webhookb2/ alone",
    "https://api.telegram.org/bot<token>/getMe",
    // A secret's name in one field and no value of it in the next.
    "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db-credentials\n        key: password\n  - name: LOG_LEVEL\n    value: s3cr3t-{l:8}\n",
    "- name: REQUIRE_AUTH\n  value: true\n- name: API_TOKEN\n  value: \"3\"\n",
    "- name: API_TOKEN\n  value: $(API_TOKEN_FROM_FILE)\n- name: DB_PASSWORD\n  value: ${DB_PASSWORD}\n",
    "- name: GITHUB_TOKEN\n  value: \"{{ .Values.github.token }}\"\n",
    "{\"name\": \"DB_PASSWORD\", \"valueFrom\": \"arn:aws:ssm:eu-west-1:123456789012:parameter/prod/db/password\"}",
    "[{\"name\": \"API_TOKEN\", \"valueFrom\": \"x\"}, {\"name\": \"REGION\", \"value\": \"{a:24}\"}]",
    "- name: API_TOKEN\n  valueFrom: x\nother:\n  value: s3cr3t-{l:8}\n",
    "- name: API_TOKEN\n  valueFrom:\n    secretKeyRef: {name: api, key: token}\n  value: s3cr3t-{l:8}\n",
    "{\"Key\": \"Name\", \"Value\": \"web-{l:8}\"}",
    "{\"key\": \"password_min_length\", \"value\": \"{d:8}\"}",
    "- name: TENANT_ID\n  value: {h:8}-{h:4}-{h:4}-{h:4}-{h:12}\n",
    // Hex groups that are not Mailgun's: UUIDs, and other counts of groups.
    "{h:8}-{h:4}-{h:4}-{h:4}-{h:12}",
    "id {h:8}-{h:4}-{h:4}-{h:4}-{h:12}-{h:8}-{h:8}",
    "{h:32}-{h:8}",
    "{h:32}-{h:8}-{h:8}-{h:4}",
    "{h:32}-{h:8}-{h:7}",
    "{d:32}-{d:8}-{d:8}",
];

#[test]
fn look_alikes_stay() {
    let r = redactor();
    let mut rng = Rng(0x5eed_1111_2222_0003);
    let (mut failures, mut count) = (Vec::new(), 0);
    for format in LOOK_ALIKES {
        // Formats with random parts are filled five times.
        let times = if format.contains('{') { 5 } else { 1 };
        for _ in 0..times {
            count += 1;
            let text = rng.shape(format);
            let got = r.redact(&text);
            if got != text {
                failures.push(format!("{text:?}\n   got {got:?}"));
            }
            streams_the_same(&r, &text, &mut failures);
        }
    }
    report(&failures, count);
    assert!(count >= 200, "{count}");
}
