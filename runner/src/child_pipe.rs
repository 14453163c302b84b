//! A pipe from a child process back to this one, for what the child tells its parent apart from
//! its output: `blaise-egress`'s tally to the run, a run's metrics to the daemon.

use std::io::{PipeReader, PipeWriter};
use std::os::fd::{AsRawFd, RawFd};

/// A pipe whose write end `command`'s process inherits, as descriptor number `RawFd` (the
/// caller tells the child the number); both ends stay close-on-exec here, so no other child
/// inherits them. Drop the writer once the child is spawned: the reader then ends when the child
/// (and whatever it passed the descriptor to) has exited.
pub fn pipe_to_child(
    command: &mut tokio::process::Command,
) -> std::io::Result<(PipeReader, PipeWriter, RawFd)> {
    let (reader, writer) = std::io::pipe()?;
    let fd = writer.as_raw_fd();
    // SAFETY: fcntl only clears the close-on-exec flag of a descriptor that stays open in the
    // parent until the child has been spawned; it is async-signal-safe.
    unsafe {
        command.pre_exec(move || {
            if libc::fcntl(fd, libc::F_SETFD, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    Ok((reader, writer, fd))
}

/// Takes over descriptor `fd`, inherited from the parent: close-on-exec from now on (nothing
/// this process starts inherits it) and non-blocking (a parent slow to read never stalls a
/// write: the caller drops what does not fit).
pub fn inherited_writer(fd: RawFd) -> std::io::Result<std::fs::File> {
    use std::os::fd::FromRawFd;
    // SAFETY: fcntl on a descriptor number only reads or sets its flags; a number that is not
    // open fails with EBADF, checked before the descriptor is owned.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0
            || libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) != 0
            || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) != 0
        {
            return Err(std::io::Error::last_os_error());
        }
        Ok(std::fs::File::from_raw_fd(fd))
    }
}
