//! Classes a corpus of network and systems operations
//! (`benches/recall/agent_tuning_8`) showed unread: a value whose own
//! prefix says it is clear text (`{PLAIN}…`, `{CLEARTEXT}…`, Junos's
//! `"$9$…"` wherever it stands), a `user:password` pair after an `auth`
//! word, a secret a command prints alone (a keystore read by name, a key
//! made and printed, a file named for a secret), names LDAP tools write
//! as one word (`bindpw`, `rootpw`) or that say passphrase
//! (`wpa2-pre-shared-key`), a directive's short password on a line of
//! its own (`requirepass …`); and from a corpus of Windows, JVM and CMS
//! output (`agent_tuning_7`), a name in the plural over a list (`APP_KEYS=a,b`),
//! one with `value` after it (`token-value:`), Jetty's `OBF:…`, and any key
//! under a collection of secrets (`tokens { agent = "…" }`); and from a
//! coding agent's own tools (`agent_tuning_9`), `git diff --word-diff`,
//! `print_r`, Markdown's bold names and Laravel Sanctum tokens. Beside
//! them, what must stay. Each text is also
//! streamed, cut at every byte and one character at a time, and must come
//! out as whole.
//!
//! The values are random, shaped like the real formats; none is a live
//! credential.

mod support;

use support::check;

/// Values a prefix says are clear text or reversible.
const CLEAR_TEXT: &[&str] = &[
    "dpatel@tallgrass.co:{PLAIN}«wS4mKweyI_jF+A»:5000:5000::/var/vmail/tallgrass.co/dpatel::userdb_quota_rule=*:storage=2G\n",
    "$ sudo head -n 2 /etc/dovecot/users\nnoor@example.org:{PLAIN}«Pine+fable8655»:5000:5000::/var/vmail/noor\nbob@example.org:{CLEAR}«-pBX~VnPyA229»:5000:5000::/var/vmail/bob\n",
    "dn: uid=akim,ou=people,dc=example,dc=org\nuserPassword: {CLEARTEXT}«Thistle?tundra787»\n",
    "set system ntp authentication-key 1 type sha256 value \"«$9$2d4JDfTFt0IApESyeLXaJGiqPTz6u0IFnyevWdVgoJUDk.PQ»\"\n",
];

/// Hashed schemes, stand-ins and shell text.
const NOT_CLEAR_TEXT: &[&str] = &[
    "rw@example.org:{ARGON2ID}$argon2id$v=19$m=65536,t=3,p=1$LgvB5gfyLd3hNzzS4yPXpw$UmkcpFZn354YIFiJWuOTnNdLzTSoaC0GdqGRZRKH1sc:5000:5000::/var/vmail/rw\n",
    "userPassword: {SSHA}Qk0yW4zT2nVhN8bD1uL6eP9mR3sX\n",
    "user@example.org:{PLAIN}changeme:5000:5000::/home/user\n",
    "echo $9$HOME_DIRECTORY_VALUE\n",
    "passdb {\n  driver = passwd-file\n  args = scheme=PLAIN username_format=%u /etc/dovecot/users\n}\n",
];

/// A user and a password after an `auth` word.
const AUTH_PAIRS: &[&str] = &[
    "frontend stats\n    bind *:8404\n    stats enable\n    stats auth admin:«4o7NMF@hzowfXVSf»\n    stats refresh 10s\n",
    "  basic_auth admin:«s3cr3tPa55w0rdQ»\n",
];

/// `auth` before what is no pair.
const NOT_AUTH_PAIRS: &[&str] = &[
    "auth sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1c2b0b822cd15d6c15b0f00a08\n",
    "auth required pam_unix.so nullok\n",
    "    stats auth admin:\n",
];

/// Secrets commands print alone.
const PRINTED: &[&str] = &[
    "$ sudo /usr/share/elasticsearch/bin/elasticsearch-keystore show s3.client.default.secret_key\n«cBz9wpPl4N31hpyRT/yCmJg952aSvigmdPMBmEiF»\n",
    "exec\nbash -lc 'sudo elasticsearch-keystore show xpack.security.http.ssl.keystore.secure_password' in /opt/es\n succeeded in 628ms:\n«Jz6zsxq^zL%5x»\n",
    "root@tools01:/etc# headscale preauthkeys create --user lab --reusable --expiration 24h\n«ce7d47129a230f639a2b7d8dc3d66f37d5d0556cd0962ffc»\n",
    "root@tools01:/etc# headscale apikeys create --expiration 90d\n«vxIZjrz.2ykBdovm69KRSao2v3eXmlFjH8lGZH-s»\n",
    "$ consul kv get app/db/password\n«Xk2-Vq9mLp7Rt3Zw»\n",
    "⏺ Bash(sudo cat /var/lib/rancher/k3s/server/token)\n  ⎿  «K10d8e4c3b1f0a9e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1»\n",
    "$ wg genpsk\n«8PErc+2P5gbtzRiARLJalbHf4LDzhtMG94JcXJ91K3g=»\n",
    "$ oc whoami -t\n«sha256~Xk29fLq0Wm3nVb7Rt5YpQz1Hj8Kd6Ls4Mn2Pc0Fg»\n",
    // Gemini CLI's box: the command in its title, blank box lines, then
    // the value between bars.
    "╭──────────────────────────────────────────────────────────────────────╮\n│ ✔  Shell sudo elasticsearch-keystore show s3.client.default.secret_key │\n│                                                                      │\n│ «cBz9wpPl4N31hpyRT/yCmJg952aSvigmdPMBmEiF»                             │\n╰──────────────────────────────────────────────────────────────────────╯\n",
];

