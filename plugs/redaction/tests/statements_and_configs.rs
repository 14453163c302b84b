//! Places two corpora written apart (`benches/recall/agent_tuning_7` and
//! `agent_tuning_8`) showed unread, each a class: a password set in SQL
//! (`WITH PASSWORD '…'`, `IDENTIFIED BY …`), a YAML key under a namespace
//! (Hiera's `profile::db::password:`), a key in a brace block with more
//! settings after it (`{ user: route, password: …, timeout: 2 }`). Beside
//! them, what must stay. Each text is also streamed, cut at every byte and
//! one character at a time, and must come out as whole.
//!
//! The values are random, shaped like the real formats; none is a live
//! credential.

mod support;

use support::check;

/// Passwords given to a database in a statement.
const SQL_PASSWORDS: &[&str] = &[
    "mysql> CREATE USER 'app'@'%' IDENTIFIED BY '«BiNWxITaguPZO0l4XGV»';\n",
    "root@crdb-0:26257/defaultdb> CREATE USER IF NOT EXISTS orders WITH PASSWORD '«Walnut~gravel9793»';\n",
    "postgres=# ALTER USER app WITH PASSWORD '«Zq8Lw2Rt5YmK9»';\nALTER ROLE\n",
    "ALTER ROLE reporting PASSWORD '«Ember-zephyr8478»';\n",
    "1> CREATE LOGIN etl WITH PASSWORD = '«Xk29fLq0Wm3n!»';\n2> GO\n",
    "neo4j@system> CREATE USER etl SET PASSWORD '«X?98FtFMfiAt1O»' CHANGE NOT REQUIRED;\n",
    "SQL> CREATE USER app IDENTIFIED BY «Welcome_2024x»;\n\nUser created.\n",
    "CREATE USER metrics IDENTIFIED WITH plaintext_password BY '«qwertyuiop99»';\n",
    // Inside a JSON string (`ansible -vvv`'s module arguments).
    "\"cmd\": \"mysql -e \\\"CREATE USER 'app'@'10.%' IDENTIFIED BY '«BiNWxITaguPZO0l4XGV»';\\\"\",\n",
    // SQL's `''` is a quote inside the literal.
    "ALTER USER app WITH PASSWORD '«it''s-Zq8Lw2Rt»';\n",
];

/// Statements that set no password, or give a hash or a parameter.
const SQL_NO_PASSWORDS: &[&str] = &[
    "ALTER USER app WITH PASSWORD :'pw';\n",
    "cur.execute(\"ALTER USER app WITH PASSWORD %s\", (pw,))\n",
    "CREATE USER x IDENTIFIED BY VALUES 'S:ABCDEF';\n",
    "CREATE USER u IDENTIFIED WITH caching_sha2_password AS '$A$005$abcdefghijkl';\n",
    "ALTER USER app WITH ENCRYPTED PASSWORD 'SCRAM-SHA-256$4096:c2FsdA==$Y2xpZW50:c2VydmVy';\n",
    "ALTER USER app WITH PASSWORD 'password';\n",
    "ALTER USER app WITH PASSWORD NULL;\n",
    "Neo4j: ALTER CURRENT USER SET PASSWORD FROM 'old' TO 'new'\n",
    "-- rotate the password by hand; see the runbook\n",
];

/// Keys under names that other layouts hide.
const CONFIG_KEYS: &[&str] = &[
    // Hiera: a YAML key under Puppet's namespaces (and a diff's `+`).
    "     +profile::postgres::replication_password: '«66fkgNV6Zq1wQncPO»'\n",
    "profile::app::secret_key: \"«bf93199a0ddd1f46446fc1e8f67ad7c09aac9870045312508caa5f8f70efb7f6»\"\n",
    // NATS: a block of settings on one line.
    "cluster {\n  authorization { user: route, password: «NFjy8e2ThMiM4NEMB0G», timeout: 2 }\n}\n",
];

/// Code that names a secret without holding one.
const CONFIG_NO_KEYS: &[&str] = &[
    "let token = Config::TOKEN;\nmatch kind { Kind::Password => 1, _ => 0 }\n",
    "const client = new Client({ user: dbUser, password: dbPassword, timeout: 2 });\n",
    "connect({ password: process.env.DB_PASSWORD, port: 5432 })\n",
];

#[test]
fn passwords_set_in_sql_are_masked() {
    check(SQL_PASSWORDS);
}

#[test]
fn sql_that_sets_no_password_stays() {
    check(SQL_NO_PASSWORDS);
}

#[test]
fn keys_under_namespaced_names_and_in_blocks_are_masked() {
    check(CONFIG_KEYS);
}

#[test]
fn names_in_code_stay() {
    check(CONFIG_NO_KEYS);
}
