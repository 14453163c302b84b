//! A held-out set for the second round of issue 51's classes: what tools
//! that hold secrets print. Written after the tuning rows
//! (`tests/tool_outputs.rs`) and apart from them: other commands, prompts,
//! names and layouts — a value printed alone after a command (other secret
//! stores, other prompts: `user@host:~/dir$`, set -x's `+`, an agent's
//! `Bash(…)` with `⎿`, PowerShell's `PS C:\>`), values under their parent's
//! name (Pulumi's and Terraform's JSON under other names, HCL lists,
//! primary/secondary pairs, recovery keys), session cookies (`cookies.txt`
//! from other tools, Puppeteer's and a HAR's cookie lists), box-drawn and
//! column tables (`psql` in unicode, `kubectl view-secret`-like tables).
//!
//! Its negatives are the same commands and layouts holding what is not a
//! secret: a host, a path, a number, a name, a stand-in, an analytics
//! cookie, an empty list, a list of names.
//!
//! Run once for its totals (`scripts/redaction-bench`); its rows are never
//! listed, never asserted, never tuned against.

use super::classes::{Doc, Template, b64, b64url};
use super::rng::*;

/// The `kind` of every row of this corpus.
pub const KIND: &str = "printed";

/// A secret as these tools print one: a password with symbols, letters and
/// digits, hex, base64 or base64url.
fn secret(r: &mut Rng) -> String {
    match r.below(5) {
        0 => {
            let n = r.range(16, 28);
            r.chars(
                b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!#%^*-_=+",
                n,
            )
        }
        1 => {
            let n = r.range(28, 44);
            r.chars(ALNUM, n)
        }
        2 => {
            let n = *r.pick(&[32, 48, 64]);
            r.chars(HEX, n)
        }
        3 => {
            let n = r.range(18, 33);
            b64(r, n)
        }
        _ => {
            let n = r.range(20, 36);
            b64url(r, n)
        }
    }
}

/// What the same position holds when it is not a secret.
fn not_secret(r: &mut Rng) -> String {
    (*r.pick(&[
        "db-primary.internal.example.net",
        "/var/run/secrets/app",
        "3600",
        "deploy-bot",
        "********",
        "${API_TOKEN}",
        "<redacted>",
        "us-west-2",
        "https://vault.example.com:8200",
        "true",
    ]))
    .to_string()
}

fn prompt(r: &mut Rng) -> &'static str {
    r.pick::<&str>(&[
        "$ ",
        "dev@build-7:~/shop$ ",
        "+ ",
        "PS C:\\src\\shop> ",
        "root@web-1:/srv# ",
        "% ",
    ])
}

/// `COMMAND` after a prompt, then its output alone on the next line.
fn printed_by(r: &mut Rng, d: &mut Doc, neg: bool, command: &str, other: &str) {
    let p = prompt(r);
    if neg {
        let v = not_secret(r);
        d.t(p).t(other).t("\n").t(&v).t("\n");
    } else {
        let v = secret(r);
        d.t(p).t(command).t("\n").s(&v).t("\n");
    }
    d.t(p).t("\n");
}

fn secret_store_reads(r: &mut Rng, d: &mut Doc, neg: bool) {
    let (command, other) = *r.pick(&[
        (
            "vault kv get -field=api_key secret/shop/stripe",
            "vault kv get -field=url secret/shop/stripe",
        ),
        (
            "aws ssm get-parameter --name /prod/db/password --with-decryption --query Parameter.Value --output text",
            "aws ssm get-parameter --name /prod/db/host --query Parameter.Value --output text",
        ),
        (
            "kubectl get secret shop-db -o jsonpath='{.data.password}' | base64 --decode",
            "kubectl get secret shop-db -o jsonpath='{.data.host}' | base64 --decode",
        ),
        (
            "security find-generic-password -s shop-deploy -w",
            "security find-generic-password -s shop-deploy -a",
        ),
        (
            "gcloud secrets versions access latest --secret=webhook-signing",
            "gcloud secrets describe webhook-signing --format='value(name)'",
        ),
        (
            "az keyvault secret show --vault-name shop-kv -n smtp-pass --query value -o tsv",
            "az keyvault secret show --vault-name shop-kv -n smtp-pass --query id -o tsv",
        ),
    ]);
    printed_by(r, d, neg, command, other);
}

fn named_outputs(r: &mut Rng, d: &mut Doc, neg: bool) {
    let (command, other) = *r.pick(&[
        (
            "terraform output -raw admin_token",
            "terraform output -raw admin_url",
        ),
        (
            "tofu output -raw smtp_password",
            "tofu output -raw smtp_host",
        ),
        (
            "pulumi stack output webhookSecret --show-secrets",
            "pulumi stack output webhookUrl",
        ),
        ("printenv SENDGRID_API_KEY", "printenv SENDGRID_REGION"),
        ("echo \"$REDIS_PASSWORD\"", "echo \"$REDIS_HOST\""),
        (
            "doppler secrets get SESSION_SECRET --plain",
            "doppler secrets get SESSION_TTL --plain",
        ),
    ]);
    printed_by(r, d, neg, command, other);
}