/// What such commands print that is no secret.
const NOT_PRINTED: &[&str] = &[
    "$ sudo cat /etc/nginx/.htpasswd\nkenji:$apr1$3Y/kUGIQ$vwTgEkKwJ1DxL57JH4gecC\n",
    "$ elasticsearch-keystore show cluster.name\nproduction-search-cluster\n",
    "$ headscale preauthkeys list --user lab\nNo pre-auth keys found\n",
    "$ cat README.md\nREADME_PLACEHOLDER_TEXT\n",
    "$ oc whoami\nsystem:admin\n",
    "╭──────────────────────────────────────────╮\n│ ✔  Shell cat VERSION                     │\n│                                          │\n│ Xk29fLq0Wm3nVb7Rt5Yp                     │\n╰──────────────────────────────────────────╯\n",
];

/// Names LDAP writes as one word, and a passphrase's.
const NAMES: &[&str] = &[
    "\t\t\t<ldap_bindpw>«7Qj@4?vp^VEY*fQ»</ldap_bindpw>\n",
    "DB_PW=«Xk93mZq81LpA»\n",
    // A directive's line of its own, a password shorter than a key.
    "binddn cn=nslcd,dc=example,dc=org\nbindpw «Zq8Lw2Rt5YmK9»\n",
    "# redis.conf\nrequirepass «Zq8Lw2Rt5YmK9»\nmasterauth «Wq7Kd2Lp9Xs3»\n",
    "bindpw «Zq8Lw2Rt5YmK9»\n",
    // Digits under a password's short name.
    "MYSQL_PWD=«84736251»\nDB_PASS=«20240815»\n",
    "/interface wireless security-profiles\nadd authentication-types=wpa2-psk mode=dynamic-keys name=corp wpa2-pre-shared-key=«raven-kestrel-ember-cinder»\n",
];

/// A secret's name in the plural over a list, or with `value` after it;
/// Jetty's obfuscated password.
const NAME_FORMS: &[&str] = &[
    "     APP_KEYS=«sDd0yZD1yzh7KHOyE6VFvA==,SwfpIqvUayLcrHTEua30Pw==,oCSj3dHyDm17ylrcO3aR2A==»\n",
    "│     token-value: \"«dbtu_ar6QZYHROdk1Yqg2g1gBB1MlHcZOc5V5bW1LXZ5L»\" │\n",
    "secret_value=«Xk29fLq0Wm3nVb7Rt5Yp»\n",
    "releasebot: «OBF:1hfg1kzo1pvv1qh81kmu1nzh1zev1zef1nwx1kjs1qk21pyr1kze1hfm»,admin,user\n",
    // Any key under a collection of secrets: an HCL block, a JSON map.
    "acl {\n  enabled = true\n  tokens {\n    initial_management = \"«29edfa06-586e-458d-90f0-903ec9a35d7b»\"\n    replication        = \"«b98755ad-6bc6-40be-b470-a91a440de469»\"\n  }\n}\n",
    "{\"secrets\": {\"stripe\": \"«sk9Xk29fLq0Wm3nVb7Rt5Yp»\", \"region\": \"us-east-1Z9\"}}\n",
    // Symbols split the value into words: a stream holds it whole.
    "{\"secrets\": {\"stripe\": \"«Xk2#mP9!qR7vL4nW8zT»\"}}\n",
    "tokens {\n    replication = \"«Xk2#mP9!qR7vL4nW8zT»\"\n}\n",
];

