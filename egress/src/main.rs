//! `blaise-egress [--allow DEST]… [--port N] [--netns PATH] -- COMMAND…`
//!
//! Runs COMMAND with its connections limited to the listed destinations (see
//! the library's documentation), and exits as it exits.

use std::process::{Command, ExitCode};
use std::sync::Arc;

use blaise_egress::{DEFAULT_PORT, Policy, Proxy, netns, report};

const USAGE: &str = "\
usage: blaise-egress [--allow DEST]... [--port N] [--netns PATH] -- COMMAND [ARG]...

Runs COMMAND in a network namespace whose only way out is a proxy that lets
connections through to the listed destinations only (HTTPS_PROXY and
HTTP_PROXY point at it), and exits as COMMAND exits.

  --allow DEST   host[:port], *.domain[:port], an IP address or a CIDR range
                 ([v6]:port for IPv6 with a port); without a port: 443 and 80
  --port N       the proxy's port on the namespace's loopback (default 3128)
  --netns PATH   listen in this existing namespace (/proc/PID/ns/net of a
                 container) and run COMMAND as is: it enters the namespace itself

What left is written to stderr when COMMAND exits (or at the first SIGTERM).
With BLAISE_EGRESS_REPORT_FD=N (the runner sets it), the same counts are also
written to descriptor N as JSON lines, which COMMAND never sees; SIGUSR1
writes one there at once and starts the counts afresh (a run that ends while
COMMAND goes on, kept for the next run).
";

struct Args {
    allow: Vec<String>,
    port: u16,
    netns: Option<std::path::PathBuf>,
    command: Vec<String>,
}

