//! `GET /v1/audit` (`blaise audit`): the audit trail, newest first, a page at a time, maybe of
//! one person, one session or one action.

use axum::Json;
use axum::extract::State;
use serde::Deserialize;

use crate::error::{Error, Result};
use crate::http::{AppState, AsAdmin, Params};
use crate::model::AuditAction;
use crate::store::AuditPage;

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct AuditQuery {
    /// Only what this person (or source) did.
    actor: Option<String>,
    /// Only what was done to this session.
    session: Option<String>,
    /// Only this action (`permission.answer`, `runner.revoke`, …).
    action: Option<String>,
    /// The most entries in the answer (1–1000; 100 when not given).
    limit: Option<u32>,
    /// The page after this one: the `next` of the previous answer.
    after: Option<i64>,
}

const PAGE: u32 = 100;
const MAX_PAGE: u32 = 1000;

/// The page a query asks for, or a 400 naming the parameter that is wrong.
pub fn page(q: AuditQuery) -> Result<AuditPage> {
    let action = match q.action.as_deref() {
        None => None,
        Some(text) => Some(AuditAction::parse(text).ok_or_else(|| {
            Error::invalid(
                "invalid_field",
                "action",
                format!(
                    "`action` must be one of {}",
                    AuditAction::ALL
                        .iter()
                        .map(|a| a.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?),
    };
    if let Some(session) = &q.session
        && !crate::names::is_id(&crate::names::SESSION, session)
    {
        return Err(Error::invalid(
            "invalid_field",
            "session",
            "`session` must be a session's id (ses_…)",
        ));
    }
    if let Some(actor) = &q.actor {
        crate::names::check_person("actor", actor)?;
    }
    let limit = match q.limit {
        None => PAGE,
        Some(n @ 1..=MAX_PAGE) => n,
        Some(_) => {
            return Err(Error::invalid(
                "invalid_field",
                "limit",
                format!("`limit` must be 1 to {MAX_PAGE}"),
            ));
        }
    };
    Ok(AuditPage {
        actor: q.actor,
        session_id: q.session,
        action,
        before: q.after,
        limit,
    })
}

/// `GET /v1/audit`: `entries`, newest first, and `next`, the cursor of the page after it
/// (`null` on the last page).
pub async fn list(
    State(state): State<AppState>,
    _: AsAdmin,
    Params(q): Params<AuditQuery>,
) -> Result<Json<serde_json::Value>> {
    let (entries, next) = read_page(&state, page(q)?).await?;
    Ok(Json(
        serde_json::json!({ "entries": entries, "next": next }),
    ))
}

/// A page of the trail and the cursor of the next (one more entry is read to know there is one).
pub async fn read_page(
    state: &AppState,
    mut page: AuditPage,
) -> Result<(Vec<crate::model::AuditEntry>, Option<i64>)> {
    let limit = page.limit as usize;
    page.limit += 1;
    let mut entries = state.read(move |ctx| Ok(ctx.tx.audit_page(&page)?)).await?;
    let next = (entries.len() > limit).then(|| {
        entries.truncate(limit);
        entries[limit - 1].seq
    });
    Ok((entries, next))
}
