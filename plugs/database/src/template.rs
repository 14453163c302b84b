//! The prepared template: the config's `prepare` steps run once on an empty
//! database, which then becomes `blaise_tpl_<plug id>_<key>` and every later
//! session's branch is copied from it. The key is a digest of the steps and
//! of every file they read (`sql`, `restore`, a `run` step's `inputs`), so a
//! changed migration makes a new template and any runner that reaches the
//! same server finds the current one. Older templates of the plug are
//! dropped once a new one is made.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use blaise_plug::process::tail;
use blaise_plug::{Context, PlugError, log, secrets};
use sha2::{Digest, Sha256};

use crate::config::{Config, Prepare, Step};
use crate::names;
use crate::psql::{self, Psql};

/// How long one step may take.
const STEP_TIMEOUT_MS: u64 = 30 * 60 * 1000;

/// The template's name, made now if no run made it before.
pub fn ready(
    psql: &Psql,
    config: &Config,
    prepare: &Prepare,
    ctx: &Context,
) -> Result<String, PlugError> {
    let dir = dir(ctx, prepare);
    let key = key(&dir, prepare)?;
    let name = names::template(&ctx.plug_id, &key);
    let admin_db = psql.server().admin_database.clone();
    let exists = psql.run(
        &admin_db,
        &[("name", &name)],
        "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = :'name');",
    )?;
    if exists.trim() == "t" {
        return Ok(name);
    }
    let building = building_name(&name, &ctx.session_id);
    psql.run(
        &admin_db,
        &[("building", &building)],
        // From template0: what anyone may have put in template1 is not copied
        // into every session's branch. No one but the plug connects to it.
        r#"SELECT format('ALTER DATABASE %I IS_TEMPLATE false', datname) FROM pg_database
WHERE datname = :'building' AND datistemplate \gexec
DROP DATABASE IF EXISTS :"building" WITH (FORCE);
CREATE DATABASE :"building" TEMPLATE template0;
REVOKE ALL ON DATABASE :"building" FROM PUBLIC;"#,
    )?;
    let made = run_steps(psql, config, prepare, &dir, &building);
    if let Err(e) = made {
        let _ = drop_building(psql, &building);
        return Err(e);
    }
    // Ready before it has its name: no one connects to it, no one but the
    // plug's administrator may, and any login allowed to make databases may
    // copy it. A concurrent start that named its own first wins.
    let named = psql.output(
        &admin_db,
        &[("building", &building), ("name", &name)],
        r#"ALTER DATABASE :"building" WITH ALLOW_CONNECTIONS false IS_TEMPLATE true;
REVOKE ALL ON DATABASE :"building" FROM PUBLIC;
ALTER DATABASE :"building" RENAME TO :"name";"#,
    )?;
    if !named.success() {
        let why = psql::failure(&named);
        drop_building(psql, &building)?;
        // Named meanwhile by a start that prepared it too: that one is used.
        let there = psql.run(
            &admin_db,
            &[("name", &name)],
            "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = :'name');",
        )?;
        if there.trim() != "t" {
            return Err(PlugError::new(format!(
                "naming the template {name} failed: {why}"
            )));
        }
    } else {
        log::info(format!(
            "prepared the template {name} ({} step{})",
            prepare.steps.len(),
            if prepare.steps.len() == 1 { "" } else { "s" }
        ));
        drop_older(psql, &ctx.plug_id, &name);
    }
    Ok(name)
}

/// The directory the steps run in.
fn dir(ctx: &Context, prepare: &Prepare) -> PathBuf {
    let workspace = Path::new(&ctx.workspace);
    if prepare.dir.is_empty() {
        workspace.to_path_buf()
    } else {
        workspace.join(&prepare.dir)
    }
}

/// The database a session's start builds the template in: the template's
/// name and a digest of the session, so that the session's teardown finds
/// what an interrupted preparation left.
fn building_name(template: &str, session_id: &str) -> String {
    format!("{template}_{}", &session_digest(session_id)[..8])
}

