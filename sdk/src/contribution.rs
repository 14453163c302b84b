use crate::Contribution;

impl Default for Contribution {
    fn default() -> Self {
        Contribution {
            env: Vec::new(),
            working_dir: None,
            command_prefix: Vec::new(),
        }
    }
}

impl Contribution {
    /// Adds an environment variable for the agent.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Sets the agent's working directory.
    pub fn working_dir(mut self, dir: impl Into<String>) -> Self {
        self.working_dir = Some(dir.into());
        self
    }

    /// Puts words before the agent's command line (e.g. `docker exec -i NAME`).
    pub fn command_prefix<S: Into<String>>(mut self, words: impl IntoIterator<Item = S>) -> Self {
        self.command_prefix
            .extend(words.into_iter().map(Into::into));
        self
    }
}
