//! Fifth round of tuning rows for issue 51 (2026-12-07, after a third corpus
//! written apart, `benches/recall/agent_tuning_2`, was read): values whose
//! name is on the line above (a Redis reply's pairs, a REPL's answer, Rust's
//! pretty `Debug`), a Groovy call's quoted value, hex and UUID keys under
//! names that say so; and the look-alikes that corpus showed: build
//! variants, program versions, public keys and addresses, digests, password
//! hashes, placeholders after a vendor's prefix. Each text is also streamed,
//! cut at every byte and one character at a time, and must come out as
//! whole.
//!
//! The values are random (Python's `random`, seed 12), shaped like the real
//! formats; none is a live credential.

mod support;

use support::check;

/// A value on its own line, named on the line above.
const NAMED_ABOVE: &[&str] = &[
    // redis CONFIG GET
    "127.0.0.1:6379> CONFIG GET requirepass\n1) \"requirepass\"\n2) \"«ErQHQwjyaxErPZDS3MoJaQNjCxkv»\"\n",
    // redis HGETALL, the secret field later
    "$ redis-cli HGETALL integration:42\n1) \"provider\"\n2) \"pagerduty\"\n3) \"api_token\"\n4) \"«pNhxIGjb7u4YQ1rOhoYHGEFOwqR8C5»\"\n",
    // Python REPL
    ">>> import os\n>>> os.environ[\"STRIPE_WEBHOOK_SECRET\"]\n'«D7JxlmXVo6Ma8r6XZvlpYaGc»'\n>>> \n",
    // Python print, unquoted
    ">>> print(settings.DB_PASSWORD)\n«Y4gnNScP@UNvr9»\n",
    // Laravel Tinker
    "> config('app.key')\n= \"«base64:bks4hOslgOeyVSmAdmObgNe0P3V1ydoM1MU6aImywso=»\"\n\n> exit\n",
    // irb
    "irb(main):001> ENV[\"GITHUB_TOKEN_SECRET\"]\n=> \"«oZIiqFcBZxsA7OMsy03Y»\"\n",
    // pry with a counter
    "[2] pry(main)> Rails.application.credentials.secret_key_base\n=> \"«c9387abb50cd107d1c6375281d8fb1eb6a9eff75»\"\n",
    // IPython
    "In [3]: cfg.api_key\nOut[3]: '«5MujiqPc1QMYYyABNQqvAXyFy8z0ZlkYn1qh»'\n",
    // Rust Debug, Some
    "[src/main.rs:12:5] &cfg = Config {\n    port: 8080,\n    password: Some(\n        \"«6162ac20172de3d4a5152cdffc0268bb»\",\n    ),\n}\n",
    // Salt's pillar.items, a value nested under its name
    "local:\n    root_password:\n        «ShHZ&A@jyYrDJK{77!67Of»\n    user:\n        deploy\n",
    // A key file printed
    "$ sudo cat /etc/zabbix/zabbix_agentd.psk\n«357748e5a9215f46b1fea15f7bc579bbd47c17bca38259cdd6d4d7ae1f7bf618»\n",
    // An env file's password with brackets and braces; PowerShell's parameter
    "FASTLANE_PASSWORD=«xx7:[ktno4{l:dqObLU»\nFASTLANE_TEAM_ID=C4H63ML87X\n",
    "PS C:\\Users\\eve> Invoke-Sqlcmd -ServerInstance 'sql-01' -Username 'harbor_admin' -Password '«fb5GS~l6su48H9s9Sm{8»' -Query 'SELECT 1'\n",
    // A pre-shared key; a value with a bracket that closes nothing, whole
    "network={\n    ssid=\"CasaNet\"\n    psk=\"«r=tde76bf09»\"\n}\n",
    "802-11-wireless-security.psk:           «w^HH3OzpAu:k}qfrvG0nk»\n",
    // Rust Debug, Secret inside Some
    "Settings {\n    api_token: Some(Secret(\n        \"«ErQHQwjyaxErPZDS3MoJaQNjCxkv»\",\n    )),\n}\n",
];

/// Lines above that name no secret, or values that are none.
const NAMED_ABOVE_NOT_SECRETS: &[&str] = &[
    "127.0.0.1:6379> CONFIG GET maxmemory-policy\n1) \"maxmemory-policy\"\n2) \"allkeys-lru\"\n",
    "$ redis-cli HGETALL user:7\n1) \"name\"\n2) \"pNhxIGjb7u4YQ1rOhoYHGEFOwqR8C5\"\n",
    ">>> settings.DEBUG\nTrue\n>>> len(settings.API_TOKEN)\n40\n",
    ">>> os.environ[\"API_TOKEN\"]\n'${API_TOKEN}'\n",
    "> config('app.name')\n= \"D7JxlmXVo6Ma8r6XZvlpYaGc\"\n",
    "    url: Some(\n        \"https://api.example.com/v1\",\n    ),\n    password: Some(\n        \"********\",\n    ),\n",
    // A mapping's key under a name, not its value.
    "env:\n  password:\n    valueFrom:\n      secretKeyRef: x\n",
    // The value line has more on it: not a value of its own.
    ">>> os.environ[\"API_TOKEN\"]\nTraceback (most recent call last): KeyError\n",
];

