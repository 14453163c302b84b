//! Sixth round of tuning rows for issue 51 (2026-12-07, after the fourth
//! corpus written apart, `benches/recall/agent_tuning_3`, was read again):
//! a config's directives (`requirepass …`, `password …`, `secret "…";`,
//! `: PSK "…"`), values under a parent that names a password, and what looks
//! like them but is not. Each text is also streamed, cut at every byte and
//! one character at a time, and must come out as whole.
//!
//! The values are random, shaped like the real formats; none is a live
//! credential.

mod support;

use support::check;

/// A name first on its line (after a file viewer's decoration), then its
/// value alone: redis.conf, msmtprc, BIND's `key` blocks, `ipsec.secrets`.
const DIRECTIVES: &[&str] = &[
    "# cat /etc/redis/redis.conf | grep -v '^#'\nport 6379\nrequirepass «UpuJ5aVIAxNESHBGxVFLbtN13M61h2h1»\nmasterauth \"«jcFSUb9kQg7+DSkB0NCkyHA6QDSpKA1V»\"\n",
    "sentinel monitor cache 10.0.8.57 6379 2\nsentinel sentinel-pass «ZfQ9xw2LmR7tBv4KcY8nHs3D»\n",
    "account gmail\nhost smtp.gmail.com\nuser ops@example.com\npassword      «owxUdjG8!oSE»\n",
    "key \"transfer-key\" {\n    algorithm hmac-sha256;\n    secret \"«ol2u49nsbZOcC+nMAUgbj/wdlr8BXPysnMAuMtZvOhM=»\";\n};\n",
    "$ sudo cat /etc/ipsec.secrets\n: PSK \"«Orchid-canyon-Rocket-71»\"\n10.0.0.1 10.0.0.2 : PSK «0xfa2908e6476c6ea9c65632f41a73dc8538d4b068b031fc3b71ee3baa0590f778»\n",
    // Through grep's and Claude Code's prefixes.
    "deploy/redis.conf:512:requirepass «c9+h7ogRJ0NWxNfxYz7qL3»\n",
    "   511→# requirepass foobared\n   512→requirepass «Zt4BSsqA5fMA8hRtvvFBlMdK»\n",
];

/// A file read through Claude Code's `Read` (`    12→`): its lines as the
/// file has them.
const READ_WITH_LINE_NUMBERS: &[&str] = &[
    "     1→[default]\n     2→region = eu-west-1\n     3→key = «8aZd930fe59bK709c640996154d45340c»\n",
    "    14→DB_HOST=db.internal\n    15→DB_PASS=«Tr0ub4dor&3xyz»\n",
    "     7→  password: «Hazel_fable_Saddle_31»\n",
];

/// Directives and prose whose value is none.
const DIRECTIVES_WITHOUT_A_SECRET: &[&str] = &[
    "Token expired\nPassword incorrect\nSecret 1 of 3 rotated\n",
    // redis.conf's own example, commented or not
    "# requirepass foobared\nrequirepass foobared\n",
    "requirepass ${REDIS_PASSWORD}\n",
    "token refresh succeeded after 3 attempts\n",
    ": RSA /etc/ipsec.d/private/gw.key\n",
];

/// A generic key's value (`"value"`, `"default"`) under a parent that names
/// a password: anything that is no stand-in.
const UNDER_A_PASSWORD: &[&str] = &[
    "\"spring.rabbitmq.password\": {\n  \"value\": \"«Thunder-jasper-Kettle-9259»\",\n  \"origin\": \"class path resource [application.yml] - 45:16\"\n},\n",
    "{\"db_password\": {\"sensitive\": true, \"type\": \"string\", \"value\": \"«Hazel_fable_Saddle_31»\"}}\n",
];

/// The same places holding stand-ins.
const UNDER_A_PASSWORD_NOT_SECRETS: &[&str] = &[
    "\"spring.datasource.password\": {\n  \"value\": \"******\",\n  \"origin\": \"System Environment Property \\\"DB_PASSWORD\\\"\"\n},\n",
    "\"spring.datasource.password\": {\n  \"value\": \"${DB_PASSWORD}\"\n},\n",
    "\"spring.datasource.username\": {\n  \"value\": \"Thunder-jasper-Kettle\"\n},\n",
];

