//! Money is policy, like time. A run reports what its agent said it used; Blaise keeps it per
//! run, per session and per agent per day, and holds the agent's budgets: a session that spent
//! its budget is stopped (reason `budget`, its environment kept) and takes no message until an
//! operator raises it; an agent that spent its daily budget takes no new turn until the next
//! day (UTC). The runner has no budget logic: it reports, Blaise decides.

use super::Ctx;
use super::runs::pause_for;
use crate::error::{Error, Result};
use crate::model::*;
use crate::store::Event;

/// Most currencies one session may spend in: each is a series of `/metrics` and a line of the
/// views; an agent reports one.
const MAX_CURRENCIES: usize = 4;

/// A run's usage report: added to the run, its session and its agent's day; then the session's
/// budget is held.
pub fn report(
    ctx: &mut Ctx,
    session: &mut Session,
    run: &mut Run,
    report: &UsageReport,
) -> Result<()> {
    if let Some(cost) = &report.cost
        && !session.usage.cost.contains_key(&cost.currency)
        && session.usage.cost.len() >= MAX_CURRENCIES
    {
        return Err(Error::conflict(
            "too_many_currencies",
            format!(
                "session {} was already reported spending in {MAX_CURRENCIES} currencies; {} would be one more",
                session.id, cost.currency
            ),
        ));
    }
    run.usage.add(report);
    ctx.tx.put_run(run)?;
    session.usage.add(report);
    let mut day = ctx.tx.agent_usage(&session.agent, &day_of(ctx.now))?;
    day.usage.add(report);
    ctx.tx.put_agent_usage(&day)?;
    ctx.tx.note(Event::Used {
        agent: session.agent.clone(),
        tokens: report.tokens,
        cost: report.cost.clone(),
    });
    hold_the_session_budget(ctx, session, run)
}

/// The budget that holds for `session`: its own (raised by an operator), else its agent's.
pub fn budget_of(session: &Session, agent: &Agent) -> Option<f64> {
    session.budget.or(agent.settings.session_budget)
}

/// What `session` spent, when it has passed `budget`: the amount and the currency.
fn over(usage: &Usage, budget: Option<f64>) -> Option<(f64, String)> {
    let budget = budget?;
    let (spent, currency) = usage.spent()?;
    (spent >= budget).then(|| (spent, currency.to_owned()))
}

/// A session past its budget: its run is stopped (the environment is kept, the session pauses)
/// and the transcript says what was spent.
fn hold_the_session_budget(ctx: &mut Ctx, session: &mut Session, run: &mut Run) -> Result<()> {
    let agent = ctx.agent(&session.agent.clone())?;
    let budget = budget_of(session, &agent);
    let Some((spent, currency)) = over(&session.usage, budget) else {
        return Ok(());
    };
    // Money outweighs the environment: plugs that cannot resume lose it.
    let kept = run.plugs_can_resume != Some(false);
    if !pause_for(ctx, session, run, StopReason::Budget, kept)? {
        return Ok(());
    }
    let environment = if kept {
        "its environment is kept"
    } else {
        "its environment is torn down (its plugs cannot resume)"
    };
    ctx.notice(
        &session.id,
        &format!(
            "The session spent {} of its budget of {}: Blaise stopped it, and {environment}. Raise the budget to go on (`blaise session budget {} AMOUNT`).",
            money(spent, &currency),
            money(budget.unwrap_or_default(), &currency),
            session.id
        ),
    )?;
    end_turns_past_budget(ctx, session, run)
}

