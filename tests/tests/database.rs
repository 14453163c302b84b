//! The database plug against a real PostgreSQL that asks every login for its
//! password (`blaise_test_support::postgres::with_passwords`): each session
//! gets a branch of the template that no other session's login can reach,
//! keeps its changes across a pause, and leaves nothing after teardown; a
//! prepared template is made once and again when a file it reads changes; a
//! branch that cannot be made whole is removed, named in the error.

use std::path::Path;
use std::sync::Arc;

use blaise_runner::host::bindings::{Contribution, PauseInfo, RunKind, TeardownInfo};
use blaise_runner::host::grants::SecretSource;
use blaise_runner::host::{Allow, Limits, LoadedPlug, PlugInstance};
use blaise_test_support::postgres::{self, Server};
use blaise_tests::{LogCapture, World, plug, setup};
use serde_json::{Value, json};

/// The server, or `None` (the test returns) where this machine has no PostgreSQL.
fn server() -> Option<&'static Server> {
    let server = postgres::with_passwords();
    if server.is_none() {
        eprintln!("skipped: {}", postgres::unavailable());
    }
    server
}

/// `exec: [psql, sh]` and the administrator's password from a file.
fn allow(w: &World, server: &Server) -> Allow {
    let file = w.tmp.path().join("admin-password");
    std::fs::write(&file, format!("{}\n", server.password.as_deref().unwrap())).unwrap();
    Allow {
        exec: vec!["psql".into(), "sh".into()],
        secrets: [("admin-password".into(), SecretSource::File(file))].into(),
        ..Allow::default()
    }
}

fn config(server: &Server, more: Value) -> Value {
    let mut config = json!({ "host": server.host, "port": server.port });
    config
        .as_object_mut()
        .unwrap()
        .extend(more.as_object().unwrap().clone());
    config
}

/// A run of the plug for `session` in `workspace`.
async fn instance(
    w: &World,
    plug: &Arc<LoadedPlug>,
    config: &Value,
    allow: &Allow,
    session: &str,
    kind: RunKind,
    workspace: &Path,
) -> PlugInstance {
    std::fs::create_dir_all(workspace).unwrap();
    let setup = setup("db", plug, config.clone(), allow.clone(), Limits::default());
    let run = blaise_tests::run(session, kind, workspace, w.state.clone());
    PlugInstance::new(&w.host, setup, run).await.unwrap()
}

fn var<'a>(c: &'a Contribution, name: &str) -> &'a str {
    c.env
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
        .unwrap_or_else(|| panic!("no {name} in {:?}", c.env))
}

/// A unique name for this test process.
fn unique(what: &str) -> String {
    format!("{what}_{}", std::process::id())
}

/// Whether a database and a role of this name exist.
fn exists(server: &Server, name: &str) -> (bool, bool) {
    let out = server
        .psql(
            "postgres",
            &format!(
                "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = '{name}'), \
                 EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{name}')"
            ),
        )
        .unwrap();
    (out.starts_with('t'), out.ends_with('t'))
}

fn pause() -> PauseInfo {
    PauseInfo {
        reason: "idle".into(),
        may_resume: true,
        keep_processes: false,
    }
}

fn teardown() -> TeardownInfo {
    TeardownInfo {
        reason: "closed".into(),
        right_after_pause: false,
    }
}

