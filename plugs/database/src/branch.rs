//! A session's branch: a database copied from the template and a login of
//! the same name that owns it and may connect to nothing else the plug made.
//! Every statement here is psql's, with the names passed as variables.

use blaise_plug::{PlugError, log};

use crate::psql::Psql;

/// The comment a branch gets in the transaction that lets its login in: a
/// branch without it was not made whole (a start cut short) and is made again.
const WHOLE: &str = "blaise-database: whole";

/// The most connections a session's login may hold: an agent's test suite
/// with a pool fits, a runaway one does not take the server's every slot.
const CONNECTION_LIMIT: u32 = 100;

/// Makes the login (without the right to log in yet), the database as a
/// file copy of the template (no data passes through the plug), then hands
/// everything in it to the login ([`OWN`]), marks it whole and lets the
/// login in. A login already there (a start that runs again) stops it before
/// anything is made: it prints `blaise-login-there` (no `:` in a marker:
/// psql would read `:name` in `\echo` as a variable). Four transactions (a
/// database is made outside one): each commit waits for the disk.
const CREATE: &str = r#"
SELECT rolsuper AS blaise_super,
       EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'branch') AS blaise_there,
       has_database_privilege('public', :'template', 'CONNECT') AS blaise_open
FROM pg_roles WHERE rolname = current_user \gset
\if :blaise_there
\echo blaise-login-there
\quit
\endif
BEGIN;
CREATE ROLE :"branch" NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
    CONNECTION LIMIT :limit;
\if :blaise_super
\else
-- A non-superuser administrator may make a database for a role it is a member of.
GRANT :"branch" TO CURRENT_USER;
\endif
\if :blaise_open
-- Sessions' logins must not read the template: only its owner (and
-- superusers) keep the right to connect. Once: a grant changed at every
-- start would make concurrent starts collide on the template's row.
REVOKE CONNECT, TEMPORARY ON DATABASE :"template" FROM PUBLIC;
\endif
COMMIT;
SELECT has_database_privilege('public', :'template', 'CONNECT') AS blaise_open \gset
\if :blaise_open
\echo blaise-template-open
\quit
\endif
CREATE DATABASE :"branch" TEMPLATE :"template" STRATEGY FILE_COPY OWNER :"branch";
-- At once, before anyone else may connect: PostgreSQL lets PUBLIC connect to
-- every new database.
REVOKE ALL ON DATABASE :"branch" FROM PUBLIC;
\connect :"branch"
BEGIN;
SELECT set_config('blaise.owner', :'branch', true) \gset
"#;

/// Run in the new database: what the template's owners owned is the login's,
/// so the agent can change the schema as well as the data. (REASSIGN OWNED
/// cannot take objects from a superuser, who usually made the template.)
/// Extensions' members and the system's catalogs stay as they are.
const OWN: &str = r#"
DO $blaise$
DECLARE
    r record;
    owner text := current_setting('blaise.owner');
