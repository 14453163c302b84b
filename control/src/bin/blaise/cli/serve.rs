//! `blaise serve`: the control plane with its dashboard, and the admin token's bootstrap.

use std::io::Write;

use anyhow::{Context, Result};

use super::ServeArgs;
use blaise_control::auth::{hash_token, new_token};
use blaise_control::config::Config;
use blaise_control::model::now;
use blaise_control::state::AppState;
use blaise_control::store::Store;

/// The admin token: `BLAISE_TOKEN` if set (its hash replaces the stored one), else the stored
/// one, else a new one printed once.
fn bootstrap_admin_token(
    store: &dyn Store,
    env_token: Option<String>,
    out: &mut (dyn Write + Send),
) -> Result<()> {
    let cfg = Config::default();
    let stored = blaise_control::lifecycle::transact(store, &cfg, 0, |ctx| {
        Ok(ctx.tx.admin_token_hash()?)
    })?;
    match (env_token.filter(|t| !t.is_empty()), stored) {
        (Some(token), _) => {
            blaise_control::lifecycle::transact(store, &cfg, now(), |ctx| {
                blaise_control::lifecycle::logins::set_admin_token(ctx, &hash_token(&token))
            })?;
            writeln!(out, "admin token: the one in BLAISE_TOKEN")?;
        }
        (None, Some(_)) => writeln!(
            out,
            "admin token: the one stored in the database (set BLAISE_TOKEN to replace it)"
        )?,
        (None, None) => {
            let token = new_token("bla_");
            blaise_control::lifecycle::transact(store, &cfg, now(), |ctx| {
                blaise_control::lifecycle::logins::set_admin_token(ctx, &hash_token(&token))
            })?;
            writeln!(
                out,
                "admin token (shown once, stored hashed): {token}\n  export BLAISE_TOKEN={token}"
            )?;
        }
    }
    Ok(())
}

pub async fn serve(args: ServeArgs, out: &mut (dyn Write + Send)) -> Result<()> {
    // Read before anything else starts: a certificate that does not load stops here, saying why.
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(blaise_control::tls::server_config(cert, key)?),
        _ => None,
    };
    let sources = match &args.linear {
        Some(path) => blaise_control::sources::Sources {
            linear: blaise_control::sources::linear::config::load(path)
                .map_err(|e| anyhow::anyhow!("--linear {e}"))?
                .into_iter()
                .map(|c| std::sync::Arc::new(blaise_control::sources::linear::App::new(c)))
                .collect(),
        },
        None => blaise_control::sources::Sources::default(),
    };
    let oidc = match &args.oidc {
        Some(path) => {
            let config = blaise_control::oidc::OidcConfig::load(path)
                .map_err(|e| anyhow::anyhow!("--oidc {e}"))?;
            // Read now, so that a missing secret stops here rather than at someone's sign-in.
            blaise_control::secret_ref::read(&config.client_secret)
                .map_err(|e| anyhow::anyhow!("--oidc {}: `client_secret`: {e}", path.display()))?;
            Some(
                blaise_control::oidc::Oidc::new(config)
                    .map_err(|e| anyhow::anyhow!("--oidc: {e}"))?,
            )
        }
        None => None,
    };
    let shown = if blaise_control::store::is_postgres_url(&args.db) {
        blaise_control::store::postgres::redacted(&args.db)
    } else {
        args.db.clone()
    };
    let store = blaise_control::store::open(&args.db)
        .with_context(|| format!("cannot open the database {shown}"))?;
    bootstrap_admin_token(&*store, std::env::var("BLAISE_TOKEN").ok(), out)?;
    for app in &sources.linear {
        if blaise_control::lifecycle::transact_read(
            &*store,
            &args.config(),
            blaise_control::model::now(),
            |ctx| Ok(ctx.tx.agent(&app.config.agent)?),
        )?
        .is_none()
        {
            tracing::warn!(
                "--linear: app {} opens sessions of agent {}, which does not exist yet (`blaise agent set {}`)",
                app.config.name,
                app.config.agent,
                app.config.agent
            );
        }
    }
    let linear_apps: Vec<String> = sources
        .linear
        .iter()
        .map(|a| a.config.name.clone())
        .collect();
    let mut state = AppState::new(store, args.config()).with_sources(sources);
    let how = match &oidc {
        Some(o) => format!("sign in with {}, or a token", o.config.label()),
        None => "log in with the admin token, or a person's own".to_string(),
    };
    if let Some(oidc) = oidc {
        state = state.with_oidc(oidc);
    }
    writeln!(
        out,
        "dashboard: {}://{}/ ({how})",
        if tls.is_some() { "https" } else { "http" },
        args.listen
    )?;
    for name in linear_apps {
        writeln!(
            out,
            "linear: app {name} takes webhooks at /v1/sources/linear/{name}"
        )?;
    }
    out.flush()?;
    Ok(blaise_control::http::bind_and_serve(args.listen, state, tls).await?)
}
