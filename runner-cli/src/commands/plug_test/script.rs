//! What `plug test` runs: the plug's config, grants and limits, and the
//! lifecycle steps, from a YAML script or, one JSON line at a time, from the
//! SDK's harness.
//!
//! ```yaml
//! with: { greeting: hi }            # the plug's `with:`, as in blaise.yml
//! allow: { exec: [git] }            # its grants, as in blaise.yml
//! limits: { hook_deadline: 5s }     # as in blaise.yml
//! steps:
//!   - start
//!   - filter: ["a chunk of the agent's message", { text: "…", kind: tool-output }]
//!   - pause: { may_resume: true }
//!   - resume
//!   - pause: { keep_processes: true }   # a hot pause: the next resume is told processes were kept
//!   - resume
//!   - teardown
//!   - start: { expect_error: "greeting" }   # this step must fail, saying this
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;

use blaise_runner::config::LimitOverrides;
use blaise_runner::host::Allow;

/// A whole script.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    #[serde(default)]
    pub with: Option<Value>,
    #[serde(default)]
    pub allow: Allow,
    #[serde(default)]
    pub limits: LimitOverrides,
    /// The steps as written (see [`Step::read`]); the default lifecycle when absent.
    #[serde(default)]
    pub steps: Option<Vec<Value>>,
}

impl Script {
    pub fn setup(&self) -> Setup {
        Setup {
            with: self.with.clone(),
            allow: self.allow.clone(),
            limits: self.limits,
        }
    }
}

/// The plug's configuration in the test, as a plug entry of `blaise.yml` has it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    #[serde(default)]
    pub with: Option<Value>,
    #[serde(default)]
    pub allow: Allow,
    #[serde(default)]
    pub limits: LimitOverrides,
}

/// One step of the lifecycle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    /// A start run: a fresh instance, `on-start`.
    Start {
        #[serde(default)]
        expect_error: Option<String>,
    },
    /// A resume run: a fresh instance, `on-resume`.
    Resume {
        #[serde(default)]
        expect_error: Option<String>,
    },
    /// `on-pause` in the current run.
    Pause {
        #[serde(default = "idle")]
        reason: String,
        #[serde(default = "yes")]
        may_resume: bool,
        /// A hot pause (`pause-info.keep-processes`); the next resume is told
        /// `processes-kept`.
        #[serde(default)]
        keep_processes: bool,
        #[serde(default)]
        expect_error: Option<String>,
    },
    /// `on-teardown`: right after a pause in the same run, else in a teardown run.
    Teardown {
        #[serde(default = "closed")]
        reason: String,
        #[serde(default)]
        expect_error: Option<String>,
    },
    /// A preparation ahead of the sessions: a fresh instance with no
    /// session, `on-prepare`, in a scratch workspace of its own.
    Prepare {
        #[serde(default)]
        expect_error: Option<String>,
    },
    /// Entries through the plug's transcript filter, in one call.
    Filter {
        entries: Vec<Entry>,
        #[serde(default)]
        expect_error: Option<String>,
    },
}

fn idle() -> String {
    "idle".into()
}
fn closed() -> String {
    "closed".into()
}
fn yes() -> bool {
    true
}

/// A transcript entry: its text alone (one whole agent message), or in full.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Entry {
    Text(String),
    Full {
        text: String,
        #[serde(default = "agent_message")]
        kind: String,
        #[serde(default = "stream")]
        stream: String,
        #[serde(default = "yes")]
        last: bool,
        #[serde(default)]
        replay: bool,
    },
}

fn agent_message() -> String {
    "agent-message".into()
}
fn stream() -> String {
    "s1".into()
}

impl Step {
    pub const NAMES: &str = "start, resume, pause, teardown, filter, prepare";

