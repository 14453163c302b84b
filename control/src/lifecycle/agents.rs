//! An agent's settings, the only place timing lives: created or changed by `blaise agent set`,
//! the API and the dashboard alike.

use serde::{Deserialize, Serialize};

use super::Ctx;
use crate::error::{Error, Result};
use crate::model::*;
use crate::names::{check_labels, check_name};

/// Most agents a runner instance may be asked to keep started ahead: each
/// holds a process tree's memory (Claude Code's is about 300 MiB).
pub const MAX_WARM_AGENTS: u32 = 16;

/// Fields left out keep their value (or the default, for a new agent).
#[derive(Deserialize, Serialize, Default, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct AgentPatch {
    pub inactivity_ms: Option<Millis>,
    pub idle_policy: Option<IdlePolicy>,
    pub paused_lifetime_ms: Option<Millis>,
    pub timeout_ms: Option<Millis>,
    pub disabled: Option<bool>,
    /// Labels a runner must have to take this agent's runs (`[]` requires none).
    pub requires_labels: Option<Vec<String>>,
    /// How long a paused session's agent stays kept, frozen, by its runner
    /// instance (hot resume); `0`: never.
    pub hot_for_ms: Option<Millis>,
    /// How many agents each runner instance serving it keeps started ahead
    /// (warm starts); `0`: none.
    pub warm_agents: Option<u32>,
    /// How long the agent may take to start (`initialize`, then its conversation).
    pub start_timeout_ms: Option<Millis>,
    /// How long a cancelled turn may go on before the run stops the agent.
    pub cancel_grace_ms: Option<Millis>,
    /// How long a turn may go without output before Blaise cancels it.
    pub silent_turn_ms: Option<Millis>,
    /// Turns that may fail in a row before Blaise pauses the session.
    pub max_failed_turns: Option<u32>,
    /// What a session may spend, or `"none"`.
    pub session_budget: Option<Budget>,
    /// What the agent's sessions may spend in a day (UTC), or `"none"`.
    pub daily_budget: Option<Budget>,
}

/// A budget as a patch sets it: an amount (in the currency the agent reports), or `"none"`.
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq)]
#[serde(untagged)]
pub enum Budget {
    Amount(f64),
    Off(NoBudget),
}

#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NoBudget {
    None,
}

impl Budget {
    fn setting(self) -> Option<f64> {
        match self {
            Budget::Amount(amount) => Some(amount),
            Budget::Off(_) => None,
        }
    }
}

impl AgentPatch {
    /// Refuses a patch no agent may have, naming the field.
    pub fn check(&self) -> Result<()> {
        for (field, value) in [
            ("inactivity_ms", self.inactivity_ms),
            ("paused_lifetime_ms", self.paused_lifetime_ms),
            ("timeout_ms", self.timeout_ms),
            ("start_timeout_ms", self.start_timeout_ms),
            ("cancel_grace_ms", self.cancel_grace_ms),
            ("silent_turn_ms", self.silent_turn_ms),
        ] {
            if value.is_some_and(|v| v <= 0) {
                return Err(Error::invalid(
                    "invalid_field",
                    field,
                    format!("`{field}` must be positive"),
                ));
            }
        }
        if self.hot_for_ms.is_some_and(|v| v < 0) {
            return Err(Error::invalid(
                "invalid_field",
                "hot_for_ms",
                "`hot_for_ms` must be 0 (never) or positive",
            ));
        }
        if let Some(n) = self.warm_agents
            && n > MAX_WARM_AGENTS
        {
            return Err(Error::invalid(
                "invalid_field",
                "warm_agents",
                format!("`warm_agents` must be 0 to {MAX_WARM_AGENTS}, not {n}"),
            ));
        }
        for (field, budget) in [
            ("session_budget", self.session_budget),
            ("daily_budget", self.daily_budget),
        ] {
            if let Some(Budget::Amount(amount)) = budget
                && (!amount.is_finite() || amount < 0.0)
            {
                return Err(Error::invalid(
                    "invalid_field",
                    field,
                    format!("`{field}` must be an amount, 0 or more, or \"none\""),
                ));
            }
        }
        if self.max_failed_turns == Some(0) {
            return Err(Error::invalid(
                "invalid_field",
                "max_failed_turns",
                "`max_failed_turns` must be at least 1",
            ));
        }
        if let Some(labels) = &self.requires_labels {
            check_labels("requires_labels", labels)?;
        }
        Ok(())
    }
}

