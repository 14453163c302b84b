//! What the client commands print for people: sessions, agents, runners and
//! environments as tables and records, times local with their age.

use std::io::Write;

use anyhow::Result;
use serde_json::Value;

use super::human::{duration, text, when};

type Out<'a> = &'a mut (dyn Write + Send);

fn list<'a>(v: &'a Value, key: &str) -> impl Iterator<Item = &'a Value> {
    v[key].as_array().into_iter().flatten()
}

fn strings(v: &Value) -> String {
    let items: Vec<&str> = v
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if items.is_empty() {
        "-".into()
    } else {
        super::human::printable(&items.join(","), false)
    }
}

pub fn sessions(sessions: &[Value], now: i64, out: Out) -> Result<()> {
    writeln!(
        out,
        "{:<22} {:<16} {:<15} {:<13} {:<28} LAST ACTIVITY",
        "ID", "AGENT", "STATE", "ENVIRONMENT", "CREATED"
    )?;
    for s in sessions {
        let state = match s["pending_permission_requests"].as_u64() {
            Some(1..) => "waiting for you".to_string(),
            _ => text(&s["state"]),
        };
        writeln!(
            out,
            "{:<22} {:<16} {:<15} {:<13} {:<28} {}",
            text(&s["id"]),
            text(&s["agent"]),
            state,
            text(&s["environment_state"]),
            when(&s["created_at"], now),
            when(&s["last_activity"], now),
        )?;
    }
    Ok(())
}

pub fn session(s: &Value, now: i64, out: Out) -> Result<()> {
    writeln!(
        out,
        "session {}  agent {}  state {}",
        text(&s["id"]),
        text(&s["agent"]),
        text(&s["state"])
    )?;
    match s["started_by"].as_str() {
        Some(_) => writeln!(
            out,
            "  created        {} by {}",
            when(&s["created_at"], now),
            text(&s["started_by"])
        )?,
        None => writeln!(out, "  created        {}", when(&s["created_at"], now))?,
    }
    writeln!(out, "  last activity  {}", when(&s["last_activity"], now))?;
    let source = &s["source"];
    if source.is_object() {
        let label = if source["label"].is_string() {
            &source["label"]
        } else {
            &source["thread"]
        };
        writeln!(
            out,
            "  from           {} {}",
            text(&source["name"]),
            text(label)
        )?;
        if source["url"].is_string() {
            writeln!(out, "                 {}", text(&source["url"]))?;
        }
    }
    if s["expires_at"].is_i64() {
        writeln!(out, "  ends if idle   {}", when(&s["expires_at"], now))?;
    }
    if s["starts_fresh"] == true {
        writeln!(out, "  {}", blaise_control::views::STARTS_FRESH)?;
    }
    if let Ok(turn) = serde_json::from_value::<blaise_control::views::TurnView>(s["turn"].clone()) {
        writeln!(out, "  turn           {}", turn.describe(now))?;
    } else if let Some(turns) = s["open_turns"].as_u64().filter(|n| *n > 0) {
        writeln!(out, "  turns open     {turns}")?;
    }
    usage(s, out)?;
    if s["end_reason"].is_string() {
        writeln!(out, "  ended: {}", text(&s["end_reason"]))?;
    }
    if s["pruned_at"].is_i64() {
        writeln!(out, "  transcript pruned {}", when(&s["pruned_at"], now))?;
    }
    if let Some(n) = s["waiting_messages"].as_u64().filter(|n| *n > 0) {
        writeln!(out, "  messages waiting for the agent: {n}")?;
    }
    let w = &s["waiting_for_runner"];
    if w.is_object() {
        writeln!(
            out,
            "  run {} waits for a runner: {}",
            text(&w["run_id"]),
            text(&w["reason"])
        )?;
        if w["fails_at"].is_i64() {
            writeln!(out, "    fails {}", when(&w["fails_at"], now))?;
        }
    }
    pending_permissions(s, now, out)?;
    answered_permissions(s, now, out)?;
    let e = &s["environment"];
    if e.is_object() {
        writeln!(
            out,
            "environment {}  state {}  runner {}",
            text(&e["id"]),
            text(&e["state"]),
            text(&e["runner"])
        )?;
        if e["last_error"].is_string() {
            writeln!(out, "  last error: {}", text(&e["last_error"]))?;
        }
        if e["next_teardown_at"].is_i64() {
            writeln!(
                out,
                "  next teardown try {} (attempt {})",
                when(&e["next_teardown_at"], now),
                e["teardown_attempts"].as_u64().unwrap_or(0) + 1
            )?;
        }
    }
    writeln!(out, "runs:")?;
    for r in list(s, "runs") {
        writeln!(
            out,
            "  {} {:<8} {:<10} runner {:<12} {}{}",
            text(&r["id"]),
            text(&r["kind"]),
            text(&r["status"]),
            text(&r["runner"]),
            when(&r["created_at"], now),
            if r["error"].is_string() {
                format!("  ({})", text(&r["error"]))
            } else {
                String::new()
            }
        )?;
        egress(&r["egress"], out)?;
    }
    let records: Vec<&Value> = list(s, "plug_records").collect();
    if !records.is_empty() {
        writeln!(out, "plug records:")?;
        for p in records {
            let owner = if p["owned"].as_bool() == Some(true) {
                "owned"
            } else {
                "owned by nothing"
            };
            writeln!(out, "  {}  {owner}", text(&p["plug_id"]))?;
        }
    }
    Ok(())
}

