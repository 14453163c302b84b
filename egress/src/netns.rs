//! The agent's network namespace, whose only way out is the proxy.
//!
//! [`isolated`]: the command starts in a new network namespace (and a new user
//! namespace when not root) that has only a loopback interface; before the
//! command is executed, the child binds the proxy's listener on that loopback
//! and hands it to this process over a socket pair. The listener lives in the
//! agent's namespace, the proxy's outgoing connections in the host's: nothing
//! else inside has a route out.
//!
//! [`listen_in`]: the proxy's listener in an existing namespace (a
//! container's, by `/proc/PID/ns/net`), for a command that enters it by
//! other means (`docker exec`).

use std::io;
use std::mem::{size_of, zeroed};
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command};

/// The steps of the child's setup, to name the one that failed.
const STEPS: [&str; 10] = [
    "new network namespace",
    "user namespace mapping",
    "bringing up loopback",
    "binding the proxy's address",
    "handing over the listeners",
    "new user and network namespace",
    "adding a forwarded address to loopback",
    "binding a forwarded address",
    "routing direct attempts to loopback and watching it",
    "binding the DNS refuser on 0.0.0.0:53",
];

/// Most addresses forwarded into a namespace.
pub const MAX_FORWARDS: usize = 64;

/// The listeners made in the agent's namespace: the proxy's, and one per
/// forwarded address (in the order asked for); and the packet socket that
/// sees direct attempts ([`crate::direct`]) and the socket DNS queries
/// reach ([`crate::lookups`]).
pub struct Listeners {
    pub proxy: TcpListener,
    pub forwards: Vec<(SocketAddrV4, TcpListener)>,
    pub direct: OwnedFd,
    pub lookups: OwnedFd,
}

/// Starts `command` in a new network namespace with the proxy's listener on
/// `127.0.0.1:port` there and one on each of `forwards` (an address outside
/// loopback is added to it); returns the child and the listeners.
pub fn isolated(
    command: &mut Command,
    port: u16,
    forwards: &[SocketAddrV4],
) -> io::Result<(Child, Listeners)> {
    if forwards.len() > MAX_FORWARDS {
        return Err(io::Error::other(format!(
            "{} addresses to forward, more than {MAX_FORWARDS}",
            forwards.len()
        )));
    }
    let plan = Plan::new(port, forwards);
    let (mine, theirs) = socket_pair()?;
    let theirs_fd = theirs.as_raw_fd();
    let root = unsafe { libc::geteuid() } == 0;
    // Prepared before the fork: the child allocates nothing.
    let uid_map = format!("{0} {0} 1\n", unsafe { libc::geteuid() }).into_bytes();
    let gid_map = format!("{0} {0} 1\n", unsafe { libc::getegid() }).into_bytes();
    unsafe {
        command.pre_exec(move || {
            let r = child_setup(root, &plan, theirs_fd, &uid_map, &gid_map);
            if let Err((step, errno)) = r {
                let mut report = [0u8; 8];
                report[0] = step as u8;
                report[4..].copy_from_slice(&errno.to_ne_bytes());
                libc::send(theirs_fd, report.as_ptr().cast(), report.len(), 0);
                return Err(io::Error::from_raw_os_error(errno));
            }
            Ok(())
        });
    }
    let spawned = command.spawn();
    drop(theirs);
    match spawned {
        Ok(child) => {
            let fds = receive_fds(mine.as_raw_fd(), 3 + forwards.len())?;
            Ok((child, listeners(fds, forwards)))
        }
        Err(e) => {
            let step = failed_step(mine.as_raw_fd());
            Err(io::Error::new(
                e.kind(),
                match step {
                    Some(step) => format!("{step}: {e}"),
                    None => e.to_string(),
                },
            ))
        }
    }
}

/// What the child makes, prepared before the fork (it allocates nothing).
struct Plan {
    proxy: libc::sockaddr_in,
    /// Each forward's address, and the loopback label to add it under
    /// (`None` for a loopback address, already there).
    forwards: Vec<(libc::sockaddr_in, Option<[libc::c_char; libc::IFNAMSIZ]>)>,
    /// The kernel filter of the direct-attempt watcher.
    filter: [libc::sock_filter; 30],
}

