//! Secrets hidden by an encoding (JSON escapes, percent-encoding, base64) are
//! masked in their encoded form; the same encodings without a secret pass
//! untouched. And private key blocks are paired only within a key's size and
//! over key-shaped lines.
//!
//! The values are random, shaped like the real formats: none is a live
//! credential.

mod support;

use redaction::detect::{MAX_PEM, Redactor};

const GHP: &str = "ghp_d0WpixpxbB4r6bSr0pFBOPCWBRDFOxEzf5FJ";

fn redact(text: &str) -> String {
    Redactor::new(&[]).redact(text).into_owned()
}

/// Standard base64 (`url`: URL-safe, unpadded).
fn base64(data: &[u8], url: bool) -> String {
    let table: &[u8] = if url {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    } else {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    };
    let mut out = String::new();
    for group in data.chunks(3) {
        let n = group.len();
        let v = (group[0] as u32) << 16
            | (*group.get(1).unwrap_or(&0) as u32) << 8
            | *group.get(2).unwrap_or(&0) as u32;
        for k in 0..4 {
            if k <= n {
                out.push(table[(v >> (18 - 6 * k) & 63) as usize] as char);
            } else if !url {
                out.push('=');
            }
        }
    }
    out
}

fn check(cases: &[(&str, &str)]) {
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(input, want)| {
            let got = redact(input);
            (got != *want).then(|| format!("{input:?}\n   got {got:?}\n  want {want:?}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn unchanged(texts: &[&str]) {
    let failures: Vec<String> = texts
        .iter()
        .filter_map(|t| {
            let got = redact(t);
            (got != *t).then(|| format!("{t:?}\n   got {got:?}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn json_escapes_hide_nothing() {
    let token = format!(r#"{{"body":"\u003c{GHP}\u003e"}}"#);
    let token_amp = format!(r#"{{"q":"a=1\u0026token={GHP}"}}"#);
    check(&[
        (
            r#"{"dsn":"postgres:\/\/admin:S3cretPassw0rd@db.example.com:5432\/app"}"#,
            r#"{"dsn":"postgres:\/\/admin:[REDACTED:connection-password]@db.example.com:5432\/app"}"#,
        ),
        (&token, r#"{"body":"\u003c[REDACTED:github-token]\u003e"}"#),
        (
            &token_amp,
            r#"{"q":"a=1\u0026token=[REDACTED:github-token]"}"#,
        ),
        (
            r#""{\"db\": {\"password\": \"hunter2secretX\"}}""#,
            r#""{\"db\": {\"password\": \"[REDACTED:secret-assignment]\"}}""#,
        ),
    ]);
}

#[test]
fn json_escapes_in_ordinary_text_stay() {
    unchanged(&[
        r#"{"html":"\u003cdiv class=\"x\"\u003ehello\u003c\/div\u003e"}"#,
        r#"{"path":"C:\\Users\\bob\\AppData\\Local","url":"https:\/\/example.com\/docs\/getting-started"}"#,
        r#"{"msg":"a \u0026 b \u003e c","go":"\u003cnil\u003e"}"#,
        r#"{"dsn":"postgres:\/\/db.example.com:5432\/app"}"#,
    ]);
}

#[test]
fn percent_encoding_hides_nothing() {
    let token = format!("GET /cb?next=%2Fhome%3Ftoken%3D{GHP}%26x%3D1 HTTP/1.1");
    check(&[
        (
            "GET /login?q=password%3Dhunter2secret&lang=en",
            "GET /login?q=password%3D[REDACTED:secret-assignment]&lang=en",
        ),
        (
            &token,
            "GET /cb?next=%2Fhome%3Ftoken%3D[REDACTED:github-token]%26x%3D1 HTTP/1.1",
        ),
        (
            "redis://default%40corp:Sup3rS3cretPw@cache.example.com:6379",
            "redis://default%40corp:[REDACTED:connection-password]@cache.example.com:6379",
        ),
    ]);
}

#[test]
fn percent_encoded_urls_without_secrets_stay() {
    unchanged(&[
        "GET /search?q=a%2Fb%3Dc%26d&sort=name%20asc HTTP/1.1",
        "https://example.com/wiki/Caf%C3%A9%3Amenu?redirect=%2Fhome%2Fusers%2Fsettings",
        "mailto:team%40example.com?subject=Hello%20there",
        "100% of tests, 50%3D half",
    ]);
}

#[test]
fn base64_text_hides_nothing() {
    let env = base64(b"DB_HOST=db\nDB_PASSWORD=hunter2secretX\n", false);
    let token = base64(GHP.as_bytes(), false);
    let token_url = base64(GHP.as_bytes(), true);
    let json = base64(
        br#"{"auths":{"r.example.com":{"auth":"dXNlcjpodW50ZXIyc2VjcmV0"}}}"#,
        false,
    );
    // Base64 of JSON whose string holds an escaped URL: two levels.
    let nested = base64(
        br#"{"dsn":"postgres:\/\/admin:S3cretPassw0rd@db.example.com\/app"}"#,
        false,
    );
    let secret = format!(
        "apiVersion: v1\nkind: Secret\ndata:\n  password: aHVudGVyMg==\n  .env: {env}\n  token: {token}\n  .dockerconfigjson: {json}\n"
    );
    let want = "apiVersion: v1\nkind: Secret\ndata:\n  password: [REDACTED:secret-assignment]\n  .env: [REDACTED:secret-assignment]\n  token: [REDACTED:github-token]\n  .dockerconfigjson: [REDACTED:secret-assignment]\n";
    check(&[
        (&secret, want),
        (
            &format!("echo {token} | base64 -d"),
            "echo [REDACTED:github-token] | base64 -d",
        ),
        (
            &format!("t={token_url}&x=1"),
            "t=[REDACTED:github-token]&x=1",
        ),
        (
            &format!("DSN_B64 {nested}"),
            "DSN_B64 [REDACTED:connection-password]",
        ),
        (
            "Authorization: Basic dXNlcjpodW50ZXIyc2VjcmV0",
            "Authorization: Basic [REDACTED:authorization]",
        ),
    ]);
}

#[test]
fn base64_without_secrets_stays() {
    let prose = base64(
        b"The quick brown fox jumps over the lazy dog again and again.",
        false,
    );
    let config = base64(b"server:\n  port: 8080\n  host: example.com\n", false);
    let binary: Vec<u8> = (0u32..300)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let binary = base64(&binary, false);
    let texts = [
        format!("msg {prose}"),
        format!("config.yaml: {config}"),
        format!("blob: {binary}"),
        "<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==\">".to_string(),
        "image: iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==".to_string(),
        "sha512-Xk7fTQ3bE9n2pW4vZ8cY1dR6aS0hJ5uL3mK9oI2eG7tB4xF1qN8wV6zC0yH5jU3lP9sA2dE7rT4gY1iO6kM8nB==".to_string(),
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 id 3f2a9c1e-8b7d-4e2f-9a1b-5c6d7e8f9a0b".to_string(),
        "class AbstractSingletonProxyFactoryBeanImplementation extends Base".to_string(),
    ];
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    unchanged(&texts);
}

const KEY_BODY: &str = "MIIEowIBAAKCAQEAIhpIwLj3jGEucdgMLwZadzJ20eC/c8K+r/quybX+cFdKnNtd\nlwldFa4vu3K5e1ZasZVhRMih6+azOiWl6RK/CVUTCJkhmM9fykBc+qcqk2CFFiT+\nAoVciH249uFDK+NMBhBxhCGxtHsOa+DW1CoMXN6T3HPuHR8izlL3vMriFOVB1pLy\n";

#[test]
fn prose_between_a_quoted_header_and_a_distant_footer_stays() {
    // Documentation that quotes both markers, with prose (and base64-looking
    // words) between them.
    let doc = "A PEM file starts with `-----BEGIN RSA PRIVATE KEY-----`\nand then the base64 body, for example MIIEowIBAAKCAQEAIhpIwLj3jGEucdgMLwZadzJ20eC,\nwrapped at 64 columns. Tools such as openssl read it.\n\nIt ends with\n-----END RSA PRIVATE KEY-----\nand nothing follows.";
    unchanged(&[doc]);
    // 1 MB of tool results quoting the header: nothing at all is masked.
    let entry = "Docs: the key file begins with \"-----BEGIN OPENSSH PRIVATE KEY-----\" and\nyou should never paste it. Use ssh-keygen -t ed25519 -C you@example.com to\nmake one; see https://example.com/docs/keys for details.\nsha512-Xk7fTQ3bE9n2pW4vZ8cY1dR6aS0hJ5uL3mK9oI2eG7tB4xF1qN8wV6zC0yH5jU3lP9sA2dE7rT4gY1iO6kM8nB==\n";
    let big = entry.repeat((1 << 20) / entry.len());
    assert_eq!(redact(&big), big);
}

#[test]
fn a_header_with_no_body_is_not_a_key() {
    unchanged(&[
        "-----BEGIN RSA PRIVATE KEY-----",
        "-----BEGIN RSA PRIVATE KEY-----\n\nThat is all the file had.",
        "key := \"-----BEGIN EC PRIVATE KEY-----\"\nfmt.Println(key)",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIE...\n-----END RSA PRIVATE KEY-----",
        "The file starts with -----BEGIN RSA PRIVATE KEY----- and ends with -----END RSA PRIVATE KEY-----.",
        "-----BEGIN RSA PRIVATE KEY----- is the header; the body follows\nMIIEowIBAAKCAQEAIhpIwLj3jGEucdgMLwZadzJ20eC/c8K+r/quybX+cFdKnNtd",
    ]);
}

#[test]
fn a_key_cut_short_is_masked_to_its_last_line() {
    let cut_end = format!("$ head -4 id_rsa\n-----BEGIN RSA PRIVATE KEY-----\n{KEY_BODY}");
    let then_prose = format!(
        "-----BEGIN RSA PRIVATE KEY-----\n{KEY_BODY}(truncated)\nThe rest of the file was not shown.\n-----END RSA PRIVATE KEY-----"
    );
    check(&[
        (&cut_end, "$ head -4 id_rsa\n[REDACTED:private-key]\n"),
        (
            &then_prose,
            "[REDACTED:private-key]\n(truncated)\nThe rest of the file was not shown.\n-----END RSA PRIVATE KEY-----",
        ),
    ]);
}

#[test]
fn keys_in_their_usual_wrappings_are_masked_whole() {
    let json = format!(
        r#"{{"private_key": "-----BEGIN PRIVATE KEY-----\n{}-----END PRIVATE KEY-----\n"}}"#,
        KEY_BODY.replace('\n', "\\n")
    );
    let encrypted = format!(
        "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,5EDAC8AB06A49880FCC14B2F6923F3A0\n\n{KEY_BODY}-----END RSA PRIVATE KEY-----\nok"
    );
    let glued =
        format!("KEY=-----BEGIN RSA PRIVATE KEY-----\n{KEY_BODY}-----END RSA PRIVATE KEY-----\n");
    let glued_json = format!(
        "PRIVATE_KEY=-----BEGIN RSA PRIVATE KEY-----\\n{}-----END RSA PRIVATE KEY-----",
        KEY_BODY.replace('\n', "\\n")
    );
    let one_line = format!(
        "KEY=\"-----BEGIN RSA PRIVATE KEY----- {} -----END RSA PRIVATE KEY-----\" next",
        KEY_BODY.trim_end().replace('\n', " ")
    );
    check(&[
        (&one_line, "KEY=\"[REDACTED:private-key]\" next"),
        (&json, r#"{"private_key": "[REDACTED:private-key]\n"}"#),
        (&encrypted, "[REDACTED:private-key]\nok"),
        (&glued, "KEY=[REDACTED:private-key]\n"),
        (&glued_json, "PRIVATE_KEY=[REDACTED:private-key]"),
    ]);
}

#[test]
fn a_key_is_paired_only_within_its_maximum_size() {
    let body = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2\n";
    // An RSA-8192 key is about 6.5 KB: masked whole.
    let big = format!(
        "-----BEGIN RSA PRIVATE KEY-----\n{}-----END RSA PRIVATE KEY-----\ntail",
        body.repeat(6600 / body.len())
    );
    assert_eq!(redact(&big), "[REDACTED:private-key]\ntail");
    // Past MAX_PEM the END marker is not paired: the header and the lines
    // within reach are masked as a key cut short, the rest stays.
    let lines = (2 * MAX_PEM) / body.len();
    let huge = format!(
        "-----BEGIN RSA PRIVATE KEY-----\n{}-----END RSA PRIVATE KEY-----\n",
        body.repeat(lines)
    );
    let out = redact(&huge);
    assert!(
        out.starts_with("[REDACTED:private-key]\n"),
        "{}",
        &out[..80]
    );
    assert!(out.ends_with("-----END RSA PRIVATE KEY-----\n"));
    assert!(out.len() > huge.len() - MAX_PEM - 100);
}

/// A GCP service-account file read by a tool whose result is JSON: the key's
/// `\n` escapes are escaped again (`\\n`). The whole key is masked, whole or
/// streamed, and nothing after it.
#[test]
fn a_key_in_json_inside_a_json_string_is_masked_whole() {
    let body: Vec<String> = (0..20)
        .map(|i| format!("MIIEv{i:02}QIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQZ/D6GCwjem5t"))
        .collect();
    let key = format!(
        "-----BEGIN PRIVATE KEY-----\\\\n{}\\\\n-----END PRIVATE KEY-----\\\\n",
        body.join("\\\\n")
    );
    let text = format!(
        r#"{{"tool":"read_file","content":"{{\n  \"type\": \"service_account\",\n  \"private_key\": \"{key}\",\n  \"client_email\": \"ci@build.iam.gserviceaccount.com\"\n}}"}}"#
    );
    let got = redact(&text);
    assert!(!got.contains("QIBADANBgkqhkiG9w0"), "{got}");
    assert!(got.contains("ci@build.iam.gserviceaccount.com"), "{got}");
    let cut = text.len() / 2;
    let cut = (cut..text.len())
        .find(|&c| text.is_char_boundary(c))
        .unwrap();
    let out = support::streamed(&Redactor::new(&[]), &text, &[cut]);
    assert_eq!(out, got);
}
