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

/// A pipe whose write end is `command`'s standard output (descriptor 1), for a child that
/// writes nothing else there (a run process, whose log is its standard error). Unlike
/// [`pipe_to_child`] it needs no `pre_exec`, so the child is started with `posix_spawn`
/// rather than by forking this process's address space: a run process starts in 0.2–0.3 ms
/// instead of 1–4 ms on the runner's machine.
pub fn pipe_as_stdout(command: &mut tokio::process::Command) -> std::io::Result<PipeReader> {
    let (reader, writer) = std::io::pipe()?;
    command.stdout(writer);
    Ok(reader)
}

/// Takes over descriptor `fd`, inherited from the parent: close-on-exec from now on (nothing
/// this process starts inherits it) and non-blocking (a parent slow to read never stalls a
/// write: the caller drops what does not fit). A standard descriptor (0–2) is moved to a
/// number of its own, and `/dev/null` takes its place: what this process or a child writes
/// there never reaches the pipe.
pub fn inherited_writer(fd: RawFd) -> std::io::Result<std::fs::File> {
    use std::os::fd::FromRawFd;
    // SAFETY: fcntl on a descriptor number only reads or sets its flags (or duplicates it); a
    // number that is not open fails with EBADF, checked before the descriptor is owned.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let own = if fd <= 2 {
            let moved = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3);
            if moved < 0 {
                return Err(std::io::Error::last_os_error());
            }
            let null = std::fs::OpenOptions::new().write(true).open("/dev/null")?;
            if libc::dup2(null.as_raw_fd(), fd) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            moved
        } else {
            if libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            fd
        };
        if libc::fcntl(own, libc::F_SETFL, flags | libc::O_NONBLOCK) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(std::fs::File::from_raw_fd(own))
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::os::fd::AsRawFd;

    #[test]
    fn a_pipe_given_as_a_standard_descriptor_moves_off_it() {
        // Standard input stands for the run's standard output: the test harness does not read it.
        let (mut reader, writer) = std::io::pipe().unwrap();
        // SAFETY: dup2 onto descriptor 0, which this test owns while it runs.
        assert!(unsafe { libc::dup2(writer.as_raw_fd(), 0) } == 0);
        drop(writer);
        let mut sink = super::inherited_writer(0).unwrap();
        assert!(sink.as_raw_fd() > 2, "a descriptor of its own");
        // SAFETY: F_GETFD only reads the flags of an open descriptor.
        let flags = unsafe { libc::fcntl(sink.as_raw_fd(), libc::F_GETFD) };
        assert_eq!(
            flags & libc::FD_CLOEXEC,
            libc::FD_CLOEXEC,
            "no child inherits it"
        );
        assert_eq!(
            std::fs::read_link("/proc/self/fd/0").unwrap(),
            std::path::Path::new("/dev/null"),
            "the standard descriptor is /dev/null now"
        );
        sink.write_all(b"sample\n").unwrap();
        // Read what was written, not to the end: a child another test spawned meanwhile may
        // have inherited descriptor 0 while it was the pipe.
        let mut got = [0u8; 7];
        reader.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"sample\n");
    }
}