fn args() -> Result<Args, String> {
    let mut args = Args {
        allow: Vec::new(),
        port: DEFAULT_PORT,
        netns: None,
        command: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--" => {
                args.command = it.collect();
                break;
            }
            "--allow" => args.allow.push(value("--allow")?),
            "--port" => {
                let v = value("--port")?;
                args.port = v
                    .parse()
                    .ok()
                    .filter(|p| *p != 0)
                    .ok_or(format!("--port `{v}` is not a port"))?;
            }
            "--netns" => args.netns = Some(value("--netns")?.into()),
            "-h" | "--help" => {
                print!("{USAGE}");
                std::process::exit(0);
            }
            "-V" | "--version" => {
                println!("blaise-egress {}", env!("CARGO_PKG_VERSION"));
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument `{}`", other.escape_debug())),
        }
    }
    if args.command.is_empty() {
        return Err("no command after `--`".into());
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match args() {
        Ok(args) => args,
        Err(why) => {
            eprintln!("blaise-egress: {why}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let policy = match Policy::parse(&args.allow) {
        Ok(policy) => policy,
        Err(bad) => {
            eprintln!("blaise-egress: --allow {bad}");
            return ExitCode::from(2);
        }
    };
    match run(&args, policy) {
        Ok(code) => code,
        Err(why) => {
            eprintln!("blaise-egress: {why}");
            ExitCode::from(125)
        }
    }
}

fn run(args: &Args, policy: Policy) -> Result<ExitCode, String> {
    let proxy_url = format!("http://127.0.0.1:{}", args.port);
    let mut command = Command::new(&args.command[0]);
    command.args(&args.command[1..]);
    for name in ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"] {
        command.env(name, &proxy_url);
    }
    for name in ["NO_PROXY", "no_proxy"] {
        command.env(name, "localhost,127.0.0.1,::1");
    }
    let report = report_fd(&mut command);
    let signals = signals::block();
    let forwards = policy.forwards();
    let (mut child, listeners) = match &args.netns {
        None => netns::isolated(&mut command, args.port, &forwards).map_err(|e| {
            format!(
                "could not start `{}` behind the proxy: {e}",
                args.command[0]
            )
        })?,
        Some(path) => {
            let listener =
                netns::listen_in(path, args.port, &forwards).map_err(|e| e.to_string())?;
            let child = command
                .spawn()
                .map_err(|e| format!("could not start `{}`: {e}", args.command[0]))?;
            (child, listener)
        }
    };
    let proxy = Arc::new(Proxy::new(policy));
    let serving = proxy.clone();
    std::thread::Builder::new()
        .name("egress-accept".into())
        .stack_size(128 << 10)
        .spawn(move || serving.serve(listeners.proxy))
        .map_err(|e| format!("could not start the proxy: {e}"))?;
    let forwarded: Vec<_> = listeners.forwards.iter().map(|(to, _)| *to).collect();
    let watching = proxy.clone();
    let direct = listeners.direct;
    std::thread::Builder::new()
        .name("egress-direct".into())
        .stack_size(64 << 10)
        .spawn(move || blaise_egress::direct::watch(watching, direct, forwarded))
        .map_err(|e| format!("could not start watching direct connections: {e}"))?;
    let refusing = proxy.clone();
    let lookups = listeners.lookups;
    std::thread::Builder::new()
        .name("egress-lookups".into())
        .stack_size(64 << 10)
        .spawn(move || blaise_egress::lookups::refuse(refusing, lookups))
        .map_err(|e| format!("could not start answering DNS lookups: {e}"))?;
    for (to, listener) in listeners.forwards {
        let relaying = proxy.clone();
        std::thread::Builder::new()
            .name("egress-forward".into())
            .stack_size(128 << 10)
            .spawn(move || relaying.relay(listener, to))
            .map_err(|e| format!("could not start the forward to {to}: {e}"))?;
    }
    // What left is told once: when a termination signal comes (the runner
    // may kill the whole group soon after), or else when the command exits.
    // The runner's record gets it then too, and again at the exit (each
    // report is the whole tally: the last one counts).
    let report = report.map(Arc::new);
    let write_report = {
        let (proxy, report) = (proxy.clone(), report.clone());
        move || {
            if let Some(mut fd) = report.as_deref() {
                use std::io::Write;
                // The runner is gone or stopped reading: the log has it.
                let _ = fd.write_all(proxy.tally().report_line().as_bytes());
            }
        }
    };
    let told = Arc::new(std::sync::Once::new());
    let tell = {
        let (proxy, told, write_report) = (proxy.clone(), told.clone(), write_report.clone());
        move || {
            told.call_once(|| {
                for line in proxy.tally().summary() {
                    blaise_egress::proxy::tell(&line);
                }
                write_report();
            })
        }
    };
    // SIGUSR1: the run that started the command ends, the command goes on
    // (a hot pause): its record gets what left so far, the next run's counts
    // start from nothing.
    let report_now = {
        let (proxy, write_report) = (proxy.clone(), write_report.clone());
        move || {
            write_report();
            proxy.tally().restart();
        }
    };
    signals::forward_to(signals, child.id(), tell.clone(), report_now);
    let status = child
        .wait()
        .map_err(|e| format!("waiting for `{}`: {e}", args.command[0]))?;
    tell();
    write_report();
    use std::os::unix::process::ExitStatusExt;
    Ok(match (status.code(), status.signal()) {
        (Some(code), _) => ExitCode::from(code as u8),
        (None, Some(signal)) => ExitCode::from(128u8.wrapping_add(signal as u8)),
        _ => ExitCode::FAILURE,
    })
}

/// The descriptor the runner gave for its record of the run
/// ([`report::FD_VAR`]), kept from the command: close-on-exec, and its
/// variable removed from the command's environment.
fn report_fd(command: &mut Command) -> Option<std::fs::File> {
    let value = std::env::var_os(report::FD_VAR)?;
    command.env_remove(report::FD_VAR);
    let fd = value
        .to_str()
        .and_then(|v| v.parse::<libc::c_int>().ok())
        .filter(|fd| *fd > 2);
    // SAFETY: fcntl on a number only reads or sets that descriptor's flags.
    let Some(fd) = fd.filter(|fd| unsafe { libc::fcntl(*fd, libc::F_GETFD) } >= 0) else {
        eprintln!(
            "blaise-egress: {}={value:?} is not an open descriptor: the counts go to the log only",
            report::FD_VAR
        );
        return None;
    };
    use std::os::fd::FromRawFd;
    // SAFETY: the descriptor is open (checked above) and nothing else in
    // this process uses it: it was inherited for this purpose alone.
    unsafe {
        libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
        Some(std::fs::File::from_raw_fd(fd))
    }
}

/// Termination signals are passed on to the command (the runner signals
/// the whole process group too; an operator's `kill` may not).
mod signals {
    use std::mem::zeroed;

    pub struct Blocked(libc::sigset_t);

    const SIGNALS: [libc::c_int; 5] = [
        libc::SIGTERM,
        libc::SIGINT,
        libc::SIGHUP,
        libc::SIGQUIT,
        libc::SIGUSR1,
    ];

    /// Blocks them in this process before any thread starts (children get
    /// the usual mask back: `std` resets it at their exec).
    pub fn block() -> Blocked {
        unsafe {
            let mut set: libc::sigset_t = zeroed();
            libc::sigemptyset(&mut set);
            for s in SIGNALS {
                libc::sigaddset(&mut set, s);
            }
            libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
            Blocked(set)
        }
    }

    /// Passes each on to `pid`, after `first` (once) for a SIGTERM; a
    /// SIGUSR1 is this program's own (`report`), not passed on.
    pub fn forward_to(
        blocked: Blocked,
        pid: u32,
        first: impl Fn() + Send + 'static,
        report: impl Fn() + Send + 'static,
    ) {
        let _ = std::thread::Builder::new()
            .name("egress-signals".into())
            .stack_size(64 << 10)
            .spawn(move || {
                loop {
                    let mut info: libc::siginfo_t = unsafe { zeroed() };
                    let signal = unsafe { libc::sigwaitinfo(&blocked.0, &mut info) };
                    if signal > 0 {
                        if signal == libc::SIGUSR1 {
                            // The runner's, never the command's: what the
                            // command starts must not restart the counts
                            // that would tell on it.
                            if !from_below(unsafe { info.si_pid() }) {
                                report();
                            }
                            continue;
                        }
                        if signal == libc::SIGTERM {
                            first();
                        }
                        unsafe { libc::kill(pid as libc::pid_t, signal) };
                    }
                }
            });
    }

    /// Whether `sender` is this process or below it (its parents, read from
    /// `/proc`, lead here). One that cannot be read counts as below.
    pub fn from_below(sender: libc::pid_t) -> bool {
        let me = std::process::id() as libc::pid_t;
        let mut pid = sender;
        for _ in 0..256 {
            if pid == me {
                return true;
            }
            if pid <= 1 {
                return false;
            }
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return true;
            };
            // `pid (comm) state ppid …`: the name may hold spaces and parentheses.
            let Some(ppid) = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|p| p.parse().ok())
            else {
                return true;
            };
            pid = ppid;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_report_is_asked_for_only_from_outside_the_command() {
        let me = std::process::id() as libc::pid_t;
        assert!(super::signals::from_below(me));
        assert!(!super::signals::from_below(unsafe { libc::getppid() }));
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        assert!(super::signals::from_below(child.id() as libc::pid_t));
        child.kill().unwrap();
        child.wait().unwrap();
    }
}