/// The turn the budget ran out in ends with it (cancelled: the agent is stopped), and so do
/// messages waiting behind it: none is sent again to a later run, which would spend past the
/// budget. Their permission requests end with them.
fn end_turns_past_budget(ctx: &mut Ctx, session: &mut Session, run: &Run) -> Result<()> {
    const WHY: &str = "the session's budget is spent";
    let ended_at_index = ctx.tx.last_transcript_index(&session.id)?;
    let mut ended = ctx.tx.messages(&session.id, MessageState::Delivered)?;
    ended.retain(|m| m.run_id.as_deref() == Some(&run.id));
    let waiting = ctx.tx.messages(&session.id, MessageState::Waiting)?;
    for mut message in ended.into_iter().chain(waiting) {
        if message.state == MessageState::Waiting {
            ctx.notice(
                &session.id,
                &format!(
                    "Your message {} will not be answered: {WHY}.",
                    super::runs::quote(&message.text)
                ),
            )?;
        }
        message.state = MessageState::Answered;
        message.outcome = Some(TurnOutcome::Cancelled);
        message.outcome_reason = Some(WHY.to_owned());
        message.ended_at_index = Some(ended_at_index);
        ctx.tx.put_message(&message)?;
    }
    super::permissions::end_requests(
        ctx,
        run,
        None,
        "its turn ended: the session's budget is spent",
    )?;
    session.open_turns = 0;
    session.turn_started_at = None;
    session.last_output_at = None;
    session.silence_cancelled_at = None;
    Ok(())
}

/// Refuses a new turn of `session` when it, or its agent today, spent its budget: the error
/// names the budget and how to raise it.
pub fn refuse_past_budget(ctx: &mut Ctx, session: &Session, agent: &Agent) -> Result<()> {
    if let Some((spent, currency)) = over(&session.usage, budget_of(session, agent)) {
        return Err(Error::conflict(
            "budget",
            format!(
                "session {} spent {} of its budget of {}: no more messages until it is raised (`blaise session budget {} AMOUNT`)",
                session.id,
                money(spent, &currency),
                money(budget_of(session, agent).unwrap_or_default(), &currency),
                session.id
            ),
        ));
    }
    refuse_past_daily_budget(ctx, agent)
}

/// Refuses a new turn of `agent` when its sessions spent its daily budget today.
pub fn refuse_past_daily_budget(ctx: &mut Ctx, agent: &Agent) -> Result<()> {
    let Some(daily) = agent.settings.daily_budget else {
        return Ok(());
    };
    let today = day_of(ctx.now);
    let used = ctx.tx.agent_usage(&agent.name, &today)?;
    if let Some((spent, currency)) = over(&used.usage, Some(daily)) {
        return Err(Error::conflict(
            "daily_budget",
            format!(
                "agent {} spent {} of its daily budget of {} today ({today}, UTC): no new turns until tomorrow, or raise it (`blaise agent set {} --daily-budget AMOUNT`)",
                agent.name,
                money(spent, &currency),
                money(daily, &currency),
                agent.name
            ),
        ));
    }
    Ok(())
}

/// An operator raises (or sets) a session's budget: it may take messages again if it is now
/// under it. Said in the transcript.
pub fn set_budget(ctx: &mut Ctx, session_id: &str, amount: f64) -> Result<Session> {
    if !amount.is_finite() || amount < 0.0 {
        return Err(Error::invalid(
            "invalid_field",
            "amount",
            "`amount` must be a number, 0 or more",
        ));
    }
    let mut session = ctx.session(session_id)?;
    session.budget = Some(amount);
    let budget = match session.usage.spent() {
        Some((_, currency)) => money(amount, currency),
        None => amount.to_string(),
    };
    ctx.notice(
        &session.id,
        &format!("The session's budget is now {budget}."),
    )?;
    ctx.tx.put_session(&session)?;
    Ok(session)
}

/// An amount as a person types it (the CLI, the dashboard's form): a number, 0 or more.
pub fn parse_amount(text: &str) -> std::result::Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(amount) if amount.is_finite() && amount >= 0.0 => Ok(amount),
        _ => Err(format!("{text:?} is not an amount: write 5, 12.50 or 0")),
    }
}

/// An amount as people read it: `0.0184 USD`.
pub fn money(amount: f64, currency: &str) -> String {
    let digits = if amount != 0.0 && amount.abs() < 1.0 {
        4
    } else {
        2
    };
    format!("{amount:.digits$} {currency}")
}