BEGIN
    FOR r IN
        SELECT n.nspname FROM pg_namespace n
        WHERE n.nspname <> 'information_schema' AND n.nspname !~ '^pg_'
          AND n.nspowner <> 'pg_database_owner'::regrole
          AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_namespace'::regclass
                          AND d.objid = n.oid AND d.deptype = 'e')
    LOOP
        EXECUTE format('ALTER SCHEMA %I OWNER TO %I', r.nspname, owner);
    END LOOP;
    -- Tables take their indexes and owned sequences with them.
    FOR r IN
        SELECT c.relkind, n.nspname, c.relname FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
          AND n.nspname <> 'information_schema' AND n.nspname !~ '^pg_'
          AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass
                          AND d.objid = c.oid AND d.deptype IN ('e', 'a', 'i'))
    LOOP
        EXECUTE format('ALTER %s %I.%I OWNER TO %I',
            CASE r.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'
                           WHEN 'f' THEN 'FOREIGN TABLE' WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END,
            r.nspname, r.relname, owner);
    END LOOP;
    FOR r IN
        SELECT p.oid::regprocedure AS routine FROM pg_proc p
        JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname <> 'information_schema' AND n.nspname !~ '^pg_'
          AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass
                          AND d.objid = p.oid AND d.deptype = 'e')
    LOOP
        EXECUTE format('ALTER ROUTINE %s OWNER TO %I', r.routine, owner);
    END LOOP;
    -- Domains, enums, ranges and free-standing composite types (a table's
    -- row type and array types follow their owners).
    FOR r IN
        SELECT t.oid::regtype AS type, t.typtype FROM pg_type t
        JOIN pg_namespace n ON n.oid = t.typnamespace
        LEFT JOIN pg_class c ON c.oid = t.typrelid
        WHERE (t.typtype IN ('d', 'e', 'r') OR (t.typtype = 'c' AND c.relkind = 'c'))
          AND n.nspname <> 'information_schema' AND n.nspname !~ '^pg_'
          AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_type'::regclass
                          AND d.objid = t.oid AND d.deptype = 'e')
    LOOP
        EXECUTE format('ALTER %s %s OWNER TO %I',
            CASE r.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END, r.type, owner);
    END LOOP;
END
$blaise$;
"#;
/// The end of [`CREATE`], in the new database: marked whole, the login let in.
const FINISH: &str = r#"
COMMENT ON DATABASE :"branch" IS :'whole';
ALTER ROLE :"branch" LOGIN PASSWORD :'verifier';
COMMIT;
"#;

/// Lets the login in, with the password whose SCRAM verifier is given.
const OPEN: &str = r#"ALTER ROLE :"branch" LOGIN PASSWORD :'verifier';"#;

/// Keeps the login out, and ends its connections (a cold pause) or only
/// what they are running (a hot pause: the agent's processes are kept,
/// frozen, with their connections, and go on at the resume).
const CLOSE: &str = r#"
ALTER ROLE :"branch" NOLOGIN;
\if :hot
SELECT count(pg_cancel_backend(pid)) FROM pg_stat_activity
WHERE (datname = :'branch' OR usename = :'branch') AND pid <> pg_backend_pid() AND state <> 'idle';
\else
SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
WHERE (datname = :'branch' OR usename = :'branch') AND pid <> pg_backend_pid();
\endif
"#;

/// Removes both, whichever exists, whatever the login did meanwhile: it is
/// kept out and its connections end first; a database it made a template
/// (its owner may) is one again; what it owns in the administrator's
/// database (a large object, default privileges) goes with it.
const DROP: &str = r#"
SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'branch') AS blaise_login \gset
\if :blaise_login
ALTER ROLE :"branch" NOLOGIN;
\endif
SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
WHERE (datname = :'branch' OR usename = :'branch') AND pid <> pg_backend_pid() \gset
SELECT format('ALTER DATABASE %I IS_TEMPLATE false', datname) FROM pg_database
WHERE datname = :'branch' AND datistemplate \gexec
DROP DATABASE IF EXISTS :"branch" WITH (FORCE);
\if :blaise_login
REASSIGN OWNED BY :"branch" TO CURRENT_USER;
DROP OWNED BY :"branch";
DROP ROLE :"branch";
\endif
"#;

/// Whether each is there, and whether the database was made whole.
const EXISTS: &str = r#"
SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = :'branch'
               AND shobj_description(oid, 'pg_database') = :'whole'),
       EXISTS (SELECT 1 FROM pg_database WHERE datname = :'branch'),
       EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'branch');
"#;

/// What of a branch is there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    Nothing,
    /// Made whole: the database, marked so, and the login.
    Whole,
    /// Anything less: a database without its login or its mark, a login
    /// without its database.
    Half,
}