/// Values quoted after a name with a blank between (Groovy, Gradle).
const CALLS_WITHOUT_PARENTHESES: &[&str] = &[
    "android {\n    signingConfigs {\n        release {\n            storePassword \"«Y4gnNScP@UNvr9»\"\n            keyAlias \"upload\"\n            keyPassword '«oZIiqFcBZxsA7OMsy03Y»'\n        }\n    }\n}\n",
    "  File \"/app/client.py\", line 41, in fetch\n    auth = ('svc-reports', '«D7JxlmXVo6Ma8r6XZvlpYaGc»')\n",
];

/// Calls whose first argument names the second, or whose name says what
/// their argument is.
const CALLS_THAT_NAME_THEIR_VALUE: &[&str] = &[
    "     9→define( 'DB_NAME', 'wp_signal' );\n    11→define( 'DB_PASSWORD', '«Hazel.onyx.883»' );\n    16→define( 'AUTH_KEY',         '«`f~9PDAxn|(tff#@pZmh/d L.P7em<wur3UQbwf]d/uoy9/1oPzz6K2O`9i0zg[o»' );\n    23→define( 'NONCE_SALT',       '«d3i5ealNUY:!c3GyT9d,{M#7$nY0iQ{qM{*BaI(s$t!MF87!0Zqd#yZvus1!2/S]»' );\n    27→define( 'WP_DEBUG', false );\n",
    "'password' => env('DB_PASSWORD', '«s3cr3t-Passw0rd»'),\n",
    "token = os.getenv(\"SLACK_TOKEN\", \"«oZIiqFcBZxsA7OMsy03Y»\")\n",
    "            $client->setXApiKey('«AQEG7QXbp7SbmMM9lIxoIKGqhZqxRfc3TYPGqK3TZY»');\n",
    "val client = Client.builder().withApiToken(\"«pNhxIGjb7u4YQ1rOhoYHGEFOwqR8C5»\").build()\n",
];

/// The same calls with nothing secret in them.
const CALLS_WITHOUT_A_SECRET: &[&str] = &[
    "define( 'DB_HOST', '127.0.0.1:3306' );\ndefine( 'WP_DEBUG', false );\ndefine( 'API_KEY', 'abc' );\n",
    "'password' => env('DB_PASSWORD', ''),\n'token' => env('API_TOKEN', 'changeme'),\n",
    "print('pNhxIGjb7u4YQ1rOhoYHGEFOwqR8C5')\n$page->setTitle('Kettle-saffron-Ember-92897D');\n",
    "define( 'LOGGED_IN_SALT', 'put your unique phrase here' );\n",
];

/// Keys in hex or as UUIDs under names that say they are keys, kubeadm's, a
/// session cookie's by its name field.
const KEYS_NAMED_SO: &[&str] = &[
    "[api]\nappkey = «c9387abb50cd107d1c6375281d8fb1eb6a9eff75»\n",
    "pagerduty:\n  routing_key: «81b949609105656965903bf6e304cf9e»\n",
    "env:\n  CYPRESS_RECORD_KEY: «3f1c9a2e-7b4d-4e8a-9c1f-5d2e8b7a6c3f»\n",
    "wallet:\n  private_key: «0x5e918ae69800048d476df181dd2c6bbc504012d6c3b698f36c72dba2a42995db»\n",
    "$ kubeadm token create --print-join-command\nkubeadm join 10.0.0.4:6443 --token «lbn525.fbvtkohkdhalligw» --discovery-token-ca-cert-hash sha256:5e918ae69800048d476df181dd2c6bbc504012d6c3b698f36c72dba2a42995db\n",
    "[upload-certs] Using certificate key:\n«5e918ae69800048d476df181dd2c6bbc504012d6c3b698f36c72dba2a42995db»\n",
    // A session cookie in a browser's storage state, its value in hex.
    "{\n  \"cookies\": [\n    {\n      \"name\": \"sessionid\",\n      \"value\": \"«5e918ae69800048d476df181dd2c6bbc504012d6c3b698f36c72dba2a42995db»\",\n      \"domain\": \"app.example.com\"\n    },\n    {\n      \"name\": \"theme\",\n      \"value\": \"light\"\n    }\n  ]\n}\n",
];