/// What left a run's agent through its egress policy, under the run.
fn egress(e: &Value, out: Out) -> Result<()> {
    if !e.is_object() {
        return Ok(());
    }
    let count = |v: &Value| v.as_u64().unwrap_or(0);
    for r in list(e, "reached") {
        let connections = count(&r["connections"]);
        writeln!(
            out,
            "    reached {}: {connections} connection{}, {} sent, {} received",
            text(&r["destination"]),
            if connections == 1 { "" } else { "s" },
            blaise_control::views::bytes(count(&r["sent"])),
            blaise_control::views::bytes(count(&r["received"]))
        )?;
    }
    let refused: Vec<String> = list(e, "refused").map(text).collect();
    if !refused.is_empty() {
        let more = match count(&e["refused_more"]) {
            0 => String::new(),
            n => format!(", and {n} more refusals of other destinations"),
        };
        writeln!(out, "    refused {}{more}", refused.join(", "))?;
    }
    Ok(())
}

pub fn agents(v: &Value, now: i64, out: Out) -> Result<()> {
    writeln!(
        out,
        "{:<16} {:<10} {:<7} {:<15} {:<8} {:<9} {:<16} UPDATED",
        "NAME", "INACTIVITY", "POLICY", "PAUSED LIFETIME", "TIMEOUT", "STATE", "REQUIRES LABELS"
    )?;
    for a in list(v, "agents") {
        agent_row(a, now, out)?;
    }
    Ok(())
}

fn agent_row(a: &Value, now: i64, out: Out) -> Result<()> {
    let s = &a["settings"];
    writeln!(
        out,
        "{:<16} {:<10} {:<7} {:<15} {:<8} {:<9} {:<16} {}",
        text(&a["name"]),
        duration(&s["inactivity_ms"]),
        text(&s["idle_policy"]),
        duration(&s["paused_lifetime_ms"]),
        duration(&s["timeout_ms"]),
        if a["disabled"].as_bool() == Some(true) {
            "disabled"
        } else {
            "enabled"
        },
        strings(&s["requires_labels"]),
        when(&a["updated_at"], now)
    )?;
    Ok(())
}

