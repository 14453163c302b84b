//! The real ACP agents of the interop tests, from the npm registry at the
//! versions `scripts/agents-npm` pins (`scripts/agents` installs them into
//! `target/agents`), and their `blaise.yml` as `docs/agents.md` shows it.
//!
//! Their model APIs cannot be reached from here: each config is pointed at
//! the stand-in ([`crate::model_api`]) by the least rewrite — one variable,
//! or for Codex a model provider on its command line — and the rest is as
//! documented.

use std::path::PathBuf;
use std::sync::OnceLock;

use crate::root;

/// One of the three agents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RealAgent {
    Claude,
    Codex,
    Gemini,
}

impl RealAgent {
    /// A runner of `stage` that can start this agent: the agents' `PATH`, and an API key of
    /// its own (`<name>-key-Zq81bV0tTestKey`: what a test looks for where it must not be).
    pub fn runner(
        self,
        stage: &crate::blaise::Stage,
        installed: &Installed,
    ) -> crate::blaise::Runner {
        stage.runner_with_env(
            "box-1",
            &[
                ("PATH", installed.path.as_str()),
                (self.key_variable(), self.key().as_str()),
            ],
        )
    }

    /// The API key its runner gives it.
    pub fn key(self) -> String {
        format!("{}-key-Zq81bV0tTestKey", self.name())
    }

    /// Its name in Blaise and in `docs/agents.md`.
    pub fn name(self) -> &'static str {
        match self {
            RealAgent::Claude => "claude",
            RealAgent::Codex => "codex",
            RealAgent::Gemini => "gemini",
        }
    }

    /// The variable its API key comes from (by source, in the runner's environment).
    pub fn key_variable(self) -> &'static str {
        match self {
            RealAgent::Claude => "ANTHROPIC_API_KEY",
            RealAgent::Codex => "OPENAI_API_KEY",
            RealAgent::Gemini => "GEMINI_API_KEY",
        }
    }

    /// `docs/agents.md`'s `blaise.yml` for this agent, pointed at the
    /// stand-in at `model_url`, with `plugs` (YAML list items) as its plugs.
    pub fn config(self, model_url: &str, plugs: &str) -> String {
        let mut config: serde_yaml::Value =
            serde_yaml::from_str(&doc_config(self.name())).expect("the documented blaise.yml");
        let agent = &mut config["agent"];
        let set = |agent: &mut serde_yaml::Value, name: &str, value: String| {
            agent["env"]
                .as_mapping_mut()
                .expect("agent.env")
                .insert(name.into(), value.into());
        };
        match self {
            RealAgent::Claude => set(agent, "ANTHROPIC_BASE_URL", model_url.to_owned()),
            RealAgent::Gemini => set(agent, "GOOGLE_GEMINI_BASE_URL", model_url.to_owned()),
            RealAgent::Codex => {
                let command = agent["command"].as_sequence_mut().expect("agent.command");
                for word in [
                    "-c".to_owned(),
                    "model_provider=\"standin\"".to_owned(),
                    "-c".to_owned(),
                    format!(
                        "model_providers.standin={{name=\"stand-in\", base_url=\"{model_url}/v1\", wire_api=\"responses\", env_key=\"OPENAI_API_KEY\"}}"
                    ),
                ] {
                    command.push(word.into());
                }
            }
        }
        if let Some(map) = config.as_mapping_mut() {
            map.remove("plugs");
        }
        format!("{}plugs:\n{plugs}", serde_yaml::to_string(&config).unwrap())
    }
}

/// The rows of a benchmark: the script agent, the three agents, and Claude
/// Code in the sandbox behind an allow list as `docs/agents.md` runs it
/// (where bubblewrap is installed): (agent, in the sandbox, its name).
pub fn bench_rows() -> Vec<(Option<RealAgent>, bool, String)> {
    let mut rows: Vec<(Option<RealAgent>, bool)> = vec![(None, false)];
    rows.extend([RealAgent::Claude, RealAgent::Codex, RealAgent::Gemini].map(|a| (Some(a), false)));
    if crate::tools::have(&["bwrap"]) {
        rows.push((Some(RealAgent::Claude), true));
    }
    rows.into_iter()
        .map(|(agent, sandboxed)| {
            let name = match (agent, sandboxed) {
                (None, _) => "script agent".to_string(),
                (Some(agent), false) => agent.name().to_string(),
                (Some(agent), true) => format!("{}, sandbox", agent.name()),
            };
            (agent, sandboxed, name)
        })
        .collect()
}