fn agent_tool_call(r: &mut Rng, d: &mut Doc, neg: bool) {
    let (command, other) = *r.pick(&[
        (
            "op read \"op://Shop/Postgres/password\"",
            "op read \"op://Shop/Postgres/server\"",
        ),
        ("bw get password shop-admin", "bw get username shop-admin"),
        ("pass show shop/mailgun", "pass ls shop"),
        ("gopass show -o shop/sentry-token", "gopass ls shop"),
    ]);
    d.t("⏺ I'll read the credential the deploy script needs.\n\n⏺ Bash(")
        .t(if neg { other } else { command })
        .t(")\n  ⎿  ");
    if neg {
        let v = not_secret(r);
        d.t(&v);
    } else {
        let v = secret(r);
        d.s(&v);
    }
    d.t("\n\n⏺ Got it.\n");
}

fn pulumi_json(r: &mut Rng, d: &mut Doc, neg: bool) {
    let name = *r.pick(&["shop:stripeSecret", "shop:dbPassword", "infra:githubToken"]);
    d.t("$ pulumi config --show-secrets --json\n{\n  \"aws:region\": {\n    \"value\": \"eu-west-1\",\n    \"secret\": false\n  },\n  \"")
        .t(if neg { "shop:replicaCount" } else { name })
        .t("\": {\n    \"value\": \"");
    if neg {
        d.t("3");
    } else {
        let v = secret(r);
        d.s(&v);
    }
    d.t("\",\n    \"secret\": ")
        .t(if neg { "false" } else { "true" })
        .t("\n  }\n}\n");
}

fn terraform_compact(r: &mut Rng, d: &mut Doc, neg: bool) {
    let name = *r.pick(&["admin_secret", "api_token", "root_password"]);
    d.t("$ terraform output -json | jq -c .\n{\"cluster_endpoint\":{\"sensitive\":false,\"type\":\"string\",\"value\":\"https://k8s.example.net\"},\"")
        .t(if neg { "admin_user" } else { name })
        .t("\":{\"sensitive\":")
        .t(if neg { "false" } else { "true" })
        .t(",\"type\":\"string\",\"value\":\"");
    if neg {
        d.t("shop-admin");
    } else {
        let v = secret(r);
        d.s(&v);
    }
    d.t("\"}}\n");
}

fn hcl_list(r: &mut Rng, d: &mut Doc, neg: bool) {
    let name = *r.pick(&["api_keys", "webhook_secrets", "access_tokens"]);
    d.t("# terraform.tfvars\nregion = \"eu-west-1\"\n")
        .t(name)
        .t(" = [\n");
    for i in 0..2 {
        d.t("  \"");
        if neg {
            d.t(["${var.primary}", "<generated>"][i]);
        } else {
            let v = secret(r);
            d.s(&v);
        }
        d.t("\",\n");
    }
    d.t("]\n");
}

fn primary_secondary(r: &mut Rng, d: &mut Doc, neg: bool) {
    let name = *r.pick(&["authToken", "signingSecret", "accessKey"]);
    // (No Twilio `AC…` account SID beside it: the README masks those.)
    d.t("{\n  \"friendlyName\": \"shop-")
        .t(&r.chars(LOWER, 6))
        .t("\",\n  \"")
        .t(name)
        .t("\": {\n");
    for (i, slot) in ["primary", "secondary"].iter().enumerate() {
        d.t("    \"").t(slot).t("\": \"");
        if neg {
            d.t(["rotating", "none"][i]);
        } else {
            let v = secret(r);
            d.s(&v);
        }
        d.t(if i == 0 { "\",\n" } else { "\"\n" });
    }
    d.t("  }\n}\n");
}

fn recovery_keys(r: &mut Rng, d: &mut Doc, neg: bool) {
    d.t("$ vault operator init -recovery-shares=3 -recovery-threshold=2 -format=json\n{\n  \"unseal_keys_b64\": [],\n  \"unseal_keys_hex\": [],\n  \"recovery_keys_b64\": [\n");
    for i in 0..3 {
        d.t("    \"");
        if neg {
            d.t("");
        } else {
            let v = b64(r, 32);
            d.s(&v);
        }
        d.t(if i < 2 { "\",\n" } else { "\"\n" });
    }
    d.t("  ],\n  \"recovery_keys_shares\": 3,\n  \"recovery_keys_threshold\": 2,\n  \"root_token\": \"");
    if neg {
        d.t("\"\n}\n");
    } else {
        let t = r.chars(ALNUM, 24);
        d.s(&format!("hvs.{t}")).t("\"\n}\n");
    }
}

