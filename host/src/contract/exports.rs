//! A plug's exports, whichever contract version it was built for: the one
//! place that picks that version's bindings, so the rest of the host speaks
//! only today's types.

use wasmtime::Store;
use wasmtime::component::InstancePre;

use super::{Version, v0_2};
use crate::PlugCtx;
use crate::bindings::exports::blaise::plug::{hooks, prepare, transcript};
use crate::bindings::{
    Context, Contribution, PauseInfo, PlugError, PlugInfo, PrepareContext, TeardownInfo,
    TranscriptEntry,
};

/// A plug linked and ready to instantiate, for its contract version.
#[derive(Clone)]
pub enum Pre {
    Current(Box<CurrentPre>),
    V0_2(v0_2::PlugPre<PlugCtx>),
}

/// A plug of the current contract: its exports are looked up one interface
/// at a time, because `prepare` is optional (a plug built for the world
/// `plug`, or for 0.3.0 or 0.3.1, does not export it).
#[derive(Clone)]
pub struct CurrentPre {
    pre: InstancePre<PlugCtx>,
    hooks: hooks::GuestIndices,
    transcript: transcript::GuestIndices,
    prepare: Option<prepare::GuestIndices>,
}

/// A plug's instance, for its contract version.
pub enum Exports {
    Current(Box<CurrentExports>),
    V0_2(v0_2::Plug),
}

pub struct CurrentExports {
    hooks: hooks::Guest,
    transcript: transcript::Guest,
    prepare: Option<prepare::Guest>,
}

/// A hook call, in today's types.
pub enum Call {
    Describe,
    Start,
    Resume,
    Pause(PauseInfo),
    Teardown(TeardownInfo),
    Filter(Vec<TranscriptEntry>),
    /// Whether the plug prepares ahead (false for a plug without `prepare`).
    Prepares,
    /// `on-prepare`, with the context's run id as the prepare id (nothing,
    /// successfully, for a plug without `prepare`).
    Prepare,
}

/// What a hook answered, in today's types.
pub enum Answer {
    Info(PlugInfo),
    Contribution(Contribution),
    Done,
    Entries(Vec<TranscriptEntry>),
    Prepares(bool),
}

impl Pre {
    /// Checks the linked component's exports against the bindings of
    /// `built_for`, the (accepted) contract version it was built for.
    pub fn new(pre: InstancePre<PlugCtx>, built_for: Version) -> wasmtime::Result<Pre> {
        Ok(if built_for.runs_on(v0_2::VERSION) {
            Pre::V0_2(v0_2::PlugPre::new(pre)?)
        } else {
            Pre::Current(Box::new(CurrentPre {
                hooks: hooks::GuestIndices::new(&pre)?,
                transcript: transcript::GuestIndices::new(&pre)?,
                prepare: prepare::GuestIndices::new(&pre).ok(),
                pre,
            }))
        })
    }

    pub fn engine(&self) -> &wasmtime::Engine {
        match self {
            Pre::Current(current) => current.pre.engine(),
            Pre::V0_2(pre) => pre.engine(),
        }
    }

    pub async fn instantiate(&self, store: &mut Store<PlugCtx>) -> wasmtime::Result<Exports> {
        Ok(match self {
            Pre::Current(current) => {
                let instance = current.pre.instantiate_async(&mut *store).await?;
                Exports::Current(Box::new(CurrentExports {
                    hooks: current.hooks.load(&mut *store, &instance)?,
                    transcript: current.transcript.load(&mut *store, &instance)?,
                    prepare: match &current.prepare {
                        Some(prepare) => Some(prepare.load(&mut *store, &instance)?),
                        None => None,
                    },
                }))
            }
            Pre::V0_2(pre) => Exports::V0_2(pre.instantiate_async(store).await?),
        })
    }
}

