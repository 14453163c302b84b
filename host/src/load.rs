//! Loading a plug: read the component, check its contract version, compile it
//! (or take it from the compile cache), pre-link it, and ask it to describe
//! itself (or take the answer it gave this runner before).

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use wasmtime::component::Component;

use crate::bindings::PlugInfo;
use crate::compile_cache::{Origin, check_is_component, sha256_hex};
use crate::contract::exports::Pre;
use crate::contract::{self, Version};
use crate::instance::{PlugInstance, PlugSetup};
use crate::{HostError, Limits, PlugHost};

type Result<T, E = HostError> = std::result::Result<T, E>;

/// A plug ready to be instantiated for runs.
pub struct LoadedPlug {
    /// Where it was loaded from.
    pub source: PathBuf,
    /// The sha256 of the component.
    pub sha256: String,
    /// The contract version it was built for.
    pub contract: Version,
    /// What it says it is.
    pub info: PlugInfo,
    /// Everything it imports (WASI and contract interfaces), for `plug inspect`.
    pub imports: Vec<String>,
    /// Whether it came from the compile cache.
    pub origin: Origin,
    /// Whether its `info` is the answer it gave this runner before
    /// ([`Origin::Cache`]) or the one it gave now ([`Origin::Compiled`]).
    pub info_origin: Origin,
    pub(crate) pre: Pre,
}

impl PlugHost {
    /// Loads a plug from a component file (`describe` under the default limits).
    pub async fn load(&self, path: &Path) -> Result<Arc<LoadedPlug>> {
        self.load_with(path, Limits::default()).await
    }

    /// Loads a plug, running its `describe` under `limits` (the deadline and
    /// memory cap `blaise.yml` gives it) unless it answered before.
    ///
    /// A file this runner read before and that has not changed since is
    /// neither read nor hashed again: its recorded sha256 names its compiled
    /// artifact.
    pub async fn load_with(&self, path: &Path, limits: Limits) -> Result<Arc<LoadedPlug>> {
        let unreadable =
            |e: std::io::Error| HostError::Read(format!("reading plug {}: {e}", path.display()));
        let mut file = std::fs::File::open(path).map_err(unreadable)?;
        // Taken before the bytes are read: a change while they are read
        // leaves a record the file no longer matches.
        let meta = file.metadata().ok();
        if let Some(meta) = &meta
            && let Some(sha256) = self.cache.known_digest(path, meta)
            && let Some(component) = self.cache.cached(&self.engine.engine, &sha256)?
        {
            return self
                .loaded(component, Origin::Cache, sha256, path, limits)
                .await;
        }
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(unreadable)?;
        let plug = self.load_bytes_with(&bytes, path, limits).await?;
        if let Some(meta) = &meta {
            self.cache.remember_digest(path, meta, &plug.sha256);
        }
        Ok(plug)
    }

    /// Loads a plug from the bytes of a component; `source` names it in errors.
    pub async fn load_bytes(&self, bytes: &[u8], source: &Path) -> Result<Arc<LoadedPlug>> {
        self.load_bytes_with(bytes, source, Limits::default()).await
    }

    async fn load_bytes_with(
        &self,
        bytes: &[u8],
        source: &Path,
        limits: Limits,
    ) -> Result<Arc<LoadedPlug>> {
        check_is_component(bytes, source)?;
        let sha256 = sha256_hex(bytes);
        let (component, origin) = self
            .cache
            .component(&self.engine.engine, &sha256, bytes)
            .map_err(|e| match e {
                HostError::NotAComponent(e) => HostError::NotAComponent(format!(
                    "{}: not a valid component: {e}",
                    source.display()
                )),
                other => other,
            })?;
        self.loaded(component, origin, sha256, source, limits).await
    }

    /// A compiled component, checked, pre-linked and described (a plug's
    /// answer to `describe` is kept with its compiled artifact).
    async fn loaded(
        &self,
        component: Component,
        origin: Origin,
        sha256: String,
        source: &Path,
        limits: Limits,
    ) -> Result<Arc<LoadedPlug>> {
        let (plug_contract, imports) = self.contract_of(&component, source)?;
        let pre = self.linker.instantiate_pre(&component).map_err(|e| {
            HostError::Link(format!("{}: cannot be linked: {e:#}", source.display()))
        })?;
        let pre = Pre::new(pre, plug_contract)
            .map_err(|e| HostError::Link(format!("{}: {e:#}", source.display())))?;
        let (info, info_origin) = match self.cache.description(&sha256) {
            Some(info) => (info, Origin::Cache),
            None => {
                let info = self
                    .describe(&pre, limits)
                    .await
                    .map_err(|e| HostError::Describe(format!("{}: {e}", source.display())))?;
                self.cache.remember_description(&sha256, &info);
                (info, Origin::Compiled)
            }
        };
        Ok(Arc::new(LoadedPlug {
            source: source.to_path_buf(),
            sha256,
            contract: plug_contract,
            info,
            imports,
            origin,
            info_origin,
            pre,
        }))
    }

    /// The contract version a component was built for, from the versions in
    /// the names of its `blaise:plug` exports and imports.
    fn contract_of(&self, component: &Component, source: &Path) -> Result<(Version, Vec<String>)> {
        let engine = &self.engine.engine;
        let ty = component.component_type();
        let exports: Vec<String> = ty
            .exports(engine)
            .map(|(name, _)| name.to_string())
            .collect();
        let imports: Vec<String> = ty
            .imports(engine)
            .map(|(name, _)| name.to_string())
            .collect();
        let hooks = exports
            .iter()
            .find(|name| name.starts_with(&format!("{}/hooks", contract::PACKAGE)));
        let Some(hooks) = hooks else {
            return Err(HostError::Contract(format!(
                "{} is not a Blaise plug: it does not export `{}/hooks` (it exports: {})",
                source.display(),
                contract::PACKAGE,
                if exports.is_empty() {
                    "nothing".to_string()
                } else {
                    exports.join(", ")
                }
            )));
        };
        let version = contract::version_of_item(hooks).ok_or_else(|| {
            HostError::Contract(format!(
                "{}: export `{hooks}` carries no contract version",
                source.display()
            ))
        })?;
        for item in exports.iter().chain(&imports) {
            let Some(v) = contract::version_of_item(item) else {
                continue;
            };
            if !contract::accepts(v) {
                return Err(HostError::Contract(format!(
                    "{} was built for plug contract {}@{v}, but this runner implements {}@{} (it accepts {}); rebuild the plug against a compatible blaise-plug SDK",
                    source.display(),
                    contract::PACKAGE,
                    contract::PACKAGE,
                    contract::VERSION,
                    contract::supported_range()
                )));
            }
            if !v.runs_on(version) && !version.runs_on(v) {
                return Err(HostError::Contract(format!(
                    "{} mixes plug contracts: it exports `{hooks}` but uses `{item}`; build it against one blaise-plug SDK",
                    source.display(),
                )));
            }
        }
        Ok((version, imports))
    }

    async fn describe(&self, pre: &Pre, limits: Limits) -> Result<PlugInfo, crate::HookError> {
        // `describe` runs with no session, no workspace and no grants.
        let setup = Arc::new(PlugSetup::for_describe(limits));
        let mut instance = PlugInstance::describe_instance(self, pre, setup).await?;
        instance.describe().await
    }
}
