//! DNS lookups inside the agent's namespace: answered `REFUSED` at once,
//! and told with the name asked for.
//!
//! Every address is local to the namespace ([`crate::direct`]), so a UDP
//! socket bound to `0.0.0.0:53` there receives a query sent to any server.
//! Without it a resolver that sends from an unconnected socket (busybox's
//! `nslookup`, many DNS libraries) would wait out its own timeout, since
//! the namespace's "port unreachable" does not reach such a socket. Names
//! are resolved by the proxy: a client that asks first is told no at once.
//! The answer comes from the address the query went to (`IP_PKTINFO`), as a
//! resolver expects.

use std::io;
use std::mem::{size_of, zeroed};
use std::net::{Ipv4Addr, SocketAddrV4};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::Arc;

use crate::proxy::Proxy;

/// The UDP socket on `0.0.0.0:53` in the namespace, with `IP_PKTINFO` on.
///
/// # Safety
/// System calls only (it runs between fork and exec).
pub(crate) unsafe fn socket() -> Result<RawFd, i32> {
    let errno = || io::Error::last_os_error().raw_os_error().unwrap_or(0);
    unsafe {
        let s = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if s < 0 {
            return Err(errno());
        }
        let on: libc::c_int = 1;
        let mut at: libc::sockaddr_in = zeroed();
        at.sin_family = libc::AF_INET as libc::sa_family_t;
        at.sin_port = 53u16.to_be();
        if libc::setsockopt(
            s,
            libc::IPPROTO_IP,
            libc::IP_PKTINFO,
            (&raw const on).cast(),
            size_of::<libc::c_int>() as libc::socklen_t,
        ) != 0
            || libc::bind(
                s,
                (&raw const at).cast(),
                size_of::<libc::sockaddr_in>() as libc::socklen_t,
            ) != 0
        {
            let e = errno();
            libc::close(s);
            return Err(e);
        }
        Ok(s)
    }
}

/// Answers each query on `socket` with `REFUSED` and tells it once per
/// name, until the socket fails.
pub fn refuse(proxy: Arc<Proxy>, socket: OwnedFd) {
    let mut query = [0u8; 512];
    loop {
        let Some((len, client, server)) = receive(&socket, &mut query) else {
            return;
        };
        let Some((name, end)) = question(&query[..len]) else {
            continue;
        };
        let server = SocketAddrV4::new(server, 53);
        proxy.refused_lookup(&name, &server.to_string());
        let mut answer = query[..end].to_vec();
        answer[2] = 0x80 | (answer[2] & 0x79); // a response; opcode and RD kept
        answer[3] = 5; // REFUSED
        answer[4..12].copy_from_slice(&[0, 1, 0, 0, 0, 0, 0, 0]);
        send(&socket, &answer, client, *server.ip());
    }
}

/// A datagram: its length, who sent it and the address it was sent to.
fn receive(socket: &OwnedFd, buf: &mut [u8]) -> Option<(usize, libc::sockaddr_in, Ipv4Addr)> {
    unsafe {
        let mut from: libc::sockaddr_in = zeroed();
        let mut iov = libc::iovec {
            iov_base: buf.as_mut_ptr().cast(),
            iov_len: buf.len(),
        };
        let mut control = [0u64; 8];
        let mut msg: libc::msghdr = zeroed();
        msg.msg_name = (&raw mut from).cast();
        msg.msg_namelen = size_of::<libc::sockaddr_in>() as libc::socklen_t;
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = size_of_val(&control) as _;
        loop {
            let n = libc::recvmsg(socket.as_raw_fd(), &mut msg, 0);
            if n >= 0 {
                let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
                while !cmsg.is_null() {
                    if (*cmsg).cmsg_level == libc::IPPROTO_IP
                        && (*cmsg).cmsg_type == libc::IP_PKTINFO
                    {
                        let info: libc::in_pktinfo =
                            std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast());
                        let to = Ipv4Addr::from(u32::from_be(info.ipi_addr.s_addr));
                        return Some((n as usize, from, to));
                    }
                    cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
                }
                return Some((n as usize, from, Ipv4Addr::UNSPECIFIED));
            }
            if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                return None;
            }
        }
    }
}

