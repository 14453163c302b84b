//! `blaise.yml`: parsing (`ConfigFile::parse`) and the checks that need no
//! plug file: grants against a plug's needs, limits, where errors point, and
//! the unit parsers.

use std::path::Path;
use std::time::Instant;

use arbitrary::{Arbitrary, Result, Unstructured};
use blaise_runner::config::ConfigFile;
use blaise_runner::distribution::{Digest, Source};
use blaise_runner::host::bindings::Needs;
use blaise_runner::host::engine::PlugEngine;
use blaise_runner::host::grants::{self, Allow};
use blaise_runner::units::{format_duration, format_size, parse_duration, parse_size};
use serde_json::Value;

use super::{Outcome, Target};
use crate::shapes::{Json, Word};

pub struct BlaiseYml;

impl Target for BlaiseYml {
    fn name(&self) -> &'static str {
        "blaise_yml"
    }

    fn generate(&mut self, u: &mut Unstructured) -> Result<Vec<u8>> {
        Ok(u.arbitrary::<File>()?.yaml().into_bytes())
    }

    fn run(&mut self, input: &[u8]) -> Outcome {
        run(input);
        Outcome::Ok
    }
}

/// The largest memory cap a runner here allows (the check `resolve` makes).
const MAX_MEMORY: u64 = 4 << 30;

pub fn run(input: &[u8]) {
    // `ConfigFile::load` refuses what is not UTF-8; the lossy text reaches
    // the parser anyway, since any text can be written to the file.
    let text = String::from_utf8_lossy(input).into_owned();
    for line in text.lines().take(256) {
        units(line);
        if let Some((_, value)) = line.split_once(':') {
            units(value);
        }
    }
    let file = match ConfigFile::parse(Path::new("/srv/runner/blaise.yml"), text) {
        Ok(file) => file,
        Err(error) => {
            let _ = error.to_string();
            return;
        }
    };
    let _ = (file.digest(), file.dir());
    let lines = file.text.lines().count() + 1;
    // The plug's needs come from the input too, so that runs repeat.
    let mut u = Unstructured::new(input);
    for (index, entry) in file.config.plugs.iter().enumerate() {
        let needs = needs(&mut u, &entry.allow).unwrap_or_else(|_| empty_needs());
        check_grants(&needs, &entry.allow);
        if let Some(memory) = entry.limits.memory {
            assert_eq!(parse_size(&format_size(memory)), Ok(memory));
            if memory > MAX_MEMORY {
                let _ = file.plug_error(index, "limits", format_size(memory));
            }
        }
        if let Some(deadline) = entry.limits.hook_deadline {
            assert_eq!(parse_duration(&format_duration(deadline)), Ok(deadline));
            // What a hook call does with it (`host/instance.rs`).
            assert!(
                Instant::now().checked_add(deadline).is_some(),
                "hook_deadline {deadline:?} cannot be added to now"
            );
            let _ = PlugEngine::ticks(deadline);
        }
        for key in [
            "id",
            "source",
            "digest",
            "signed_by",
            "with",
            "allow",
            "limits",
        ] {
            let error = file.plug_error(index, key, "checked".into());
            assert!(
                error.line <= lines,
                "{key} of plug {index} at line {}",
                error.line
            );
            assert!(error.message.contains(&entry.id));
        }
        let _ = Source::parse(&entry.source);
        if let Some(digest) = &entry.digest {
            let _ = Digest::parse(digest);
        }
        let with = entry
            .with
            .clone()
            .unwrap_or(Value::Object(Default::default()));
        let _ = with.to_string();
    }
}

