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

/// A run of the plug (id `db`) for `session` in `workspace`.
async fn instance(
    w: &World,
    plug: &Arc<LoadedPlug>,
    config: &Value,
    allow: &Allow,
    session: &str,
    kind: RunKind,
    workspace: &Path,
) -> PlugInstance {
    instance_as("db", w, plug, config, allow, session, kind, workspace).await
}

/// A run of the plug under the id `id` (its templates' names are the id's).
#[allow(clippy::too_many_arguments)]
async fn instance_as(
    id: &str,
    w: &World,
    plug: &Arc<LoadedPlug>,
    config: &Value,
    allow: &Allow,
    session: &str,
    kind: RunKind,
    workspace: &Path,
) -> PlugInstance {
    std::fs::create_dir_all(workspace).unwrap();
    let setup = setup(id, plug, config.clone(), allow.clone(), Limits::default());
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

/// `sql` run as `user` in its database, in the background: the connection
/// a session's agent holds.
fn held(server: &Server, user: &str, password: &str, sql: &str) -> std::process::Child {
    std::process::Command::new("psql")
        .env("PGPASSWORD", password)
        .args([
            "-X",
            "-A",
            "-t",
            "-h",
            &server.host,
            "-p",
            &server.port.to_string(),
        ])
        .args(["-U", user, "-d", user, "-c", sql])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until `user` runs `pg_sleep`.
fn wait_for_sleep(server: &Server, user: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while server
        .psql(
            "postgres",
            &format!("SELECT count(*) FROM pg_stat_activity WHERE usename = '{user}' AND query LIKE '%pg_sleep(60)%' AND state = 'active'"),
        )
        .unwrap()
        != "1"
    {
        assert!(std::time::Instant::now() < deadline, "{user} never ran pg_sleep");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// What a held connection said, once its statement ended (at most 20 s).
fn finished(child: &mut std::process::Child) -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "the statement still runs"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    use std::io::Read;
    let mut said = String::new();
    for pipe in [
        child.stdout.take().map(|p| Box::new(p) as Box<dyn Read>),
        child.stderr.take().map(|p| Box::new(p) as Box<dyn Read>),
    ]
    .into_iter()
    .flatten()
    {
        let mut pipe = pipe;
        pipe.read_to_string(&mut said).unwrap();
    }
    said
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

    // A hot pause (the agent's processes kept, frozen): what its
    // connections run is cancelled, the connections stay; no new login.
    let ws1 = w.tmp.path().join("ws-s1");
    let mut idle = held(
        server,
        &user1,
        &pass1,
        "SELECT pg_sleep(0.2); SELECT 'hot'; SELECT pg_sleep(60)",
    );
    wait_for_sleep(server, &user1);
    let mut run = instance(&w, &plug, &config, &allow, "s1", RunKind::Resume, &ws1).await;
    run.on_pause(PauseInfo {
        keep_processes: true,
        ..pause()
    })
    .await
    .unwrap();
    let said = finished(&mut idle);
    assert!(
        said.contains("canceling statement"),
        "cancelled, not cut off: {said}"
    );
    let refused = as1(&user1, "SELECT 1").unwrap_err();
    assert!(refused.contains("not permitted to log in"), "{refused}");
    let mut run = instance(&w, &plug, &config, &allow, "s1", RunKind::Resume, &ws1).await;
    run.on_resume().await.unwrap();

    // A cold pause: the login is kept out, its connections end.
    let mut busy = held(server, &user1, &pass1, "SELECT pg_sleep(60)");
    wait_for_sleep(server, &user1);
    let mut run = instance(&w, &plug, &config, &allow, "s1", RunKind::Resume, &ws1).await;
    run.on_pause(pause()).await.unwrap();
    let said = finished(&mut busy);
    assert!(
        said.contains("terminating connection"),
        "its connection ended: {said}"
    );
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

    // The agent makes teardown's work hard, as its database's owner and a
    // login that may connect to the administrator's database can: its
    // branch a template (which PostgreSQL will not drop), a large object
    // it owns elsewhere (which keeps a role from being dropped).
    as1(&user1, &format!("ALTER DATABASE {user1} IS_TEMPLATE true")).unwrap();
    as1("postgres", "SELECT lo_create(0)").unwrap();
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
    // A new migration: a new template; the older is kept (the newest three are).
    let mut second = first.to_vec();
    second.push((
        "002.sql",
        "ALTER TABLE accounts ADD COLUMN plan text DEFAULT 'free';\n",
    ));
    let second_migrations = second.clone();
    let c = start("c", second).await.unwrap();
    let remade = templates();
    assert_ne!(remade, made, "made again");
    assert_eq!(remade.matches(',').count(), 1, "two templates: {remade}");
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

    // Two more migrations: the newest three templates stay, the first goes.
    let mut third = second_migrations.clone();
    third.push(("003.sql", "ALTER TABLE accounts ADD COLUMN a int;\n"));
    start("e", third.clone()).await.unwrap();
    third.push(("004.sql", "ALTER TABLE accounts ADD COLUMN b int;\n"));
    start("f", third).await.unwrap();
    let kept = templates();
    assert_eq!(kept.matches(',').count(), 2, "three kept: {kept}");
    assert!(!kept.contains(&made), "the oldest is dropped: {kept}");
    let leftovers = server
        .psql(
            "postgres",
            &format!("SELECT count(*) FROM pg_database WHERE datname LIKE 'blaise_%{plug_id}%' AND datname NOT LIKE 'blaise_tpl_%'"),
        )
        .unwrap();
    assert_eq!(
        leftovers, "5",
        "the branches of a, b, c, e and f, and none of d"
    );
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
    let _ = busy.wait();
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

    // What an interrupted start left — a login without its database — is
    // removed and the branch made whole; a start that runs again finds its
    // whole branch and keeps what is in it.
    let free = unique("free_template");
    server
        .psql("postgres", &format!("CREATE DATABASE {free}"))
        .unwrap();
    let config = self::config(server, json!({ "template": free }));
    let branch = "blaise_db_s_again";
    server
        .psql("postgres", &format!("CREATE ROLE {branch}"))
        .unwrap();
    let mut run = instance(&w, &plug, &config, &allow, "s-again", RunKind::Start, &ws).await;
    let first = run.on_start().await.unwrap();
    assert_eq!(exists(server, branch), (true, true));
    let (user, password) = (var(&first, "PGUSER"), var(&first, "PGPASSWORD"));
    server
        .psql_as(user, Some(password), branch, "CREATE TABLE kept (x int)")
        .unwrap();
    let mut run = instance(&w, &plug, &config, &allow, "s-again", RunKind::Start, &ws).await;
    let again = run.on_start().await.unwrap();
    assert_eq!(again.env, first.env);
    server
        .psql_as(user, Some(password), branch, "SELECT * FROM kept")
        .unwrap();
    // A branch whose last step never committed (its mark is missing: a
    // start cut short at its deadline) is not taken for whole: made again.
    server
        .psql("postgres", &format!("COMMENT ON DATABASE {branch} IS NULL"))
        .unwrap();
    let mut run = instance(&w, &plug, &config, &allow, "s-again", RunKind::Start, &ws).await;
    run.on_start().await.unwrap();
    assert!(
        server
            .psql_as(user, Some(password), branch, "SELECT * FROM kept")
            .is_err(),
        "a fresh copy of the template"
    );
    let mut run = instance(
        &w,
        &plug,
        &config,
        &allow,
        "s-again",
        RunKind::Teardown,
        &ws,
    )
    .await;
    run.on_teardown(teardown()).await.unwrap();
    assert_eq!(exists(server, branch), (false, false));

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

/// `examples/database.yml` as written, pointed at the test server, a local
/// repository and the script agent: the agent in the sandbox uses its
/// branch through the forward, the password never shows, the data survives
/// a pause, and closing the session leaves nothing on the server.
#[tokio::test(flavor = "multi_thread")]
async fn the_database_example_runs_a_sandboxed_agent_on_its_own_branch() {
    use blaise_control::model::IdlePolicy;
    use blaise_tests::blaise::{Stage, script_agent, settings};
    use blaise_tests::tools::{git, have};

    let Some(server) = server() else { return };
    if !have(&["git", "bwrap"]) {
        return;
    }
    let minute = std::time::Duration::from_secs(60);
    let s = Stage::new(settings(1_500, IdlePolicy::Pause)).await;
    let origin = s.path().join("app");
    std::fs::create_dir_all(origin.join("db")).unwrap();
    std::fs::write(
        origin.join("db/schema.sql"),
        "CREATE TABLE accounts (id int PRIMARY KEY, email text NOT NULL);\n",
    )
    .unwrap();
    git(&origin, &["init", "--quiet", "--initial-branch", "main"]);
    git(&origin, &["add", "db"]);
    git(&origin, &["commit", "--quiet", "-m", "schema"]);

    // The example, with what its header says is yours to fill in.
    let root = blaise_tests::root();
    let text = std::fs::read_to_string(root.join("examples/database.yml")).unwrap();
    let here = format!("127.0.0.1:{}", server.port);
    let text = text
        .replace("127.0.0.1:5432", &here)
        .replace("port: 5432", &format!("port: {}", server.port))
        .replace("https://github.com/acme/app.git", origin.to_str().unwrap());
    let mut config: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    config["agent"]["name"] = "script".into();
    config["agent"]["command"] = vec![script_agent().display().to_string()].into();
    for entry in config["plugs"].as_sequence_mut().unwrap() {
        let id = entry["id"].as_str().unwrap().to_owned();
        let crate_dir = if id == "db" {
            "plugs/database".to_owned()
        } else {
            format!("plugs/{id}")
        };
        entry["source"] = plug(&crate_dir).display().to_string().into();
        if id == "sandbox" {
            // The script agent's binary, and psql's libraries, are outside /usr.
            entry["with"]["read_only"] =
                vec![script_agent().parent().unwrap().display().to_string()].into();
        }
    }
    std::fs::write(&s.config, serde_yaml::to_string(&config).unwrap()).unwrap();
    let password = server.password.as_deref().unwrap();
    let runner = s.runner_with_env("box-1", &[("PGADMIN_PASSWORD", password)]);
    let b = &s.blaise;

    let id = b
        .new_session(
            "script",
            "run psql -X -At -c \"INSERT INTO accounts VALUES (1, 'ada@example.com') RETURNING 'inserted-' || email\"; echo \"pw=$PGPASSWORD url=$DATABASE_URL\"",
        )
        .await;
    // The last line the agent prints: the filter may hold a line back until
    // the next arrives or the agent is quiet, so the text is read once it is
    // there (whatever it holds, masked or not).
    let text = b.wait_for_text(&id, "url=postgres", minute).await;
    assert!(text.contains("inserted-ada@example.com"), "{text}");
    b.wait_for(&id, "the pause", minute, |v| v["state"] == "paused")
        .await;
    let branch = server
        .psql(
            "postgres",
            "SELECT string_agg(datname, ',') FROM pg_database WHERE datname LIKE 'blaise_db_%'",
        )
        .unwrap();
    assert!(!branch.contains(','), "one branch: {branch}");
    assert_eq!(
        exists(server, &branch),
        (true, true),
        "its database and login"
    );
    assert!(
        text.contains("pw=[REDACTED:secret]") && text.contains(&format!("@{here}/{branch}")),
        "the password is masked, the rest of the URL shown:\n{text}"
    );
    assert!(!text.contains(password), "{text}");
    assert!(!runner.stderr().contains(password));

    // Resumed: the same branch, the row still there.
    b.send(
        &id,
        "run psql -X -At -c \"SELECT 'rows-' || count(*) FROM accounts\"",
    )
    .await
    .unwrap();
    b.wait_for_text(&id, "rows-1", minute).await;
    b.wait_for(&id, "the second pause", minute, |v| v["state"] == "paused")
        .await;

    // Closed: the teardown leaves no database and no login.
    b.close(&id).await.unwrap();
    b.wait_for(&id, "the teardown", minute * 2, |v| {
        v["environment"]["state"] == "torn_down"
    })
    .await;
    assert_eq!(exists(server, &branch), (false, false));
    runner.stop().await;
}

/// An administrator that is not a superuser, as a managed server gives
/// (`CREATEDB`, `CREATEROLE`), branching a template it owns: the login gets
/// what is in it, and teardown leaves nothing.
#[tokio::test]
async fn an_administrator_that_is_not_a_superuser_branches_its_own_template() {
    let Some(server) = server() else { return };
    let w = World::new();
    let admin = unique("blaise_admin");
    let admin_password = "admin-Xq7c41e9b2d5";
    let template = unique("owned_template");
    server
        .psql(
            "postgres",
            &format!("CREATE ROLE {admin} LOGIN CREATEDB CREATEROLE PASSWORD '{admin_password}'"),
        )
        .unwrap();
    server
        .psql(
            "postgres",
            &format!("CREATE DATABASE {template} OWNER {admin}"),
        )
        .unwrap();
    server
        .psql_as(
            &admin,
            Some(admin_password),
            &template,
            "CREATE TABLE t (x int); INSERT INTO t VALUES (1)",
        )
        .unwrap();
    let plug = w.host.load(&plug("plugs/database")).await.unwrap();
    let file = w.tmp.path().join("admin-password");
    std::fs::write(&file, admin_password).unwrap();
    let allow = Allow {
        exec: vec!["psql".into()],
        secrets: [("admin-password".into(), SecretSource::File(file))].into(),
        ..Allow::default()
    };
    let config = config(server, json!({ "template": template, "admin_user": admin }));
    let ws = w.tmp.path().join("ws");
    let mut run = instance(&w, &plug, &config, &allow, "s-managed", RunKind::Start, &ws).await;
    let started = run.on_start().await.unwrap();
    let (user, password) = (var(&started, "PGUSER"), var(&started, "PGPASSWORD"));
    server
        .psql_as(
            user,
            Some(password),
            user,
            "INSERT INTO t VALUES (2); ALTER TABLE t ADD y int",
        )
        .unwrap();
    let refused = server
        .psql_as(user, Some(password), &template, "SELECT 1")
        .unwrap_err();
    assert!(
        refused.contains("permission denied for database"),
        "{refused}"
    );
    let mut run = instance(
        &w,
        &plug,
        &config,
        &allow,
        "s-managed",
        RunKind::Teardown,
        &ws,
    )
    .await;
    run.on_teardown(teardown()).await.unwrap();
    assert_eq!(exists(server, user), (false, false));

    // A template someone else owns, which anyone may connect to: this
    // administrator cannot close it, so a start would hand every session's
    // login the right to read it. Refused, naming the field; nothing made.
    let foreign = unique("foreign_template");
    server
        .psql("postgres", &format!("CREATE DATABASE {foreign}"))
        .unwrap();
    let config = self::config(server, json!({ "template": foreign, "admin_user": admin }));
    let mut run = instance(&w, &plug, &config, &allow, "s-foreign", RunKind::Start, &ws).await;
    let failed = run.on_start().await.unwrap_err().to_string();
    assert!(
        failed.contains("with.template") && failed.contains("REVOKE CONNECT"),
        "{failed}"
    );
    let branch = "blaise_db_s_foreign";
    assert_eq!(exists(server, branch), (false, false), "nothing is left");
    assert_eq!(
        server
            .psql(
                "postgres",
                &format!("SELECT has_database_privilege('public', '{foreign}', 'CONNECT')")
            )
            .unwrap(),
        "t",
        "the template is as its owner left it"
    );
}

/// Two sessions that start at once on a template no one prepared yet: both
/// prepare it, the first to finish names it, the other's copy is dropped,
/// and both get a branch; nothing else is left on the server.
#[tokio::test(flavor = "multi_thread")]
async fn two_starts_at_once_prepare_one_template_and_both_branch_it() {
    let Some(server) = server() else { return };
    let w = World::new();
    let plug = w.host.load(&plug("plugs/database")).await.unwrap();
    let allow = allow(&w, server);
    let plug_id = unique("race");
    // The step waits (5 s at most) until both starts run it: both prepare,
    // for sure, or the test fails.
    let barrier = w.tmp.path().join("preparing");
    std::fs::create_dir_all(&barrier).unwrap();
    let step = format!(
        "touch {dir}/$PGDATABASE; n=0; while [ $(ls {dir} | wc -l) -lt 2 ]; do n=$((n+1)); [ $n -gt 100 ] && exit 9; sleep 0.05; done; \
         psql -X -q -v ON_ERROR_STOP=1 -c 'CREATE TABLE raced (x int)'",
        dir = barrier.display()
    );
    let config = config(server, json!({ "prepare": { "steps": [{ "run": step }] } }));
    let start = |session: &'static str| {
        let ws = w.tmp.path().join(format!("ws-{session}"));
        std::fs::create_dir_all(&ws).unwrap();
        let setup = setup(
            &plug_id,
            &plug,
            config.clone(),
            allow.clone(),
            Limits::default(),
        );
        let run = blaise_tests::run(session, RunKind::Start, &ws, w.state.clone());
        let host = w.host.clone();
        async move {
            let mut run = PlugInstance::new(&host, setup, run).await.unwrap();
            run.on_start().await
        }
    };
    let (one, two) = tokio::join!(start("one"), start("two"));
    let (one, two) = (one.unwrap(), two.unwrap());
    assert_eq!(
        std::fs::read_dir(&barrier).unwrap().count(),
        2,
        "both starts prepared"
    );
    for started in [&one, &two] {
        let (user, password) = (var(started, "PGUSER"), var(started, "PGPASSWORD"));
        server
            .psql_as(user, Some(password), user, "INSERT INTO raced VALUES (1)")
            .unwrap();
    }
    let left = server
        .psql(
            "postgres",
            &format!("SELECT string_agg(datname, ',' ORDER BY datname) FROM pg_database WHERE datname LIKE '%{plug_id}%'"),
        )
        .unwrap();
    let names: Vec<&str> = left.split(',').collect();
    assert_eq!(names.len(), 3, "two branches and one template: {left}");
    assert_eq!(
        names
            .iter()
            .filter(|n| n.starts_with("blaise_tpl_"))
            .count(),
        1,
        "{left}"
    );
}

/// Ahead of the sessions (`on-prepare`, with no session), the template is
/// made from the files the preparation's scratch workspace holds; the first
/// session's start, over the same files, branches it without preparing.
#[tokio::test]
async fn a_preparation_ahead_makes_the_template_the_first_start_branches() {
    let Some(server) = server() else { return };
    let w = World::new();
    let plug = w.host.load(&plug("plugs/database")).await.unwrap();
    let allow = allow(&w, server);
    let plug_id = unique("ahead");
    let config = config(
        server,
        json!({ "prepare": { "dir": "repo", "steps": [{ "sql": "db/schema.sql" }] } }),
    );
    let repo_in = |ws: &Path| {
        std::fs::create_dir_all(ws.join("repo/db")).unwrap();
        std::fs::write(
            ws.join("repo/db/schema.sql"),
            "CREATE TABLE t (id int); INSERT INTO t VALUES (7);\n",
        )
        .unwrap();
    };
    let (logs, _guard) = LogCapture::start();
    // The preparation's scratch workspace, as the checkout before it leaves it.
    let scratch = w.tmp.path().join("scratch");
    repo_in(&scratch);
    let (session, kind) = ("prepare-0a1b2c3d4e5f", RunKind::Start);
    let mut ahead = instance_as(
        &plug_id, &w, &plug, &config, &allow, session, kind, &scratch,
    )
    .await;
    assert!(ahead.prepares().await.unwrap());
    ahead.on_prepare().await.unwrap();
    // One database under the template's name: the template, and nothing
    // left of building it.
    let named = server
        .psql(
            "postgres",
            &format!("SELECT string_agg(datname, ',') FROM pg_database WHERE datname LIKE 'blaise_tpl_{plug_id}_%'"),
        )
        .unwrap();
    assert!(!named.is_empty() && !named.contains(','), "{named}");
    assert_eq!(logs.text().matches("prepared the template").count(), 1);

    let ws = w.tmp.path().join("ws-a");
    repo_in(&ws);
    let mut run = instance_as(&plug_id, &w, &plug, &config, &allow, "a", kind, &ws).await;
    let started = run.on_start().await.unwrap();
    assert_eq!(
        logs.text().matches("prepared the template").count(),
        1,
        "not made again at the start"
    );
    let (user, pass) = (var(&started, "PGUSER"), var(&started, "PGPASSWORD"));
    assert_eq!(
        server
            .psql_as(user, Some(pass), user, "SELECT id FROM t")
            .unwrap(),
        "7"
    );
    run.on_teardown(teardown()).await.unwrap();
}
