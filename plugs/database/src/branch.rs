//! A session's branch: a database copied from the template and a login of
//! the same name that owns it and may connect to nothing else the plug made.
//! Every statement here is psql's, with the names passed as variables.

use blaise_plug::{PlugError, log};

use crate::psql::Psql;

/// Makes the login (without the right to log in yet), the database as a
/// file copy of the template (no data passes through the plug), then hands
/// everything in it to the login ([`OWN`]), and lets it in. Three
/// transactions (a database is made outside one): each commit waits for the
/// disk.
const CREATE: &str = r#"
SELECT rolsuper AS blaise_super FROM pg_roles WHERE rolname = current_user \gset
BEGIN;
CREATE ROLE :"branch" NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;
\if :blaise_super
\else
-- A non-superuser administrator may make a database for a role it is a member of.
GRANT :"branch" TO CURRENT_USER;
\endif
-- Sessions' logins must not read the template: only its owner (and
-- superusers) keep the right to connect.
REVOKE CONNECT, TEMPORARY ON DATABASE :"template" FROM PUBLIC;
COMMIT;
CREATE DATABASE :"branch" TEMPLATE :"template" STRATEGY FILE_COPY OWNER :"branch";
\connect :"branch"
BEGIN;
-- No one else connects: PostgreSQL lets PUBLIC connect to every new database.
REVOKE ALL ON DATABASE :"branch" FROM PUBLIC;
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

/// Lets the login in, with the password whose SCRAM verifier is given.
const OPEN: &str = r#"ALTER ROLE :"branch" LOGIN PASSWORD :'verifier';"#;

/// Keeps the login out and ends every connection to the branch.
const CLOSE: &str = r#"
ALTER ROLE :"branch" NOLOGIN;
SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
WHERE (datname = :'branch' OR usename = :'branch') AND pid <> pg_backend_pid();
"#;

/// Removes both, whichever exists.
const DROP: &str = r#"
DROP DATABASE IF EXISTS :"branch" WITH (FORCE);
DROP ROLE IF EXISTS :"branch";
"#;

const EXISTS: &str = r#"
SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = :'branch'),
       EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'branch');
"#;

/// What of a branch is there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    Nothing,
    Whole,
    /// The database without the login, or the login without the database.
    Half,
}

pub fn found(psql: &Psql, branch: &str) -> Result<Found, PlugError> {
    let admin_db = psql.server().admin_database.clone();
    let out = psql.run(&admin_db, &[("branch", branch)], EXISTS)?;
    Ok(match out.trim() {
        "t|t" => Found::Whole,
        "f|f" => Found::Nothing,
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
    let vars = [
        ("branch", branch),
        ("template", template),
        ("verifier", verifier),
    ];
    let script = format!("{CREATE}{OWN}{OPEN}\nCOMMIT;\n");
    let out = psql.output(&admin_db, &vars, &script)?;
    if out.success() {
        return Ok(Created::Made);
    }
    let why = crate::psql::failure(&out);
    // The first statement failed: this attempt made nothing.
    if why.contains(&format!("role \"{branch}\" already exists")) {
        return Ok(Created::LoginThere);
    }
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
    } else if lower.contains("template database") && lower.contains("does not exist") {
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

/// Keeps the agent's login out and ends its connections: nothing runs in the
/// branch while the session is paused.
pub fn close(psql: &Psql, branch: &str) -> Result<(), PlugError> {
    let admin_db = psql.server().admin_database.clone();
    let ended = psql.run(&admin_db, &[("branch", branch)], CLOSE)?;
    let ended = ended.trim();
    if ended != "0" {
        log::info(format!(
            "ended {ended} connection(s) to the branch {branch}"
        ));
    }
    Ok(())
}

/// Drops the database and the login; nothing there is not an error.
pub fn drop(psql: &Psql, branch: &str) -> Result<(), PlugError> {
    let admin_db = psql.server().admin_database.clone();
    psql.run(&admin_db, &[("branch", branch)], DROP).map(|_| ())
}