#[tokio::test]
async fn each_session_gets_a_branch_no_other_can_reach_that_survives_a_pause_and_goes_at_teardown()
{
    let Some(server) = server() else { return };
    let w = World::new();
    // The template: as a team's would be, made by the administrator — a
    // schema, a table with a sequence, a view, a type, a function, a row.
    let template = unique("app_template");
    server
        .psql("postgres", &format!("CREATE DATABASE {template}"))
        .unwrap();
    server
        .psql(
            &template,
            "CREATE SCHEMA shop; CREATE TYPE shop.size AS ENUM ('s', 'm'); \
             CREATE TABLE shop.items (id serial PRIMARY KEY, name text NOT NULL, size shop.size); \
             CREATE VIEW shop.names AS SELECT name FROM shop.items; \
             CREATE FUNCTION shop.count() RETURNS bigint LANGUAGE sql AS 'SELECT count(*) FROM shop.items'; \
             INSERT INTO shop.items (name, size) VALUES ('from the template', 's');",
        )
        .unwrap();
    let plug = w.host.load(&plug("plugs/database")).await.unwrap();
    let config = config(server, json!({ "template": template }));
    let allow = allow(&w, server);
    let (logs, _guard) = LogCapture::start();

    // Two sessions branch the same template.
    let mut started = Vec::new();
    for session in ["s1", "s2"] {
        let ws = w.tmp.path().join(format!("ws-{session}"));
        let mut run = instance(&w, &plug, &config, &allow, session, RunKind::Start, &ws).await;
        started.push(run.on_start().await.unwrap());
    }
    let (one, two) = (&started[0], &started[1]);
    let login = |c: &Contribution| (var(c, "PGUSER").to_owned(), var(c, "PGPASSWORD").to_owned());
    let (user1, pass1) = login(one);
    let (user2, pass2) = login(two);
    assert_ne!(user1, user2);
    assert_eq!(
        var(one, "PGDATABASE"),
        user1,
        "the login is named as its database"
    );
    assert_eq!(
        var(one, "DATABASE_URL"),
        format!(
            "postgresql://{user1}:{pass1}@{}:{}/{user1}",
            server.host, server.port
        )
    );
    assert_eq!(var(one, "PGHOST"), server.host);
    assert_eq!(var(one, "PGPORT"), server.port.to_string());

    // The agent of session 1 owns what it copied: it changes data and schema.
    let as1 = |db: &str, sql: &str| server.psql_as(&user1, Some(&pass1), db, sql);
    as1(
        &user1,
        "INSERT INTO shop.items (name, size) VALUES ('only in one', 'm'); \
         ALTER TABLE shop.items ADD COLUMN price int; CREATE TABLE notes (t text); \
         ALTER TYPE shop.size ADD VALUE 'l'; CREATE OR REPLACE VIEW shop.names AS SELECT name, price FROM shop.items",
    )
    .unwrap();
    assert_eq!(as1(&user1, "SELECT shop.count()").unwrap(), "2");
    // Session 2 sees the template as it was.
    let as2 = |db: &str, sql: &str| server.psql_as(&user2, Some(&pass2), db, sql);
    assert_eq!(
        as2(&user2, "SELECT string_agg(name, ',') FROM shop.names").unwrap(),
        "from the template"
    );
    assert!(as2(&user2, "SELECT price FROM shop.items").is_err());

    // Neither login reaches the other's branch or the template; a wrong
    // password reaches nothing.
    for (db, who) in [(&user2, "the other session's"), (&template, "the template")] {
        let refused = as1(db, "SELECT 1").unwrap_err();
        assert!(
            refused.contains("permission denied for database"),
            "{who}: {refused}"
        );
    }
    let refused = server
        .psql_as(&user1, Some(&pass2), &user1, "SELECT 1")
        .unwrap_err();
    assert!(
        refused.contains("password authentication failed"),
        "{refused}"
    );
    // Nor can it make itself more.
    let refused = as1(&user1, "ALTER ROLE CURRENT_USER CREATEDB").unwrap_err();
    assert!(refused.contains("permission denied"), "{refused}");

    // Pause: the login is kept out, its connections end.
    let ws1 = w.tmp.path().join("ws-s1");
    let mut run = instance(&w, &plug, &config, &allow, "s1", RunKind::Resume, &ws1).await;
    run.on_pause(pause()).await.unwrap();
    let refused = as1(&user1, "SELECT 1").unwrap_err();
    assert!(refused.contains("not permitted to log in"), "{refused}");

    // Resume (a new instance, as another runner process): the same login,
    // the same password, the same data.
    let mut run = instance(&w, &plug, &config, &allow, "s1", RunKind::Resume, &ws1).await;
    let resumed = run.on_resume().await.unwrap();
    assert_eq!(resumed.env, one.env, "the agent gets the same variables");
    assert_eq!(
        as1(
            &user1,
            "SELECT string_agg(name, ',' ORDER BY id) FROM shop.items"
        )
        .unwrap(),
        "from the template,only in one"
    );

    // The password is masked wherever the runner's mask reaches, and in no log line.
    for password in [&pass1, &pass2] {
        let line = format!("PGPASSWORD={password}");
        assert_eq!(
            blaise_runner::secret_mask::scrub(&line),
            "PGPASSWORD=[REDACTED:secret]"
        );
    }
    let logged = logs.text();
    assert!(logged.contains("branched"), "{logged}");
    assert!(
        !logged.contains(&pass1) && !logged.contains(&pass2),
        "{logged}"
    );

    // Teardown leaves no database and no login, and a second one finds
    // nothing to do.
    for _ in 0..2 {
        let mut run = instance(&w, &plug, &config, &allow, "s1", RunKind::Teardown, &ws1).await;
        run.on_teardown(teardown()).await.unwrap();
        assert_eq!(exists(server, &user1), (false, false));
    }
    assert_eq!(
        exists(server, &user2),
        (true, true),
        "the other session's stays"
    );
    let ws2 = w.tmp.path().join("ws-s2");
    let mut run = instance(&w, &plug, &config, &allow, "s2", RunKind::Teardown, &ws2).await;
    run.on_teardown(teardown()).await.unwrap();
    assert_eq!(exists(server, &user2), (false, false));
    // The template is as it was.
    assert_eq!(
        server
            .psql(&template, "SELECT count(*) FROM shop.items")
            .unwrap(),
        "1"
    );
}

