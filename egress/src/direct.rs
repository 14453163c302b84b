//! Connections that do not go through the proxy: refused at once, and told.
//!
//! The agent's namespace has no route out; without more, a direct attempt
//! (a raw address, a UDP packet, a DNS query to an outside server) fails
//! with "Network is unreachable" before any packet exists, and nobody
//! outside sees it. Instead, every address is made local to the namespace
//! (a `local 0.0.0.0/0` and `local ::/0` route on loopback, Linux's "AnyIP"):
//! a direct attempt becomes a packet on the namespace's own loopback, which
//! answers it at once (a TCP reset, an ICMP port unreachable), and a packet
//! socket on that loopback sees it. A kernel filter passes this program only
//! the first packet of each attempt (a TCP SYN or a UDP datagram) to an
//! address outside `127.0.0.0/8` and `::1`: the proxy's own traffic never
//! leaves the kernel. Nothing leaves the namespace either way; this only
//! names what tried.
//!
//! Both are made in the namespace before the command runs (see
//! `crate::netns`), with system calls only: this code runs between fork and exec.

use std::io;
use std::mem::{size_of, zeroed};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::Arc;

use crate::proxy::Proxy;

/// Loopback's interface index: the first device of every network namespace.
const LOOPBACK_IFINDEX: i32 = 1;

/// What the filter passes of a packet: the IP header and the ports.
const SNAP: u32 = 96;

/// Classic BPF, on the packet from its IP header (a `SOCK_DGRAM` packet
/// socket): a TCP SYN without ACK or any UDP datagram, to an IPv4 address
/// outside 127/8 or an IPv6 address other than `::1`. Jumps count the
/// instructions they skip. Tested by [`tests`] with a small interpreter.
const FILTER: [(u16, u8, u8, u32); 30] = [
    (0x30, 0, 0, 0),            // 0: A = packet[0]
    (0x74, 0, 0, 4),            // 1: A >>= 4 (the IP version)
    (0x15, 1, 0, 4),            // 2: version 4? → 4
    (0x15, 10, 25, 6),          // 3: version 6? → 14, else drop
    (0x20, 0, 0, 16),           // 4: A = IPv4 destination
    (0x54, 0, 0, 0xff00_0000),  // 5: its first octet
    (0x15, 22, 0, 0x7f00_0000), // 6: 127/8 → drop
    (0x30, 0, 0, 9),            // 7: A = protocol
    (0x15, 19, 0, 17),          // 8: UDP → accept
    (0x15, 0, 19, 6),           // 9: not TCP → drop
    (0xb1, 0, 0, 0),            // 10: X = IPv4 header length
    (0x50, 0, 0, 13),           // 11: A = TCP flags
    (0x54, 0, 0, 0x12),         // 12: SYN and ACK bits
    (0x15, 14, 15, 0x02),       // 13: SYN alone → accept, else drop
    (0x20, 0, 0, 24),           // 14: IPv6 destination, word 1
    (0x15, 0, 6, 0),            // 15: ≠ 0 → 22
    (0x20, 0, 0, 28),           // 16: word 2
    (0x15, 0, 4, 0),            // 17: ≠ 0 → 22
    (0x20, 0, 0, 32),           // 18: word 3
    (0x15, 0, 2, 0),            // 19: ≠ 0 → 22
    (0x20, 0, 0, 36),           // 20: word 4
    (0x15, 7, 0, 1),            // 21: ::1 → drop
    (0x30, 0, 0, 6),            // 22: A = next header
    (0x15, 4, 0, 17),           // 23: UDP → accept
    (0x15, 0, 4, 6),            // 24: not TCP → drop
    (0x30, 0, 0, 53),           // 25: A = TCP flags (after 40 bytes)
    (0x54, 0, 0, 0x12),         // 26: SYN and ACK bits
    (0x15, 0, 1, 0x02),         // 27: SYN alone → accept, else drop
    (0x06, 0, 0, SNAP),         // 28: accept
    (0x06, 0, 0, 0),            // 29: drop
];

