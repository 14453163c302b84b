//! The resolver of plugs' HTTP requests: a granted *name* never leads to a
//! local or private address (loopback, the private ranges, link-local and
//! the clouds' metadata services), or whoever controls that name's DNS
//! would reach the runner's host and network through the grant. A grant of
//! the address itself (`127.0.0.1:8080`) reaches it: an address in a URL is
//! never resolved. The same rule as `blaise-egress`'s for agents.

use std::net::SocketAddr;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Resolves with the system's resolver and keeps public addresses only.
#[derive(Debug, Default, Clone, Copy)]
pub struct PublicOnly;

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        Box::pin(async move {
            let host = name.as_str().to_string();
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let kept = public(&host, found)?;
            Ok(Box::new(kept.into_iter()) as Addrs)
        })
    }
}

/// The public ones of `found`, the addresses `host` resolved to; an error
/// naming them when there is none.
pub fn public(host: &str, found: Vec<SocketAddr>) -> Result<Vec<SocketAddr>, NotPublic> {
    let (kept, refused): (Vec<SocketAddr>, Vec<SocketAddr>) = found
        .into_iter()
        .partition(|a| !blaise_egress::addresses::is_special(a.ip()));
    if kept.is_empty() && !refused.is_empty() {
        let mut ips: Vec<String> = refused.iter().map(|a| a.ip().to_string()).collect();
        ips.dedup();
        return Err(NotPublic {
            host: host.to_string(),
            addresses: ips,
        });
    }
    Ok(kept)
}

/// A granted name that resolves only to local or private addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotPublic {
    pub host: String,
    pub addresses: Vec<String>,
}

impl std::fmt::Display for NotPublic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` resolves only to local or private addresses ({}); a plug reaches such an address only when it is granted as the address itself",
            self.host,
            self.addresses.join(", ")
        )
    }
}

impl std::error::Error for NotPublic {}

#[cfg(test)]
mod tests {
    use super::*;

    fn addrs(ips: &[&str]) -> Vec<SocketAddr> {
        ips.iter()
            .map(|ip| SocketAddr::new(ip.parse().unwrap(), 0))
            .collect()
    }

    #[test]
    fn a_name_that_leads_home_is_refused() {
        let err = public("evil.example", addrs(&["127.0.0.1", "::1"])).unwrap_err();
        assert_eq!(err.addresses, ["127.0.0.1", "::1"]);
        assert!(err.to_string().contains("`evil.example` resolves only to"));
        let err = public("meta.example", addrs(&["169.254.169.254"])).unwrap_err();
        assert!(err.to_string().contains("169.254.169.254"));
    }

    #[test]
    fn public_addresses_are_kept_and_private_ones_dropped() {
        let kept = public("api.example", addrs(&["10.0.0.1", "93.184.215.14"])).unwrap();
        assert_eq!(kept, addrs(&["93.184.215.14"]));
    }

    #[tokio::test]
    async fn localhost_through_the_system_resolver_is_refused() {
        let err = match PublicOnly.resolve("localhost".parse().unwrap()).await {
            Ok(_) => panic!("localhost resolved to a public address"),
            Err(e) => e.to_string(),
        };
        assert!(err.contains("127.0.0.1"), "{err}");
    }
}
