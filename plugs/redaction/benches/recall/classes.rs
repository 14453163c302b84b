//! A held-out set of the classes issue 51 added to the detector, written apart from its tuning
//! rows (`tests/classes.rs`) and from the tools corpus, in other tools and other layouts: private
//! keys as JSON Web Keys (pretty, one-line, in YAML, as a Python dict), as .NET's XML (one line,
//! indented, from PowerShell), OpenVPN static keys (a `.ovpn` inline, `cat ta.key`), `openssl …
//! -text` dumps (RSA, EC, Ed25519); key blocks on decorated lines (a CI log's timestamps, `nl`,
//! `diff -u`, a Markdown quote, a box table); and random values in a credential's position under
//! names that say nothing (ini, TOML, properties, XML attributes, HTTP headers and cookies,
//! `read -p` prompts, Dockerfiles, GitHub Actions, `helm --set`).
//!
//! Its negatives are the public or standing-in look-alikes of the same shapes: public JWKs,
//! XML public keys, `openssl -pubin -text`, certificates and SSH public keys on decorated lines,
//! references (`${{ secrets.X }}`, `op://…`, `vault:…`), documented examples, masks, ids and
//! digests in the same positions.
//!
//! Run once for its totals (`scripts/redaction-bench`); its rows are never listed, never
//! asserted, never tuned against.

use std::ops::Range;

use super::corpus::{Row, Set};
use super::rng::*;

/// The `kind` of every row of this corpus.
pub const KIND: &str = "classes";

pub(super) struct Doc {
    text: String,
    slots: Vec<Range<usize>>,
}

impl Doc {
    pub(super) fn new() -> Doc {
        Doc {
            text: String::new(),
            slots: Vec::new(),
        }
    }
    pub(super) fn t(&mut self, s: &str) -> &mut Self {
        self.text.push_str(s);
        self
    }
    /// A secret the row may be labelled with.
    pub(super) fn s(&mut self, s: &str) -> &mut Self {
        let start = self.text.len();
        self.text.push_str(s);
        self.slots.push(start..self.text.len());
        self
    }
}

pub(super) type Template = fn(&mut Rng, &mut Doc, bool);