/// Vendor formats that carry a checksum: masked when it checks.
const CHECKSUMMED: &[&str] = &[
    // A NATS `.creds` file: the seed, not the user's JWT (public).
    "-----BEGIN USER NKEY SEED-----\n«SUAHYUT5O2BMX3NPXDDI5TQDHIHIIEHULKYZTPHFMIH6AVXQAYPTMNZRYI»\n------END USER NKEY SEED------\n",
    "$ nsc generate nkey --account\nUB6FE7LWQLF63L5YY2HM4AZ2B2CBB5C2WGM3ZZLCB7QFN4AGD43DPI4Z\n«SAAFT3II33KGNPJZ7BN3PZX5HTQQLXQU6IZZ32YOU7LSZUMOOPYPO3OV5Y»\n",
];

/// The same shapes that fail their checksum, and public keys.
const CHECKSUMMED_NOT_SECRETS: &[&str] = &[
    "SUAHYUT5O2BMX3NPXDDI5TQDHIHIIEHULKYZTPHFMIH6AVXQAYPTMNZRZI\n",
    "nkey: UB6FE7LWQLF63L5YY2HM4AZ2B2CBB5C2WGM3ZZLCB7QFN4AGD43DPI4Z\n",
];

/// Values by their place in what the fifth corpus written apart showed:
/// a flag's value in a list of arguments, curl's cookies, a banner's
/// password on the line after the sentence that introduces it, PHP's
/// `var_dump`, a config's password that starts with a symbol, Google app
/// passwords, fish's escapes.
const PLACES: &[&str] = &[
    "args = [\"-y\", \"@upstash/context7-mcp\", \"--api-key\", \"«ctx7sk-dce28d92-e70c-43ef-b7f7-8e7438b52829»\"]\n",
    "    \"args\": [\n      \"mcp-server-postgres\",\n      \"--password\",\n      \"«Hazel_fable_Saddle_31»\"\n    ]\n",
    "curl 'https://api.example.com/graphql' \\\n  -H 'accept: */*' \\\n  -b '_payments_session=«i9fYppfYjlygcw5Aqof1eOOh4IO5AJfwYYfXhcxY9nwJ»; _ga=GA1.1.983842920.1706892984' \\\n  --data-raw '{}'\n",
    "curl --cookie \"sessionid=«Zt4BSsqA5fMA8hRtvvFBlMdKc9h7og»\" https://example.com/\n",
    "ℹ️  Password for the elastic user (reset with `bin/elasticsearch-reset-password -u elastic`):\n  «WO80y4GFVOBHkwpMwR*b»\n\nℹ️  HTTP CA certificate SHA-256 fingerprint:\n  7880e5610cd93423ca419af4b2cd6d7d5c317d96c3342b70eb3d32426af7f93c\n",
    "Please use the following password to proceed to installation:\n\n«b2dba7c3f52809acf6846c8fecf3276e»\n\nThis may also be found at: /var/jenkins_home/secrets/initialAdminPassword\n",
    "    [\"password\"]=>\n    string(17) \"«pWR2nkbKsm1Q6XUFZ»\"\n    [\"cluster\"]=>\n    string(2) \"eu\"\n",
    "  10   │   password: «&gg0&rRQ&QX*fW*8uHn»\n  11   │   max_open_conns: 38\n",
    "smtp_password = \"«ojzq ldut wqnv oynw»\"\n",
    "account default\nuser ops@example.com\npassword «yaxo hzcd tbce gnms»\n",
    "SETUVAR --export GITLAB_TOKEN:«glpat\\x2dTo3VosclDqBEGDFPu1c7»\n",
];

/// The same places holding no secret.
const PLACES_WITHOUT_A_SECRET: &[&str] = &[
    "args = [\"--port\", \"8080\", \"--token-file\", \"/run/secrets/token\"]\n",
    "git checkout -b feature/login-2fa\ncurl -b cookies.txt https://example.com/\n",
    "Password policy:\n  minLength=12\n",
    "SSH key fingerprint:\n  SHA256:Zt4BSsqA5fMA8hRtvvFBlMdKc9h7ogRJ0NWxNfxYz7q\n",
    "base: &defaults\n  adapter: postgres\npassword: *db_password\n",
    "user: abcd efgh ijkl mnop\n",
    "SETUVAR fish_color_search_match:\\x2d\\x2dbackground\\x3dbrblack\n",
];