fn cookies_txt(r: &mut Rng, d: &mut Doc, neg: bool) {
    let (domain, name) = *r.pick(&[
        (".shop.example.com", "laravel_session"),
        ("app.example.org", "JSESSIONID"),
        (".example.net", "__Secure-next-auth.session-token"),
        ("portal.example.io", "PHPSESSID"),
    ]);
    d.t("$ yt-dlp --cookies-from-browser firefox --cookies cookies.txt URL && cat cookies.txt\n# Netscape HTTP Cookie File\n# This file is generated by yt-dlp.  Do not edit.\n\n")
        .t(domain)
        .t("\tTRUE\t/\tFALSE\t1798761600\t_gid\tGA1.2.")
        .t(&r.chars(DIGITS, 10))
        .t(".")
        .t(&r.chars(DIGITS, 10))
        .t("\n")
        .t(domain)
        .t("\tTRUE\t/\tTRUE\t1798761600\t");
    if neg {
        d.t("_fbp\tfb.1.")
            .t(&r.chars(DIGITS, 13))
            .t(".")
            .t(&r.chars(DIGITS, 9));
    } else {
        let v = if name == "JSESSIONID" {
            r.chars(HEX_UP, 32)
        } else {
            b64url(r, 30)
        };
        d.t(name).t("\t").s(&v);
    }
    d.t("\n");
}

fn puppeteer_cookies(r: &mut Rng, d: &mut Doc, neg: bool) {
    let name = *r.pick(&["session_id", "sid", "user_session", "auth_session"]);
    d.t("> await page.cookies()\n[\n  {\n    name: '")
        .t(if neg { "_ga" } else { name })
        .t("',\n    value: '");
    if neg {
        d.t("GA1.1.")
            .t(&r.chars(DIGITS, 9))
            .t(".")
            .t(&r.chars(DIGITS, 10));
    } else {
        let v = b64url(r, 24);
        d.s(&v);
    }
    d.t("',\n    domain: 'app.example.com',\n    path: '/',\n    httpOnly: true,\n    secure: true\n  }\n]\n");
}

fn har_cookie_header(r: &mut Rng, d: &mut Doc, neg: bool) {
    d.t("          {\n            \"name\": \"cookie\",\n            \"value\": \"_ga=GA1.1.")
        .t(&r.chars(DIGITS, 9))
        .t("; lang=en; ");
    if neg {
        d.t("theme=dark");
    } else {
        let name = *r.pick(&["sessionid", "_shop_session", "auth"]);
        let v = r.chars(LOWER_NUM, 32);
        d.t(name).t("=").s(&v);
    }
    d.t("\"\n          },\n");
}

fn psql_unicode(r: &mut Rng, d: &mut Doc, neg: bool) {
    let label = *r.pick(&["webhook_secret", "api_token", "signing_key"]);
    let v = if neg { not_secret(r) } else { secret(r) };
    let w = v.len().max(5);
    let bar = "─".repeat(w + 2);
    d.t("shop=> \\pset linestyle unicode\nshop=> \\x on\nshop=> SELECT * FROM integrations WHERE id = 7;\n┌─[ RECORD 1 ]───┬")
        .t(&bar)
        .t("┐\n│ id             │ 7")
        .t(&" ".repeat(w))
        .t("│\n│ provider       │ stripe")
        .t(&" ".repeat((w + 1).saturating_sub(6)))
        .t("│\n│ ")
        .t(label)
        .t(&" ".repeat(15 - label.len()))
        .t("│ ");
    if neg {
        d.t(&v);
    } else {
        d.s(&v);
    }
    d.t(&" ".repeat(w + 1 - v.len()))
        .t("│\n└────────────────┴")
        .t(&bar)
        .t("┘\n");
}

fn column_table(r: &mut Rng, d: &mut Doc, neg: bool) {
    let label = *r.pick(&["client_secret", "auth-token", "smtp.password"]);
    d.t("$ kubectl view-secret shop-oauth --all\nclient_id       shop-web\n")
        .t(label)
        .t(&" ".repeat(16 - label.len()));
    if neg {
        let v = not_secret(r);
        d.t(&v);
    } else {
        let v = secret(r);
        d.s(&v);
    }
    d.t("\nredirect_uri    https://shop.example.com/callback\n");
}

pub const TEMPLATES: &[(&str, Template)] = &[
    ("secret-store-reads", secret_store_reads),
    ("named-outputs", named_outputs),
    ("agent-tool-call", agent_tool_call),
    ("pulumi-json", pulumi_json),
    ("terraform-compact", terraform_compact),
    ("hcl-list", hcl_list),
    ("primary-secondary", primary_secondary),
    ("recovery-keys", recovery_keys),
    ("cookies-txt", cookies_txt),
    ("puppeteer-cookies", puppeteer_cookies),
    ("har-cookie-header", har_cookie_header),
    ("psql-unicode", psql_unicode),
    ("column-table", column_table),
];