impl Plan {
    fn new(port: u16, forwards: &[SocketAddrV4]) -> Plan {
        Plan {
            proxy: sockaddr(SocketAddrV4::new(Ipv4Addr::LOCALHOST, port)),
            forwards: forwards
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    (
                        sockaddr(*a),
                        (!a.ip().is_loopback()).then(|| if_name(&format!("lo:{}", i + 1))),
                    )
                })
                .collect(),
            filter: crate::direct::filter(),
        }
    }
}

fn sockaddr(a: SocketAddrV4) -> libc::sockaddr_in {
    let mut s: libc::sockaddr_in = unsafe { zeroed() };
    s.sin_family = libc::AF_INET as libc::sa_family_t;
    s.sin_port = a.port().to_be();
    s.sin_addr.s_addr = u32::from(*a.ip()).to_be();
    s
}

fn if_name(name: &str) -> [libc::c_char; libc::IFNAMSIZ] {
    let mut out = [0; libc::IFNAMSIZ];
    for (o, b) in out.iter_mut().zip(name.bytes().take(libc::IFNAMSIZ - 1)) {
        *o = b as libc::c_char;
    }
    out
}

/// The proxy's listener on `127.0.0.1:port`, and the forwards', in the
/// network namespace at `netns` (e.g. `/proc/PID/ns/net` of a container);
/// entering it takes CAP_SYS_ADMIN over it.
pub fn listen_in(netns: &Path, port: u16, forwards: &[SocketAddrV4]) -> io::Result<Listeners> {
    if forwards.len() > MAX_FORWARDS {
        return Err(io::Error::other(format!(
            "{} addresses to forward, more than {MAX_FORWARDS}",
            forwards.len()
        )));
    }
    let plan = Plan::new(port, forwards);
    let file = std::fs::File::open(netns)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", netns.display())))?;
    // Its own namespace (the host's): every address would be made local
    // to the host, and the command would have the host's network anyway.
    let own = std::fs::metadata("/proc/self/ns/net")?;
    let theirs = file.metadata()?;
    use std::os::unix::fs::MetadataExt;
    if (own.dev(), own.ino()) == (theirs.dev(), theirs.ino()) {
        return Err(io::Error::other(format!(
            "{} is blaise-egress's own network namespace: give the namespace of the container the command enters",
            netns.display()
        )));
    }
    // `setns` moves only the calling thread: a thread of its own, which ends.
    let fds = std::thread::scope(|s| {
        s.spawn(|| unsafe {
            if libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) != 0 {
                let e = io::Error::last_os_error();
                return Err(io::Error::new(
                    e.kind(),
                    format!("entering the network namespace {}: {e}", netns.display()),
                ));
            }
            let (fds, n) = make_listeners(&plan).map_err(|(step, errno)| {
                let e = io::Error::from_raw_os_error(errno);
                io::Error::new(
                    e.kind(),
                    format!("{} in {}: {e}", STEPS[step], netns.display()),
                )
            })?;
            Ok(fds[..n]
                .iter()
                .map(|fd| OwnedFd::from_raw_fd(*fd))
                .collect::<Vec<_>>())
        })
        .join()
        .unwrap_or_else(|_| Err(io::Error::other("the namespace thread panicked")))
    })?;
    Ok(listeners(fds, forwards))
}

fn listeners(mut fds: Vec<OwnedFd>, forwards: &[SocketAddrV4]) -> Listeners {
    let lookups = fds.pop().expect("the DNS socket comes last");
    let direct = fds.pop().expect("the watcher comes before it");
    let mut fds = fds.into_iter().map(TcpListener::from);
    let proxy = fds.next().expect("the proxy's listener comes first");
    Listeners {
        proxy,
        forwards: forwards.iter().copied().zip(fds).collect(),
        direct,
        lookups,
    }
}