/// Sends `answer` to `client` from `source`.
fn send(socket: &OwnedFd, answer: &[u8], mut client: libc::sockaddr_in, source: Ipv4Addr) {
    unsafe {
        let mut iov = libc::iovec {
            iov_base: answer.as_ptr().cast_mut().cast(),
            iov_len: answer.len(),
        };
        let mut control = [0u64; 8];
        let mut msg: libc::msghdr = zeroed();
        msg.msg_name = (&raw mut client).cast();
        msg.msg_namelen = size_of::<libc::sockaddr_in>() as libc::socklen_t;
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        if !source.is_unspecified() {
            let bytes = size_of::<libc::in_pktinfo>() as u32;
            msg.msg_control = control.as_mut_ptr().cast();
            msg.msg_controllen = libc::CMSG_SPACE(bytes) as _;
            let cmsg = libc::CMSG_FIRSTHDR(&msg);
            (*cmsg).cmsg_level = libc::IPPROTO_IP;
            (*cmsg).cmsg_type = libc::IP_PKTINFO;
            (*cmsg).cmsg_len = libc::CMSG_LEN(bytes) as _;
            let mut info: libc::in_pktinfo = zeroed();
            info.ipi_spec_dst.s_addr = u32::from(source).to_be();
            std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast(), info);
        }
        // The client may be gone: nothing to do about it.
        libc::sendmsg(socket.as_raw_fd(), &msg, 0);
    }
}

/// The name a query asks for (printable: other bytes escaped) and where
/// its question ends; `None` if it is not one question of a query.
fn question(query: &[u8]) -> Option<(String, usize)> {
    if query.len() < 12 || query[2] & 0x80 != 0 || query[4..6] != [0, 1] {
        return None;
    }
    let mut at = 12;
    let mut labels = Vec::new();
    loop {
        let len = usize::from(*query.get(at)?);
        at += 1;
        if len == 0 {
            break;
        }
        // A compression pointer (or a reserved form) has no place in a question.
        if len > 63 || at + len > query.len() || at > 12 + 255 {
            return None;
        }
        labels.push(query[at..at + len].escape_ascii().to_string());
        at += len;
    }
    let end = at + 4; // type and class
    (end <= query.len()).then(|| {
        let name = if labels.is_empty() {
            ".".to_string()
        } else {
            labels.join(".")
        };
        (name, end)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(labels: &[&[u8]]) -> Vec<u8> {
        let mut q = vec![0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0];
        for l in labels {
            q.push(l.len() as u8);
            q.extend_from_slice(l);
        }
        q.extend_from_slice(&[0, 0, 1, 0, 1]);
        q
    }

    #[test]
    fn a_question_names_what_it_asks_for() {
        let q = query(&[b"api", b"example", b"com"]);
        assert_eq!(question(&q), Some(("api.example.com".into(), q.len())));
        let odd = query(&[b"a\nb", b"\xff"]);
        assert_eq!(question(&odd).unwrap().0, "a\\nb.\\xff");
        assert_eq!(question(&query(&[])).unwrap().0, ".");
    }

    #[test]
    fn what_is_not_one_question_is_ignored() {
        let q = query(&[b"example", b"com"]);
        assert_eq!(question(&q[..q.len() - 1]), None, "cut short");
        let mut answer = q.clone();
        answer[2] |= 0x80;
        assert_eq!(question(&answer), None, "a response");
        let mut pointer = q.clone();
        pointer[12] = 0xc0;
        assert_eq!(question(&pointer), None);
        assert_eq!(question(&q[..11]), None);
    }
}
