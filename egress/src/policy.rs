//! The allow list: which destinations the agent may reach.
//!
//! An entry is `name[:port]`, `*.domain[:port]` (subdomains only), an IP
//! address or a CIDR range (`10.0.0.7`, `10.0.0.0/8:5432`, `[fd00::1]:443`).
//! Without a port it allows 443 and 80. Names are compared as the client
//! asked for them (case and a final dot aside); only IP and CIDR entries
//! allow an address, and only they may name a private one.

use std::fmt;
use std::net::{IpAddr, SocketAddrV4};

/// The destinations the operator listed.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    rules: Vec<Rule>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Rule {
    host: Host,
    /// `None`: 443 and 80.
    port: Option<u16>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Host {
    /// Exactly this name (lower case, no final dot).
    Name(String),
    /// Any name ending in `.{domain}`, never the domain itself.
    Below(String),
    /// An address range; a single address has the full prefix.
    Net { addr: IpAddr, prefix: u8 },
}

/// An entry that is not one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadEntry {
    pub entry: String,
    pub why: String,
}

impl fmt::Display for BadEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`: {}", self.entry.escape_debug(), self.why)
    }
}

impl std::error::Error for BadEntry {}

impl Policy {
    /// The policy of `entries`, or the first entry that is not one.
    pub fn parse<S: AsRef<str>>(entries: &[S]) -> Result<Policy, BadEntry> {
        let rules = entries
            .iter()
            .map(|e| {
                let entry = e.as_ref();
                rule(entry).map_err(|why| BadEntry {
                    entry: entry.to_string(),
                    why,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Policy { rules })
    }

    /// Whether the name `name` (as the client asked for it) may be reached on `port`.
    pub fn allows_name(&self, name: &str, port: u16) -> bool {
        let name = normal_name(name);
        self.rules.iter().any(|r| {
            r.allows_port(port)
                && match &r.host {
                    Host::Name(n) => *n == name,
                    Host::Below(domain) => name
                        .strip_suffix(domain.as_str())
                        .is_some_and(|rest| rest.split('.').all(|label| !label.is_empty())),
                    Host::Net { .. } => false,
                }
        })
    }

    /// Whether the address `ip` is listed (by an IP or CIDR entry) for `port`.
    pub fn allows_addr(&self, ip: IpAddr, port: u16) -> bool {
        let ip = unmapped(ip);
        self.rules.iter().any(|r| {
            r.allows_port(port)
                && matches!(r.host, Host::Net { addr, prefix } if contains(addr, prefix, ip))
        })
    }

    /// The IPv4 addresses listed with a port (`10.0.0.7:5432`): the agent
    /// reaches them directly, without a proxy (a database, a cache), through
    /// a forward on the same address inside its namespace.
    pub fn forwards(&self) -> Vec<SocketAddrV4> {
        let mut out: Vec<SocketAddrV4> = self
            .rules
            .iter()
            .filter_map(|r| match (&r.host, r.port) {
                (
                    Host::Net {
                        addr: IpAddr::V4(ip),
                        prefix: 32,
                    },
                    Some(port),
                ) => Some(SocketAddrV4::new(*ip, port)),
                _ => None,
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

impl Rule {
    fn allows_port(&self, port: u16) -> bool {
        match self.port {
            Some(p) => p == port,
            None => port == 443 || port == 80,
        }
    }
}

fn rule(entry: &str) -> Result<Rule, String> {
    let entry = entry.trim();
    if entry.is_empty() {
        return Err("empty".into());
    }
    if entry.contains("://") {
        return Err("a destination is `host[:port]`, not a URL".into());
    }
    let (host, port) = split_port(entry)?;
    let host = if let Some(domain) = host.strip_prefix("*.") {
        Host::Below(format!(".{}", name(domain)?))
    } else if host.contains('*') {
        return Err(
            "`*` only as a whole first label (`*.example.com`); `network: true` allows everything"
                .into(),
        );
    } else if let Some((addr, bits)) = host.split_once('/') {
        let addr: IpAddr = addr
            .parse()
            .map_err(|_| format!("`{addr}` before the `/` is not an IP address"))?;
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = bits
            .parse::<u8>()
            .ok()
            .filter(|b| *b <= max)
            .ok_or_else(|| format!("`/{bits}` is not a prefix length (0 to {max})"))?;
        Host::Net {
            addr: unmapped(addr),
            prefix,
        }
    } else if let Ok(addr) = host.parse::<IpAddr>() {
        let addr = unmapped(addr);
        Host::Net {
            addr,
            prefix: if addr.is_ipv4() { 32 } else { 128 },
        }
    } else {
        Host::Name(name(host)?)
    };
    Ok(Rule { host, port })
}

/// `host` and its port, if any: `name:443`, `[::1]:443`, `::1` (no port), `10.0.0.0/8:5432`.
fn split_port(entry: &str) -> Result<(&str, Option<u16>), String> {
    if let Some(rest) = entry.strip_prefix('[') {
        let (host, after) = rest
            .split_once(']')
            .ok_or("an opening `[` without its `]`")?;
        return match after {
            "" => Ok((host, None)),
            _ => match after.strip_prefix(':') {
                Some(port) => Ok((host, Some(port_number(port)?))),
                None => Err(format!("`{after}` after the `]`: expected `:port`")),
            },
        };
    }
    match entry.matches(':').count() {
        0 => Ok((entry, None)),
        1 => {
            let (host, port) = entry.split_once(':').unwrap_or((entry, ""));
            Ok((host, Some(port_number(port)?)))
        }
        // A bare IPv6 address; with a port it is written `[addr]:port`.
        _ => Ok((entry, None)),
    }
}

fn port_number(text: &str) -> Result<u16, String> {
    text.parse::<u16>()
        .ok()
        .filter(|p| *p != 0)
        .ok_or_else(|| format!("`{text}` is not a port (1 to 65535)"))
}

/// A host name as DNS has it, lower case, without a final dot.
fn name(text: &str) -> Result<String, String> {
    let name = normal_name(text);
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.len() <= 63
            && l.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    if name.is_empty() || name.len() > 253 || !name.split('.').all(label_ok) {
        return Err(format!(
            "`{text}` is not a host name (letters, digits, `-` and `_` in dot-separated labels)"
        ));
    }
    Ok(name)
}

fn normal_name(name: &str) -> String {
    name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase()
}

/// An IPv4-mapped IPv6 address as the IPv4 address it is.
fn unmapped(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

fn contains(net: IpAddr, prefix: u8, ip: IpAddr) -> bool {
    match (net, ip) {
        (IpAddr::V4(n), IpAddr::V4(a)) => {
            let mask = u32::MAX.checked_shl(32 - u32::from(prefix)).unwrap_or(0);
            u32::from(n) & mask == u32::from(a) & mask
        }
        (IpAddr::V6(n), IpAddr::V6(a)) => {
            let mask = u128::MAX.checked_shl(128 - u32::from(prefix)).unwrap_or(0);
            u128::from(n) & mask == u128::from(a) & mask
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(entries: &[&str]) -> Policy {
        Policy::parse(entries).unwrap()
    }

    #[test]
    fn a_name_without_a_port_allows_https_and_http_only() {
        let p = policy(&["github.com", "api.anthropic.com:443"]);
        assert!(p.allows_name("github.com", 443));
        assert!(p.allows_name("GitHub.COM.", 80));
        assert!(!p.allows_name("github.com", 22));
        assert!(!p.allows_name("api.github.com", 443), "no subdomains");
        assert!(p.allows_name("api.anthropic.com", 443));
        assert!(!p.allows_name("api.anthropic.com", 80));
        assert!(!p.allows_name("evil-github.com", 443));
    }

    #[test]
    fn a_star_allows_subdomains_only() {
        let p = policy(&["*.githubusercontent.com:443"]);
        assert!(p.allows_name("raw.githubusercontent.com", 443));
        assert!(p.allows_name("a.b.githubusercontent.com", 443));
        assert!(!p.allows_name("githubusercontent.com", 443));
        assert!(!p.allows_name("xgithubusercontent.com", 443));
        assert!(!p.allows_name(".githubusercontent.com", 443));
    }

    #[test]
    fn addresses_are_allowed_by_address_entries_only() {
        let p = policy(&[
            "10.0.0.7:5432",
            "192.168.0.0/16",
            "[fd00::1]:443",
            "2001:db8::/32",
        ]);
        assert!(p.allows_addr("10.0.0.7".parse().unwrap(), 5432));
        assert!(!p.allows_addr("10.0.0.8".parse().unwrap(), 5432));
        assert!(!p.allows_addr("10.0.0.7".parse().unwrap(), 443));
        assert!(p.allows_addr("192.168.44.1".parse().unwrap(), 80));
        assert!(p.allows_addr("::ffff:192.168.44.1".parse().unwrap(), 80));
        assert!(p.allows_addr("fd00::1".parse().unwrap(), 443));
        assert!(p.allows_addr("2001:db8:1::5".parse().unwrap(), 443));
        assert!(!p.allows_name("10.0.0.7", 5432), "an address is no name");
        assert_eq!(p.forwards(), ["10.0.0.7:5432".parse().unwrap()]);
        let names = policy(&["github.com"]);
        assert!(!names.allows_addr("140.82.112.3".parse().unwrap(), 443));
    }

    #[test]
    fn bad_entries_are_named_with_what_is_wrong() {
        for (entry, why) in [
            ("", "empty"),
            ("https://github.com", "not a URL"),
            ("*", "`*` only as"),
            ("git*.com", "`*` only as"),
            ("github.com:0", "not a port"),
            ("github.com:https", "not a port"),
            ("10.0.0.0/33", "not a prefix length"),
            ("bad name.com", "not a host name"),
            ("[::1", "without its `]`"),
            ("[::1]443", "expected `:port`"),
        ] {
            let err = Policy::parse(&[entry]).unwrap_err();
            assert!(err.to_string().contains(why), "{entry}: {err}");
        }
    }
}
