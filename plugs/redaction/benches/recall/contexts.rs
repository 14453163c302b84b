//! Where a secret shows up in a transcript: tool results, configs, shells,
//! logs, headers, prose, and the encodings they bring (JSON and Go escapes,
//! base64, percent-encoding). Each context returns its text with the secret
//! between `OPEN` and `CLOSE`; [`finish`] takes them out and says where it is.

use std::ops::Range;

use super::rng::*;
use super::vendors::{CLOSE, OPEN, Secret};

pub type Ctx = fn(&mut Rng, &Secret) -> String;

/// For single-line values, in both sets.
pub const TOKEN_TUNING: &[(&str, Ctx)] = &[
    ("json-tool-result", json_tool_result),
    ("yaml-config", yaml_config),
    ("dotenv", dotenv),
    ("shell-command", shell_command),
    ("log-line", log_line),
    ("http-header", http_header),
    ("prose", prose),
    ("go-json-escapes", go_escaped),
    ("json-in-json", json_in_json),
    ("basic-auth-base64", basic_auth),
    ("k8s-secret-data", k8s_secret),
    ("percent-encoded-query", percent_query),
];

/// For single-line values, only in the held-out set.
pub const TOKEN_HELD_OUT: &[(&str, Ctx)] = &[
    ("toml-config", toml_config),
    ("python-call", python_call),
    ("markdown-table", markdown_table),
    ("docker-run-env", docker_run),
    ("xml-appsettings", xml_appsettings),
    ("csv-row", csv_row),
    ("git-remote-url", git_remote),
];

/// For files and several lines, in both sets.
pub const BLOCK_TUNING: &[(&str, Ctx)] = &[
    ("file-cat", file_cat),
    ("json-tool-result", json_block),
    ("yaml-block-scalar", yaml_block),
    ("k8s-secret-data", k8s_block),
];

/// For files, only in the held-out set.
pub const BLOCK_HELD_OUT: &[(&str, Ctx)] = &[
    ("shell-heredoc", heredoc),
    ("markdown-fence", markdown_fence),
];

/// The text without markers, and where the secret is in it.
pub fn finish(marked: &str) -> (String, Range<usize>) {
    let open = marked.find(OPEN).expect("context lost the secret");
    let close = marked.find(CLOSE).expect("context lost the secret");
    let mut text = String::with_capacity(marked.len());
    text.push_str(&marked[..open]);
    text.push_str(&marked[open + OPEN.len_utf8()..close]);
    text.push_str(&marked[close + CLOSE.len_utf8()..]);
    let start = open;
    let end = close - OPEN.len_utf8();
    (text, start..end)
}

fn lower(s: &Secret) -> String {
    s.name.to_ascii_lowercase()
}

fn kebab(s: &Secret) -> String {
    lower(s).replace('_', "-")
}

fn camel(s: &Secret) -> String {
    let mut out = String::new();
    for (i, part) in s.name.split('_').enumerate() {
        let p = part.to_ascii_lowercase();
        if i == 0 {
            out.push_str(&p);
        } else {
            out.push_str(&p[..1].to_ascii_uppercase());
            out.push_str(&p[1..]);
        }
    }
    out
}

fn unmark(s: &str) -> String {
    s.replace([OPEN, CLOSE], "")
}

/// Base64 of the value: the whole blob is what must be masked.
fn enc_b64(marked: &str) -> String {
    format!("{OPEN}{}{CLOSE}", b64(unmark(marked).as_bytes()))
}

fn enc_percent(marked: &str) -> String {
    let mut out = String::new();
    for (i, piece) in marked.split([OPEN, CLOSE]).enumerate() {
        match i {
            1 => {
                out.push(OPEN);
                out.push_str(&percent(piece));
                out.push(CLOSE);
            }
            _ => out.push_str(&percent(piece)),
        }
    }
    out
}

fn ts(r: &mut Rng) -> String {
    format!(
        "2026-11-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        r.range(1, 30),
        r.range(0, 23),
        r.range(0, 59),
        r.range(0, 59),
        r.range(0, 999)
    )
}

fn json_tool_result(r: &mut Rng, s: &Secret) -> String {
    let v = s.marked();
    match r.below(3) {
        0 => format!(
            "{{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_{}\",\"content\":{{\"{}\":\"{}\",\"region\":\"us-east-1\",\"ok\":true}}}}",
            r.chars(ALNUM, 24),
            lower(s),
            json_escape(&v)
        ),
        1 => format!(
            "{{\n  \"env\": {{\n    \"NODE_ENV\": \"production\",\n    \"{}\": \"{}\",\n    \"PORT\": \"8080\"\n  }}\n}}",
            s.name,
            json_escape(&v)
        ),
        _ => format!(
            "{{\"exit_code\":0,\"stdout\":\"{}\",\"stderr\":\"\"}}",
            json_escape(&format!(
                "export {}={v}\nexport PATH=/usr/local/bin:$PATH\n",
                s.name
            ))
        ),
    }
}