pub(super) fn b64url(r: &mut Rng, bytes: usize) -> String {
    let raw = r.bytes(bytes);
    let mut out = String::new();
    for chunk in raw.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (*b as u32) << (16 - 8 * i));
        for i in 0..chunk.len() + 1 {
            out.push(B64URL[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

pub(super) fn b64(r: &mut Rng, bytes: usize) -> String {
    let url = b64url(r, bytes);
    let mut s: String = url
        .chars()
        .map(|c| match c {
            '-' => '+',
            '_' => '/',
            c => c,
        })
        .collect();
    while !s.len().is_multiple_of(4) {
        s.push('=');
    }
    s
}

fn colon_hex(r: &mut Rng, n: usize) -> Vec<String> {
    r.bytes(n).iter().map(|b| format!("{b:02x}")).collect()
}

/// `openssl -text`'s layout of bytes: 15 to a line, four spaces in, colons between.
fn dump(r: &mut Rng, d: &mut Doc, name: &str, bytes: usize, secret: bool) {
    d.t(name).t(":\n");
    let hex = colon_hex(r, bytes);
    let lines: Vec<String> = hex.chunks(15).map(|c| c.join(":")).collect();
    for (i, line) in lines.iter().enumerate() {
        d.t("    ");
        let last = i + 1 == lines.len();
        let text = if last {
            line.clone()
        } else {
            format!("{line}:")
        };
        if secret && i > 0 && !last {
            d.s(&text);
        } else {
            d.t(&text);
        }
        d.t("\n");
    }
}

// ---- JSON Web Keys ---------------------------------------------------------------

/// An RSA JWK's members: public ones, then the private ones (when `private`).
fn rsa_jwk(r: &mut Rng, private: bool) -> Vec<(&'static str, String, bool)> {
    let mut m = vec![
        ("kty", "RSA".to_string(), false),
        ("kid", r.chars(LOWER_NUM, 12), false),
        ("use", "sig".into(), false),
        ("alg", "RS256".into(), false),
        ("n", b64url(r, 256), false),
        ("e", "AQAB".into(), false),
    ];
    if private {
        m.push(("d", b64url(r, 256), true));
        m.push(("p", b64url(r, 128), true));
        m.push(("q", b64url(r, 128), true));
        m.push(("dp", b64url(r, 128), true));
        m.push(("dq", b64url(r, 128), true));
        m.push(("qi", b64url(r, 128), true));
    }
    m
}

fn ec_jwk(r: &mut Rng, private: bool) -> Vec<(&'static str, String, bool)> {
    let (crv, len) = *r.pick(&[("P-256", 32), ("P-384", 48), ("P-521", 66)]);
    let mut m = vec![
        ("kty", "EC".to_string(), false),
        ("crv", crv.into(), false),
        ("x", b64url(r, len), false),
        ("y", b64url(r, len), false),
    ];
    if private {
        m.push(("d", b64url(r, len), true));
    }
    m
}

fn okp_jwk(r: &mut Rng, private: bool) -> Vec<(&'static str, String, bool)> {
    let mut m = vec![
        ("kty", "OKP".to_string(), false),
        ("crv", (*r.pick(&["Ed25519", "X25519"])).to_string(), false),
        ("x", b64url(r, 32), false),
    ];
    if private {
        m.push(("d", b64url(r, 32), true));
    }
    m
}

fn some_jwk(r: &mut Rng, private: bool) -> Vec<(&'static str, String, bool)> {
    match r.below(3) {
        0 => rsa_jwk(r, private),
        1 => ec_jwk(r, private),
        _ => okp_jwk(r, private),
    }
}

fn json_members(d: &mut Doc, m: &[(&str, String, bool)], indent: &str, quote: char) {
    for (i, (k, v, secret)) in m.iter().enumerate() {
        d.t(indent).t(&format!("{quote}{k}{quote}: {quote}"));
        if *secret {
            d.s(v);
        } else {
            d.t(v);
        }
        d.t(&format!("{quote}"));
        if i + 1 < m.len() {
            d.t(",");
        }
        if !indent.is_empty() {
            d.t("\n");
        } else if i + 1 < m.len() {
            d.t(" ");
        }
    }
}

/// `cat jwks.json` of a signing service's keys: pretty, two levels in.
fn jwks_file(r: &mut Rng, d: &mut Doc, neg: bool) {
    d.t("$ cat config/jwks.json\n{\n  \"keys\": [\n    {\n");
    let m = some_jwk(r, !neg);
    json_members(d, &m, "      ", '"');
    d.t("    }\n  ]\n}\n");
}

/// A service's log line with the key it loaded, on one line.
fn jwk_log_line(r: &mut Rng, d: &mut Doc, neg: bool) {
    d.t(&format!(
        "2026-11-{:02}T0{}:14:{:02}.{:03}Z INFO  auth::keys: loaded signing key jwk={{",
        r.range(1, 28),
        r.below(10),
        r.below(60),
        r.below(1000)
    ));
    let m = some_jwk(r, !neg);
    for (i, (k, v, secret)) in m.iter().enumerate() {
        d.t(&format!("\"{k}\":\""));
        if *secret {
            d.s(v);
        } else {
            d.t(v);
        }
        d.t("\"");
        if i + 1 < m.len() {
            d.t(",");
        }
    }
    d.t("}\n2026-11-02T09:14:11.220Z INFO  auth::server: listening on 0.0.0.0:8443\n");
}

/// A Kubernetes Secret's `stringData` with the JWK in a block scalar.
fn jwk_in_yaml(r: &mut Rng, d: &mut Doc, neg: bool) {
    d.t("apiVersion: v1\nkind: Secret\nmetadata:\n  name: oidc-signing\n  namespace: auth\ntype: Opaque\nstringData:\n  key.json: |\n    {\n");
    let m = some_jwk(r, !neg);
    json_members(d, &m, "      ", '"');
    d.t("    }\n");
}

/// A Python REPL printing the key as a dict (single quotes).
fn jwk_python(r: &mut Rng, d: &mut Doc, neg: bool) {
    d.t(">>> from jwcrypto import jwk\n>>> key = jwk.JWK.generate(kty='EC', crv='P-256')\n>>> key.export(as_dict=True, private_key=True)\n{");
    let m = some_jwk(r, !neg);
    json_members(d, &m, "", '\'');
    d.t("}\n>>> \n");
}

// ---- .NET XML keys ---------------------------------------------------------------

fn xml_key(r: &mut Rng, d: &mut Doc, neg: bool, pretty: bool) {
    let (nl, ind) = if pretty { ("\n", "  ") } else { ("", "") };
    d.t("<RSAKeyValue>").t(nl);
    let mut members = vec![
        ("Modulus", b64(r, 256), false),
        ("Exponent", "AQAB".into(), false),
    ];
    if !neg {
        members.push(("P", b64(r, 128), true));
        members.push(("Q", b64(r, 128), true));
        members.push(("DP", b64(r, 128), true));
        members.push(("DQ", b64(r, 128), true));
        members.push(("InverseQ", b64(r, 128), true));
        members.push(("D", b64(r, 256), true));
    }
    for (k, v, secret) in members {
        d.t(ind).t(&format!("<{k}>"));
        if secret {
            d.s(&v);
        } else {
            d.t(&v);
        }
        d.t(&format!("</{k}>")).t(nl);
    }
    d.t("</RSAKeyValue>\n");
}

/// PowerShell writing out the key it made.
fn xml_powershell(r: &mut Rng, d: &mut Doc, neg: bool) {
    d.t("PS C:\\src\\licensing> $rsa = [System.Security.Cryptography.RSA]::Create(2048)\n");
    d.t(&format!(
        "PS C:\\src\\licensing> $rsa.ToXmlString(${})\n",
        if neg { "false" } else { "true" }
    ));
    xml_key(r, d, neg, false);
    d.t("PS C:\\src\\licensing>\n");
}

/// A config file with the key indented in it.
fn xml_config(r: &mut Rng, d: &mut Doc, neg: bool) {
    d.t("$ sed -n '1,40p' src/Licensing/license-signing.xml\n<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<LicenseSigning issuer=\"Contoso Licensing\">\n");
    xml_key(r, d, neg, true);
    d.t("</LicenseSigning>\n");
}

// ---- OpenVPN static keys -----------------------------------------------------------

fn static_key(r: &mut Rng, d: &mut Doc, neg: bool, prefix: &str) {
    if neg {
        // What stands in for it: the directive without the key.
        d.t(prefix)
            .t("# the key is mounted at /etc/openvpn/ta.key (see the Secret)\n");
        return;
    }
    d.t(prefix).t("-----BEGIN OpenVPN Static key V1-----\n");
    for i in 0..16 {
        d.t(prefix);
        let line = r.chars(HEX, 32);
        if (3..13).contains(&i) {
            d.s(&line);
        } else {
            d.t(&line);
        }
        d.t("\n");
    }
    d.t(prefix).t("-----END OpenVPN Static key V1-----\n");
}

fn ovpn_inline(r: &mut Rng, d: &mut Doc, neg: bool) {
    d.t("$ cat clients/laptop.ovpn\nclient\ndev tun\nproto udp\nremote vpn.example.net 1194\nresolv-retry infinite\nnobind\nremote-cert-tls server\ncipher AES-256-GCM\nkey-direction 1\n<tls-crypt>\n");
    static_key(r, d, neg, "");
    d.t("</tls-crypt>\nverb 3\n");
}

fn ta_key(r: &mut Rng, d: &mut Doc, neg: bool) {
    d.t("$ sudo cat /etc/openvpn/server/ta.key\n#\n# 2048 bit OpenVPN static key\n#\n");
    static_key(r, d, neg, "");
}

// ---- openssl dumps ---------------------------------------------------------------

fn openssl_rsa(r: &mut Rng, d: &mut Doc, neg: bool) {
    if neg {
        d.t("$ openssl rsa -pubin -in server.pub -text -noout\nPublic-Key: (2048 bit)\n");
        dump(r, d, "Modulus", 257, false);
        d.t("Exponent: 65537 (0x10001)\n");
        return;
    }
    d.t("$ openssl rsa -in server.key -text -noout\nPrivate-Key: (2048 bit, 2 primes)\n");
    dump(r, d, "modulus", 257, false);
    d.t("publicExponent: 65537 (0x10001)\n");
    dump(r, d, "privateExponent", 256, true);
    dump(r, d, "prime1", 129, true);
    dump(r, d, "prime2", 129, true);
}

fn openssl_ec(r: &mut Rng, d: &mut Doc, neg: bool) {
    if neg {
        d.t("$ openssl ec -pubin -in ec.pub -text -noout\nread EC key\nPublic-Key: (256 bit)\n");
        dump(r, d, "pub", 65, false);
        d.t("ASN1 OID: prime256v1\nNIST CURVE: P-256\n");
        return;
    }
    d.t("$ openssl ec -in ec.key -text -noout\nread EC key\nPrivate-Key: (384 bit)\n");
    dump(r, d, "priv", 48, true);
    dump(r, d, "pub", 97, false);
    d.t("ASN1 OID: secp384r1\nNIST CURVE: P-384\n");
}

// ---- decorated key blocks ------------------------------------------------------------

fn pem_lines(r: &mut Rng, neg: bool) -> (String, String, Vec<String>) {
    if neg {
        let lines = (0..12).map(|_| b64(r, 48)).collect();
        return (
            "-----BEGIN CERTIFICATE-----".into(),
            "-----END CERTIFICATE-----".into(),
            lines,
        );
    }
    let kind = *r.pick(&["PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY"]);
    let lines = (0..(if kind == "EC PRIVATE KEY" { 3 } else { 12 }))
        .map(|_| b64(r, 48))
        .collect();
    (
        format!("-----BEGIN {kind}-----"),
        format!("-----END {kind}-----"),
        lines,
    )
}

/// A key block with `prefix(i)` before each line (its body's middle lines are the secret).
fn decorated(r: &mut Rng, d: &mut Doc, neg: bool, prefix: &dyn Fn(usize) -> String) {
    let (begin, end, lines) = pem_lines(r, neg);
    let n = lines.len();
    d.t(&prefix(0)).t(&begin).t("\n");
    for (i, line) in lines.iter().enumerate() {
        d.t(&prefix(i + 1));
        if !neg && i > 0 && i + 1 < n {
            d.s(line);
        } else {
            d.t(line);
        }
        d.t("\n");
    }
    d.t(&prefix(n + 1)).t(&end).t("\n");
}

fn ci_log(r: &mut Rng, d: &mut Doc, neg: bool) {
    d.t("Run cat deploy/key.pem\n");
    let minute = r.below(60);
    decorated(r, d, neg, &|i| {
        format!(
            "2026-11-30T14:{minute:02}:{:02}.{:07}Z ",
            i % 60,
            i * 7919 % 10_000_000
        )
    });
}

fn nl_numbered(r: &mut Rng, d: &mut Doc, neg: bool) {
    d.t("$ nl -ba secrets/tls.key\n");
    decorated(r, d, neg, &|i| format!("{:>6}\t", i + 1));
}

fn diff_added(r: &mut Rng, d: &mut Doc, neg: bool) {
    d.t("diff --git a/certs/server.pem b/certs/server.pem\nnew file mode 100644\n--- /dev/null\n+++ b/certs/server.pem\n@@ -0,0 +1,14 @@\n");
    decorated(r, d, neg, &|_| "+".into());
}

fn markdown_quote(r: &mut Rng, d: &mut Doc, neg: bool) {
    d.t("The file the deploy step read:\n\n");
    decorated(r, d, neg, &|_| "> ".into());
    d.t("\nI will move it into the secret store.\n");
}

fn box_table(r: &mut Rng, d: &mut Doc, neg: bool) {
    d.t("┌──────────────────────────────────────────────────────────────────┐\n");
    decorated(r, d, neg, &|_| "│ ".into());
    d.t("└──────────────────────────────────────────────────────────────────┘\n");
}

// ---- values in a credential's position, under names that say nothing ------------------

/// A random value a tool would print for a key: `kind` picks its alphabet and length.
fn random_value(r: &mut Rng) -> String {
    match r.below(5) {
        0 => {
            let n = r.range(32, 48);
            r.chars(ALNUM, n)
        }
        1 => {
            let n = *r.pick(&[32, 40, 64]);
            r.chars(HEX, n)
        }
        2 => {
            let n = r.range(24, 40);
            b64(r, n)
        }
        3 => {
            let n = r.range(24, 36);
            b64url(r, n)
        }
        _ => format!("{}-{}", r.chars(LOWER_NUM, 8), r.chars(ALNUM, 32)),
    }
}

/// What stands in for a value in the same position.
fn stand_in(r: &mut Rng) -> String {
    match r.below(11) {
        0 => "${{ secrets.API_KEY }}".into(),
        1 => "op://Engineering/honeycomb/credential".into(),
        2 => "vault:secret/data/ingest#key".into(),
        3 => "<your-key-here>".into(),
        4 => "********".into(),
        5 => "${INGEST_KEY}".into(),
        6 => "REDACTED".into(),
        7 => "changeme".into(),
        8 => "$(cat /run/secrets/ingest_key)".into(),
        9 => "%(ingest_key)s".into(),
        _ => "xxxxxxxxxxxxxxxxxxxxxxxx".into(),
    }
}

fn value(r: &mut Rng, d: &mut Doc, neg: bool) {
    if neg {
        let v = stand_in(r);
        d.t(&v);
    } else {
        let v = random_value(r);
        d.s(&v);
    }
}

fn ini_section(r: &mut Rng, d: &mut Doc, neg: bool) {
    let section = *r.pick(&["ingest", "search", "upstream", "telemetry", "billing"]);
    let name = *r.pick(&["key", "token", "auth", "credential", "pass"]);
    d.t("$ cat ~/.config/agentd/agentd.ini\n[general]\nlog_level = info\n\n[")
        .t(section)
        .t("]\nendpoint = https://")
        .t(section)
        .t(".internal.example.com\n")
        .t(name)
        .t(" = ");
    value(r, d, neg);
    d.t("\ntimeout = 30\n");
}

fn toml_table(r: &mut Rng, d: &mut Doc, neg: bool) {
    let name = *r.pick(&["key", "auth", "token", "secret", "api"]);
    d.t("[provider.search]\nurl = \"https://search.example.org/v2\"\n")
        .t(name)
        .t(" = \"");
    value(r, d, neg);
    d.t("\"\nretries = 3\n");
}

fn properties(r: &mut Rng, d: &mut Doc, neg: bool) {
    let name = *r.pick(&[
        "app.ingest.key",
        "search.auth",
        "partner.feed.token",
        "mail.smtp.pass",
    ]);
    d.t("# generated by deploy/render.sh\nserver.port=8080\n")
        .t(name)
        .t("=");
    value(r, d, neg);
    d.t("\nspring.profiles.active=prod\n");
}

fn xml_attribute(r: &mut Rng, d: &mut Doc, neg: bool) {
    let name = *r.pick(&["IngestKey", "PartnerToken", "SearchAuth", "BillingKey"]);
    d.t("<appSettings>\n  <add key=\"Environment\" value=\"Production\" />\n  <add key=\"")
        .t(name)
        .t("\" value=\"");
    value(r, d, neg);
    d.t("\" />\n</appSettings>\n");
}

fn http_header(r: &mut Rng, d: &mut Doc, neg: bool) {
    let name = *r.pick(&[
        "x-ingest-team",
        "x-partner-auth",
        "x-search-key",
        "x-telemetry-token",
    ]);
    d.t("> POST /v1/events HTTP/2\n> Host: events.example.io\n> user-agent: curl/8.5.0\n> ")
        .t(name)
        .t(": ");
    value(r, d, neg);
    d.t("\n> content-type: application/json\n>\n< HTTP/2 202\n");
}

fn cookie(r: &mut Rng, d: &mut Doc, neg: bool) {
    let name = *r.pick(&["sid", "__Host-session", "connect.sid", "_app_session"]);
    d.t("< HTTP/1.1 302 Found\n< Location: /dashboard\n< Set-Cookie: ")
        .t(name)
        .t("=");
    value(r, d, neg);
    d.t("; Path=/; HttpOnly; Secure; SameSite=Lax\n");
}

fn prompt(r: &mut Rng, d: &mut Doc, neg: bool) {
    let asks = *r.pick(&[
        "Enter the ingest key",
        "New value",
        "Paste the partner token",
        "API credential",
    ]);
    d.t("$ ./scripts/configure.sh\n").t(asks).t(": ");
    value(r, d, neg);
    d.t("\nSaved to .env.local\n");
}

fn dockerfile(r: &mut Rng, d: &mut Doc, neg: bool) {
    let name = *r.pick(&["INGEST_KEY", "PARTNER_AUTH", "FEED_CREDENTIAL"]);
    d.t("FROM node:20-slim\nWORKDIR /app\nENV ").t(name).t("=");
    value(r, d, neg);
    d.t("\nCOPY . .\nRUN npm ci\nCMD [\"node\", \"server.js\"]\n");
}

fn actions_env(r: &mut Rng, d: &mut Doc, neg: bool) {
    let name = *r.pick(&["SEARCH_AUTH", "INGEST_CREDENTIAL", "UPLOAD_KEY"]);
    d.t("jobs:\n  deploy:\n    runs-on: ubuntu-latest\n    env:\n      REGION: eu-west-1\n      ")
        .t(name)
        .t(": ");
    value(r, d, neg);
    d.t("\n    steps:\n      - uses: actions/checkout@v4\n");
}

fn helm_set(r: &mut Rng, d: &mut Doc, neg: bool) {
    let name = *r.pick(&["ingest.key", "partner.auth", "search.credential"]);
    d.t("$ helm upgrade --install api ./chart -n prod --set image.tag=1.42.0 --set ")
        .t(name)
        .t("=");
    value(r, d, neg);
    d.t("\nRelease \"api\" has been upgraded. Happy Helming!\n");
}

const TEMPLATES: &[(&str, Template)] = &[
    ("jwks-file", jwks_file),
    ("jwk-log-line", jwk_log_line),
    ("jwk-in-yaml", jwk_in_yaml),
    ("jwk-python", jwk_python),
    ("xml-powershell", xml_powershell),
    ("xml-config", xml_config),
    ("ovpn-inline", ovpn_inline),
    ("ta-key", ta_key),
    ("openssl-rsa", openssl_rsa),
    ("openssl-ec", openssl_ec),
    ("pem-ci-log", ci_log),
    ("pem-nl", nl_numbered),
    ("pem-diff", diff_added),
    ("pem-quote", markdown_quote),
    ("pem-box", box_table),
    ("ini-section", ini_section),
    ("toml-table", toml_table),
    ("properties", properties),
    ("xml-attribute", xml_attribute),
    ("http-header", http_header),
    ("cookie", cookie),
    ("prompt", prompt),
    ("dockerfile", dockerfile),
    ("actions-env", actions_env),
    ("helm-set", helm_set),
];

/// `n` held-out positives, the templates in turn.
pub fn positives(seed: u64, n: usize, first_id: usize) -> Vec<Row> {
    positives_of(TEMPLATES, KIND, seed, n, first_id)
}

/// `n` negatives: each template with its public or standing-in look-alike.
pub fn negatives(seed: u64, n: usize, first_id: usize) -> Vec<Row> {
    negatives_of(TEMPLATES, KIND, seed, n, first_id)
}

/// `n` held-out positives of `kind` from `templates`, in turn.
pub fn positives_of(
    templates: &[(&'static str, Template)],
    kind: &'static str,
    seed: u64,
    n: usize,
    first_id: usize,
) -> Vec<Row> {
    let mut r = Rng::new(seed);
    (0..n)
        .map(|i| {
            let (name, template) = templates[i % templates.len()];
            let mut d = Doc::new();
            template(&mut r, &mut d, false);
            let label = d.slots[r.below(d.slots.len())].clone();
            let cuts = if r.chance(super::corpus::STREAMED) {
                super::corpus::cuts(&mut r, &d.text, Some(&label))
            } else {
                Vec::new()
            };
            Row {
                id: first_id + i,
                set: Set::HeldOut,
                kind,
                context: name,
                text: d.text,
                secret: Some(label),
                cuts,
            }
        })
        .collect()
}

/// `n` negatives of `kind`: each of `templates` with its look-alike.
pub fn negatives_of(
    templates: &[(&'static str, Template)],
    kind: &'static str,
    seed: u64,
    n: usize,
    first_id: usize,
) -> Vec<Row> {
    let mut r = Rng::new(seed);
    (0..n)
        .map(|i| {
            let (name, template) = templates[i % templates.len()];
            let mut d = Doc::new();
            template(&mut r, &mut d, true);
            let cuts = if r.chance(super::corpus::STREAMED) {
                super::corpus::cuts(&mut r, &d.text, None)
            } else {
                Vec::new()
            };
            Row {
                id: first_id + i,
                set: Set::Negative,
                kind,
                context: name,
                text: d.text,
                secret: None,
                cuts,
            }
        })
        .collect()
}
