//! The database plug: a branch of a PostgreSQL database per session.
//!
//! Start copies the template into a database of the session's own
//! (`CREATE DATABASE … TEMPLATE … STRATEGY FILE_COPY`, no data through the
//! plug) and makes a login that owns it and nothing else; the agent gets its
//! URL and `PG*` variables. Pause keeps the login out and ends its
//! connections; resume lets it in again with the same password; teardown
//! drops both. Names come from the plug's and the session's ids, so any
//! runner finds them; state records what was made, for the dashboard.

mod branch;
mod config;
mod names;
mod password;
mod psql;
mod template;

use blaise_plug::{
    Context, Contribution, PauseInfo, Plug, PlugError, PlugInfo, PrepareContext, TeardownInfo, log,
    secrets, state,
};
use serde::{Deserialize, Serialize};

use branch::{Created, Found};
use config::{Config, Part, Server};
use psql::{ADMIN_PASSWORD, Psql};

/// The secret session passwords are derived from, when it is not the
/// administrator's password.
const PASSWORD_KEY: &str = "password-key";

/// What the plug made for the session, kept in its state.
#[derive(Debug, Serialize, Deserialize)]
struct Made {
    /// The database and the login (one name).
    branch: String,
    /// What it was copied from.
    template: String,
    /// Where: a config that names another server since still finds it.
    server: Server,
}

struct DatabasePlug;

#[blaise_plug::plug]
impl Plug for DatabasePlug {
    fn describe() -> PlugInfo {
        PlugInfo::builder("database", env!("CARGO_PKG_VERSION"))
            .description("A PostgreSQL database per session, copied from a template, with a login of its own; kept across pauses, dropped at teardown")
            .stateful(true)
            .can_resume(true)
            // Nothing of it runs the agent: a hot pause ends connections as a cold one does.
            .keeps_processes(true)
            .config::<Config>()
            // `pg_restore` and `sh` only for `prepare` steps that use them.
            .exec(&["psql", "pg_restore", "sh"])
            .secrets(&[ADMIN_PASSWORD, PASSWORD_KEY])
            .build()
    }

    fn on_prepare(ctx: &PrepareContext) -> Result<(), PlugError> {
        // The template, from the steps' files as the plugs before this one
        // left them in the scratch workspace (the checkout's clone). A
        // session whose files differ gets its own template at its start.
        let ctx = ctx.as_start();
        let config = Config::read(&ctx)?;
        match (&config.template, &config.prepare) {
            (None, Some(prepare)) => {
                let dir = std::path::Path::new(&ctx.workspace).join(&prepare.dir);
                if !dir.is_dir() {
                    // Its files come with the session (no plug before this
                    // one puts them in the scratch workspace): the first
                    // start prepares it, as without a preparation.
                    log::info(format!(
                        "nothing to prepare the template from: `{}` is not in the scratch workspace (no plug before this one puts it there)",
                        prepare.dir
                    ));
                    return Ok(());
                }
                let psql = Psql::new(config.server())?;
                template::ready(&psql, &config, prepare, &ctx).map(drop)
            }
            _ => Ok(()),
        }
    }

    fn on_start(ctx: &Context) -> Result<Contribution, PlugError> {
        let config = Config::read(ctx)?;
        let psql = Psql::new(config.server())?;
        let key = password_key(&psql)?;
        let name = names::branch(&ctx.plug_id, &ctx.session_id);
        let template = match (&config.template, &config.prepare) {
            (Some(template), _) => template.clone(),
            (None, Some(prepare)) => template::ready(&psql, &config, prepare, ctx)?,
            (None, None) => unreachable!("Config::read requires one"),
        };
        let password = password::derive(&key, &name);
        secrets::mask(&password)?;
        let verifier = password::scram_verifier(&key, &name, &password);
        let mut created = branch::create(&psql, &name, &template, &verifier)?;
        if created == Created::LoginThere {
            match branch::found(&psql, &name)? {
                // A start that was interrupted after making it: same session, same branch.
                Found::Whole => {
                    log::info(format!("reusing the branch {name}"));
                    branch::open(&psql, &name, &verifier)?;
                }
                _ => {
                    log::warn(format!("removing what an interrupted start left of {name}"));
                    branch::drop(&psql, &name)?;
                    created = branch::create(&psql, &name, &template, &verifier)?;
                }
            }
        }
        if created == Created::Made {
            log::info(format!("branched {name} from {template}"));
        }
        state::set(
            "made",
            &Made {
                branch: name.clone(),
                template,
                server: config.server(),
            },
        )?;
        Ok(contribution(&config, &config.server(), &name, &password))
    }

    fn on_resume(ctx: &Context) -> Result<Contribution, PlugError> {
        let config = Config::read(ctx)?;
        // Where the branch is, as the start recorded it.
        let (name, server) = made(ctx)?;
        let psql = Psql::new(server.clone())?;
        let key = password_key(&psql)?;
        if branch::found(&psql, &name)? != Found::Whole {
            return Err(PlugError::new(format!(
                "the branch {name} is gone: the environment cannot be resumed"
            )));
        }
        let password = password::derive(&key, &name);
        secrets::mask(&password)?;
        branch::open(
            &psql,
            &name,
            &password::scram_verifier(&key, &name, &password),
        )?;
        Ok(contribution(&config, &server, &name, &password))
    }

