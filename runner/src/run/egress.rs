//! What left the agent's network namespace, for the run's record: the last
//! tally `blaise-egress` wrote on the runner's descriptor (never the agent's
//! stderr, which the agent can write too), as an `egress` report.
//!
//! Destinations are the agent's text (the names it asked for, a refused one
//! can be anything): they pass the filters like its output, and the secret
//! mask with every report.

use super::transcript::Relay;
use crate::chain::PlugChain;
use crate::protocol::{EgressCounts, ReportBody};

/// Most destinations of each list taken from a report (`blaise-egress`
/// counts 256 one by one, and the rest together).
const MAX_LISTED: usize = 257;
/// Longest destination sent, in characters (a name is at most 253 bytes,
/// and a port).
const MAX_DESTINATION: usize = 300;

/// The `egress` report for what `blaise-egress` wrote last, or `None` if it
/// wrote nothing readable (it logged its counts anyway).
pub async fn report(line: &str, chain: &mut PlugChain, relay: &mut Relay) -> Option<ReportBody> {
    let tally: EgressCounts = match serde_json::from_str(line) {
        Ok(tally) => tally,
        Err(e) => {
            tracing::warn!(
                "blaise-egress's report could not be read ({e}): the log has its counts"
            );
            return None;
        }
    };
    let mut reached = tally.reached;
    reached.truncate(MAX_LISTED);
    let mut refused = tally.refused;
    let refused_more = tally.refused_more + refused.len().saturating_sub(MAX_LISTED) as u64;
    refused.truncate(MAX_LISTED);
    let names: Vec<String> = reached
        .iter()
        .map(|r| r.destination.clone())
        .chain(refused.iter().cloned())
        // Blaise escapes and cuts them too; this keeps the report's size bounded.
        .map(|name| name.chars().take(MAX_DESTINATION).collect())
        .collect();
    let mut names = match relay.filter_texts(chain, names).await {
        Ok(names) => names.into_iter(),
        Err(e) => {
            tracing::warn!("{e}: the run's egress report is not sent (the log has its counts)");
            return None;
        }
    };
    for r in &mut reached {
        r.destination = names.next().unwrap_or_default();
    }
    for r in &mut refused {
        *r = names.next().unwrap_or_default();
    }
    Some(ReportBody::Egress(EgressCounts {
        reached,
        refused,
        refused_more,
    }))
}
