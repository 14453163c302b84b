//! High-entropy look-alikes that are not secrets, in the contexts they come
//! in: nothing in them may be masked.

use super::rng::*;

pub type Neg = fn(&mut Rng) -> String;

pub const NEGATIVES: &[(&str, Neg)] = &[
    ("git-sha", git_sha),
    ("uuid", uuid),
    ("sha-hex", sha_hex),
    ("npm-integrity", integrity),
    ("sha256-digest", digest),
    ("png-data-url", png_data_url),
    ("pem-public-key", pem_public),
    ("pem-certificate", pem_cert),
    ("minified-js", minified_js),
    ("go-sum", go_sum),
    ("code-identifiers", code_identifiers),
    ("lorem-prose", lorem),
    ("secret-words", secret_words),
    ("ssh-public-key", ssh_public),
    ("cargo-lock", cargo_lock),
    ("asset-hashes", asset_hashes),
    ("trace-ids", trace_ids),
    ("object-ids", object_ids),
    ("public-named-values", public_named),
    ("base64-payloads", base64_payloads),
];

fn words(r: &mut Rng, n: usize) -> String {
    const W: &[&str] = &[
        "lorem",
        "ipsum",
        "dolor",
        "sit",
        "amet",
        "consectetur",
        "adipiscing",
        "elit",
        "sed",
        "do",
        "eiusmod",
        "tempor",
        "incididunt",
        "ut",
        "labore",
        "et",
        "dolore",
        "magna",
        "aliqua",
        "enim",
        "ad",
        "minim",
        "veniam",
        "quis",
        "nostrud",
        "exercitation",
        "ullamco",
        "laboris",
        "nisi",
        "aliquip",
        "ex",
        "ea",
        "commodo",
        "consequat",
        "the",
        "build",
        "passes",
        "token",
        "budget",
        "secret",
        "sauce",
        "key",
        "point",
    ];
    (0..n).map(|_| *r.pick(W)).collect::<Vec<_>>().join(" ")
}

fn git_sha(r: &mut Rng) -> String {
    match r.below(3) {
        0 => format!(
            "commit {}\nAuthor: Jane Doe <jane@example.com>\nDate:   Mon Nov 30 18:{:02}:11 2026 +0000\n\n    fix: {}\n",
            r.chars(HEX, 40),
            r.range(0, 59),
            words(r, 5)
        ),
        1 => (0..r.range(3, 8))
            .map(|_| format!("{} {}\n", r.chars(HEX, 7), words(r, 4)))
            .collect(),
        _ => format!(
            "$ git rev-parse HEAD\n{}\n$ git merge-base main HEAD\n{}\n",
            r.chars(HEX, 40),
            r.chars(HEX, 40)
        ),
    }
}

fn uuid(r: &mut Rng) -> String {
    match r.below(3) {
        0 => format!(
            "request_id={} status=200 duration_ms={}\n",
            super::rng::uuid(r),
            r.range(1, 900)
        ),
        1 => format!(
            "{{\"id\":\"{}\",\"session_id\":\"{}\",\"trace\":\"{}\"}}",
            super::rng::uuid(r),
            super::rng::uuid(r),
            super::rng::uuid(r)
        ),
        _ => format!(
            "  uid: {}\n  resourceVersion: \"{}\"\n",
            super::rng::uuid(r),
            r.chars(DIGITS, 8)
        ),
    }
}

fn sha_hex(r: &mut Rng) -> String {
    let (tool, n) = *r.pick(&[("sha1sum", 40), ("sha256sum", 64), ("sha512sum", 128)]);
    format!(
        "$ {tool} target/release/app dist/app.tar.gz\n{}  target/release/app\n{}  dist/app.tar.gz\n",
        r.chars(HEX, n),
        r.chars(HEX, n)
    )
}

fn integrity(r: &mut Rng) -> String {
    format!(
        "    \"node_modules/{}\": {{\n      \"version\": \"{}.{}.{}\",\n      \"resolved\": \"https://registry.npmjs.org/x/-/x-1.0.0.tgz\",\n      \"integrity\": \"sha512-{}\"\n    }},\n",
        r.chars(LOWER, 7),
        r.range(0, 9),
        r.range(0, 30),
        r.range(0, 30),
        b64(&r.bytes(64))
    )
}

fn digest(r: &mut Rng) -> String {
    match r.below(2) {
        0 => format!("latest: digest: sha256:{} size: 1573\n", r.chars(HEX, 64)),
        _ => format!(
            "FROM ghcr.io/acme/base@sha256:{}\nRUN cargo build --release\n",
            r.chars(HEX, 64)
        ),
    }
}

