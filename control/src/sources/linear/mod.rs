//! Linear as a message source: an agent session in Linear is a Blaise session.
//!
//! Linear sends `AgentSessionEvent` webhooks ([`webhook`]): `created` when someone mentions the
//! app or delegates an issue to it, `prompted` when they write in the session (or ask it to stop).
//! Each is taken in one transaction ([`events`]) that records its delivery, applies it to the
//! session and queues the replies it needs, before Linear is answered: what Linear was told we
//! took is never lost. What the session produces goes back as agent activities ([`activities`]),
//! through Linear's GraphQL API ([`api`]), by the sources' pump.

pub mod activities;
pub mod api;
pub mod config;
pub mod events;
pub mod webhook;

use serde_json::Value;

use crate::model::SourceThread;
use crate::sources::{Failure, Source, Telling, Told};
use config::AppConfig;

/// One Linear app (an OAuth application installed with `actor=app`).
pub struct App {
    pub config: AppConfig,
    api: api::Api,
}

impl App {
    pub fn new(config: AppConfig) -> App {
        let api = api::Api::new(&config.api_url, &config.auth);
        App { config, api }
    }

    pub fn source_name(&self) -> String {
        format!("linear:{}", self.config.name)
    }
}

impl Source for App {
    fn source_name(&self) -> String {
        App::source_name(self)
    }

    fn tell<'a>(&'a self, thread: &'a SourceThread, told: Told<'a>) -> Telling<'a> {
        Box::pin(async move {
            match told {
                Told::Reply(reply) => self.reply(thread, reply).await,
                Told::Produced { item, index, ended } => {
                    let id = activities::id_for(&thread.source, &thread.thread, index);
                    self.api
                        .create_activity(&thread.thread, &id, &activities::of(item, ended))
                        .await
                }
            }
        })
    }
}

impl App {
    /// A reply queued by [`events`]: an activity (`{id, activity}`), the session's links
    /// (`{links}`), or moving a delegated issue to started (`{start_issue: {issue, app_user}}`).
    async fn reply(&self, thread: &SourceThread, reply: &Value) -> Result<(), Failure> {
        if let Some(links) = reply.get("links") {
            return self.api.set_links(&thread.thread, links).await;
        }
        if let Some(start) = reply.get("start_issue") {
            return match (start["issue"].as_str(), start["app_user"].as_str()) {
                (Some(issue), Some(app_user)) => self.api.start_issue(issue, app_user).await,
                _ => Err(Failure::Refused(format!(
                    "a reply of unknown shape: {reply}"
                ))),
            };
        }
        match (reply["id"].as_str(), reply.get("activity")) {
            (Some(id), Some(activity)) => {
                self.api.create_activity(&thread.thread, id, activity).await
            }
            _ => Err(Failure::Refused(format!(
                "a reply of unknown shape: {reply}"
            ))),
        }
    }
}