/// How a coding agent's own tools print settings (`agent_tuning_9`):
/// `git diff --word-diff`, PHP's `print_r`, Markdown's bold names, and a
/// Laravel Sanctum token (`<id>|<secret>`).
const TOOL_FORMS: &[&str] = &[
    "  api_token: [-«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»-]{+«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»+}\n",
    "    [ses] => Array\n        (\n            [secret] => «B1OscvrCrobYrQOOQ0MAhc/mZOG2PnmYBy/NEeIU»\n            [region] => eu-west-1\n        )\n",
    "    * **x-api-key**: «310|TaaDNdyryKYKL0W9S8U7Ee3XwRNpr2WYFCBPphbs»\n    * **host**: billing-api.test\n",
    // From data and SaaS integrations (`agent_tuning_10`): a Ruby setter on
    // a constant's path, Asana's token under `pat:`, Hadoop's name for an
    // Azure storage key.
    "Braintree::Configuration.private_key = \"«c2f30e008990245c4bb4e27e92a7dd02»\"\n",
    "  asana:\n    pat: «2/3771447286199267/2354802278361961:d64009fe4fbbbdd6518094d30eeb1527»\n",
    "spark.hadoop.fs.azure.account.key.lake.blob.core.windows.net   «IGyBzRGkHEGb/NAHWdngO68ckEf8UbkiVJa7Z+IjdlM8XFw9Z5R6/3x463LI/py5cCWwmoPHZmYMYYOkI7PUvQ==»\n",
];

/// Such forms with no secret.
const NOT_TOOL_FORMS: &[&str] = &[
    "$items[0] => 5\n    [region] => eu-west-1\n",
    "| 12|abcdefghijklmnopqrstuvwxyzabcdefghijklmn |\n",
    "sqlite> select id, sha from commits;\n42|e83c5163316f89bfbde7d9ab23ca2e25604af290\n1713600158|9f2c5163316f89bfbde7d9ab23ca2e25604af291\n",
    "  region: [-eu-west-1-]{+eu-central-1+}\n",
    "Type::TOKEN\npat: Pat Smith\n",
    "see 2/3771447286199267/2354802278361961 for the task\n",
];

/// Plurals and `value`s that name no secret.
const NOT_NAME_FORMS: &[&str] = &[
    "SORT_KEYS=name,created_at,id\n",
    "  \"key-value\": \"redis\"\n",
    "input.value = token.value\n",
    "max_tokens=4096\nnum_secrets=3\n",
    "$ gcloud run deploy api --set-secrets=RELAY=relay-key:latest\n",
    "support: MD5:9009354881af51016a2e52d0c288b140,user\n",
    // Collections of public things, and what says what it is.
    "{\"signatures\": [{\"keyid\": \"d4e72615f3e53950d8b95b7bc04f0c176b6b94d55f74aa13406addc33fb2bf55\", \"sig\": \"c69a25384f421903698de3cfd7e5bca82413f9e7a41bdf83bc0cc41f90f0aa15\"}]}\n",
    "{\"keys\": [{\"kid\": \"Xk29fLq0Wm3nVb7Rt5Yp\", \"n\": \"Xk29fLq0Wm3nVb7Rt5YpXX\"}]}\n",
    "tokens {\n  name = \"Release2024Build\"\n}\n",
];

/// Such names with what is no secret.
const NOT_NAMES: &[&str] = &[
    "rootpw --iscrypted $6$abc$defghijklmnopqrstuvwxyz0123456789\n",
    "PWD=/home/alice/src\n",
    "bindpw_file: /etc/nslcd/bindpw\n",
    "Your request:\npassword changed\n  Password expires 2024-10-11\n",
    "x\nrequirepass changeme123\n",
    // OpenVPN's `secret` names a key file.
    "dev tun\nsecret client1.key\n",
];

#[test]
fn values_a_prefix_says_are_clear_text_are_masked() {
    check(CLEAR_TEXT);
}

#[test]
fn hashed_schemes_and_stand_ins_stay() {
    check(NOT_CLEAR_TEXT);
}

#[test]
fn passwords_paired_after_auth_are_masked() {
    check(AUTH_PAIRS);
}

#[test]
fn auth_before_what_is_no_pair_stays() {
    check(NOT_AUTH_PAIRS);
}

#[test]
fn secrets_printed_alone_are_masked() {
    check(PRINTED);
}

#[test]
fn what_such_commands_print_otherwise_stays() {
    check(NOT_PRINTED);
}

#[test]
fn ldap_and_passphrase_names_are_read() {
    check(NAMES);
}

#[test]
fn such_names_with_no_secret_stay() {
    check(NOT_NAMES);
}

#[test]
fn plural_and_value_suffixed_names_and_obfuscation_are_read() {
    check(NAME_FORMS);
}

#[test]
fn plurals_and_values_that_name_no_secret_stay() {
    check(NOT_NAME_FORMS);
}

#[test]
fn settings_as_an_agents_tools_print_them_are_read() {
    check(TOOL_FORMS);
}

#[test]
fn such_forms_with_no_secret_stay() {
    check(NOT_TOOL_FORMS);
}