impl Exports {
    /// Calls a hook. The outer error is a trap; the inner one the plug's own.
    pub async fn invoke(
        &self,
        store: &mut Store<PlugCtx>,
        ctx: &Context,
        call: Call,
    ) -> wasmtime::Result<Result<Answer, PlugError>> {
        match self {
            Exports::Current(plug) => current(plug, store, ctx, call).await,
            Exports::V0_2(plug) => older_0_2(plug, store, ctx, call).await,
        }
    }
}

async fn current(
    plug: &CurrentExports,
    store: &mut Store<PlugCtx>,
    ctx: &Context,
    call: Call,
) -> wasmtime::Result<Result<Answer, PlugError>> {
    let hooks = &plug.hooks;
    Ok(match call {
        Call::Describe => Ok(Answer::Info(hooks.call_describe(&mut *store).await?)),
        Call::Start => hooks
            .call_on_start(&mut *store, ctx)
            .await?
            .map(Answer::Contribution),
        Call::Resume => hooks
            .call_on_resume(&mut *store, ctx)
            .await?
            .map(Answer::Contribution),
        Call::Pause(info) => hooks
            .call_on_pause(&mut *store, ctx, &info)
            .await?
            .map(|()| Answer::Done),
        Call::Teardown(info) => hooks
            .call_on_teardown(&mut *store, ctx, &info)
            .await?
            .map(|()| Answer::Done),
        Call::Filter(entries) => Ok(Answer::Entries(
            plug.transcript
                .call_filter(&mut *store, ctx, &entries)
                .await?,
        )),
        Call::Prepares => Ok(Answer::Prepares(match &plug.prepare {
            Some(prepare) => prepare.call_prepares(&mut *store).await?,
            None => false,
        })),
        Call::Prepare => match &plug.prepare {
            Some(prepare) => prepare
                .call_on_prepare(&mut *store, &prepare_context(ctx))
                .await?
                .map(|()| Answer::Done),
            None => Ok(Answer::Done),
        },
    })
}

/// What `on-prepare` is told: a preparation's instance gets a context whose
/// run id is the prepare id (it has no session).
fn prepare_context(ctx: &Context) -> PrepareContext {
    PrepareContext {
        prepare_id: ctx.run_id.clone(),
        plug_id: ctx.plug_id.clone(),
        config: ctx.config.clone(),
        workspace: ctx.workspace.clone(),
        storage: ctx.storage.clone(),
    }
}

async fn older_0_2(
    plug: &v0_2::Plug,
    store: &mut Store<PlugCtx>,
    ctx: &Context,
    call: Call,
) -> wasmtime::Result<Result<Answer, PlugError>> {
    let hooks = plug.blaise_plug_hooks();
    let ctx = v0_2::context(ctx);
    let answer = match call {
        Call::Describe => Ok(Answer::Info(v0_2::plug_info(
            hooks.call_describe(&mut *store).await?,
        ))),
        Call::Start => hooks
            .call_on_start(&mut *store, &ctx)
            .await?
            .map(|c| Answer::Contribution(c.into())),
        Call::Resume => hooks
            .call_on_resume(&mut *store, &ctx)
            .await?
            .map(|c| Answer::Contribution(c.into())),
        Call::Pause(info) => hooks
            .call_on_pause(&mut *store, &ctx, &v0_2::pause_info(info))
            .await?
            .map(|()| Answer::Done),
        Call::Teardown(info) => hooks
            .call_on_teardown(&mut *store, &ctx, &info.into())
            .await?
            .map(|()| Answer::Done),
        Call::Filter(entries) => {
            let entries: Vec<_> = entries.into_iter().map(Into::into).collect();
            Ok(Answer::Entries(
                plug.blaise_plug_transcript()
                    .call_filter(&mut *store, &ctx, &entries)
                    .await?
                    .into_iter()
                    .map(Into::into)
                    .collect(),
            ))
        }
        // 0.2 had no `prepare`.
        Call::Prepares => Ok(Answer::Prepares(false)),
        Call::Prepare => Ok(Answer::Done),
    };
    Ok(answer.map_err(Into::into))
}