/// In the child, between fork and exec: only system calls.
fn child_setup(
    root: bool,
    plan: &Plan,
    report_fd: RawFd,
    uid_map: &[u8],
    gid_map: &[u8],
) -> Result<(), (usize, i32)> {
    let errno = || io::Error::last_os_error().raw_os_error().unwrap_or(0);
    unsafe {
        if root {
            if libc::unshare(libc::CLONE_NEWNET) != 0 {
                return Err((0, errno()));
            }
        } else {
            if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET) != 0 {
                return Err((5, errno()));
            }
            // Oneself as oneself: files keep their owners.
            for (path, content) in [
                (c"/proc/self/setgroups", &b"deny\n"[..]),
                (c"/proc/self/uid_map", uid_map),
                (c"/proc/self/gid_map", gid_map),
            ] {
                let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                if fd < 0 || libc::write(fd, content.as_ptr().cast(), content.len()) < 0 {
                    return Err((1, errno()));
                }
                libc::close(fd);
            }
        }
        let fds = make_listeners(plan)?;
        let fds = &fds.0[..fds.1];
        if send_fds(report_fd, fds) != 0 {
            return Err((4, errno()));
        }
        for fd in fds {
            libc::close(*fd);
        }
    }
    Ok(())
}

/// Brings loopback up (a new namespace has it down; a container's, up).
unsafe fn loopback_up() -> Result<(), i32> {
    let errno = || io::Error::last_os_error().raw_os_error().unwrap_or(0);
    unsafe {
        let s = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if s < 0 {
            return Err(errno());
        }
        let mut ifr: libc::ifreq = zeroed();
        for (i, b) in b"lo\0".iter().enumerate() {
            ifr.ifr_name[i] = *b as libc::c_char;
        }
        let mut r = libc::ioctl(s, libc::SIOCGIFFLAGS, &mut ifr);
        if r == 0 {
            ifr.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
            r = libc::ioctl(s, libc::SIOCSIFFLAGS, &ifr);
        }
        let e = errno();
        libc::close(s);
        if r != 0 { Err(e) } else { Ok(()) }
    }
}

/// The listeners of `plan` (the proxy's, then the forwards'), then the
/// direct-attempt watcher and the DNS socket: an array and how many
/// (nothing is allocated), or the failed step and errno.
unsafe fn make_listeners(plan: &Plan) -> Result<([RawFd; 3 + MAX_FORWARDS], usize), (usize, i32)> {
    let mut fds = [0 as RawFd; 3 + MAX_FORWARDS];
    unsafe {
        loopback_up().map_err(|e| (2, e))?;
        fds[0] = listen(&plan.proxy).map_err(|e| (3, e))?;
        for (i, (addr, label)) in plan.forwards.iter().enumerate() {
            if let Some(label) = label {
                add_to_loopback(label, addr).map_err(|e| (6, e))?;
            }
            fds[1 + i] = listen(addr).map_err(|e| (7, e))?;
        }
        let n = 1 + plan.forwards.len();
        fds[n] = crate::direct::prepare(&plan.filter).map_err(|e| (8, e))?;
        fds[n + 1] = crate::lookups::socket().map_err(|e| (9, e))?;
        Ok((fds, n + 2))
    }
}

/// A listening socket on `addr`, or the errno.
unsafe fn listen(addr: &libc::sockaddr_in) -> Result<RawFd, i32> {
    let errno = || io::Error::last_os_error().raw_os_error().unwrap_or(0);
    unsafe {
        let l = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        if l < 0 {
            return Err(errno());
        }
        if libc::bind(
            l,
            (addr as *const libc::sockaddr_in).cast(),
            size_of::<libc::sockaddr_in>() as libc::socklen_t,
        ) != 0
            || libc::listen(l, 128) != 0
        {
            return Err(errno());
        }
        Ok(l)
    }
}