/// What a line's place decides, read through a viewer's decorations: the
/// file's lines decide, not the decorated ones.
const VIEWED: &[&str] = &[
    "     1\t127.0.0.1:6379> CONFIG GET requirepass\n     2\t1) \"requirepass\"\n     3\t2) \"«ErQHQwjyaxErPZDS3MoJaQNjCxkv»\"\n",
    "src/debug.log:12:    password: Some(\nsrc/debug.log:13:        \"«6162ac20172de3d4a5152cdffc0268bb»\",\nsrc/debug.log:14:    ),\n",
    "2024-05-01T10:00:00.1234567Z >>> os.environ[\"STRIPE_WEBHOOK_SECRET\"]\n2024-05-01T10:00:00.2234567Z '«D7JxlmXVo6Ma8r6XZvlpYaGc»'\n",
    "+[client]\n+user = app\n+password = «Tr0ub4dor&3xyzQ»\n",
    "[pod/api-7d4b9-x2k/app] $ redis-cli CONFIG GET masterauth\n[pod/api-7d4b9-x2k/app] 1) \"masterauth\"\n[pod/api-7d4b9-x2k/app] 2) \"«pNhxIGjb7u4YQ1rOhoYHGEFOwqR8C5»\"\n",
    "web-1  | >>> settings.SECRET_KEY\nweb-1  | '«c9387abb50cd107d1c6375281d8fb1eb»'\n",
    // Gemini CLI frames a tool's output in a panel (`│ … │`); its blank
    // lines are all padding. (A key block in it is masked whole, bars
    // between its lines too.)
    "╭────────────────────────────────────────────────────────────────────╮\n│ ✔  Shell cat deploy.pem .env                                       │\n│                                                                    │\n│ «-----BEGIN RSA PRIVATE KEY-----                                    │\n│ MIIEpAIBAAKCAQEAWjj1kbVsTM+8qgUFqW51LiM1iegKryGH3a70QqrN6TluOxxT   │\n│ zQ+rmJsdt1OJ+Gzt462EYlHVIcPbl9LLoj4Mc/yuQnBd1hJT4Lap8pv9pvHg+GtX   │\n│ xcn6j4tAD6Zf9wfbcD+wdXrJDWNngLOqwzNPXX1LJLHudBBieaVtDpTp0vv/r/dE   │\n│ -----END RSA PRIVATE KEY-----»                                      │\n│                                                                    │\n│ WEBHOOK_SECRET=«d8cb2ac0f479ec877a96eba1c55e48a95eb69565»            │\n│ GITHUB_CLIENT_ID=Iv1.ba43e4153bf6c7bf                              │\n╰────────────────────────────────────────────────────────────────────╯\n",
    "╭──────────────────────────────────────────╮\n│ ✔  Shell redis-cli CONFIG GET requirepass │\n│                                          │\n│ 1) \"requirepass\"                         │\n│ 2) \"«ErQHQwjyaxErPZDS3MoJaQNjCxkv»\"        │\n╰──────────────────────────────────────────╯\n",
];

/// The same through decorations, where the file shows no secret:
/// Compose's prefix before random ids, a table whose first column is a
/// timestamp. (A table's header under `cat -n` is not read as one yet: `fly
/// secrets list`'s digests are masked there.)
const VIEWED_NOT_SECRETS: &[&str] = &[
    "web-1  | vault list auth/token/accessors\nweb-1  | Keys\nweb-1  | ----\nweb-1  | bTqAaUd7bEvsu3gmDUWRQmOz\nweb-1  | PPaBYAuv2RNCsJD1EbSoIqCs\n",
    "api-2  | request done\napi-2  | kRnj6JUu08kbOolF_t_4a\n",
    "$ az storage account list -o table\nCreationTime                      Name\n--------------------------------  ---------\n2024-05-01T10:00:00.000000+00:00  shopstore\n2024-05-01T10:00:00.000000+00:00  logs\n",
];

#[test]
fn a_line_s_place_is_read_through_a_viewer_s_decorations() {
    check(VIEWED);
}

#[test]
fn decorations_hide_no_context_that_says_a_value_is_none() {
    check(VIEWED_NOT_SECRETS);
}

#[test]
fn values_by_their_place_are_masked() {
    check(PLACES);
}

#[test]
fn the_same_places_without_a_secret_stay() {
    check(PLACES_WITHOUT_A_SECRET);
}

#[test]
fn checksummed_vendor_tokens_are_masked() {
    check(CHECKSUMMED);
}

#[test]
fn look_alikes_that_fail_the_checksum_stay() {
    check(CHECKSUMMED_NOT_SECRETS);
}

#[test]
fn values_of_a_configs_directives_are_masked() {
    check(DIRECTIVES);
}

#[test]
fn lines_read_with_claude_codes_line_numbers_are_read_as_the_files() {
    check(READ_WITH_LINE_NUMBERS);
}

#[test]
fn directives_and_prose_without_a_value_stay() {
    check(DIRECTIVES_WITHOUT_A_SECRET);
}

#[test]
fn any_value_under_a_password_parent_is_masked() {
    check(UNDER_A_PASSWORD);
}

#[test]
fn stand_ins_under_a_password_parent_stay() {
    check(UNDER_A_PASSWORD_NOT_SECRETS);
}