fn yaml_config(r: &mut Rng, s: &Secret) -> String {
    let v = s.marked();
    match r.below(3) {
        0 => format!(
            "service:\n  name: api\n  replicas: 3\n  {}: {v}\n  timeout: 30s\n",
            lower(s)
        ),
        1 => format!(
            "env:\n  - name: LOG_LEVEL\n    value: info\n  - name: {}\n    value: \"{v}\"\n",
            s.name
        ),
        _ => format!(
            "steps:\n  - run: ./deploy.sh\n    env:\n      {}: '{v}'\n",
            s.name
        ),
    }
}

fn dotenv(r: &mut Rng, s: &Secret) -> String {
    let v = s.marked();
    let q = *r.pick(&["", "\"", "'"]);
    format!(
        "# .env\nAPP_ENV=production\n{}={q}{v}{q}\nPORT={}\n",
        s.name,
        r.range(3000, 9000)
    )
}

fn shell_command(r: &mut Rng, s: &Secret) -> String {
    let v = s.marked();
    match r.below(4) {
        0 => format!("$ export {}=\"{v}\"\n$ ./scripts/release.sh\n", s.name),
        1 => format!(
            "$ curl -sS -H \"Authorization: Bearer {v}\" https://api.example.com/v1/me | jq .\n"
        ),
        2 => format!("$ {}={v} npm publish --access public\n", s.name),
        _ => format!(
            "$ echo '{v}' | docker login -u ci --password-stdin registry.example.com\nLogin Succeeded\n"
        ),
    }
}

fn log_line(r: &mut Rng, s: &Secret) -> String {
    let v = s.marked();
    let t = ts(r);
    match r.below(3) {
        0 => format!(
            "{t} DEBUG config: loaded {}={v} from environment\n{t} INFO  server: listening on :8080\n",
            s.name
        ),
        1 => format!(
            "{t} WARN  http: retrying request with header Authorization: Bearer {v} (attempt 2)\n"
        ),
        _ => format!(
            "[{t}] worker.1: credentials {{\"{}\": \"{v}\", \"ttl\": 3600}}\n",
            camel(s)
        ),
    }
}

fn http_header(r: &mut Rng, s: &Secret) -> String {
    let v = s.marked();
    let header = match r.below(3) {
        0 => format!("Authorization: Bearer {v}"),
        1 => format!("Authorization: token {v}"),
        _ => format!("X-API-Key: {v}"),
    };
    format!(
        "> GET /v1/projects?limit=20 HTTP/1.1\n> Host: api.example.com\n> User-Agent: curl/8.5.0\n> {header}\n> Accept: */*\n>\n< HTTP/1.1 200 OK\n"
    )
}

fn prose(r: &mut Rng, s: &Secret) -> String {
    let v = s.marked();
    match r.below(3) {
        0 => format!(
            "I found the credential in your shell history: {v} — you should rotate it, since it was also committed to the repo."
        ),
        1 => format!(
            "Done. I set `{}` to `{v}` in the CI settings and re-ran the pipeline.",
            s.name
        ),
        _ => format!(
            "The failing request used the key {v}; the server answered 401, so it has probably been revoked."
        ),
    }
}

fn go_escaped(r: &mut Rng, s: &Secret) -> String {
    let v = s.marked();
    let inner = match r.below(2) {
        0 => format!("<config><{}>{v}</{}></config>", camel(s), camel(s)),
        _ => format!(
            "GET https://api.example.com/v1/export?format=json&{}={v}&page=2",
            lower(s)
        ),
    };
    format!(
        "{{\"level\":\"debug\",\"ts\":{}.{},\"msg\":\"{}\"}}",
        r.range(1_700_000_000, 1_800_000_000),
        r.chars(DIGITS, 6),
        go_escape(&inner)
    )
}

fn json_in_json(_r: &mut Rng, s: &Secret) -> String {
    let v = s.marked();
    let inner = format!("{{\"{}\":\"{}\",\"pool\":10}}", lower(s), json_escape(&v));
    format!(
        "{{\"name\":\"read_config\",\"output\":\"{}\"}}",
        json_escape(&inner)
    )
}

