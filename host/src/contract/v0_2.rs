//! Plugs built for contract 0.2.0 (`wit/0.2/plug.wit`, frozen).
//!
//! Their imports have the same shapes as today's, under the 0.2.0 names:
//! each is linked to the same capability as the current one (the same view
//! of the store, the same checks), converting only the Rust types bindgen
//! made for each version. Their hooks are called with what 0.3.0 added left
//! out (`context.processes-kept`, `pause-info.keep-processes`), and their
//! `describe` is read with `keeps-processes: false`: a 0.2 plug was never
//! told processes may be kept, so a chain with one always pauses cold.

use wasmtime::component::{HasSelf, Linker};

use super::Version;
use crate::PlugCtx;
use crate::bindings as now;
use crate::capability::{http, log, process, secrets, state};

/// The frozen contract's version.
pub const VERSION: Version = Version {
    major: 0,
    minor: 2,
    patch: 0,
};

mod bindings {
    wasmtime::component::bindgen!({
        path: "../wit/0.2/plug.wit",
        world: "plug",
        imports: { default: async },
        exports: { default: async },
    });
}

use bindings::blaise::plug as then;
pub use bindings::{Plug, PlugPre};

impl then::types::Host for PlugCtx {}

/// Links the 0.2.0 imports, each to the capability that serves its
/// current version.
pub fn link(linker: &mut Linker<PlugCtx>) -> wasmtime::Result<()> {
    then::types::add_to_linker::<PlugCtx, HasSelf<PlugCtx>>(linker, |ctx| ctx)?;
    then::state::add_to_linker::<PlugCtx, state::State>(linker, state::view)?;
    then::log::add_to_linker::<PlugCtx, log::Log>(linker, log::view)?;
    then::secrets::add_to_linker::<PlugCtx, secrets::Secrets>(linker, secrets::view)?;
    then::process::add_to_linker::<PlugCtx, process::Process>(linker, process::view)?;
    then::http::add_to_linker::<PlugCtx, http::Http>(linker, http::view)?;
    Ok(())
}

/// `From` both ways between the two versions' bindings of a record whose
/// fields did not change.
macro_rules! same_record {
    ($then:path, $now:path { $($field:ident),* $(,)? }) => {
        impl From<$then> for $now {
            fn from(v: $then) -> Self {
                Self { $($field: v.$field.into_same()),* }
            }
        }
        impl From<$now> for $then {
            fn from(v: $now) -> Self {
                Self { $($field: v.$field.into_same()),* }
            }
        }
    };
}

/// `From` both ways between the two versions' bindings of an enum or a
/// variant whose cases did not change.
macro_rules! same_cases {
    ($then:ident :: $tname:ident, $now:ident :: $nname:ident { $($case:ident $(($x:ident))?),* $(,)? }) => {
        impl From<$then::$tname> for $now::$nname {
            fn from(v: $then::$tname) -> Self {
                match v { $($then::$tname::$case $(($x))? => $now::$nname::$case $(($x.into_same()))?),* }
            }
        }
        impl From<$now::$nname> for $then::$tname {
            fn from(v: $now::$nname) -> Self {
                match v { $($now::$nname::$case $(($x))? => $then::$tname::$case $(($x.into_same()))?),* }
            }
        }
    };
}

/// Converts a field between the versions: plain values stay, and lists,
/// options and bindings types convert element by element.
trait IntoSame<T> {
    fn into_same(self) -> T;
}

impl<T> IntoSame<T> for T {
    fn into_same(self) -> T {
        self
    }
}

macro_rules! into_same_via_from {
    ($($a:ty => $b:ty),* $(,)?) => {$(
        impl IntoSame<$b> for $a {
            fn into_same(self) -> $b { self.into() }
        }
        impl IntoSame<Vec<$b>> for Vec<$a> {
            fn into_same(self) -> Vec<$b> { self.into_iter().map(Into::into).collect() }
        }
    )*};
}

mod t {
    pub use super::then::types::*;
}
mod n {
    pub use crate::bindings::blaise::plug::types::*;
}
mod tp {
    pub use super::then::process::*;
}
mod np {
    pub use crate::bindings::blaise::plug::process::*;
}
mod th {
    pub use super::then::http::*;
}
mod nh {
    pub use crate::bindings::blaise::plug::http::*;
}
mod tl {
    pub use super::then::log::*;
}
mod nl {
    pub use crate::bindings::blaise::plug::log::*;
}
mod ts {
    pub use super::then::state::*;
}
mod ns {
    pub use crate::bindings::blaise::plug::state::*;
}
mod tsec {
    pub use super::then::secrets::*;
}
mod nsec {
    pub use crate::bindings::blaise::plug::secrets::*;
}

into_same_via_from!(
    t::Hook => n::Hook,
    n::Hook => t::Hook,
    t::EntryKind => n::EntryKind,
    n::EntryKind => t::EntryKind,
    t::RunKind => n::RunKind,
    n::RunKind => t::RunKind,
    t::Needs => n::Needs,
    n::Needs => t::Needs,
    t::TranscriptEntry => n::TranscriptEntry,
    n::TranscriptEntry => t::TranscriptEntry,
);