/// A plug's needs: some of what the operator grants, some other words.
fn needs(u: &mut Unstructured, allow: &Allow) -> Result<Needs> {
    let secrets: Vec<String> = allow.secrets.keys().cloned().collect();
    let mut pick = |granted: &[String]| -> Result<Vec<String>> {
        let mut out = Vec::new();
        for _ in 0..u.int_in_range(0..=4u8)? {
            match (u.arbitrary::<bool>()?, granted.is_empty()) {
                (true, false) => out.push(u.choose(granted)?.to_ascii_uppercase()),
                (false, false) => out.push(u.choose(granted)?.clone()),
                _ => out.push(Word::arbitrary(u)?.0),
            }
        }
        Ok(out)
    };
    Ok(Needs {
        exec: pick(&allow.exec)?,
        http: pick(&allow.http)?,
        secrets: pick(&secrets)?,
        storage: u.arbitrary()?,
    })
}

fn empty_needs() -> Needs {
    Needs {
        exec: Vec::new(),
        http: Vec::new(),
        secrets: Vec::new(),
        storage: false,
    }
}

/// The effective grant is what both sides named, in the operator's spelling.
fn check_grants(needs: &Needs, allow: &Allow) {
    let report = grants::effective(needs, allow);
    let effective = &report.effective;
    for name in &effective.exec.names {
        assert!(
            allow.exec.contains(name) && needs.exec.contains(name),
            "{name}"
        );
        // An empty name can be granted (`exec: [""]`) but never runs anything.
        assert!(effective.exec.allows(name) || name.is_empty(), "{name}");
    }
    for host in &effective.http.0 {
        assert!(allow.http.contains(host));
        assert!(needs.http.iter().any(|h| h.eq_ignore_ascii_case(host)));
    }
    for (name, source) in &effective.secrets.0 {
        assert!(needs.secrets.contains(name));
        assert_eq!(allow.secrets.get(name), Some(source));
    }
    assert_eq!(effective.storage, needs.storage && allow.storage);
    for program in &needs.exec {
        let granted = effective.exec.program(program).is_ok();
        assert!(!granted || allow.exec.contains(program), "{program}");
    }
    for host in needs.http.iter().chain(&allow.http) {
        let (name, port) = match host.rsplit_once(':') {
            Some((name, port)) => (name, port.parse().unwrap_or(443)),
            None => (host.as_str(), 443),
        };
        if effective.http.allows(name, port) {
            assert!(!effective.http.0.is_empty());
        }
    }
}

/// The unit parsers against their arithmetic: a value they accept is the
/// value written, exactly.
fn units(text: &str) {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: Option<u128> = digits.parse().ok();
    if let Ok(duration) = parse_duration(text) {
        let per: u128 = match unit {
            "ms" => 1,
            "s" => 1_000,
            "m" => 60_000,
            _ => 3_600_000,
        };
        assert_eq!(
            Some(duration.as_millis()),
            n.map(|n| n * per),
            "parse_duration({text:?})"
        );
    }
    if let Ok(size) = parse_size(text) {
        let per: u128 = match unit.trim() {
            "KiB" => 1 << 10,
            "MiB" => 1 << 20,
            "GiB" => 1 << 30,
            _ => 1,
        };
        assert_eq!(
            Some(u128::from(size)),
            n.map(|n| n * per),
            "parse_size({text:?})"
        );
    }
}

/// The shape of `blaise.yml`, each part sometimes wrong.
#[derive(Debug, Arbitrary)]
struct File {
    /// Written as JSON (a YAML subset) instead of block YAML.
    as_json: bool,
    agent: Option<Agent>,
    plugs: Option<Vec<Plug>>,
    signed_by: Option<Vec<Word>>,
    extra: Option<(Word, Json)>,
}

#[derive(Debug, Arbitrary)]
struct Agent {
    name: Option<Word>,
    command: Option<Vec<Word>>,
    env: Option<Vec<(Word, Word)>>,
    timing: Option<(Timing, DurationText)>,
}

#[derive(Debug, Arbitrary)]
enum Timing {
    Inactivity,
    IdleTimeout,
    Timeout,
    PausedLifetime,
}

#[derive(Debug, Arbitrary)]
struct Plug {
    id: Option<Word>,
    source: Option<Word>,
    digest: Option<Word>,
    signed_by: Option<Vec<Word>>,
    with: Option<Json>,
    allow: Option<AllowShape>,
    limits: Option<Limits>,
    extra: Option<(Word, Json)>,
}