pub fn found(psql: &Psql, branch: &str) -> Result<Found, PlugError> {
    let admin_db = psql.server().admin_database.clone();
    let out = psql.run(&admin_db, &[("branch", branch), ("whole", WHOLE)], EXISTS)?;
    Ok(match out.trim() {
        "t|t|t" => Found::Whole,
        "f|f|f" => Found::Nothing,
        _ => Found::Half,
    })
}

/// What [`create`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Created {
    Made,
    /// The login was there already (a start that runs again): nothing was
    /// made or removed; see what is there with [`found`].
    LoginThere,
}

/// Makes the branch from `template`, in one psql (the usual start costs one
/// connection, and the copy). A failure part-way removes what was made before
/// the error is returned; the error names the branch.
pub fn create(
    psql: &Psql,
    branch: &str,
    template: &str,
    verifier: &str,
) -> Result<Created, PlugError> {
    let admin_db = psql.server().admin_database.clone();
    let limit = CONNECTION_LIMIT.to_string();
    let vars = [
        ("branch", branch),
        ("template", template),
        ("verifier", verifier),
        ("whole", WHOLE),
        ("limit", limit.as_str()),
    ];
    let script = format!("{CREATE}{OWN}{FINISH}");
    let out = psql.output(&admin_db, &vars, &script)?;
    let said = out.stdout_text();
    if out.success() && said.contains("blaise-login-there") {
        return Ok(Created::LoginThere);
    }
    if out.success() && said.contains("blaise-template-open") {
        drop(psql, branch)?;
        return Err(PlugError::field(
            "template",
            format!(
                "anyone may connect to the template `{template}`, so every session's login could read it, and the plug's login may not change that (it does not own it): as its owner, REVOKE CONNECT, TEMPORARY ON DATABASE \"{template}\" FROM PUBLIC"
            ),
        ));
    }
    if out.success() {
        return Ok(Created::Made);
    }
    let why = crate::psql::failure(&out);
    let removed = match drop(psql, branch) {
        Ok(()) => "what was made of it is removed".to_owned(),
        Err(e) => format!("removing what was made of it failed too: {}", e.message),
    };
    let message =
        format!("making the branch `{branch}` from `{template}` failed: {why} ({removed})");
    let lower = why.to_ascii_lowercase();
    Err(if lower.contains("being accessed by other users") {
        PlugError::field(
            "template",
            format!(
                "{message}; no one may be connected to the template while a session branches it"
            ),
        )
    } else if lower.contains("does not exist") && why.contains(&format!("\"{template}\"")) {
        PlugError::field("template", message)
    } else {
        PlugError::new(message)
    })
}

/// Lets the agent's login in (again), with its password.
pub fn open(psql: &Psql, branch: &str, verifier: &str) -> Result<(), PlugError> {
    let admin_db = psql.server().admin_database.clone();
    psql.run(
        &admin_db,
        &[("branch", branch), ("verifier", verifier)],
        OPEN,
    )
    .map(|_| ())
}

/// Keeps the agent's login out and ends what it runs: nothing runs in the
/// branch while the session is paused. At a hot pause its connections stay
/// (the agent keeps them, frozen); at a cold one they end.
pub fn close(psql: &Psql, branch: &str, hot: bool) -> Result<(), PlugError> {
    let admin_db = psql.server().admin_database.clone();
    let hot = if hot { "true" } else { "false" };
    let ended = psql.run(&admin_db, &[("branch", branch), ("hot", hot)], CLOSE)?;
    let ended = ended.trim();
    if ended != "0" {
        log::info(format!(
            "ended {ended} {} of the branch {branch}",
            if hot == "true" {
                "running statement(s)"
            } else {
                "connection(s)"
            }
        ));
    }
    Ok(())
}

/// Drops the database and the login; nothing there is not an error.
pub fn drop(psql: &Psql, branch: &str) -> Result<(), PlugError> {
    let admin_db = psql.server().admin_database.clone();
    psql.run(&admin_db, &[("branch", branch)], DROP).map(|_| ())
}