/// In the namespace (between fork and exec, or on a thread that entered
/// it): every address local, and the packet socket that sees direct
/// attempts, or the errno.
///
/// # Safety
/// System calls only; `filter` must be [`filter()`]'s, made before the fork.
pub(crate) unsafe fn prepare(filter: &[libc::sock_filter; 30]) -> Result<RawFd, i32> {
    unsafe {
        // Already there: a container's namespace, entered again on a resume.
        match local_route(libc::AF_INET as u8) {
            Ok(()) | Err(libc::EEXIST) => {}
            Err(e) => return Err(e),
        }
        // Without IPv6 (a kernel without it, or a namespace where it is
        // disabled, as Docker does: EACCES) nothing is reached over it either.
        match local_route(libc::AF_INET6 as u8) {
            Ok(()) | Err(libc::EEXIST | libc::EAFNOSUPPORT | libc::EOPNOTSUPP | libc::EACCES) => {}
            Err(e) => return Err(e),
        }
        watcher(filter)
    }
}

/// The filter as the kernel takes it (prepared before the fork).
pub(crate) fn filter() -> [libc::sock_filter; 30] {
    FILTER.map(|(code, jt, jf, k)| libc::sock_filter { code, jt, jf, k })
}

/// `ip route add local <all of family> dev lo table local`, over rtnetlink.
unsafe fn local_route(family: u8) -> Result<(), i32> {
    #[repr(C)]
    struct RtMsg {
        family: u8,
        dst_len: u8,
        src_len: u8,
        tos: u8,
        table: u8,
        protocol: u8,
        scope: u8,
        kind: u8,
        flags: u32,
    }
    #[repr(C)]
    struct Request {
        header: libc::nlmsghdr,
        route: RtMsg,
        oif_len: u16,
        oif_type: u16,
        oif: i32,
    }
    let errno = || io::Error::last_os_error().raw_os_error().unwrap_or(0);
    unsafe {
        let s = libc::socket(
            libc::AF_NETLINK,
            libc::SOCK_RAW | libc::SOCK_CLOEXEC,
            libc::NETLINK_ROUTE,
        );
        if s < 0 {
            return Err(errno());
        }
        let request = Request {
            header: libc::nlmsghdr {
                nlmsg_len: size_of::<Request>() as u32,
                nlmsg_type: libc::RTM_NEWROUTE,
                nlmsg_flags: (libc::NLM_F_REQUEST
                    | libc::NLM_F_ACK
                    | libc::NLM_F_CREATE
                    | libc::NLM_F_EXCL) as u16,
                nlmsg_seq: 1,
                nlmsg_pid: 0,
            },
            route: RtMsg {
                family,
                dst_len: 0,
                src_len: 0,
                tos: 0,
                table: libc::RT_TABLE_LOCAL,
                protocol: libc::RTPROT_BOOT,
                scope: libc::RT_SCOPE_HOST,
                kind: libc::RTN_LOCAL,
                flags: 0,
            },
            oif_len: 8,
            oif_type: libc::RTA_OIF,
            oif: LOOPBACK_IFINDEX,
        };
        let sent = libc::send(s, (&raw const request).cast(), size_of::<Request>(), 0);
        if sent < 0 {
            let e = errno();
            libc::close(s);
            return Err(e);
        }
        // The acknowledgement: an NLMSG_ERROR whose error is 0, or -errno.
        let mut answer = [0u32; 64];
        let n = libc::recv(s, answer.as_mut_ptr().cast(), size_of_val(&answer), 0);
        let e = errno();
        libc::close(s);
        if n < 0 {
            return Err(e);
        }
        let header = size_of::<libc::nlmsghdr>();
        if (n as usize) < header + 4 {
            return Err(libc::EPROTO);
        }
        let kind = (answer[1] & 0xffff) as u16;
        let error = answer[header / 4] as i32;
        match (kind as libc::c_int, error) {
            (libc::NLMSG_ERROR, 0) => Ok(()),
            (libc::NLMSG_ERROR, e) => Err(-e),
            _ => Err(libc::EPROTO),
        }
    }
}

