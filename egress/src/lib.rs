//! `blaise-egress`: the agent reaches the destinations the operator listed,
//! and nothing else.
//!
//! A plug puts `blaise-egress --allow DEST… -- COMMAND…` before the agent's
//! command line (an exec grant the operator sees). The command runs in a
//! network namespace of its own whose only way out is this program's proxy,
//! listening on that namespace's loopback; `HTTPS_PROXY` and `HTTP_PROXY`
//! point there. The proxy checks each destination ([`policy`]), resolves
//! names itself and refuses those that lead to local or private addresses
//! ([`addresses`]), counts what leaves ([`tally`]) and tells each refusal
//! once on stderr, which the runner logs with the session. The counts go to
//! the runner's record of the run too, on a descriptor of its own ([`report`]).
//! A connection that does not go through the proxy fails at once and is
//! told the same way ([`direct`]), as is a DNS lookup ([`lookups`]).

pub mod addresses;
#[cfg(feature = "config")]
pub mod config;
#[cfg(target_os = "linux")]
pub mod direct;
#[cfg(target_os = "linux")]
pub mod lookups;
#[cfg(target_os = "linux")]
pub mod netns;
pub mod policy;
pub mod proxy;
pub mod report;
pub mod request;
pub mod tally;

pub use policy::Policy;
pub use proxy::Proxy;

/// The port the proxy listens on in the agent's namespace.
pub const DEFAULT_PORT: u16 = 3128;
