//! The sandbox's private home, in the plug's own storage: one directory per
//! sandbox id, with a marker beside it naming the session, so that a teardown
//! also finds a home whose id never reached the plug's state (a runner killed
//! in the middle of `on-start`).

use blaise_plug::{Context, PlugError};

pub struct Homes {
    root: String,
}

impl Homes {
    pub fn new(ctx: &Context) -> Result<Homes, PlugError> {
        let storage = ctx.storage.as_deref().ok_or_else(|| {
            PlugError::new("the sandbox keeps homes in its own storage: grant it with `allow: { storage: true }`")
        })?;
        Ok(Homes {
            root: format!("{}/homes", storage.trim_end_matches('/')),
        })
    }

    pub fn path(&self, id: &str) -> String {
        format!("{}/{id}", self.root)
    }

    fn marker(&self, id: &str) -> String {
        format!("{}/{id}.session", self.root)
    }

    /// Creates the home of `id` for `session` (the marker first: a home is never without one).
    pub fn create(&self, id: &str, session: &str) -> Result<String, PlugError> {
        std::fs::create_dir_all(&self.root).map_err(|e| io("creating", &self.root, e))?;
        std::fs::write(self.marker(id), session).map_err(|e| io("writing", &self.marker(id), e))?;
        let home = self.path(id);
        std::fs::create_dir_all(&home).map_err(|e| io("creating", &home, e))?;
        Ok(home)
    }

    pub fn exists(&self, id: &str) -> bool {
        std::path::Path::new(&self.path(id)).is_dir()
    }

    /// Removes the home of `id` and its marker; gone already is fine.
    pub fn remove(&self, id: &str) -> Result<(), PlugError> {
        remove_dir(&self.path(id))?;
        match std::fs::remove_file(self.marker(id)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(io("removing", &self.marker(id), e))
            }
            _ => Ok(()),
        }
    }

    /// Ids of every home made for `session`.
    pub fn of_session(&self, session: &str) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(&self.root) else {
            return Vec::new();
        };
        entries
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                let id = name.strip_suffix(".session")?.to_owned();
                (std::fs::read_to_string(e.path()).ok()? == session).then_some(id)
            })
            .collect()
    }
}

fn remove_dir(dir: &str) -> Result<(), PlugError> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io("removing", dir, e)),
        _ => Ok(()),
    }
}

fn io(what: &str, path: &str, e: std::io::Error) -> PlugError {
    PlugError::new(format!("{what} {path}: {e}"))
}