same_cases!(
    t::Hook,
    n::Hook {
        OnStart,
        OnResume,
        OnPause,
        OnTeardown
    }
);
same_cases!(
    t::EntryKind,
    n::EntryKind {
        UserMessage,
        AgentMessage,
        AgentThought,
        ToolCall,
        ToolOutput,
        PermissionRequest,
        Notice,
    }
);
same_cases!(
    t::RunKind,
    n::RunKind {
        Start,
        Resume,
        Teardown
    }
);
same_record!(
    t::Needs,
    n::Needs {
        exec,
        http,
        secrets,
        storage
    }
);
same_record!(
    t::TranscriptEntry,
    n::TranscriptEntry {
        stream_id,
        kind,
        text,
        last,
        replay
    }
);
same_record!(
    t::Contribution,
    n::Contribution {
        env,
        working_dir,
        command_prefix
    }
);
same_record!(t::PlugError, n::PlugError { message, field });
same_record!(
    t::TeardownInfo,
    n::TeardownInfo {
        reason,
        right_after_pause
    }
);

same_cases!(
    tl::Level,
    nl::Level {
        Trace,
        Debug,
        Info,
        Warn,
        Error
    }
);
same_cases!(ts::StateError, ns::StateError { QuotaExceeded(m), Unavailable(m) });
same_cases!(tsec::SecretError, nsec::SecretError { Denied(m), Unavailable(m) });
same_cases!(tp::ProcessError, np::ProcessError { Denied(m), SpawnFailed(m) });
same_record!(
    tp::Command,
    np::Command {
        argv,
        env,
        cwd,
        stdin,
        timeout_ms
    }
);
same_record!(
    tp::Output,
    np::Output {
        status,
        stdout,
        stderr,
        timed_out
    }
);
same_cases!(th::HttpError, nh::HttpError { Denied(m), InvalidUrl(m), Failed(m) });
same_record!(
    th::Request,
    nh::Request {
        method,
        url,
        headers,
        body,
        timeout_ms
    }
);
same_record!(
    th::Response,
    nh::Response {
        status,
        headers,
        body
    }
);

/// Today's context, as a 0.2 plug knows it (without `processes-kept`).
pub fn context(ctx: &now::Context) -> t::Context {
    let now::Context {
        session_id,
        run_id,
        run_kind,
        plug_id,
        config,
        workspace,
        storage,
        processes_kept: _,
    } = ctx.clone();
    t::Context {
        session_id,
        run_id,
        run_kind: run_kind.into(),
        plug_id,
        config,
        workspace,
        storage,
    }
}

/// Today's pause info, as a 0.2 plug knows it (without `keep-processes`).
pub fn pause_info(info: now::PauseInfo) -> t::PauseInfo {
    let now::PauseInfo {
        reason,
        may_resume,
        keep_processes: _,
    } = info;
    t::PauseInfo { reason, may_resume }
}

/// A 0.2 plug's description: it never keeps processes across a pause.
pub fn plug_info(info: t::PlugInfo) -> now::PlugInfo {
    let t::PlugInfo {
        name,
        version,
        description,
        stateful,
        can_resume,
        hooks,
        filters_transcript,
        config_schema,
        needs,
    } = info;
    now::PlugInfo {
        name,
        version,
        description,
        stateful,
        can_resume,
        keeps_processes: false,
        hooks: hooks.into_same(),
        filters_transcript,
        config_schema,
        needs: needs.into(),
    }
}

impl then::state::Host for state::StateCap<'_> {
    async fn get(&mut self, key: String) -> Result<Option<Vec<u8>>, ts::StateError> {
        ns::Host::get(self, key).await.map_err(Into::into)
    }
    async fn set(&mut self, key: String, value: Vec<u8>) -> Result<(), ts::StateError> {
        ns::Host::set(self, key, value).await.map_err(Into::into)
    }
    async fn delete(&mut self, key: String) -> Result<(), ts::StateError> {
        ns::Host::delete(self, key).await.map_err(Into::into)
    }
    async fn list_keys(&mut self) -> Result<Vec<String>, ts::StateError> {
        ns::Host::list_keys(self).await.map_err(Into::into)
    }
}

impl then::log::Host for log::LogCap<'_> {
    async fn log(&mut self, level: tl::Level, message: String) {
        nl::Host::log(self, level.into(), message).await
    }
}

impl then::secrets::Host for secrets::SecretsCap<'_> {
    async fn get(&mut self, name: String) -> Result<String, tsec::SecretError> {
        nsec::Host::get(self, name).await.map_err(Into::into)
    }
}

impl then::process::Host for process::ProcessCap<'_> {
    async fn run(&mut self, cmd: tp::Command) -> Result<tp::Output, tp::ProcessError> {
        np::Host::run(self, cmd.into())
            .await
            .map(Into::into)
            .map_err(Into::into)
    }
}

impl then::http::Host for http::HttpCap<'_> {
    async fn send(&mut self, req: th::Request) -> Result<th::Response, th::HttpError> {
        nh::Host::send(self, req.into())
            .await
            .map(Into::into)
            .map_err(Into::into)
    }
}