    /// A step as a script writes it: `start`, `pause: { may_resume: false }`,
    /// `filter: [text, …]`, or the harness's `{ step: pause, … }`.
    pub fn read(written: &Value) -> Result<Step, String> {
        let tagged = match written {
            Value::String(name) => serde_json::json!({ "step": name }),
            Value::Object(map) if map.contains_key("step") => written.clone(),
            Value::Object(map) if map.len() == 1 => {
                let (name, options) = map.iter().next().expect("one key");
                let mut tagged = match options {
                    Value::Object(options) => options.clone(),
                    Value::Null => Default::default(),
                    Value::Array(entries) if name == "filter" => serde_json::Map::from_iter([(
                        "entries".into(),
                        Value::Array(entries.clone()),
                    )]),
                    _ => return Err(format!("the options of `{name}` must be a mapping")),
                };
                tagged.insert("step".into(), Value::String(name.clone()));
                Value::Object(tagged)
            }
            _ => {
                return Err(format!(
                    "a step is a name ({}) or a mapping with one of them as its only key",
                    Step::NAMES
                ));
            }
        };
        let name = tagged["step"].as_str().unwrap_or_default().to_owned();
        serde_json::from_value(tagged).map_err(|e| {
            if e.to_string().starts_with("unknown variant") {
                format!("unknown step `{name}`: the steps are {}", Step::NAMES)
            } else {
                format!("`{name}`: {e}")
            }
        })
    }

    /// The lifecycle run when a script names no steps: a start, a filter when
    /// the plug has one, a pause that may resume, a resume, a pause that may
    /// not and the teardown right after it.
    pub fn default_lifecycle(filters: bool) -> Vec<Step> {
        let mut steps = vec![Step::Start { expect_error: None }];
        if filters {
            steps.push(Step::Filter {
                entries: vec![Entry::Text(
                    "Done: the tests pass. The token was ghp_0123456789abcdefABCDEF0123456789abcd."
                        .into(),
                )],
                expect_error: None,
            });
        }
        steps.extend([
            Step::Pause {
                reason: idle(),
                may_resume: true,
                keep_processes: false,
                expect_error: None,
            },
            Step::Resume { expect_error: None },
            Step::Pause {
                reason: closed(),
                may_resume: false,
                keep_processes: false,
                expect_error: None,
            },
            Step::Teardown {
                reason: closed(),
                expect_error: None,
            },
        ]);
        steps
    }

    pub fn name(&self) -> &'static str {
        match self {
            Step::Start { .. } => "start",
            Step::Resume { .. } => "resume",
            Step::Pause { .. } => "pause",
            Step::Teardown { .. } => "teardown",
            Step::Filter { .. } => "filter",
            Step::Prepare { .. } => "prepare",
        }
    }

    pub fn expect_error(&self) -> Option<&str> {
        match self {
            Step::Start { expect_error }
            | Step::Resume { expect_error }
            | Step::Pause { expect_error, .. }
            | Step::Teardown { expect_error, .. }
            | Step::Filter { expect_error, .. }
            | Step::Prepare { expect_error } => expect_error.as_deref(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn steps_are_read_in_every_written_shape() {
        assert_eq!(
            Step::read(&json!("start")).unwrap(),
            Step::Start { expect_error: None }
        );
        assert_eq!(
            Step::read(&json!({ "pause": { "may_resume": false } })).unwrap(),
            Step::Pause {
                reason: "idle".into(),
                may_resume: false,
                keep_processes: false,
                expect_error: None
            }
        );
        assert_eq!(
            Step::read(&json!({ "filter": ["a", { "text": "b", "kind": "tool-output" }] }))
                .unwrap(),
            Step::Filter {
                entries: vec![
                    Entry::Text("a".into()),
                    Entry::Full {
                        text: "b".into(),
                        kind: "tool-output".into(),
                        stream: "s1".into(),
                        last: true,
                        replay: false
                    }
                ],
                expect_error: None
            }
        );
        assert_eq!(
            Step::read(&json!("prepare")).unwrap(),
            Step::Prepare { expect_error: None }
        );
        assert_eq!(
            Step::read(&json!({ "step": "teardown", "reason": "expired" })).unwrap(),
            Step::Teardown {
                reason: "expired".into(),
                expect_error: None
            }
        );
    }

    #[test]
    fn a_bad_step_says_what_the_steps_are() {
        let err = Step::read(&json!("paws")).unwrap_err();
        assert!(
            err.contains("unknown step `paws`") && err.contains("teardown"),
            "{err}"
        );
        let err = Step::read(&json!({ "pause": { "maybe": true } })).unwrap_err();
        assert!(err.contains("`pause`") && err.contains("maybe"), "{err}");
        assert!(Step::read(&json!(3)).is_err());
    }
}