/// A packet socket on loopback with [`FILTER`] attached.
unsafe fn watcher(filter: &[libc::sock_filter; 30]) -> Result<RawFd, i32> {
    let errno = || io::Error::last_os_error().raw_os_error().unwrap_or(0);
    unsafe {
        let all = (libc::ETH_P_ALL as u16).to_be();
        let s = libc::socket(
            libc::AF_PACKET,
            libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
            all as libc::c_int,
        );
        if s < 0 {
            return Err(errno());
        }
        let program = libc::sock_fprog {
            len: filter.len() as u16,
            filter: filter.as_ptr().cast_mut(),
        };
        // Attached before binding: no packet is seen unfiltered.
        if libc::setsockopt(
            s,
            libc::SOL_SOCKET,
            libc::SO_ATTACH_FILTER,
            (&raw const program).cast(),
            size_of::<libc::sock_fprog>() as libc::socklen_t,
        ) != 0
        {
            let e = errno();
            libc::close(s);
            return Err(e);
        }
        let mut at: libc::sockaddr_ll = zeroed();
        at.sll_family = libc::AF_PACKET as u16;
        at.sll_protocol = all;
        at.sll_ifindex = LOOPBACK_IFINDEX;
        if libc::bind(
            s,
            (&raw const at).cast(),
            size_of::<libc::sockaddr_ll>() as libc::socklen_t,
        ) != 0
        {
            let e = errno();
            libc::close(s);
            return Err(e);
        }
        Ok(s)
    }
}