/// Adds `addr/32` to loopback under `label`: the agent's connections to it
/// stay inside its namespace, where the forward listens.
unsafe fn add_to_loopback(
    label: &[libc::c_char; libc::IFNAMSIZ],
    addr: &libc::sockaddr_in,
) -> Result<(), i32> {
    let errno = || io::Error::last_os_error().raw_os_error().unwrap_or(0);
    unsafe {
        let s = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if s < 0 {
            return Err(errno());
        }
        let mut ifr: libc::ifreq = zeroed();
        ifr.ifr_name = *label;
        std::ptr::write_unaligned((&raw mut ifr.ifr_ifru).cast::<libc::sockaddr_in>(), *addr);
        if libc::ioctl(s, libc::SIOCSIFADDR, &ifr) != 0 {
            let e = errno();
            libc::close(s);
            return Err(e);
        }
        let mut mask = *addr;
        mask.sin_port = 0;
        mask.sin_addr.s_addr = u32::MAX;
        std::ptr::write_unaligned((&raw mut ifr.ifr_ifru).cast::<libc::sockaddr_in>(), mask);
        let r = libc::ioctl(s, libc::SIOCSIFNETMASK, &ifr);
        let e = errno();
        libc::close(s);
        if r != 0 { Err(e) } else { Ok(()) }
    }
}

fn socket_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    if unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    } != 0
    {
        return Err(io::Error::last_os_error());
    }
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Sends `fds` over `sock` (SCM_RIGHTS) with an all-zero report.
unsafe fn send_fds(sock: RawFd, fds: &[RawFd]) -> isize {
    unsafe {
        let mut data = [0u8; 8];
        let mut iov = libc::iovec {
            iov_base: data.as_mut_ptr().cast(),
            iov_len: data.len(),
        };
        let mut control = [0u64; CONTROL_WORDS];
        let bytes = size_of_val(fds) as u32;
        let mut msg: libc::msghdr = zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = libc::CMSG_SPACE(bytes) as _;
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(bytes) as _;
        std::ptr::copy_nonoverlapping(
            fds.as_ptr(),
            libc::CMSG_DATA(cmsg).cast::<RawFd>(),
            fds.len(),
        );
        if libc::sendmsg(sock, &msg, 0) < 0 {
            -1
        } else {
            0
        }
    }
}

/// Room for the control message of every descriptor (8-byte aligned).
const CONTROL_WORDS: usize = (16 + (3 + MAX_FORWARDS) * 4) / 8 + 2;

/// The `count` listeners the child sent.
fn receive_fds(sock: RawFd, count: usize) -> io::Result<Vec<OwnedFd>> {
    unsafe {
        let mut data = [0u8; 8];
        let mut iov = libc::iovec {
            iov_base: data.as_mut_ptr().cast(),
            iov_len: data.len(),
        };
        let mut control = [0u64; CONTROL_WORDS];
        let mut msg: libc::msghdr = zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = size_of_val(&control) as _;
        let n = libc::recvmsg(sock, &mut msg, libc::MSG_DONTWAIT | libc::MSG_CMSG_CLOEXEC);
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        if cmsg.is_null() || (*cmsg).cmsg_type != libc::SCM_RIGHTS {
            return Err(io::Error::other("the agent's namespace sent no listener"));
        }
        let got = ((*cmsg).cmsg_len as usize - libc::CMSG_LEN(0) as usize) / size_of::<RawFd>();
        let data = libc::CMSG_DATA(cmsg).cast::<RawFd>();
        let fds: Vec<OwnedFd> = (0..got)
            .map(|i| OwnedFd::from_raw_fd(std::ptr::read_unaligned(data.add(i))))
            .collect();
        if fds.len() != count {
            return Err(io::Error::other(format!(
                "the agent's namespace sent {} listeners, not {count}",
                fds.len()
            )));
        }
        Ok(fds)
    }
}

/// The step the child reported failing, if it did.
fn failed_step(sock: RawFd) -> Option<&'static str> {
    let mut report = [0u8; 8];
    let n = unsafe {
        libc::recv(
            sock,
            report.as_mut_ptr().cast(),
            report.len(),
            libc::MSG_DONTWAIT,
        )
    };
    (n == 8)
        .then(|| STEPS.get(report[0] as usize).copied())
        .flatten()
}