/// The runner of a benchmark: `blaise.yml` for `agent` (the script agent
/// when none) with no plugs, or in the sandbox behind an allow list for its
/// model; the agents' `PATH`, and the agent's API key.
pub fn bench_runner(
    stage: &crate::blaise::Stage,
    model_url: &str,
    agent: Option<RealAgent>,
    sandboxed: bool,
    installed: &Installed,
) -> crate::blaise::Runner {
    let config = match agent {
        Some(agent) if sandboxed => {
            agent.config(model_url, &sandboxed_plugs(model_url, installed, ""))
        }
        Some(agent) => agent.config(model_url, "  []\n"),
        None => format!(
            "agent:\n  name: script\n  command: [{}]\nplugs: []\n",
            serde_json::to_string(&crate::blaise::script_agent()).unwrap()
        ),
    };
    std::fs::write(&stage.config, config).unwrap();
    let name = agent.map_or("script", RealAgent::name);
    let key = format!("{name}-bench-key-0123456789");
    let mut env = vec![("PATH", installed.path.as_str())];
    if let Some(agent) = agent {
        env.push((agent.key_variable(), key.as_str()));
    }
    stage.runner_with_env("bench", &env)
}

/// The `blaise.yml` block of `docs/agents.md` whose agent is `name`.
pub fn doc_config(name: &str) -> String {
    let doc = std::fs::read_to_string(root().join("docs/agents.md")).expect("docs/agents.md");
    let mut blocks = doc.split("```yaml\n").skip(1);
    blocks
        .find_map(|block| {
            let block = block.split("```").next()?;
            block
                .lines()
                .any(|l| l.trim() == format!("name: {name}"))
                .then(|| block.to_owned())
        })
        .unwrap_or_else(|| panic!("docs/agents.md has no blaise.yml for `{name}`"))
}

/// Where the agents are installed, and the `PATH` a runner needs to start
/// them (their `.bin` and node's directory before the system's).
#[derive(Debug, Clone)]
pub struct Installed {
    pub bin: PathBuf,
    pub path: String,
    /// The directory node is in.
    pub node_dir: String,
}

/// The agents, installed by `scripts/agents` once per test process; `None`
/// (the test says SKIPPED) where node or npm is missing, unless
/// `BLAISE_REQUIRE_TOOLS` is set: then that fails the test.
pub fn installed() -> Option<Installed> {
    static INSTALLED: OnceLock<Result<Installed, String>> = OnceLock::new();
    let result = INSTALLED.get_or_init(|| {
        let out = std::process::Command::new(root().join("scripts/agents"))
            .current_dir(root())
            .output()
            .map_err(|e| format!("scripts/agents: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "scripts/agents failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let bin = root().join("target/agents/node_modules/.bin");
        let node = which("node")
            .and_then(|n| n.canonicalize().ok())
            .ok_or("node is not on PATH")?;
        let node_dir = node.parent().unwrap().display().to_string();
        Ok(Installed {
            path: format!("{}:{node_dir}:/usr/local/bin:/usr/bin:/bin", bin.display()),
            bin,
            node_dir,
        })
    });
    match result {
        Ok(installed) => Some(installed.clone()),
        Err(why) => {
            if std::env::var_os("BLAISE_REQUIRE_TOOLS").is_some_and(|v| v != "0") {
                panic!("the real agents are missing (BLAISE_REQUIRE_TOOLS is set): {why}");
            }
            eprintln!(
                "SKIPPED: needs the real agents from npm ({why}); `bash .ci/run` installs them"
            );
            None
        }
    }
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(program))
            .find(|candidate| candidate.is_file())
    })
}

/// The sandbox plug before `plugs`: where npm put the agents, and node,
/// read-only; the model's API (`model_url`, on this machine's loopback, by
/// address) its only destination, as `docs/agents.md` shows with the real
/// one's name.
pub fn sandboxed_plugs(model_url: &str, installed: &Installed, plugs: &str) -> String {
    let model_addr = model_url
        .trim_start_matches("http://")
        .trim_end_matches('/');
    format!(
        "  - id: sandbox\n    source: {}\n    with: {{ network: {{ allow: [\"{model_addr}\"] }}, read_only: [{}, {}] }}\n    allow: {{ exec: [bwrap, blaise-egress], storage: true }}\n{plugs}",
        crate::plug("plugs/sandbox").display(),
        installed.bin.parent().unwrap().parent().unwrap().display(),
        installed.node_dir,
    )
}