fn basic_auth(r: &mut Rng, s: &Secret) -> String {
    let user = *r.pick(&["x-access-token", "ci-bot", "jane@example.com", "api"]);
    let blob = enc_b64(&format!("{user}:{}", s.marked()));
    format!(
        "> POST /api/v2/deploy HTTP/1.1\n> Host: deploy.example.com\n> Authorization: Basic {blob}\n> Content-Type: application/json\n"
    )
}

fn k8s_secret(_r: &mut Rng, s: &Secret) -> String {
    format!(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app-credentials\n  namespace: prod\ntype: Opaque\ndata:\n  {}: {}\n",
        kebab(s),
        enc_b64(&s.marked())
    )
}

fn percent_query(r: &mut Rng, s: &Secret) -> String {
    let param = *r.pick(&["access_token", "api_key", "token", "key"]);
    format!(
        "{} INFO request GET https://api.example.com/v2/export?format=csv&{param}={}&page=2 200 83ms\n",
        ts(r),
        enc_percent(&s.marked())
    )
}

fn toml_config(_r: &mut Rng, s: &Secret) -> String {
    format!(
        "[service]\nendpoint = \"https://api.example.com\"\n{} = \"{}\"\nretries = 3\n",
        lower(s),
        s.marked()
    )
}

fn python_call(r: &mut Rng, s: &Secret) -> String {
    let arg = *r.pick(&["api_key", "token", "auth_token"]);
    format!(
        "import client\n\napi = client.Client(\n    base_url=\"https://api.example.com\",\n    {arg}=\"{}\",\n    timeout=30,\n)\n",
        s.marked()
    )
}

fn markdown_table(_r: &mut Rng, s: &Secret) -> String {
    format!(
        "| variable | value |\n|---|---|\n| `APP_ENV` | `production` |\n| `{}` | `{}` |\n",
        s.name,
        s.marked()
    )
}

fn docker_run(_r: &mut Rng, s: &Secret) -> String {
    format!(
        "$ docker run --rm -e APP_ENV=prod -e {}={} ghcr.io/acme/worker:1.4.2\n",
        s.name,
        s.marked()
    )
}

fn xml_appsettings(_r: &mut Rng, s: &Secret) -> String {
    let name = camel(s);
    let mut c = name[..1].to_ascii_uppercase();
    c.push_str(&name[1..]);
    format!(
        "<configuration>\n  <appSettings>\n    <add key=\"{c}\" value=\"{}\" />\n  </appSettings>\n</configuration>\n",
        s.marked()
    )
}

fn csv_row(r: &mut Rng, s: &Secret) -> String {
    format!(
        "name,value,created_at\nAPP_ENV,production,2026-11-{:02}\n{},{},2026-11-{:02}\n",
        r.range(1, 30),
        s.name,
        s.marked(),
        r.range(1, 30)
    )
}

fn git_remote(r: &mut Rng, s: &Secret) -> String {
    format!(
        "$ git remote set-url origin https://oauth2:{}@git.example.com/{}/app.git\n$ git push origin main\n",
        s.marked(),
        r.pick(&["acme", "platform", "data"])
    )
}

fn file_cat(r: &mut Rng, s: &Secret) -> String {
    let path = *r.pick(&[
        "~/.config/app/credentials",
        "./secrets/key",
        "/etc/app/creds",
    ]);
    format!("$ cat {path}\n{}\n$ ", s.marked())
}

fn json_block(_r: &mut Rng, s: &Secret) -> String {
    format!(
        "{{\"tool\":\"read_file\",\"path\":\"creds.txt\",\"content\":\"{}\",\"truncated\":false}}",
        json_escape(&s.marked())
    )
}

fn yaml_block(_r: &mut Rng, s: &Secret) -> String {
    let body: String = s.marked().lines().map(|l| format!("    {l}\n")).collect();
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  {}: |\n{body}",
        kebab(s)
    )
}

fn k8s_block(_r: &mut Rng, s: &Secret) -> String {
    format!(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app-files\ntype: Opaque\ndata:\n  {}: {}\n",
        kebab(s),
        enc_b64(&s.marked())
    )
}

fn heredoc(_r: &mut Rng, s: &Secret) -> String {
    format!(
        "$ cat > /tmp/creds <<'EOF'\n{}\nEOF\n$ chmod 600 /tmp/creds\n",
        s.marked()
    )
}

fn markdown_fence(_r: &mut Rng, s: &Secret) -> String {
    format!(
        "Here is the file as it is on the server:\n\n```\n{}\n```\n\nIt is readable by everyone, which is why the audit flagged it.",
        s.marked()
    )
}
