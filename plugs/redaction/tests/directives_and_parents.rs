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