/// Tells each direct attempt `socket` sees, until it fails. `forwards` are
/// addresses the namespace serves itself (the forwards): not attempts.
pub fn watch(proxy: Arc<Proxy>, socket: OwnedFd, forwards: Vec<SocketAddrV4>) {
    let mut packet = [0u8; SNAP as usize];
    loop {
        let mut from: libc::sockaddr_ll = unsafe { zeroed() };
        let mut len = size_of::<libc::sockaddr_ll>() as libc::socklen_t;
        let n = unsafe {
            libc::recvfrom(
                socket.as_raw_fd(),
                packet.as_mut_ptr().cast(),
                packet.len(),
                0,
                (&raw mut from).cast(),
                &mut len,
            )
        };
        if n < 0 {
            if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        // Loopback shows each packet twice: as sent, and as received.
        if from.sll_pkttype == libc::PACKET_OUTGOING {
            continue;
        }
        let Some((dest, udp, from_port)) = attempt(&packet[..n as usize]) else {
            continue;
        };
        // `crate::lookups`'s own answers (port 53 is its socket's alone).
        if udp && from_port == 53 {
            continue;
        }
        if !udp && matches!(dest, SocketAddr::V4(v4) if forwards.contains(&v4)) {
            continue;
        }
        // A DNS query over IPv4 is answered, and told with its name, by `crate::lookups`.
        if udp && dest.is_ipv4() && dest.port() == 53 {
            continue;
        }
        let shown = if udp {
            format!("{dest}/udp")
        } else {
            dest.to_string()
        };
        proxy.refused_directly(&shown);
    }
}

/// The destination of a packet the filter passed, whether it is UDP, and
/// its source port.
fn attempt(packet: &[u8]) -> Option<(SocketAddr, bool, u16)> {
    let port = |at: usize| Some(u16::from_be_bytes(packet.get(at..at + 2)?.try_into().ok()?));
    let (ip, udp, ports) = match packet.first()? >> 4 {
        4 => {
            let ip: [u8; 4] = packet.get(16..20)?.try_into().ok()?;
            let header = usize::from(packet[0] & 0x0f) * 4;
            (
                IpAddr::V4(Ipv4Addr::from(ip)),
                *packet.get(9)? == 17,
                header,
            )
        }
        6 => {
            let ip: [u8; 16] = packet.get(24..40)?.try_into().ok()?;
            (IpAddr::V6(Ipv6Addr::from(ip)), *packet.get(6)? == 17, 40)
        }
        _ => return None,
    };
    Some((SocketAddr::new(ip, port(ports + 2)?), udp, port(ports)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs [`FILTER`] on `packet` (the instructions it uses, as the kernel
    /// runs them): the bytes it passes, 0 for a drop.
    fn run(packet: &[u8]) -> u32 {
        let (mut a, mut x, mut pc) = (0u32, 0u32, 0usize);
        let byte = |at: usize| u32::from(packet.get(at).copied().unwrap_or(0));
        let word = |at: usize| (0..4).fold(0u32, |w, i| (w << 8) | byte(at + i));
        loop {
            let (code, jt, jf, k) = FILTER[pc];
            pc += 1;
            match code {
                0x30 => a = byte(k as usize),
                0x20 => a = word(k as usize),
                0x74 => a >>= k,
                0x54 => a &= k,
                0xb1 => x = (byte(k as usize) & 0x0f) * 4,
                0x50 => a = byte((x + k) as usize),
                0x15 => pc += usize::from(if a == k { jt } else { jf }),
                0x06 => return k,
                other => panic!("opcode {other:#x} is not interpreted"),
            }
        }
    }

    fn v4(dst: [u8; 4], protocol: u8, flags: u8) -> Vec<u8> {
        let mut p = vec![0u8; 40];
        p[0] = 0x45;
        p[9] = protocol;
        p[16..20].copy_from_slice(&dst);
        p[22..24].copy_from_slice(&53u16.to_be_bytes());
        p[33] = flags;
        p
    }

    fn v6(dst: Ipv6Addr, next: u8, flags: u8) -> Vec<u8> {
        let mut p = vec![0u8; 60];
        p[0] = 0x60;
        p[6] = next;
        p[24..40].copy_from_slice(&dst.octets());
        p[42..44].copy_from_slice(&443u16.to_be_bytes());
        p[53] = flags;
        p
    }

    #[test]
    fn the_filter_passes_the_first_packet_of_each_attempt_outside_loopback_only() {
        const SYN: u8 = 0x02;
        const SYN_ACK: u8 = 0x12;
        const ACK: u8 = 0x10;
        let outside = [203, 0, 113, 9];
        assert_eq!(run(&v4(outside, 6, SYN)), SNAP);
        assert_eq!(run(&v4(outside, 17, 0)), SNAP);
        assert_eq!(run(&v4(outside, 6, ACK)), 0, "the rest of a connection");
        assert_eq!(run(&v4(outside, 6, SYN_ACK)), 0);
        assert_eq!(run(&v4(outside, 1, 0)), 0, "ICMP");
        assert_eq!(run(&v4([127, 0, 0, 1], 6, SYN)), 0, "the proxy's own");
        assert_eq!(run(&v4([127, 9, 9, 9], 17, 0)), 0);
        let far: Ipv6Addr = "2001:db8::1".parse().unwrap();
        assert_eq!(run(&v6(far, 6, SYN)), SNAP);
        assert_eq!(run(&v6(far, 17, 0)), SNAP);
        assert_eq!(run(&v6(far, 6, ACK)), 0);
        assert_eq!(run(&v6(Ipv6Addr::LOCALHOST, 6, SYN)), 0);
        assert_eq!(run(&v6("::2".parse().unwrap(), 6, SYN)), SNAP);
        assert_eq!(run(&v6("1::1".parse().unwrap(), 17, 0)), SNAP);
        assert_eq!(run(&[0x10]), 0, "not IP");
    }

    #[test]
    fn an_attempt_names_its_destination() {
        assert_eq!(
            attempt(&v4([203, 0, 113, 9], 17, 0)),
            Some(("203.0.113.9:53".parse().unwrap(), true, 0))
        );
        assert_eq!(
            attempt(&v6("2001:db8::1".parse().unwrap(), 6, 2)),
            Some(("[2001:db8::1]:443".parse().unwrap(), false, 0))
        );
        assert_eq!(attempt(&[0x45, 0, 0]), None, "cut short");
    }
}