#[derive(Debug, Arbitrary)]
struct AllowShape {
    exec: Option<Vec<Word>>,
    http: Option<Vec<Word>>,
    secrets: Option<Vec<(Word, Secret)>>,
    storage: Option<Json>,
}

#[derive(Debug, Arbitrary)]
enum Secret {
    Env(Word),
    File(Word),
    Both(Word, Word),
    Neither,
    Other(Json),
}

#[derive(Debug, Arbitrary)]
struct Limits {
    memory: Option<Size>,
    hook_deadline: Option<DurationText>,
    timing: Option<(Timing, DurationText)>,
}

#[derive(Debug, Arbitrary)]
enum Size {
    Exact(u64, SizeUnit),
    Text(Word),
}

#[derive(Debug, Arbitrary)]
enum SizeUnit {
    None,
    B,
    KiB,
    MiB,
    GiB,
    Mb,
}

#[derive(Debug, Arbitrary)]
enum DurationText {
    Exact(u64, DurationUnit),
    Text(Word),
}

#[derive(Debug, Arbitrary)]
enum DurationUnit {
    Ms,
    S,
    M,
    H,
    D,
    None,
}

impl Timing {
    fn key(&self) -> &'static str {
        match self {
            Timing::Inactivity => "inactivity",
            Timing::IdleTimeout => "idle_timeout",
            Timing::Timeout => "timeout",
            Timing::PausedLifetime => "paused_lifetime",
        }
    }
}

impl Size {
    fn text(&self) -> String {
        match self {
            Size::Exact(n, unit) => {
                let unit = match unit {
                    SizeUnit::None => "",
                    SizeUnit::B => "B",
                    SizeUnit::KiB => "KiB",
                    SizeUnit::MiB => "MiB",
                    SizeUnit::GiB => "GiB",
                    SizeUnit::Mb => "MB",
                };
                format!("{n}{unit}")
            }
            Size::Text(w) => w.0.clone(),
        }
    }
}

impl DurationText {
    fn text(&self) -> String {
        match self {
            DurationText::Exact(n, unit) => {
                let unit = match unit {
                    DurationUnit::Ms => "ms",
                    DurationUnit::S => "s",
                    DurationUnit::M => "m",
                    DurationUnit::H => "h",
                    DurationUnit::D => "d",
                    DurationUnit::None => "",
                };
                format!("{n}{unit}")
            }
            DurationText::Text(w) => w.0.clone(),
        }
    }
}

fn words(items: &[Word]) -> Value {
    Value::Array(items.iter().map(Value::from).collect())
}

impl File {
    /// The file as a JSON value (rendered as YAML or JSON).
    fn value(&self) -> Value {
        let mut top = serde_json::Map::new();
        if let Some(agent) = &self.agent {
            let mut a = serde_json::Map::new();
            if let Some(name) = &agent.name {
                a.insert("name".into(), name.into());
            }
            if let Some(command) = &agent.command {
                a.insert("command".into(), words(command));
            }
            if let Some(env) = &agent.env {
                let env = env.iter().map(|(k, v)| (k.0.clone(), v.into())).collect();
                a.insert("env".into(), Value::Object(env));
            }
            if let Some((key, value)) = &agent.timing {
                a.insert(key.key().into(), value.text().into());
            }
            top.insert("agent".into(), Value::Object(a));
        }
        if let Some(plugs) = &self.plugs {
            top.insert(
                "plugs".into(),
                Value::Array(plugs.iter().map(Plug::value).collect()),
            );
        }
        if let Some(keys) = &self.signed_by {
            top.insert("signed_by".into(), words(keys));
        }
        if let Some((key, value)) = &self.extra {
            top.insert(key.0.clone(), value.0.clone());
        }
        Value::Object(top)
    }

    fn yaml(&self) -> String {
        let value = self.value();
        if self.as_json {
            return value.to_string();
        }
        let mut out = String::new();
        block(&mut out, &value, 0);
        out
    }
}