#[tokio::test]
async fn a_prepared_template_is_made_once_and_again_when_a_migration_changes() {
    let Some(server) = server() else { return };
    let w = World::new();
    let plug = w.host.load(&plug("plugs/database")).await.unwrap();
    let allow = allow(&w, server);
    // Each workspace holds the repository: a schema and migrations, run by
    // a `run` step as a migration tool would (with PG* set for it).
    let write_repo = |ws: &Path, migrations: &[(&str, &str)]| {
        std::fs::create_dir_all(ws.join("repo/db/migrations")).unwrap();
        std::fs::write(
            ws.join("repo/db/schema.sql"),
            "CREATE TABLE accounts (id int PRIMARY KEY, email text);\n",
        )
        .unwrap();
        for (name, sql) in migrations {
            std::fs::write(ws.join("repo/db/migrations").join(name), sql).unwrap();
        }
    };
    let plug_id = unique("prep");
    let config = config(
        server,
        json!({ "prepare": { "dir": "repo", "steps": [
            { "sql": "db/schema.sql" },
            { "run": "for f in db/migrations/*.sql; do psql -X -q -v ON_ERROR_STOP=1 -f \"$f\" || exit 1; done",
              "inputs": ["db/migrations"] },
        ] } }),
    );
    let first = [(
        "001.sql",
        "INSERT INTO accounts VALUES (1, 'a@example.com');\n",
    )];
    let templates = || {
        server
            .psql(
                "postgres",
                &format!(
                    "SELECT string_agg(datname || ':' || oid, ',') FROM pg_database WHERE datname LIKE 'blaise_tpl_{plug_id}_%'"
                ),
            )
            .unwrap()
    };
    let start = |session: &'static str, migrations: Vec<(&'static str, &'static str)>| {
        let ws = w.tmp.path().join(format!("ws-{session}"));
        write_repo(&ws, &migrations);
        let (plug, config, allow, w) = (&plug, &config, &allow, &w);
        let plug_id = plug_id.clone();
        async move {
            let setup = setup(
                &plug_id,
                plug,
                config.clone(),
                allow.clone(),
                Limits::default(),
            );
            let run = blaise_tests::run(session, RunKind::Start, &ws, w.state.clone());
            let mut run = PlugInstance::new(&w.host, setup, run).await.unwrap();
            run.on_start().await
        }
    };
    let (logs, _guard) = LogCapture::start();
    let a = start("a", first.to_vec()).await.unwrap();
    let made = templates();
    assert_eq!(made.matches(',').count(), 0, "one template: {made}");
    // The next session copies it; nothing is prepared again.
    let b = start("b", first.to_vec()).await.unwrap();
    assert_eq!(templates(), made, "the same template, not made again");
    assert_eq!(logs.text().matches("prepared the template").count(), 1);
    let (user_b, pass_b) = (var(&b, "PGUSER"), var(&b, "PGPASSWORD"));
    assert_eq!(
        server
            .psql_as(user_b, Some(pass_b), user_b, "SELECT email FROM accounts")
            .unwrap(),
        "a@example.com"
    );
    // A new migration: a new template, the old one dropped.
    let mut second = first.to_vec();
    second.push((
        "002.sql",
        "ALTER TABLE accounts ADD COLUMN plan text DEFAULT 'free';\n",
    ));
    let c = start("c", second).await.unwrap();
    let remade = templates();
    assert_ne!(remade, made, "made again");
    assert_eq!(
        remade.matches(',').count(),
        0,
        "the older one is dropped: {remade}"
    );
    let (user_c, pass_c) = (var(&c, "PGUSER"), var(&c, "PGPASSWORD"));
    assert_eq!(
        server
            .psql_as(user_c, Some(pass_c), user_c, "SELECT plan FROM accounts")
            .unwrap(),
        "free"
    );
    // Session a's branch, copied from the older template, is its own.
    let (user_a, pass_a) = (var(&a, "PGUSER"), var(&a, "PGPASSWORD"));
    assert!(
        server
            .psql_as(user_a, Some(pass_a), user_a, "SELECT plan FROM accounts")
            .is_err()
    );

    // A step that fails names itself and what it said; nothing is left of the attempt.
    let broken = [("001.sql", "INSERT INTO nowhere VALUES (1);\n")];
    let failed = start("d", broken.to_vec()).await.unwrap_err().to_string();
    assert!(
        failed.contains("with.prepare.steps[1]")
            && failed.contains("relation \"nowhere\" does not exist"),
        "{failed}"
    );
    assert_eq!(templates(), remade, "no half-made template");
    let leftovers = server
        .psql(
            "postgres",
            &format!("SELECT count(*) FROM pg_database WHERE datname LIKE 'blaise_%{plug_id}%' AND datname NOT LIKE 'blaise_tpl_%'"),
        )
        .unwrap();
    assert_eq!(leftovers, "3", "the branches of a, b and c, and none of d");
}