pub fn session_digest(session_id: &str) -> String {
    Sha256::digest(session_id.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A pattern (for `~`) of every database a session's preparations may have
/// left: any key, this session.
pub fn leftovers_pattern(plug_id: &str, session_id: &str) -> String {
    format!(
        "^{}[0-9a-f]{{16}}_{}$",
        names::template_prefix(plug_id),
        &session_digest(session_id)[..8]
    )
}

fn drop_building(psql: &Psql, building: &str) -> Result<(), PlugError> {
    let admin_db = psql.server().admin_database.clone();
    psql.run(
        &admin_db,
        &[("building", building)],
        r#"SELECT format('ALTER DATABASE %I IS_TEMPLATE false', datname) FROM pg_database
WHERE datname = :'building' AND datistemplate \gexec
DROP DATABASE IF EXISTS :"building" WITH (FORCE);"#,
    )
    .map(|_| ())
}

/// How many templates of a plug id are kept: the newest. Two branches of a
/// repository whose migrations differ, or two teams with the same plug id
/// on one server, each keep theirs rather than make it at every start.
const KEEP: usize = 3;

/// Older templates of this plug beyond the newest [`KEEP`]: dropped, unless
/// a start is copying one right now (then a later preparation drops it).
fn drop_older(psql: &Psql, plug_id: &str, current: &str) {
    let admin_db = psql.server().admin_database.clone();
    let pattern = format!("^{}[0-9a-f]{{16}}$", names::template_prefix(plug_id));
    let skip = (KEEP - 1).to_string();
    // A database's oid grows with each made: the newest have the largest.
    let out = psql.output(
        &admin_db,
        &[("pattern", &pattern), ("current", current), ("skip", &skip)],
        r#"\set ON_ERROR_STOP 0
SELECT format('ALTER DATABASE %I IS_TEMPLATE false', datname), format('DROP DATABASE %I', datname)
FROM (SELECT datname FROM pg_database WHERE datname ~ :'pattern' AND datname <> :'current'
      ORDER BY oid DESC OFFSET :skip) AS older \gexec"#,
    );
    if let Ok(out) = out
        && !out.stderr.is_empty()
    {
        log::warn(format!(
            "an older template was not dropped: {}",
            psql::failure(&out)
        ));
    }
}

/// Each step on the database `building`.
fn run_steps(
    psql: &Psql,
    config: &Config,
    prepare: &Prepare,
    dir: &Path,
    building: &str,
) -> Result<(), PlugError> {
    let cwd = dir.to_string_lossy().into_owned();
    for (i, step) in prepare.steps.iter().enumerate() {
        let field = format!("prepare.steps[{i}]");
        let out = match step {
            Step::Sql(s) => psql_file(psql, &cwd, building, &s.sql),
            Step::Restore(s) => {
                if is_custom_dump(&dir.join(&s.restore))
                    .map_err(|why| PlugError::field(&field, why))?
                {
                    psql.command("pg_restore")
                        .args([
                            "--no-owner",
                            "--no-privileges",
                            "--exit-on-error",
                            "--dbname",
                        ])
                        .arg(psql.conninfo(building))
                        .arg(&s.restore)
                        .cwd(&cwd)
                        .timeout_ms(STEP_TIMEOUT_MS)
                        .run()
                } else {
                    psql_file(psql, &cwd, building, &s.restore)
                }
            }
            Step::Run(s) => {
                let mut command = psql.command("sh").args(["-c", &s.run]).cwd(&cwd);
                for (name, value) in step_env(psql, config, building)? {
                    command = command.env(name, value);
                }
                command.timeout_ms(STEP_TIMEOUT_MS).run()
            }
        }
        .map_err(|e| PlugError::field(&field, e.message))?;
        if !out.success() {
            let status = out
                .status
                .map_or("was stopped (its time ran out)".to_owned(), |c| {
                    format!("exited with {c}")
                });
            let said = format!("{}{}", out.stdout_text(), out.stderr_text());
            return Err(PlugError::field(
                field,
                format!("{} {status}: {}", describe(step), tail(&said)),
            ));
        }
    }
    Ok(())
}

fn psql_file(
    psql: &Psql,
    cwd: &str,
    database: &str,
    file: &str,
) -> Result<blaise_plug::process::Output, PlugError> {
    psql.command("psql")
        .args([
            "--no-psqlrc",
            "--no-password",
            "--quiet",
            "--set",
            "ON_ERROR_STOP=1",
            "--single-transaction",
        ])
        .arg("--dbname")
        .arg(psql.conninfo(database))
        .arg("--file")
        .arg(file)
        .cwd(cwd)
        .timeout_ms(STEP_TIMEOUT_MS)
        .run()
}

/// A `run` step's connection: the template being made, as the administrator.
fn step_env(
    psql: &Psql,
    config: &Config,
    database: &str,
) -> Result<Vec<(String, String)>, PlugError> {
    let server = psql.server();
    let mut env = vec![
        ("PGHOST".to_owned(), server.host.clone()),
        ("PGPORT".to_owned(), server.port.to_string()),
        ("PGUSER".to_owned(), server.admin_user.clone()),
        ("PGDATABASE".to_owned(), database.to_owned()),
    ];
    let url = crate::url(
        &config.host,
        config.port,
        &server.admin_user,
        psql.admin_password(),
        database,
    );
    // The admin password, percent-encoded in the URL, would not be masked
    // as the granted secret is: the URL is masked whole.
    if psql.admin_password().is_some() {
        secrets::mask(&url)?;
    }
    env.push(("DATABASE_URL".to_owned(), url));
    Ok(env)
}

fn describe(step: &Step) -> String {
    match step {
        Step::Sql(s) => format!("`psql --file {}`", s.sql),
        Step::Restore(s) => format!("restoring `{}`", s.restore),
        Step::Run(s) => format!("`{}`", s.run),
    }
}

/// Whether `path` is a custom-format dump (`pg_dump -Fc`), which `pg_restore`
/// reads, rather than plain SQL.
fn is_custom_dump(path: &Path) -> Result<bool, String> {
    let mut head = [0u8; 5];
    let mut file =
        std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let n = file
        .read(&mut head)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(&head[..n] == b"PGDMP")
}

/// What the template is made of, as 16 hex digits of a sha256: each step,
/// and the contents of every file it reads (streamed: a dump may be larger
/// than the plug's memory).
pub fn key(dir: &Path, prepare: &Prepare) -> Result<String, PlugError> {
    let mut hash = Sha256::new();
    // Each part with its length first, so that no two configs read alike.
    fn part(hash: &mut Sha256, bytes: &[u8]) {
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(bytes);
    }
    part(&mut hash, b"blaise-database-template/1");
    for (i, step) in prepare.steps.iter().enumerate() {
        let field = |j: Option<usize>| match j {
            Some(j) => format!("prepare.steps[{i}].inputs[{j}]"),
            None => format!("prepare.steps[{i}]"),
        };
        // What the step is, and the files it reads (with their index in `inputs`).
        type Reads<'a> = (&'a [u8], &'a str, Vec<(Option<usize>, &'a String)>);
        let (kind, text, files): Reads = match step {
            Step::Sql(s) => (b"sql", &s.sql, vec![(None, &s.sql)]),
            Step::Restore(s) => (b"restore", &s.restore, vec![(None, &s.restore)]),
            Step::Run(s) => (
                b"run",
                &s.run,
                s.inputs
                    .iter()
                    .enumerate()
                    .map(|(j, p)| (Some(j), p))
                    .collect(),
            ),
        };
        part(&mut hash, kind);
        part(&mut hash, text.as_bytes());
        for (j, path) in files {
            let mut found = Vec::new();
            walk(&dir.join(path), path, &mut found)
                .map_err(|why| PlugError::field(field(j), why))?;
            found.sort();
            part(&mut hash, &(found.len() as u64).to_le_bytes());
            for (name, full) in found {
                part(&mut hash, name.as_bytes());
                let cannot = |e: std::io::Error| {
                    PlugError::field(field(j), format!("cannot read {}: {e}", full.display()))
                };
                let mut file = std::fs::File::open(&full).map_err(cannot)?;
                let len = file.metadata().map_err(cannot)?.len();
                hash.update(len.to_le_bytes());
                let copied = std::io::copy(&mut file, &mut hash).map_err(cannot)?;
                if copied != len {
                    return Err(PlugError::field(
                        field(j),
                        format!("{} changed while it was read", full.display()),
                    ));
                }
            }
        }
    }
    Ok(hash.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// Every file at or under `path` (`.git` left out), each with its name
/// relative to the steps' directory.
fn walk(path: &Path, name: &str, found: &mut Vec<(String, PathBuf)>) -> Result<(), String> {
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if meta.is_file() {
        found.push((name.to_owned(), path.to_path_buf()));
        return Ok(());
    }
    if !meta.is_dir() {
        return Ok(());
    }
    let entries =
        std::fs::read_dir(path).map_err(|e| format!("cannot list {}: {e}", path.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot list {}: {e}", path.display()))?;
        let file_name = entry.file_name().to_string_lossy().into_owned();
        if file_name == ".git" {
            continue;
        }
        walk(&entry.path(), &format!("{name}/{file_name}"), found)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{RunStep, SqlStep};

    fn prepare(steps: Vec<Step>) -> Prepare {
        Prepare {
            dir: String::new(),
            steps,
        }
    }

    fn sql(path: &str) -> Step {
        Step::Sql(SqlStep { sql: path.into() })
    }

    fn run(command: &str, inputs: &[&str]) -> Step {
        Step::Run(RunStep {
            run: command.into(),
            inputs: inputs.iter().map(|s| s.to_string()).collect(),
        })
    }

    #[test]
    fn the_key_changes_with_each_step_and_each_file_it_reads() {
        let dir = std::env::temp_dir().join(format!("blaise-db-key-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("migrations/.git")).unwrap();
        std::fs::write(dir.join("schema.sql"), "CREATE TABLE a (x int);").unwrap();
        std::fs::write(dir.join("migrations/001.sql"), "ALTER TABLE a ADD y int;").unwrap();
        let steps = || vec![sql("schema.sql"), run("migrate", &["migrations"])];
        let base = key(&dir, &prepare(steps())).unwrap();
        assert_eq!(base.len(), 16);
        assert_eq!(base, key(&dir, &prepare(steps())).unwrap());
        // Git's own files are not an input.
        std::fs::write(dir.join("migrations/.git/HEAD"), "ref: x").unwrap();
        assert_eq!(base, key(&dir, &prepare(steps())).unwrap());

        let mut seen = vec![base.clone()];
        let mut differs = |k: String, why: &str| {
            assert!(!seen.contains(&k), "{why}");
            seen.push(k);
        };
        differs(
            key(
                &dir,
                &prepare(vec![run("migrate", &["migrations"]), sql("schema.sql")]),
            )
            .unwrap(),
            "the order of the steps",
        );
        differs(
            key(
                &dir,
                &prepare(vec![
                    sql("schema.sql"),
                    run("migrate --all", &["migrations"]),
                ]),
            )
            .unwrap(),
            "a step's command",
        );
        std::fs::write(dir.join("migrations/002.sql"), "").unwrap();
        differs(
            key(&dir, &prepare(steps())).unwrap(),
            "a new, empty migration",
        );
        std::fs::write(dir.join("migrations/002.sql"), "SELECT 1;").unwrap();
        differs(
            key(&dir, &prepare(steps())).unwrap(),
            "a migration's contents",
        );
        std::fs::write(dir.join("schema.sql"), "CREATE TABLE a (x bigint);").unwrap();
        differs(key(&dir, &prepare(steps())).unwrap(), "the schema file");

        let missing = key(&dir, &prepare(vec![sql("nope.sql")])).unwrap_err();
        assert_eq!(missing.field.as_deref(), Some("prepare.steps[0]"));
        assert!(missing.message.contains("nope.sql"), "{}", missing.message);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
