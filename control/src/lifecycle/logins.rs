//! Logging in to the dashboard. The cookie is not a token: it holds a random id, stored hashed
//! with who logged in, when the login ends and the CSRF token its pages' forms carry. A login
//! ends at logout, when it expires ([`LOGIN_LIFETIME_MS`]) and when the admin token changes.

use super::Ctx;
use crate::auth::{hash_token, new_token, random_hex};
use crate::error::Result;
use crate::model::*;

/// How long a login lasts: a working day. After it the dashboard asks for the token again.
pub const LOGIN_LIFETIME_MS: Millis = 12 * 3_600_000;

/// A new login for `who`: the cookie's id (given once, to the browser) and the record.
pub fn begin(ctx: &mut Ctx, who: &str) -> Result<(String, Login)> {
    // Expired logins are dropped as new ones begin: nothing else needs them.
    ctx.tx.end_logins(ctx.now)?;
    let id = new_token("bls_");
    let login = Login {
        id_hash: hash_token(&id),
        who: who.to_owned(),
        created_at: ctx.now,
        expires_at: ctx.now.saturating_add(LOGIN_LIFETIME_MS),
        csrf: random_hex(16),
    };
    ctx.tx.put_login(&login)?;
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
    Ok(ctx.tx.delete_login(&hash_token(id))?)
}

/// Sets the admin token's hash; a new token ends every login made with the old one.
pub fn set_admin_token(ctx: &mut Ctx, hash: &str) -> Result<()> {
    if ctx.tx.admin_token_hash()?.as_deref() != Some(hash) {
        ctx.tx.set_admin_token_hash(hash)?;
        ctx.tx.end_logins(Millis::MAX)?;
    }
    Ok(())
}