fn png_data_url(r: &mut Rng) -> String {
    let mut data = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR".to_vec();
    let n = r.range(120, 600);
    data.extend(r.bytes(n));
    format!(
        "<img alt=\"logo\" src=\"data:image/png;base64,{}\" width=\"32\">",
        b64(&data)
    )
}

fn lines64(s: &str) -> String {
    s.as_bytes()
        .chunks(64)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

fn pem_public(r: &mut Rng) -> String {
    let mut der = vec![0x30, 0x82, 0x01, 0x22, 0x30, 0x0d, 0x06, 0x09];
    der.extend(r.bytes(286));
    format!(
        "-----BEGIN PUBLIC KEY-----\n{}\n-----END PUBLIC KEY-----\n",
        lines64(&b64(&der))
    )
}

fn pem_cert(r: &mut Rng) -> String {
    let mut der = vec![0x30, 0x82, 0x03, 0x5a, 0x30, 0x82, 0x02, 0x42];
    let n = r.range(600, 900);
    der.extend(r.bytes(n));
    format!(
        "$ openssl s_client -connect api.example.com:443 -showcerts </dev/null\nCONNECTED(00000003)\n-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n",
        lines64(&b64(&der))
    )
}

fn ident(r: &mut Rng) -> String {
    let n = r.range(1, 3);
    format!("{}{}", r.chars(LOWER, 1), r.chars(LETTERS, n))
}

fn minified_js(r: &mut Rng) -> String {
    let mut s = String::from("!function(e,t){\"use strict\";");
    for _ in 0..r.range(8, 20) {
        let (a, b, c) = (ident(r), ident(r), ident(r));
        s.push_str(&match r.below(4) {
            0 => format!("var {a}={b}({c},\"{}\");", r.chars(B64URL, 24)),
            1 => format!(
                "function {a}({b}){{return {b}.{c}||\"{}\"}}",
                r.chars(HEX, 16)
            ),
            2 => format!(
                "{a}.exports={{id:\"{}\",v:{}}};",
                r.chars(ALNUM, 20),
                r.range(0, 99)
            ),
            _ => format!(
                "{a}[\"{}\"]=function({b},{c}){{{b}({c})}};",
                r.chars(LETTERS, 12)
            ),
        });
    }
    s.push_str("}(window);\n//# sourceMappingURL=app.");
    s.push_str(&r.chars(HEX, 20));
    s.push_str(".js.map\n");
    s
}

fn go_sum(r: &mut Rng) -> String {
    (0..r.range(2, 6))
        .map(|_| {
            let m = format!(
                "github.com/{}/{} v{}.{}.{}",
                r.chars(LOWER, 6),
                r.chars(LOWER, 5),
                r.range(0, 3),
                r.range(0, 20),
                r.range(0, 9)
            );
            format!(
                "{m} h1:{}\n{m}/go.mod h1:{}\n",
                b64(&r.bytes(32)),
                b64(&r.bytes(32))
            )
        })
        .collect()
}

fn code_identifiers(r: &mut Rng) -> String {
    match r.below(4) {
        0 => format!(
            "let {} = compute_{}(&{}, {});\n",
            r.chars(LETTERS, 12),
            r.chars(LOWER, 8),
            r.chars(LETTERS, 10),
            r.range(0, 999)
        ),
        1 => format!(
            "const cacheKey = \"{}\";\nconst etag = \"W/\\\"{}\\\"\";\n",
            r.chars(HEX, 32),
            r.chars(HEX, 24)
        ),
        2 => format!(
            ".css-{} {{ display: flex; }}\n.sc-{}-{} {{ color: #{}; }}\n",
            r.chars(LOWER_NUM, 6),
            r.chars(LETTERS, 6),
            r.chars(LETTERS, 6),
            r.chars(HEX, 6)
        ),
        _ => format!(
            "pub const {}_HASH: u64 = 0x{};\nstatic NONCE_TABLE: [u8; 16] = *b\"{}\";\n",
            r.chars(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", 8),
            r.chars(HEX, 16),
            r.chars(ALNUM, 16)
        ),
    }
}

fn lorem(r: &mut Rng) -> String {
    let n = r.range(20, 80);
    let mut s = words(r, n);
    s.push('.');
    s
}

fn secret_words(r: &mut Rng) -> String {
    const L: &[&str] = &[
        "<input type=\"password\" name=\"password_field\" id=\"password_field\" autocomplete=\"current-password\">",
        "token = get_token()\nsecret = config.secret\n",
        "password: string;\napiKey?: string;\n",
        "env:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n  GITHUB_TOKEN: ${{ github.token }}\n",
        "export API_KEY=$API_KEY\ncurl -H \"Authorization: Bearer $TOKEN\" https://api.example.com\n",
        "OPENAI_API_KEY=<your-api-key>\nSTRIPE_SECRET_KEY=your_secret_key_here\n",
        "fn refresh_token(&self) -> Result<Token, AuthError> { self.client.refresh(&self.refresh_token_url) }\n",
        "The password_reset_token_expiry setting controls how long a reset link stays valid.\n",
        "let token_count = tokenizer.encode(text).len();\n",
        "--- PASS: TestPasswordHashing (0.21s)\n--- PASS: TestTokenRotation (0.05s)\n",
    ];
    let mut s = r.pick(L).to_string();
    if r.chance(0.5) {
        s.push_str(r.pick::<&str>(L));
    }
    s
}

fn ssh_public(r: &mut Rng) -> String {
    match r.below(2) {
        0 => format!(
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{} jane@laptop\n",
            &b64(&r.bytes(33))[..43]
        ),
        _ => format!(
            "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ{} ci@build\n",
            b64(&r.bytes(380))
        ),
    }
}

fn cargo_lock(r: &mut Rng) -> String {
    format!(
        "[[package]]\nname = \"{}\"\nversion = \"{}.{}.{}\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"{}\"\n",
        r.chars(LOWER, 7),
        r.range(0, 2),
        r.range(0, 30),
        r.range(0, 30),
        r.chars(HEX, 64)
    )
}

fn asset_hashes(r: &mut Rng) -> String {
    format!(
        "  dist/assets/index-{}.js     {}.{} kB │ gzip: {}.{} kB\n  dist/static/js/{}.{}.chunk.js\n",
        r.chars(B64URL, 8),
        r.range(10, 900),
        r.range(10, 99),
        r.range(1, 90),
        r.range(10, 99),
        r.range(1, 9),
        r.chars(HEX, 20)
    )
}

fn trace_ids(r: &mut Rng) -> String {
    format!(
        "< traceparent: 00-{}-{}-01\n< x-request-id: {}\n< etag: \"{}\"\n",
        r.chars(HEX, 32),
        r.chars(HEX, 16),
        r.chars(ALNUM, 26),
        r.chars(HEX, 32)
    )
}

fn object_ids(r: &mut Rng) -> String {
    format!(
        "{{\"_id\":{{\"$oid\":\"{}\"}},\"customer\":\"cus_{}\",\"payment_intent\":\"pi_{}\",\"cid\":\"bafybei{}\"}}",
        r.chars(HEX, 24),
        r.chars(ALNUM, 14),
        r.chars(ALNUM, 24),
        r.chars(b"abcdefghijklmnopqrstuvwxyz234567", 52)
    )
}

/// Values whose names sound close to a secret's but are public.
fn public_named(r: &mut Rng) -> String {
    match r.below(4) {
        0 => format!(
            "[Peer]\nPublicKey = {}\nAllowedIPs = 10.0.0.{}/32\nEndpoint = vpn.example.com:51820\n",
            b64(&r.bytes(32)),
            r.range(2, 250)
        ),
        1 => format!(
            "{{\"client_id\": \"{}-{}.apps.googleusercontent.com\", \"project_id\": \"acme-{}\"}}",
            r.chars(DIGITS, 12),
            r.chars(LOWER_NUM, 32),
            r.range(100000, 999999)
        ),
        2 => format!(
            "{{\"signatures\": [{{\"keyid\": \"{}\", \"sig\": \"{}\"}}], \"signed\": {{\"_type\": \"targets\", \"version\": {}}}}}",
            r.chars(HEX, 64),
            r.chars(HEX, 128),
            r.range(1, 400)
        ),
        _ => format!(
            "The server's host key fingerprint is SHA256:{}.\nkey_id: {}\ntoken_type: Bearer\nexpires_in: 3600\n",
            &b64(&r.bytes(32))[..43],
            r.chars(HEX, 40)
        ),
    }
}

/// Random base64 under names that say nothing of secrets.
fn base64_payloads(r: &mut Rng) -> String {
    let n = r.range(24, 300);
    let data = b64(&r.bytes(n));
    match r.below(3) {
        0 => format!("{{\"event\":\"upload\",\"payload\":\"{data}\",\"encoding\":\"base64\"}}"),
        1 => format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: assets\nbinaryData:\n  logo.png: {data}\n"
        ),
        _ => format!("$ base64 < /dev/urandom | head -c {}\n{data}\n", data.len()),
    }
}
