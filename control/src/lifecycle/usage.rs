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

/// Most currencies an agent's sessions may spend in a day: each is a series of `/metrics` and
/// a line of the views, and an agent reports one. A cost in another is left out (the rest of
/// the report counts): refusing the report would fail the run.
const MAX_CURRENCIES: usize = 4;

/// A run's usage report: added to the run, its session and its agent's day; then the session's
/// budget and the agent's daily one are held.
pub fn report(
    ctx: &mut Ctx,
    session: &mut Session,
    run: &mut Run,
    report: &UsageReport,
) -> Result<()> {
    let today = day_of(ctx.now);
    let mut day = ctx.tx.day_usage(Spender::Agent, &session.agent, &today)?;
    let mut report = report.clone();
    if let Some(cost) = &report.cost
        && !day.usage.cost.contains_key(&cost.currency)
        && day.usage.cost.len() >= MAX_CURRENCIES
    {
        tracing::warn!(session = %session.id, "a cost in a currency past the agent's {MAX_CURRENCIES} of the day is left out");
        report.cost = None;
    }
    run.usage.add(&report);
    ctx.tx.put_run(run)?;
    session.usage.add(&report);
    day.usage.add(&report);
    ctx.tx.put_day_usage(Spender::Agent, &day)?;
    // The agent's row first, then the runner's: every report locks them in that order.
    let mut runner = None;
    if let Some(runner_id) = &run.runner_id {
        let mut runner_day = ctx.tx.day_usage(Spender::Runner, runner_id, &today)?;
        runner_day.usage.add(&report);
        ctx.tx.put_day_usage(Spender::Runner, &runner_day)?;
        runner = ctx.tx.runner(runner_id)?.map(|r| r.name);
    }
    ctx.tx.note(Event::Used {
        agent: session.agent.clone(),
        runner,
        tokens: report.tokens,
        cost: report.cost,
    });
    let agent = ctx.agent(&session.agent.clone())?;
    let budget = budget_of(session, &agent);
    if let Some((spent, currency)) = over(&session.usage, budget) {
        let what = format!(
            "The session spent {} of its budget of {}",
            money(spent, &currency),
            money(budget.unwrap_or_default(), &currency)
        );
        let raise = format!("blaise session budget {} AMOUNT", session.id);
        return stop_past_budget(ctx, session, run, &what, &raise);
    }
    if let Some((spent, currency)) = over(&day.usage, agent.settings.daily_budget) {
        // Work under way stops too: a long turn or queued messages would spend on.
        let what = format!(
            "Agent {}'s sessions spent {} of its daily budget of {} today",
            agent.name,
            money(spent, &currency),
            money(agent.settings.daily_budget.unwrap_or_default(), &currency)
        );
        let raise = format!("blaise agent set {} --daily-budget AMOUNT", agent.name);
        return stop_past_budget(ctx, session, run, &what, &raise);
    }
    Ok(())
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

/// A session past a budget (`what` says which and how far): its run is stopped (the
/// environment kept where its plugs can resume, the session paused) and the transcript says
/// so.
fn stop_past_budget(
    ctx: &mut Ctx,
    session: &mut Session,
    run: &mut Run,
    what: &str,
    raise: &str,
) -> Result<()> {
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
            "{what}: Blaise stopped the session, and {environment}. Raise the budget to go on (`{raise}`)."
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
    if let Some((spent, currency)) = over(&today_of(ctx, &agent.name)?, Some(daily)) {
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

/// What `agent`'s sessions used today (UTC), read without taking the day's row (on
/// PostgreSQL a usage report locks it: a check or a page must not queue behind one).
pub fn today_of(ctx: &mut Ctx, agent: &str) -> Result<Usage> {
    let today = day_of(ctx.now);
    Ok(ctx
        .tx
        .day_usages(Spender::Agent, &today)?
        .into_iter()
        .find(|u| u.of == agent && u.day == today)
        .map(|u| u.usage)
        .unwrap_or_default())
}

/// An admin raises (or sets) a session's budget: it may take messages again if it is now under
/// it. Said in the transcript, with who set it.
pub fn set_budget(ctx: &mut Ctx, by: &Actor, session_id: &str, amount: f64) -> Result<Session> {
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
        &format!("The session's budget is now {budget} (set by {}).", by.who),
    )?;
    ctx.tx.put_session(&session)?;
    super::audit::record(
        ctx,
        by,
        super::audit::Change::session(AuditAction::SessionBudget, session_id).saying(budget),
    )?;
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
