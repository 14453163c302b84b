//! Where a webhook may be sent: an admin (or anyone an identity provider's group makes one)
//! names the URL, and Blaise sends to it from inside the operator's network. Unless the
//! operator allows it (`serve --webhooks-to-private-addresses`), a receiver's host must lead
//! to the internet: not to loopback, a private range, link-local (the clouds' metadata
//! services) or another special range, checked on the addresses a name resolves to at the
//! moment of sending (a name that changes its answer, DNS rebinding, is checked again), and on
//! an address written in the URL itself (which no resolver sees).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use blaise_egress::addresses::is_special;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// A resolver that leaves out the special addresses a name resolves to, and fails when none
/// is left.
struct PublicOnly;

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        Box::pin(async move {
            let host = name.as_str().to_string();
            let all: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let public: Vec<SocketAddr> = all
                .iter()
                .copied()
                .filter(|a| !is_special(a.ip()))
                .collect();
            if public.is_empty() {
                let shown = all
                    .first()
                    .map_or("nothing".to_string(), |a| a.ip().to_string());
                return Err(refused(&host, &shown).into());
            }
            Ok(Box::new(public.into_iter()) as Addrs)
        })
    }
}

fn refused(host: &str, address: &str) -> String {
    format!(
        "{host} leads to {address}, a private or local address: a webhook is sent to the \
         internet unless `blaise serve --webhooks-to-private-addresses` allows it"
    )
}

/// The client's builder, resolving names to public addresses only unless `private` allows
/// any.
pub fn resolving(builder: reqwest::ClientBuilder, private: bool) -> reqwest::ClientBuilder {
    if private {
        builder
    } else {
        builder.dns_resolver(Arc::new(PublicOnly))
    }
}

/// Why the URL may not be sent to, when its host is an address written out (`http://10.0.0.7/`,
/// `http://[::1]/`) that is private or local and `private` does not allow it.
pub fn check_literal(url: &str, private: bool) -> Result<(), String> {
    if private {
        return Ok(());
    }
    let Ok(parsed) = reqwest::Url::parse(url) else {
        return Ok(());
    };
    let host = parsed.host_str().unwrap_or_default();
    let ip: Option<IpAddr> = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse()
        .ok();
    match ip {
        Some(ip) if is_special(ip) => Err(refused(&ip.to_string(), &ip.to_string())),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_written_in_the_url_are_checked() {
        for (url, ok) in [
            ("http://127.0.0.1:9000/hook", false),
            ("http://169.254.169.254/latest/meta-data", false),
            ("https://10.1.2.3/x", false),
            ("http://[::1]/x", false),
            ("http://[::ffff:192.168.0.1]/x", false),
            ("https://8.8.8.8/x", true),
            ("https://hooks.slack.com/services/T/B/x", true),
        ] {
            assert_eq!(check_literal(url, false).is_ok(), ok, "{url}");
            assert!(
                check_literal(url, true).is_ok(),
                "{url} with private allowed"
            );
        }
    }

    #[tokio::test]
    async fn a_name_that_leads_only_to_the_host_is_refused() {
        let got = PublicOnly
            .resolve("localhost".parse().expect("a name"))
            .await;
        let why = got.err().expect("refused").to_string();
        assert!(why.contains("localhost leads to"), "{why}");
    }
}
