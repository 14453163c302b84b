use crate::{Needs, PlugInfo};

impl PlugInfo {
    /// Starts describing a plug: stateless, cannot resume, no config, asks
    /// for nothing. The hooks are filled in from the `impl` by
    /// `#[blaise_plug::plug]`.
    pub fn builder(name: &str, version: &str) -> PlugInfoBuilder {
        PlugInfoBuilder(PlugInfo {
            name: name.into(),
            version: version.into(),
            description: String::new(),
            stateful: false,
            can_resume: false,
            keeps_processes: false,
            hooks: Vec::new(),
            filters_transcript: false,
            config_schema: r#"{"type":"object","additionalProperties":false}"#.into(),
            needs: Needs {
                exec: Vec::new(),
                http: Vec::new(),
                secrets: Vec::new(),
                storage: false,
            },
        })
    }
}

/// Builds a [`PlugInfo`].
pub struct PlugInfoBuilder(PlugInfo);

impl PlugInfoBuilder {
    pub fn description(mut self, text: &str) -> Self {
        self.0.description = text.into();
        self
    }
    pub fn stateful(mut self, yes: bool) -> Self {
        self.0.stateful = yes;
        self
    }
    pub fn can_resume(mut self, yes: bool) -> Self {
        self.0.can_resume = yes;
        self
    }
    /// The plug honours a hot pause: told `PauseInfo::keep_processes`, its
    /// `on_pause` keeps alive (frozen where it can) what runs the agent, and
    /// its `on_resume` re-attaches when `Context::processes_kept` says the
    /// agent lives on. Leave it unset if the pause stops what runs the agent
    /// and you do not handle `keep_processes`: the session then always
    /// resumes cold, which is always correct.
    pub fn keeps_processes(mut self, yes: bool) -> Self {
        self.0.keeps_processes = yes;
        self
    }
    /// The `with:` config is a `C`: its JSON Schema, derived from the type
    /// (`#[derive(schemars::JsonSchema)]`; doc comments become descriptions,
    /// `#[serde(deny_unknown_fields)]` refuses unknown keys), is what the
    /// runner checks `with:` against before any hook runs. Without it the
    /// plug takes no config (`with:` must be absent or `{}`).
    pub fn config<C: schemars::JsonSchema>(mut self) -> Self {
        let schema = schemars::SchemaGenerator::default().into_root_schema_for::<C>();
        self.0.config_schema = serde_json::to_string(&schema).expect("a JSON Schema is JSON");
        self
    }
    /// Programs the plug asks to run.
    pub fn exec(mut self, programs: &[&str]) -> Self {
        self.0.needs.exec = programs.iter().map(|s| s.to_string()).collect();
        self
    }
    /// Hosts the plug asks to reach over HTTP.
    pub fn http(mut self, hosts: &[&str]) -> Self {
        self.0.needs.http = hosts.iter().map(|s| s.to_string()).collect();
        self
    }
    /// Secrets the plug asks to read (the operator says where each comes from).
    pub fn secrets(mut self, names: &[&str]) -> Self {
        self.0.needs.secrets = names.iter().map(|s| s.to_string()).collect();
        self
    }
    /// Asks for a storage directory of the plug's own (`Context::storage`).
    pub fn storage(mut self, yes: bool) -> Self {
        self.0.needs.storage = yes;
        self
    }
    pub fn build(self) -> PlugInfo {
        self.0
    }
}
