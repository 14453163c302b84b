//! People: each has a name, a role and a personal API token (shown once, stored hashed).
//! Changing a person's role or token, or removing them, ends their dashboard logins at once.

use super::Ctx;
use super::audit::{Change, record};
use crate::auth::{hash_token, new_token};
use crate::error::{Error, Result};
use crate::model::*;
use crate::names::check_name;

/// Names a person cannot have: the built-in admin's, and the server's own in the audit trail.
const RESERVED: &[&str] = &[BUILT_IN_ADMIN, "blaise"];

/// The person `name`, or a 404 that names them.
pub fn get(ctx: &mut Ctx, name: &str) -> Result<User> {
    check_name("name", name)?;
    ctx.tx
        .user(name)?
        .ok_or_else(|| Error::not_found("user", name))
}

/// Adds `name` with `role`; answers their token (given once) and the record.
pub fn add(ctx: &mut Ctx, by: &Actor, name: &str, role: Role) -> Result<(String, User)> {
    check_name("name", name)?;
    if RESERVED.contains(&name) {
        return Err(Error::invalid(
            "reserved_name",
            "name",
            format!(
                "`{name}` is reserved: the audit trail names the built-in admin and the server so"
            ),
        ));
    }
    if ctx.tx.user(name)?.is_some() {
        return Err(Error::conflict(
            "user_exists",
            format!(
                "user {name} exists already (`blaise user set {name} --role …` changes their role)"
            ),
        ));
    }
    let token = new_token("blu_");
    let user = User {
        name: name.to_owned(),
        role,
        token_hash: hash_token(&token),
        created_at: ctx.now,
        created_by: by.who.clone(),
    };
    ctx.tx.add_user(&user)?;
    record(
        ctx,
        by,
        Change::of(AuditAction::UserAdd, name).saying(role.as_str()),
    )?;
    Ok((token, user))
}

/// Gives `name` the role `role`. Their dashboard logins end: they log in again, as what they are now.
pub fn set_role(ctx: &mut Ctx, by: &Actor, name: &str, role: Role) -> Result<User> {
    let mut user = get(ctx, name)?;
    if user.role != role {
        let was = user.role;
        user.role = role;
        ctx.tx.update_user(&user)?;
        ctx.tx.end_logins_of(name)?;
        record(
            ctx,
            by,
            Change::of(AuditAction::UserSet, name).saying(format!("role {was} → {role}")),
        )?;
    }
    Ok(user)
}

/// A new token for `name`; the old one stops working, and their logins end.
pub fn new_user_token(ctx: &mut Ctx, by: &Actor, name: &str) -> Result<(String, User)> {
    let mut user = get(ctx, name)?;
    let token = new_token("blu_");
    user.token_hash = hash_token(&token);
    ctx.tx.update_user(&user)?;
    ctx.tx.end_logins_of(name)?;
    record(ctx, by, Change::of(AuditAction::UserToken, name))?;
    Ok((token, user))
}

/// Removes `name`: their token stops working and their logins end at once. What they did stays
/// in the audit trail under their name.
pub fn remove(ctx: &mut Ctx, by: &Actor, name: &str) -> Result<User> {
    let user = get(ctx, name)?;
    ctx.tx.delete_user(name)?;
    ctx.tx.end_logins_of(name)?;
    record(
        ctx,
        by,
        Change::of(AuditAction::UserRemove, name).saying(user.role.as_str()),
    )?;
    Ok(user)
}

/// Who a token is: the built-in admin (the admin token) or a person (their own). `None`: nobody.
pub fn of_token(ctx: &mut Ctx, token: &str) -> Result<Option<(String, Role)>> {
    Ok(match ctx.tx.token_owner(&hash_token(token))? {
        None => None,
        Some(TokenOwner::BuiltInAdmin) => Some((BUILT_IN_ADMIN.to_owned(), Role::Admin)),
        Some(TokenOwner::Person(u)) => Some((u.name, u.role)),
    })
}
