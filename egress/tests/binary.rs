//! The `blaise-egress` binary as a plug's prefix runs it: the command in a
//! namespace of its own, the listed destination reached, others refused with
//! the destination named, what left counted, the command's exit status kept.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::Command;

const EGRESS: &str = env!("CARGO_BIN_EXE_blaise-egress");

/// A server on loopback answering each request with `body`.
fn server(body: &'static str) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            let mut buf = [0u8; 4096];
            let _ = conn.read(&mut buf);
            let _ = write!(
                conn,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
}

fn have_curl() -> bool {
    Command::new("curl").arg("--version").output().is_ok()
}

#[test]
fn the_command_reaches_what_is_listed_and_nothing_else() {
    if !have_curl() {
        eprintln!("SKIPPED: no curl");
        return;
    }
    let allowed = server("listed");
    let other = server("not-listed");
    let out = Command::new(EGRESS)
        .args(["--allow", &format!("127.0.0.1:{allowed}"), "--"])
        .args(["sh", "-c"])
        .arg(format!(
            "curl -sS -m 10 http://127.0.0.1:{allowed}/; echo; \
             curl -sS -m 10 --noproxy '' -x \"$HTTP_PROXY\" http://127.0.0.1:{other}/; echo; \
             curl -sS -m 10 http://127.0.0.1:{other}/ 2>&1; \
             exit 7"
        ))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(7), "the command's status: {stderr}");
    assert!(stdout.contains("listed\n"), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "blaise-egress refused 127.0.0.1:{other}: not in this environment's allow list"
        )),
        "{stdout}"
    );
    assert!(!stdout.contains("not-listed"), "{stdout}");
    assert!(
        stdout.contains("Couldn't connect"),
        "no forward for it: {stdout}"
    );
    assert!(
        stderr.contains(&format!("blaise-egress: refused 127.0.0.1:{other}: not in")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "blaise-egress: reached 127.0.0.1:{allowed}: 1 connection,"
        )),
        "{stderr}"
    );
}

#[test]
fn the_counts_reach_the_runner_on_its_descriptor_and_nothing_inside_can_write_there() {
    if !have_curl() {
        eprintln!("SKIPPED: no curl");
        return;
    }
    let allowed = server("listed");
    let dir = std::env::temp_dir().join(format!("egress-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let report = dir.join("report");
    // As the runner does: an inherited descriptor, named in the variable.
    let inside = format!(
        "curl -sS -m 10 http://127.0.0.1:{allowed}/ >/dev/null; \
         curl -sS -m 10 http://refused.example:8080/ >/dev/null 2>&1; \
         [ -e /proc/self/fd/9 ] && echo 'fd 9 is open inside'; \
         echo \"variable: ${{BLAISE_EGRESS_REPORT_FD-unset}}\"; \
         echo '{{\"reached\":[]}}' >&9 || echo 'no fd 9'"
    );
    let out = Command::new("bash")
        .args(["-c", r#"exec 9>"$1"; shift; exec "$@""#, "runner"])
        .arg(&report)
        .arg(EGRESS)
        .args(["--allow", &format!("127.0.0.1:{allowed}"), "--", "sh", "-c"])
        .arg(inside)
        .env("BLAISE_EGRESS_REPORT_FD", "9")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!stdout.contains("fd 9 is open inside"), "{stdout}");
    assert!(stdout.contains("variable: unset"), "{stdout}");
    assert!(stdout.contains("no fd 9"), "{stdout}");
    let written = std::fs::read_to_string(&report).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let last = written.lines().last().unwrap_or_default();
    assert_eq!(
        last,
        format!(
            "{{\"reached\":[{{\"destination\":\"127.0.0.1:{allowed}\",\"connections\":1,\"sent\":{sent},\"received\":{received}}}],\"refused\":[\"refused.example:8080\"],\"refused_more\":0}}",
            sent = field(last, "sent"),
            received = field(last, "received"),
        ),
        "{written}"
    );
    assert!(field(last, "received") > 0, "{written}");
}

/// A number field of the report's first destination.
fn field(line: &str, name: &str) -> u64 {
    let at = line.find(&format!("\"{name}\":")).expect(name) + name.len() + 3;
    line[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap()
}

#[test]
fn bad_arguments_say_what_is_wrong_and_start_nothing() {
    for (args, says) in [
        (
            vec!["--allow", "https://x.example", "--", "true"],
            "--allow `https://x.example`: a destination is",
        ),
        (vec!["--allow", "x.example"], "no command after `--`"),
        (
            vec!["--port", "0", "--", "true"],
            "--port `0` is not a port",
        ),
        (vec!["--bogus", "--", "true"], "unknown argument `--bogus`"),
    ] {
        let out = Command::new(EGRESS).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
    let out = Command::new(EGRESS)
        .args(["--", "/no/such/program"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(125), "{stderr}");
    assert!(
        stderr.contains("could not start `/no/such/program`"),
        "{stderr}"
    );
    // Its own namespace is the host's: never changed, the command never run.
    let out = Command::new(EGRESS)
        .args(["--netns", "/proc/self/ns/net", "--", "sh", "-c", "echo ran"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(125), "{stderr}");
    assert!(
        stderr.contains("is blaise-egress's own network namespace"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

/// A runner that is not root: the namespace comes with a user namespace of
/// its own (the user mapped to itself), and bubblewrap works inside it.
#[test]
fn an_unprivileged_user_gets_the_same_namespace() {
    let root = Command::new("id").arg("-u").output().unwrap().stdout == b"0\n";
    let tools = ["setpriv", "curl", "bwrap"].iter().all(|t| {
        Command::new("sh")
            .args(["-c", &format!("command -v {t}")])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if !root || !tools {
        eprintln!("SKIPPED: needs root (to become another user), setpriv, curl and bwrap");
        return;
    }
    // A copy of the binary the other user can reach.
    let dir = std::env::temp_dir().join(format!("blaise-egress-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let egress = dir.join("blaise-egress");
    std::fs::copy(EGRESS, &egress).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let allowed = server("listed");
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&egress)
        .args(["--allow", &format!("127.0.0.1:{allowed}"), "--"])
        .args(["bwrap", "--die-with-parent", "--unshare-all", "--share-net"])
        .args([
            "--ro-bind",
            "/",
            "/",
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--",
        ])
        .args(["sh", "-c"])
        .arg(format!(
            "id -u; curl -sS -m 10 http://127.0.0.1:{allowed}/; echo; \
             curl -sS -m 10 https://elsewhere.example/ 2>&1; echo; \
             curl -sS -m 10 --noproxy '*' http://203.0.113.9/ 2>&1; \
             getent hosts example.com; echo \"dns=$?\""
        ))
        .current_dir(&dir)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.starts_with("65534\n"), "{stdout}\n{stderr}");
    assert!(stdout.contains("listed\n"), "{stdout}\n{stderr}");
    assert!(stdout.contains("response 403"), "{stdout}\n{stderr}");
    assert!(stdout.contains("Couldn't connect"), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("blaise-egress: refused elsewhere.example:443"),
        "{stderr}"
    );
    // Direct attempts are seen and named without privileges too.
    assert!(
        stderr.contains("blaise-egress: refused 203.0.113.9:80: a direct connection"),
        "{stderr}"
    );
    assert!(stdout.contains("dns=2"), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("blaise-egress: refused a DNS lookup of example.com (sent to "),
        "{stderr}"
    );
}