pub fn agent(a: &Value, now: i64, out: Out) -> Result<()> {
    let s = &a["settings"];
    writeln!(out, "agent {}", text(&a["name"]))?;
    writeln!(out, "  inactivity       {}", duration(&s["inactivity_ms"]))?;
    writeln!(out, "  idle policy      {}", text(&s["idle_policy"]))?;
    writeln!(
        out,
        "  paused lifetime  {}",
        duration(&s["paused_lifetime_ms"])
    )?;
    writeln!(out, "  turn timeout     {}", duration(&s["timeout_ms"]))?;
    writeln!(
        out,
        "  kept hot for     {}",
        match s["hot_for_ms"].as_i64() {
            Some(ms) if ms > 0 => duration(&s["hot_for_ms"]),
            _ => "- (every pause is cold)".to_string(),
        }
    )?;
    writeln!(
        out,
        "  warm agents      {}",
        match s["warm_agents"].as_u64() {
            Some(n) if n > 0 => format!("{n} on each runner instance"),
            _ => "- (every new session starts its agent)".to_string(),
        }
    )?;
    writeln!(
        out,
        "  start timeout    {}",
        duration(&s["start_timeout_ms"])
    )?;
    writeln!(
        out,
        "  cancel grace     {}",
        duration(&s["cancel_grace_ms"])
    )?;
    writeln!(out, "  silent turn      {}", duration(&s["silent_turn_ms"]))?;
    writeln!(
        out,
        "  failed turns     {} in a row pause the session",
        s["max_failed_turns"].as_u64().unwrap_or(0)
    )?;
    let budget = |v: &Value| v.as_f64().map_or("none".to_string(), |b| b.to_string());
    writeln!(out, "  session budget   {}", budget(&s["session_budget"]))?;
    writeln!(out, "  daily budget     {}", budget(&s["daily_budget"]))?;
    let today: blaise_control::model::Usage =
        serde_json::from_value(a["today"].clone()).unwrap_or_default();
    writeln!(
        out,
        "  today (UTC)      {}",
        super::human::printable(&blaise_control::views::spend_text(&today, None), false)
    )?;
    writeln!(out, "  requires labels  {}", strings(&s["requires_labels"]))?;
    writeln!(
        out,
        "  state            {}",
        if a["disabled"].as_bool() == Some(true) {
            "disabled: no new runs but teardowns"
        } else {
            "enabled"
        }
    )?;
    writeln!(out, "  updated          {}", when(&a["updated_at"], now))?;
    Ok(())
}

/// What a runner's token may serve, in words: `may serve agents web,docs; claim any label`.
pub fn scope(r: &Value) -> String {
    let agents = match r["agents"].as_array() {
        Some(_) => format!("agents {}", strings(&r["agents"])),
        None => "any agent".into(),
    };
    let labels = match r["labels"].as_array() {
        Some(l) if l.is_empty() => "no label".into(),
        Some(_) => format!("labels {}", strings(&r["labels"])),
        None => "any label".into(),
    };
    format!("may serve {agents}; claim {labels}")
}

pub fn runners(v: &Value, now: i64, out: Out) -> Result<()> {
    for r in list(v, "runners") {
        let state = if r["revoked_at"].is_i64() {
            format!("revoked {}", when(&r["revoked_at"], now))
        } else {
            format!("added {}", when(&r["created_at"], now))
        };
        writeln!(out, "runner {}  {state}  {}", text(&r["name"]), scope(r))?;
        let today: Option<blaise_control::model::Usage> =
            serde_json::from_value(r["today"].clone()).ok();
        writeln!(
            out,
            "  spent today (UTC): {}",
            super::human::printable(
                &blaise_control::views::day_text(today.as_ref(), None),
                false
            )
        )?;
        let instances: Vec<&Value> = list(r, "instances").collect();
        if instances.is_empty() {
            writeln!(out, "  no instance seen in the last week")?;
            continue;
        }
        writeln!(
            out,
            "  {:<20} {:<13} {:<10} {:<9} {:<16} {:<16} LAST SEEN",
            "INSTANCE", "STATE", "LIVE RUNS", "CAPACITY", "AGENTS", "LABELS"
        )?;
        for i in instances {
            writeln!(
                out,
                "  {:<20} {:<13} {:<10} {:<9} {:<16} {:<16} {}",
                text(&i["instance"]),
                if i["connected"].as_bool() == Some(true) {
                    "connected"
                } else {
                    "not connected"
                },
                i["live_runs"].as_u64().unwrap_or(0),
                i["capacity"]
                    .as_u64()
                    .map_or("no limit".to_string(), |c| c.to_string()),
                strings(&i["agents"]),
                strings(&i["labels"]),
                when(&i["last_seen"], now)
            )?;
        }
    }
    Ok(())
}

