//! What the daemon's keeper and a run say to each other: one JSON message per
//! datagram of a `SOCK_SEQPACKET` socket pair, with the descriptors it hands
//! over attached (`SCM_RIGHTS`). A datagram keeps its bounds and its
//! descriptors together: no framing to get wrong.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};

use serde::{Deserialize, Serialize};

/// Longest message (an agent's command line and environment fit many times).
pub const MAX_MESSAGE: usize = 1 << 20;
/// Most descriptors one message carries (stdin, stdout, stderr, and the
/// read end of `blaise-egress`'s report).
const MAX_FDS: usize = 4;

/// From a run to the keeper.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// Start the agent under a guard (descriptor: its working directory,
    /// opened and checked by the run).
    Spawn {
        argv: Vec<String>,
        env: Vec<(String, String)>,
        /// The command starts with `blaise-egress`: give it a report pipe
        /// (its read end comes back fourth).
        #[serde(default)]
        egress_report: bool,
    },
    /// Keep the agent `pid` for `session`, frozen (descriptors: its stdin,
    /// stdout and stderr, and the read end of its egress report if it has
    /// one). `meta` is the run's, handed back by `Take`.
    Keep {
        session: String,
        pid: u32,
        meta: String,
    },
    /// Hand over the agent kept for `session`, if there is one.
    Take { session: String },
    /// Keep the agent `pid`, started ahead in slot `slot`, frozen, in the
    /// warm pool (descriptors as for `Keep`) for a start run to take.
    KeepWarm {
        slot: String,
        pid: u32,
        meta: String,
    },
    /// Hand over the warm agent that waited longest, if there is one: it
    /// is this run's from now on, and never goes back to the pool.
    TakeWarm,
}

/// From the keeper to a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Reply {
    /// The agent started (descriptors: its stdin, stdout, stderr, and the
    /// read end of its egress report when asked for).
    Spawned { pid: u32 },
    /// The agent is kept.
    Kept,
    /// The kept agent (descriptors: as `Keep` handed them), still frozen.
    Taken { pid: u32, meta: String },
    /// Nothing was done, and why.
    Refused { why: String },
    /// An agent this run started or took exited (its raw wait status). Sent
    /// whenever it happens, between replies.
    Exited { pid: u32, status: i32 },
}

/// Sends `message` with `fds` attached.
pub fn send<T: Serialize>(socket: BorrowedFd, message: &T, fds: &[BorrowedFd]) -> io::Result<()> {
    let bytes = serde_json::to_vec(message).map_err(io::Error::other)?;
    assert!(
        fds.len() <= MAX_FDS,
        "at most {MAX_FDS} descriptors a message"
    );
    let mut iov = libc::iovec {
        iov_base: bytes.as_ptr() as *mut libc::c_void,
        iov_len: bytes.len(),
    };
    // Room for the largest control message, aligned as `cmsghdr` must be.
    let mut control = [0u64; 8];
    // SAFETY: `msghdr` is plain data; every pointer set below points into
    // locals that outlive the `sendmsg` call, and `CMSG_*` are used within
    // the `control` buffer, whose size covers `MAX_FDS` descriptors.
    unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        if !fds.is_empty() {
            let data_len = std::mem::size_of_val(fds) as u32;
            msg.msg_control = control.as_mut_ptr() as *mut libc::c_void;
            msg.msg_controllen = libc::CMSG_SPACE(data_len) as usize;
            let cmsg = libc::CMSG_FIRSTHDR(&msg);
            (*cmsg).cmsg_level = libc::SOL_SOCKET;
            (*cmsg).cmsg_type = libc::SCM_RIGHTS;
            (*cmsg).cmsg_len = libc::CMSG_LEN(data_len) as usize;
            let raw: Vec<RawFd> = fds.iter().map(|fd| fd.as_raw_fd()).collect();
            std::ptr::copy_nonoverlapping(
                raw.as_ptr() as *const u8,
                libc::CMSG_DATA(cmsg),
                data_len as usize,
            );
        }
        loop {
            let sent = libc::sendmsg(socket.as_raw_fd(), &msg, libc::MSG_NOSIGNAL);
            if sent >= 0 {
                return Ok(());
            }
            let error = io::Error::last_os_error();
            if error.kind() != io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
    }
}

/// Waits for the next message and the descriptors attached to it (owned,
/// close-on-exec). `Ok(None)`: the other side closed its end.
pub fn recv<T: for<'de> Deserialize<'de>>(
    socket: BorrowedFd,
) -> io::Result<Option<(T, Vec<OwnedFd>)>> {
    let mut buffer = vec![0u8; MAX_MESSAGE];
    let mut iov = libc::iovec {
        iov_base: buffer.as_mut_ptr() as *mut libc::c_void,
        iov_len: buffer.len(),
    };
    let mut control = [0u64; 8];
    let mut fds = Vec::new();
    // SAFETY: as in `send`; the kernel writes at most `msg_controllen` bytes
    // of control data, and only `SCM_RIGHTS` data is read back, as the
    // descriptors it says were installed in this process (each owned once).
    let received = unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr() as *mut libc::c_void;
        msg.msg_controllen = std::mem::size_of_val(&control);
        let received = loop {
            let n = libc::recvmsg(socket.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC);
            if n >= 0 {
                break n as usize;
            }
            let error = io::Error::last_os_error();
            if error.kind() != io::ErrorKind::Interrupted {
                return Err(error);
            }
        };
        let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                let bytes = (*cmsg).cmsg_len as usize - libc::CMSG_LEN(0) as usize;
                let data = libc::CMSG_DATA(cmsg) as *const RawFd;
                for k in 0..bytes / std::mem::size_of::<RawFd>() {
                    fds.push(OwnedFd::from_raw_fd(data.add(k).read_unaligned()));
                }
            }
            cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
        }
        if msg.msg_flags & (libc::MSG_TRUNC | libc::MSG_CTRUNC) != 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "a keeper message was cut short",
            ));
        }
        received
    };
    if received == 0 && fds.is_empty() {
        return Ok(None);
    }
    let message = serde_json::from_slice(&buffer[..received])
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    Ok(Some((message, fds)))
}

/// A connected pair of `SOCK_SEQPACKET` sockets, close-on-exec.
pub fn pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: socketpair writes two new descriptors into `fds` on success,
    // each then owned once.
    unsafe {
        if libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        ) != 0
        {
            return Err(io::Error::last_os_error());
        }
        Ok((OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::os::fd::AsFd;

    #[test]
    fn a_message_arrives_whole_with_its_descriptors() {
        let (a, b) = pair().unwrap();
        let (reader, mut writer) = std::io::pipe().unwrap();
        let request = Request::Keep {
            session: "s1".into(),
            pid: 42,
            meta: "x".repeat(100_000),
        };
        send(a.as_fd(), &request, &[reader.as_fd()]).unwrap();
        drop(reader);
        let (got, fds): (Request, _) = recv(b.as_fd()).unwrap().unwrap();
        assert_eq!(got, request);
        assert_eq!(fds.len(), 1);
        writer.write_all(b"through").unwrap();
        drop(writer);
        let mut passed = std::fs::File::from(fds.into_iter().next().unwrap());
        let mut text = String::new();
        passed.read_to_string(&mut text).unwrap();
        assert_eq!(text, "through");
        drop(a);
        assert!(recv::<Request>(b.as_fd()).unwrap().is_none(), "closed");
    }
}