#[tokio::test]
async fn a_branch_that_cannot_be_made_whole_is_removed_and_named() {
    let Some(server) = server() else { return };
    let w = World::new();
    let template = unique("busy_template");
    server
        .psql("postgres", &format!("CREATE DATABASE {template}"))
        .unwrap();
    let plug = w.host.load(&plug("plugs/database")).await.unwrap();
    let config = config(server, json!({ "template": template }));
    let allow = allow(&w, server);
    // Someone works in the template: PostgreSQL copies no database in use.
    let mut busy = std::process::Command::new("psql")
        .env("PGPASSWORD", server.password.as_deref().unwrap())
        .args([
            "-X",
            "-q",
            "-h",
            &server.host,
            "-p",
            &server.port.to_string(),
        ])
        .args([
            "-U",
            &server.user,
            "-d",
            &template,
            "-c",
            "SELECT pg_sleep(30)",
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let ws = w.tmp.path().join("ws");
    let mut run = instance(&w, &plug, &config, &allow, "s-busy", RunKind::Start, &ws).await;
    let failed = run.on_start().await.unwrap_err().to_string();
    let _ = busy.kill();
    let branch = "blaise_db_s_busy";
    assert!(
        failed.contains("with.template")
            && failed.contains(&format!("making the branch `{branch}`"))
            && failed.contains("being accessed by other users")
            && failed.contains("what was made of it is removed"),
        "{failed}"
    );
    assert_eq!(
        exists(server, branch),
        (false, false),
        "no login is left behind"
    );

    // Config mistakes are named by their field before anything is made.
    for (bad, field) in [
        (json!({}), "with.template"),
        (
            json!({ "template": template, "prepare": { "steps": [{ "sql": "a.sql" }] } }),
            "with.prepare",
        ),
        (
            json!({ "prepare": { "steps": [{ "sql": "../../etc/passwd" }] } }),
            "with.prepare.steps[0].sql",
        ),
    ] {
        let config = self::config(server, bad);
        let mut run = instance(&w, &plug, &config, &allow, "s-bad", RunKind::Start, &ws).await;
        let failed = run.on_start().await.unwrap_err().to_string();
        assert!(failed.contains(field), "{field}: {failed}");
    }

    // Without a secret to derive passwords from, the start says which to grant.
    let bare = Allow {
        exec: vec!["psql".into()],
        ..Allow::default()
    };
    let mut run = instance(&w, &plug, &config, &bare, "s-bare", RunKind::Start, &ws).await;
    let failed = run.on_start().await.unwrap_err().to_string();
    assert!(
        failed.contains("admin-password") && failed.contains("password-key"),
        "{failed}"
    );
}
