//! Logging in to the dashboard. The cookie is not a token: it holds a random id, stored hashed
//! with who logged in, when the login ends and the CSRF token its pages' forms carry. A login
//! ends at logout, when it expires ([`LOGIN_LIFETIME_MS`]), when the token it was made with
//! changes, and when its person's role changes or they are removed.

use super::Ctx;
use super::audit::{Change, record};
use crate::auth::{hash_token, new_token, random_hex};
use crate::error::Result;
use crate::model::*;

/// How long a login lasts: a working day. After it the dashboard asks for the token again.
pub const LOGIN_LIFETIME_MS: Millis = 12 * 3_600_000;

/// A new login for `who`, as their role, proved `method` (with an identity provider: the
/// `groups` it said they are in): the cookie's id (given once, to the browser) and the record.
pub fn begin(
    ctx: &mut Ctx,
    who: &Actor,
    method: LoginMethod,
    groups: &[String],
) -> Result<(String, Login)> {
    // Expired logins are dropped as new ones begin: nothing else needs them.
    ctx.tx.end_logins(ctx.now)?;
    let id = new_token("bls_");
    let login = Login {
        id_hash: hash_token(&id),
        who: who.who.clone(),
        role: who.role,
        method,
        groups: groups.to_vec(),
        created_at: ctx.now,
        expires_at: ctx.now.saturating_add(LOGIN_LIFETIME_MS),
        csrf: random_hex(16),
    };
    ctx.tx.put_login(&login)?;
    record(
        ctx,
        who,
        Change::of(AuditAction::Login, &who.who).saying(method.as_str()),
    )?;
    Ok((id, login))
}

/// The login a cookie's id names, if it has not ended.
pub fn of_cookie(ctx: &mut Ctx, id: &str) -> Result<Option<Login>> {
    Ok(ctx
        .tx
        .login(&hash_token(id))?
        .filter(|l| l.expires_at > ctx.now))
}

/// Ends the login a cookie's id names (logout).
pub fn end(ctx: &mut Ctx, id: &str) -> Result<()> {
    let hash = hash_token(id);
    if let Some(login) = ctx.tx.login(&hash)? {
        ctx.tx.delete_login(&hash)?;
        let by = Actor::new(login.who, login.role, Channel::Dashboard);
        record(ctx, &by, Change::of(AuditAction::Logout, &by.who))?;
    }
    Ok(())
}

/// Sets the admin token's hash (the server does, from its configuration); a new token ends every
/// login made with the old one, and is recorded (never the token).
pub fn set_admin_token(ctx: &mut Ctx, hash: &str) -> Result<()> {
    let old = ctx.tx.admin_token_hash()?;
    if old.as_deref() != Some(hash) {
        ctx.tx.set_admin_token_hash(hash)?;
        ctx.tx.end_logins_of(BUILT_IN_ADMIN)?;
        let detail = if old.is_some() { "rotated" } else { "set" };
        record(
            ctx,
            &Actor::server(),
            Change::of(AuditAction::AdminToken, BUILT_IN_ADMIN).saying(detail),
        )?;
    }
    Ok(())
}