    fn on_pause(ctx: &Context, info: &PauseInfo) -> Result<(), PlugError> {
        if !info.may_resume {
            // The teardown right after drops it.
            return Ok(());
        }
        let (name, server) = made(ctx)?;
        let psql = Psql::new(server)?;
        if let Err(e) = branch::close(&psql, &name, info.keep_processes) {
            if branch::found(&psql, &name)? == Found::Nothing {
                log::warn(format!("the branch {name} was already gone at the pause"));
                return Ok(());
            }
            return Err(e);
        }
        Ok(())
    }

    fn on_teardown(ctx: &Context, _info: &TeardownInfo) -> Result<(), PlugError> {
        // Only the server matters here, as the state recorded it: the config
        // may have changed.
        let (name, server) = made(ctx)?;
        let psql = Psql::new(server)?;
        branch::drop(&psql, &name)?;
        // What an interrupted preparation of this session left, if anything.
        let admin_db = psql.server().admin_database.clone();
        let pattern = template::leftovers_pattern(&ctx.plug_id, &ctx.session_id);
        psql.run(
            &admin_db,
            &[("pattern", &pattern)],
            r#"SELECT format('ALTER DATABASE %I IS_TEMPLATE false', datname), format('DROP DATABASE %I WITH (FORCE)', datname)
FROM pg_database WHERE datname ~ :'pattern' \gexec"#,
        )?;
        state::delete("made")?;
        Ok(())
    }
}

/// The branch's name and server: as the state recorded them, or (a start
/// cut short before its state was kept) as they are derived and configured.
fn made(ctx: &Context) -> Result<(String, Server), PlugError> {
    Ok(match state::get::<Made>("made")? {
        Some(made) => (made.branch, made.server),
        None => (
            names::branch(&ctx.plug_id, &ctx.session_id),
            Server::read(ctx)?,
        ),
    })
}

/// The secret session passwords are derived from: `password-key` if
/// granted, else the administrator's password.
fn password_key(psql: &Psql) -> Result<String, PlugError> {
    if let Some(key) = secrets::get_if_granted(PASSWORD_KEY)? {
        return Ok(key);
    }
    psql.admin_password().map(str::to_owned).ok_or_else(|| {
        PlugError::new(format!(
            "grant the secret `{ADMIN_PASSWORD}` (the administrator's password) or `{PASSWORD_KEY}` (any long random value): each session's password is derived from it, so that a resume hands the agent the same one without it being stored"
        ))
    })
}

/// The agent's variables.
fn contribution(config: &Config, server: &Server, branch: &str, password: &str) -> Contribution {
    let host = config.agent_host.as_deref().unwrap_or(&server.host);
    let mut contribution = Contribution::default();
    for (name, part) in &config.env {
        let value = match part {
            Part::Url => url(host, server.port, branch, Some(password), branch),
            Part::Host => host.to_owned(),
            Part::Port => server.port.to_string(),
            Part::Database | Part::User => branch.to_owned(),
            Part::Password => password.to_owned(),
        };
        contribution = contribution.env(name.clone(), value);
    }
    contribution
}

/// `postgresql://USER[:PASSWORD]@HOST:PORT/DATABASE`, with a socket
/// directory as `?host=` and an IPv6 address in brackets.
pub(crate) fn url(
    host: &str,
    port: u16,
    user: &str,
    password: Option<&str>,
    database: &str,
) -> String {
    let login = match password {
        Some(p) => format!("{}:{}", encode(user), encode(p)),
        None => encode(user),
    };
    if host.starts_with('/') {
        format!(
            "postgresql://{login}@/{}?host={}&port={port}",
            encode(database),
            encode(host)
        )
    } else if host.contains(':') {
        format!("postgresql://{login}@[{host}]:{port}/{}", encode(database))
    } else {
        format!("postgresql://{login}@{host}:{port}/{}", encode(database))
    }
}

/// Percent-encoding of everything but RFC 3986's unreserved characters.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::url;

    #[test]
    fn a_url_carries_any_login_and_any_host() {
        assert_eq!(
            url(
                "db.internal",
                5432,
                "blaise_db_s1",
                Some("0a1b"),
                "blaise_db_s1"
            ),
            "postgresql://blaise_db_s1:0a1b@db.internal:5432/blaise_db_s1"
        );
        assert_eq!(
            url("::1", 5433, "admin", Some("p@ss:w/rd"), "app"),
            "postgresql://admin:p%40ss%3Aw%2Frd@[::1]:5433/app"
        );
        assert_eq!(
            url("/var/run/postgresql", 5432, "postgres", None, "tpl"),
            "postgresql://postgres@/tpl?host=%2Fvar%2Frun%2Fpostgresql&port=5432"
        );
    }
}
