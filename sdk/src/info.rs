use crate::{Hook, Needs, PlugInfo};

impl PlugInfo {
    /// Starts describing a plug: stateless, cannot resume, no hooks, no
    /// config, asks for nothing.
    pub fn builder(name: &str, version: &str) -> PlugInfoBuilder {
        PlugInfoBuilder(PlugInfo {
            name: name.into(),
            version: version.into(),
            description: String::new(),
            stateful: false,
            can_resume: false,
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
    pub fn hooks(mut self, hooks: &[Hook]) -> Self {
        self.0.hooks = hooks.to_vec();
        self
    }
    pub fn filters_transcript(mut self, yes: bool) -> Self {
        self.0.filters_transcript = yes;
        self
    }
    /// The JSON Schema of the `with:` config, as JSON text.
    pub fn config_schema(mut self, schema: &str) -> Self {
        self.0.config_schema = schema.into();
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