pub fn environments(v: &Value, now: i64, out: Out) -> Result<()> {
    writeln!(
        out,
        "{:<22} {:<13} {:<12} {:<22} NEXT TEARDOWN / LAST ERROR",
        "ID", "STATE", "RUNNER", "SESSION"
    )?;
    for e in list(v, "environments") {
        let mut tail = String::new();
        if e["next_teardown_at"].is_i64() {
            tail.push_str(&when(&e["next_teardown_at"], now));
        }
        if e["last_error"].is_string() {
            if !tail.is_empty() {
                tail.push_str("  ");
            }
            tail.push_str(&text(&e["last_error"]));
        }
        writeln!(
            out,
            "{:<22} {:<13} {:<12} {:<22} {}",
            text(&e["id"]),
            text(&e["state"]),
            text(&e["runner"]),
            text(&e["session_id"]),
            if tail.is_empty() { "-" } else { &tail }
        )?;
    }
    Ok(())
}

/// The permission requests of session view `s` that wait for an answer, each with its options
/// and the command that answers it; whether there were any.
/// The session's permission requests that wait for an answer.
pub fn pending(s: &Value) -> Vec<&Value> {
    list(s, "permission_requests")
        .filter(|p| p["state"] == "pending")
        .collect()
}

/// The permission requests answered, the latest five: what, the answer, who, through what,
/// when.
fn answered_permissions(s: &Value, now: i64, out: Out) -> Result<()> {
    let answered: Vec<&Value> = list(s, "permission_requests")
        .filter(|p| p["state"] == "answered")
        .collect();
    if answered.is_empty() {
        return Ok(());
    }
    writeln!(out, "permission requests answered:")?;
    for p in answered.iter().rev().take(5) {
        let who = match (p["answered_by"].as_str(), p["answered_via"].as_str()) {
            (Some(who), Some(via)) => {
                format!(" by {} through {via}", super::human::printable(who, false))
            }
            _ => String::new(),
        };
        let at = if p["answered_at"].is_i64() {
            format!(", {}", when(&p["answered_at"], now))
        } else {
            String::new()
        };
        writeln!(
            out,
            "  {}  {}  {}{who}{at}",
            text(&p["request_id"]),
            p["request"]["tool_call"]["title"].as_str().map_or_else(
                || "(no title)".into(),
                |t| super::human::printable(t, false)
            ),
            text(&p["answer"]),
        )?;
    }
    Ok(())
}

pub fn pending_permissions(s: &Value, now: i64, out: &mut (dyn Write + Send)) -> Result<bool> {
    let pending = pending(s);
    if pending.is_empty() {
        return Ok(false);
    }
    writeln!(out, "permission requests waiting for an answer:")?;
    for p in pending {
        let req = &p["request"];
        let call = &req["tool_call"];
        writeln!(
            out,
            "  {}  {}  asked {}",
            text(&p["request_id"]),
            call["title"].as_str().map_or_else(
                || "(no title)".into(),
                |t| super::human::printable(t, false)
            ),
            when(&p["created_at"], now)
        )?;
        if call["command"].is_string() {
            writeln!(out, "    $ {}", text(&call["command"]))?;
        }
        let options: Vec<String> = list(req, "options")
            .map(|o| format!("{} ({})", text(&o["option_id"]), text(&o["name"])))
            .collect();
        writeln!(out, "    options: {}", options.join(", "))?;
        writeln!(
            out,
            "    answer: blaise session answer {} {} <option>",
            text(&s["id"]),
            text(&p["request_id"])
        )?;
    }
    Ok(true)
}

/// A session's `usage` line: what its agent said it used, and its budget.
pub fn usage(s: &Value, out: Out) -> Result<()> {
    let used: blaise_control::model::Usage =
        serde_json::from_value(s["usage"].clone()).unwrap_or_default();
    writeln!(
        out,
        "  usage          {}",
        super::human::printable(
            &blaise_control::views::usage_text(&used, s["budget"].as_f64()),
            false
        )
    )?;
    Ok(())
}