/// Creates agent `name` or changes its settings; recorded with what changed.
pub fn set(ctx: &mut Ctx, by: &Actor, name: &str, patch: &AgentPatch) -> Result<Agent> {
    check_name("name", name)?;
    patch.check()?;
    let before = ctx.tx.agent(name)?;
    let mut agent = before.clone().unwrap_or_else(|| Agent {
        name: name.to_string(),
        settings: AgentSettings::default(),
        disabled: false,
        updated_at: ctx.now,
    });
    let s = &mut agent.settings;
    s.inactivity_ms = patch.inactivity_ms.unwrap_or(s.inactivity_ms);
    s.idle_policy = patch.idle_policy.unwrap_or(s.idle_policy);
    s.paused_lifetime_ms = patch.paused_lifetime_ms.unwrap_or(s.paused_lifetime_ms);
    s.timeout_ms = patch.timeout_ms.unwrap_or(s.timeout_ms);
    s.hot_for_ms = patch.hot_for_ms.unwrap_or(s.hot_for_ms);
    s.warm_agents = patch.warm_agents.unwrap_or(s.warm_agents);
    s.start_timeout_ms = patch.start_timeout_ms.unwrap_or(s.start_timeout_ms);
    s.cancel_grace_ms = patch.cancel_grace_ms.unwrap_or(s.cancel_grace_ms);
    s.silent_turn_ms = patch.silent_turn_ms.unwrap_or(s.silent_turn_ms);
    s.max_failed_turns = patch.max_failed_turns.unwrap_or(s.max_failed_turns);
    if let Some(budget) = patch.session_budget {
        s.session_budget = budget.setting();
    }
    if let Some(budget) = patch.daily_budget {
        s.daily_budget = budget.setting();
    }
    if let Some(labels) = &patch.requires_labels {
        let mut labels = labels.clone();
        labels.sort();
        labels.dedup();
        s.requires_labels = labels;
    }
    agent.disabled = patch.disabled.unwrap_or(agent.disabled);
    agent.updated_at = ctx.now;
    ctx.tx.put_agent(&agent)?;
    let detail = match &before {
        None => "created".to_owned(),
        Some(before) => changes(before, &agent),
    };
    super::audit::record(
        ctx,
        by,
        super::audit::Change::of(AuditAction::AgentSet, name).saying(detail),
    )?;
    Ok(agent)
}

/// What differs between two versions of an agent, setting by setting: `timeout_ms 60000 → 5000`.
fn changes(before: &Agent, after: &Agent) -> String {
    let flat = |a: &Agent| {
        let mut map = match serde_json::to_value(&a.settings) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        map.insert("disabled".into(), a.disabled.into());
        map
    };
    let (old, new) = (flat(before), flat(after));
    let mut keys: Vec<&String> = old.keys().chain(new.keys()).collect();
    keys.sort();
    keys.dedup();
    let null = serde_json::Value::Null;
    let changed: Vec<String> = keys
        .into_iter()
        .filter_map(|k| {
            let (o, n) = (old.get(k).unwrap_or(&null), new.get(k).unwrap_or(&null));
            (o != n).then(|| format!("{k} {o} → {n}"))
        })
        .collect();
    if changed.is_empty() {
        "no change".to_owned()
    } else {
        changed.join(", ")
    }
}