/// What looks random in a setting's place and is none.
const LOOK_ALIKES: &[&str] = &[
    // A build variant's name.
    "Variant: debugAndroidTest\nConfig: debug\nStore: /home/ana/.android/debug.keystore\n",
    // Programs and versions.
    "  User-Agent: GitHub-Hookshot/da9980b\n  Server: AmazonS3-Gateway/7f3a2c1\n",
    // WireGuard's peers are public keys.
    "peer: L0SzZZx6uHPyK08VXg9pwWasgi3vBeGbWw0YPYjMH6I=\n  preshared key: (hidden)\n  endpoint: 52.74.170.140:61107\n",
    // Ethereum addresses and hashes.
    "from                 0x33a611a3e30000e9ab57676f51fb17acf7ad6654\nto                   0xf822cc1f1142e71dc46997a4e3e4776c89977103\n",
    // DKIM's body hash.
    "DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed;\n        d=example.com; s=google;\n        bh=x/3rjKLeL8VKXiHDojTyvDsDSrHJB6kkX9Dd3Nt8Uhg=;\n",
    // Password hashes.
    "      \"password\": \"pbkdf2_sha256$720000$DHa4mIXR9uDrXtDgibljYb$fwr0AWzGMr8UBa/XfnkP3q3Z+O6ed8FfY5MWhYMuh0I=\",\n",
    " id |  username |                           password\n----+-----------+--------------------------------------------------------------\n  1 | ana       | $2b$12$KIXQJQ8bW0Xy1r6cQ9zG5eJ3fH7k8L2mN4pR6sT8uV0wX2yZ4aB6C\n",
    "password_hash: $argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG\n",
    // Placeholders after a vendor's prefix.
    "+STRIPE_SECRET_KEY=sk_test_xxx\n+SLACK_BOT_TOKEN=xoxb-your-token\n",
    // A broker's routing key is words.
    "amqp:\n  routing_key: orders.created.eu\n",
    // `vault list`'s header names what is listed (token accessors).
    "$ vault list auth/token/accessors\nKeys\n----\nbTqAaUd7bEvsu3gmDUWRQmOz\nPPaBYAuv2RNCsJD1EbSoIqCs\n",
    // A header's capitalised word after a label (`Token  Balance`).
    "$ spl-token accounts\nToken                                         Balance\n---------------------------------------------------------\n",
    // A password's hash in a table's password column.
    " rolname    | rolpassword\n------------+------------------------------------------------------------\n lumen      | SCRAM-SHA-256$4096:gXGuwffoJHrqprxFJqoOuQ==$iiNVjyPxYssmseTS9vburRChHm0S0lA+F47hFTuMWvw=:XkbIlHgW5a7AayjGqGJ/yvJmXSaONqaRGjaex7kJQFU=\n",
    // age's recipients are public keys.
    "creation_rules:\n  - path_regex: secrets/.*\n    age: age18s00y260jn5t6hx0dgc6emd3dtaac7uq5g03u6wh9g3e34heul3qamk69d\n",
    // Public site keys, digests' names, verification records, representations.
    "<div class=\"g-recaptcha\" data-sitekey=\"6Lerv_XiAAAAAi9vyfoKRPSq32HOdRUiXldBKOnV\"></div>\n",
    "sign-key-sha3-384: W0Vgsc3P-OG1-80TQod3erxA5w57GEqo132-FizqZKtonQeqDWj8wjfwEus3LoC3\n$ snap known --remote account-key public-key-sha3-384=urmrtAYwI-sPQZvNCMYqIF_eNQ-DYSlHPilrRmeY7fYc54T5GkqvZOPYTQlVdKAP\n",
    "\"google-site-verification=pRUxGnZRCCqI2NMqJJhNpCLgvRn_QJgBevrN08qeJYM\"\n\"atlassian-domain-verification=FObtC6qA+PDpZTtZk67n0JIo2WcAGwlQkv+1fdcMr4VrwJfnoMYuyVAHvframTwi\"\n",
    "REPRESENTATION:\n\n  String: 2pdAvxfh74t7HnpzJ1UWiah7vPs\n     Raw: 13DA7C74B92699567815AE153E42ED55C4841420\n",
];

#[test]
fn values_named_on_the_line_above_are_masked() {
    check(NAMED_ABOVE);
}

#[test]
fn lines_above_that_name_no_secret_leave_the_value() {
    check(NAMED_ABOVE_NOT_SECRETS);
}

#[test]
fn quoted_values_of_calls_without_parentheses_are_masked() {
    check(CALLS_WITHOUT_PARENTHESES);
}

#[test]
fn values_of_calls_that_name_them_are_masked() {
    check(CALLS_THAT_NAME_THEIR_VALUE);
}

#[test]
fn calls_without_a_secret_stay() {
    check(CALLS_WITHOUT_A_SECRET);
}

#[test]
fn keys_in_hex_or_uuids_under_names_that_say_key_are_masked() {
    check(KEYS_NAMED_SO);
}

#[test]
fn versions_public_keys_addresses_hashes_and_placeholders_stay() {
    check(LOOK_ALIKES);
}
