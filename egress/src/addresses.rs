//! Which addresses are not the internet: loopback, private, link-local (the
//! clouds' metadata services live there), and the other special ranges. A
//! name an allow list grants must not resolve into them, or whoever controls
//! its DNS reaches the host and its network (DNS rebinding).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Whether `ip` is an address a granted *name* may not lead to.
pub fn is_special(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => special_v4(v4),
        IpAddr::V6(v6) => special_v6(v6),
    }
}

fn special_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local() // 169.254/16, 169.254.169.254 among them
        || ip.is_broadcast()
        || ip.is_multicast()
        || a == 0 // "this network"
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT)
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 198 && (18..20).contains(&b)) // benchmarking
        || a >= 240 // reserved
}

fn special_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    if let Some(v4) = embedded_v4(ip) {
        return special_v4(v4);
    }
    ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast()
        || (s[0] & 0xfe00) == 0xfc00 // unique local (fd00:ec2::254 is AWS's metadata)
        || (s[0] & 0xffc0) == 0xfe80 // link-local
        || (s[0] & 0xffc0) == 0xfec0 // site-local (deprecated, still routed by some)
}

/// The IPv4 address an IPv6 one carries to the same place: mapped
/// (`::ffff:a.b.c.d`), compatible (`::a.b.c.d`) and NAT64 (`64:ff9b::/96`).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let tail = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    let mapped = s[..5] == [0; 5] && s[5] == 0xffff;
    let compatible = s[..6] == [0; 6] && !ip.is_loopback() && !ip.is_unspecified();
    let nat64 = s[..6] == [0x64, 0xff9b, 0, 0, 0, 0];
    (mapped || compatible || nat64).then_some(tail)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn special(text: &str) -> bool {
        is_special(text.parse().unwrap())
    }

    #[test]
    fn the_host_and_its_networks_are_special() {
        for ip in [
            "127.0.0.1",
            "127.1.2.3",
            "10.0.0.7",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.100.100.200",
            "0.0.0.0",
            "0.1.2.3",
            "255.255.255.255",
            "224.0.0.1",
            "::1",
            "::",
            "fe80::1",
            "fd00:ec2::254",
            "fc00::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a9fe:a9fe",
            "::10.0.0.1",
        ] {
            assert!(special(ip), "{ip}");
        }
    }

    #[test]
    fn the_internet_is_not() {
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "172.32.0.1",
            "100.128.0.1",
            "160.79.104.10",
            "2606:4700::6810:84e5",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
        ] {
            assert!(!special(ip), "{ip}");
        }
    }
}