impl Plug {
    fn value(&self) -> Value {
        let mut p = serde_json::Map::new();
        let mut put = |key: &str, value: Option<Value>| {
            if let Some(value) = value {
                p.insert(key.into(), value);
            }
        };
        put("id", self.id.as_ref().map(Value::from));
        put("source", self.source.as_ref().map(Value::from));
        put("digest", self.digest.as_ref().map(Value::from));
        put("signed_by", self.signed_by.as_deref().map(words));
        put("with", self.with.as_ref().map(|j| j.0.clone()));
        put("allow", self.allow.as_ref().map(AllowShape::value));
        put("limits", self.limits.as_ref().map(Limits::value));
        if let Some((key, value)) = &self.extra {
            p.insert(key.0.clone(), value.0.clone());
        }
        Value::Object(p)
    }
}

impl AllowShape {
    fn value(&self) -> Value {
        let mut a = serde_json::Map::new();
        if let Some(exec) = &self.exec {
            a.insert("exec".into(), words(exec));
        }
        if let Some(http) = &self.http {
            a.insert("http".into(), words(http));
        }
        if let Some(secrets) = &self.secrets {
            let secrets = secrets
                .iter()
                .map(|(name, secret)| {
                    let source = match secret {
                        Secret::Env(v) => serde_json::json!({ "env": v.0 }),
                        Secret::File(f) => serde_json::json!({ "file": f.0 }),
                        Secret::Both(v, f) => serde_json::json!({ "env": v.0, "file": f.0 }),
                        Secret::Neither => serde_json::json!({}),
                        Secret::Other(j) => j.0.clone(),
                    };
                    (name.0.clone(), source)
                })
                .collect();
            a.insert("secrets".into(), Value::Object(secrets));
        }
        if let Some(storage) = &self.storage {
            a.insert("storage".into(), storage.0.clone());
        }
        Value::Object(a)
    }
}

impl Limits {
    fn value(&self) -> Value {
        let mut l = serde_json::Map::new();
        if let Some(memory) = &self.memory {
            l.insert("memory".into(), memory.text().into());
        }
        if let Some(deadline) = &self.hook_deadline {
            l.insert("hook_deadline".into(), deadline.text().into());
        }
        if let Some((key, value)) = &self.timing {
            l.insert(key.key().into(), value.text().into());
        }
        Value::Object(l)
    }
}

/// Block-style YAML for maps and lists; scalars as JSON (double-quoted
/// strings), which YAML reads the same.
fn block(out: &mut String, value: &Value, indent: usize) {
    let pad = " ".repeat(indent);
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, value) in map {
                out.push_str(&format!("{pad}{}:", scalar(&Value::String(key.clone()))));
                nested(out, value, indent);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for item in items {
                out.push_str(&format!("{pad}-"));
                match item {
                    Value::Object(map) if !map.is_empty() => {
                        // The first key on the dash's line, like people write it.
                        let mut first = true;
                        for (key, value) in map {
                            let key = scalar(&Value::String(key.clone()));
                            if first {
                                out.push_str(&format!(" {key}:"));
                                first = false;
                            } else {
                                out.push_str(&format!("{pad}  {key}:"));
                            }
                            nested(out, value, indent + 2);
                        }
                    }
                    _ => nested(out, item, indent),
                }
            }
        }
        other => out.push_str(&format!("{pad}{}\n", scalar(other))),
    }
}

fn nested(out: &mut String, value: &Value, indent: usize) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push('\n');
            block(out, value, indent + 2);
        }
        Value::Array(items) if !items.is_empty() => {
            out.push('\n');
            block(out, value, indent + 2);
        }
        other => out.push_str(&format!(" {}\n", scalar(other))),
    }
}

/// A scalar: plain for simple words (YAML reads some of them as numbers,
/// booleans or null, which the parser must refuse cleanly), else JSON.
fn scalar(value: &Value) -> String {
    match value {
        Value::String(s)
            if !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./@".contains(c))
                && !s.starts_with(['-', '.', '@']) =>
        {
            s.clone()
        }
        other => other.to_string(),
    }
}
