//! The keeper with real processes: `cat` as the agent (it answers each line
//! with the same line), the run's side as a run uses it.

use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::time::{Duration, Instant};

use super::*;

fn dir() -> (tempfile::TempDir, OwnedFd) {
    let dir = tempfile::tempdir().unwrap();
    let fd = std::fs::File::open(dir.path()).unwrap().into();
    (dir, fd)
}

fn client(keeper: &Keeper) -> KeeperClient {
    KeeperClient::new(keeper.connect_run().unwrap()).unwrap()
}

/// Writes a line to the agent and reads its answer.
fn echo(stdio: &[OwnedFd; 3], line: &str) -> String {
    let mut stdin = std::fs::File::from(stdio[0].try_clone().unwrap());
    writeln!(stdin, "{line}").unwrap();
    let mut answer = String::new();
    BufReader::new(std::fs::File::from(stdio[1].try_clone().unwrap()))
        .read_line(&mut answer)
        .unwrap();
    answer.trim_end().to_string()
}

/// The state letter and process group of `pid` (`None`: gone or a zombie).
fn state(pid: u32) -> Option<(char, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let letter = fields[0].chars().next()?;
    (letter != 'Z').then(|| (letter, fields[2].parse().unwrap()))
}

/// The agent itself: the guard's child.
fn agent_below(guard: u32) -> u32 {
    let children = std::fs::read_to_string(format!("/proc/{guard}/task/{guard}/children")).unwrap();
    children.split_whitespace().next().unwrap().parse().unwrap()
}

/// Hands the agent back to keep for `session`.
async fn keep(
    run: &KeeperClient,
    session: &str,
    handed: &Handed,
    meta: &str,
) -> Result<(), String> {
    keep_for(run, KeepFor::Session(session.into()), handed, meta).await
}

async fn keep_for(
    run: &KeeperClient,
    for_: KeepFor,
    handed: &Handed,
    meta: &str,
) -> Result<(), String> {
    let [stdin, stdout, stderr] = &handed.stdio;
    run.keep(
        &for_,
        handed.pid,
        meta.into(),
        [stdin.as_fd(), stdout.as_fd(), stderr.as_fd()],
        None,
    )
    .await
}

/// An agent (`cat`) started and handed to the warm pool in `slot`, as
/// `warm-one` does; its guard's pid.
async fn warm_agent(keeper: &Keeper, slot: &str, meta: &str) -> u32 {
    let (_dir, cwd) = dir();
    let warming = client(keeper);
    let handed = warming
        .spawn(vec!["/bin/cat".into()], vec![], false, cwd)
        .await
        .unwrap();
    keep_for(&warming, KeepFor::Warm(slot.into()), &handed, meta)
        .await
        .unwrap();
    handed.pid
}

fn gone_within(pid: u32, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if state(pid).is_none() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kept_agent_is_frozen_between_runs_and_the_next_run_talks_to_the_same_process() {
    let keeper = Keeper::start().unwrap();
    let (_dir, cwd) = dir();

    let first = client(&keeper);
    let handed = first
        .spawn(vec!["/bin/cat".into()], vec![], false, cwd)
        .await
        .unwrap();
    let guard = handed.pid;
    let agent = agent_below(guard);
    assert_eq!(echo(&handed.stdio, "before the pause"), "before the pause");
    keep(&first, "s1", &handed, "what the run keeps")
        .await
        .unwrap();
    // The run exits: its connection and its copies of the pipes close.
    drop(handed);
    drop(first);
    std::thread::sleep(Duration::from_millis(200));

    assert_eq!(
        state(agent),
        Some(('T', guard)),
        "the agent is stopped, in its guard's group"
    );
    assert_ne!(
        state(guard).map(|s| s.0),
        Some('T'),
        "the guard goes on (it must still see the runner die)"
    );
    let kept = keeper.kept();
    assert_eq!(kept.len(), 1);
    assert_eq!((kept[0].session.as_str(), kept[0].pid), ("s1", guard));
    assert!(kept[0].rss > 0, "the kept memory is counted");

    let second = client(&keeper);
    assert!(second.take("another session").await.is_err());
    let taken = second.take("s1").await.unwrap();
    assert_eq!(
        (taken.pid, taken.meta.as_str()),
        (guard, "what the run keeps")
    );
    assert!(keeper.kept().is_empty(), "handed over");
    // SAFETY: kill(2) on the agent's group.
    unsafe { libc::kill(-(guard as i32), libc::SIGCONT) };
    assert_eq!(
        echo(&taken.stdio, "after the pause"),
        "after the pause",
        "the same process, over the same pipes"
    );
    assert!(second.take("s1").await.is_err(), "taken once");

    // A run that ends without handing its agent back takes it along.
    drop(second);
    assert!(gone_within(agent, Duration::from_secs(5)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kept_agents_die_with_the_keeper_even_frozen() {
    let keeper = Keeper::start().unwrap();
    let (_dir, cwd) = dir();
    let run = client(&keeper);
    let handed = run
        .spawn(vec!["/bin/cat".into()], vec![], false, cwd)
        .await
        .unwrap();
    let agent = agent_below(handed.pid);
    keep(&run, "s1", &handed, "").await.unwrap();
    drop(handed);
    drop(run);
    assert_eq!(state(agent).map(|s| s.0), Some('T'));
    // The runner stops (or dies): nothing it kept outlives it.
    drop(keeper);
    assert!(gone_within(agent, Duration::from_secs(5)));
}

/// Set in the environment of this test binary started again as a runner
/// that ends at once (see the test below).
const ENDING_RUNNER: &str = "BLAISE_TEST_ENDING_RUNNER";

/// A runner ends as a daemon does: the keeper goes, then the process, its
/// threads one by one. Each thread's end that hands a guard to another
/// parent sends it the parent-death signal again, microseconds apart, and
/// only the last one says the runner is gone: the guard must not lose it
/// while it looks at the one before. Many runners, each ending so (the
/// threads end in a different order each time).
#[test]
fn no_agent_outlives_a_runner_that_ends_right_after_its_keeper() {
    let me = std::env::current_exe().unwrap();
    let mut guards = Vec::new();
    for _ in 0..40 {
        let out = std::process::Command::new(&me)
            .args([
                "keeper::tests::an_ending_runner",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(ENDING_RUNNER, "1")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        // (After libtest's "test … ... " on the same line.)
        let guard = text
            .split("guard=")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("the runner said no guard: {text} {out:?}"));
        guards.push(guard.parse::<u32>().unwrap());
    }
    let left: Vec<u32> = guards
        .iter()
        .copied()
        .filter(|&g| !gone_within(g, Duration::from_secs(5)))
        .collect();
    for &g in &left {
        super::freeze::kill(g);
    }
    assert!(
        left.is_empty(),
        "{} of 40 guards outlived their runner",
        left.len()
    );
}

/// The runner of the test above: only when started by it.
#[test]
fn an_ending_runner() {
    if std::env::var_os(ENDING_RUNNER).is_none() {
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let keeper = Keeper::start().unwrap();
    let run = client(&keeper);
    // (Not a temporary directory: the process ends without removing it.)
    let cwd = std::fs::File::open(std::env::temp_dir()).unwrap().into();
    let handed = runtime
        .block_on(run.spawn(vec!["/bin/cat".into()], vec![], false, cwd))
        .unwrap();
    println!("guard={}", handed.pid);
    drop(keeper);
    std::process::exit(0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_run_learns_how_its_agent_exited_and_keeps_only_its_own() {
    let keeper = Keeper::start().unwrap();
    let (_dir, cwd) = dir();
    let run = client(&keeper);
    let handed = run
        .spawn(
            vec!["/bin/sh".into(), "-c".into(), "exit 3".into()],
            vec![],
            false,
            cwd,
        )
        .await
        .unwrap();
    let mut exit = run.exit(handed.pid);
    let status = tokio::time::timeout(Duration::from_secs(5), exit.wait_for(Option::is_some))
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(status.code(), Some(3));
    let refused = keep(&run, "s1", &handed, "").await;
    assert!(refused.is_err(), "an exited agent is not kept");

    let (_dir, cwd) = dir();
    let refused = run
        .spawn(vec!["/nonexistent/agent".into()], vec![], false, cwd)
        .await
        .err()
        .unwrap();
    assert!(refused.contains("No such file"), "{refused}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_the_agent_started_in_a_session_of_its_own_is_frozen_too() {
    let keeper = Keeper::start().unwrap();
    let (_dir, cwd) = dir();
    let run = client(&keeper);
    // As `bwrap --new-session` does: a child outside the agent's process group.
    let handed = run
        .spawn(
            vec![
                "/bin/sh".into(),
                "-c".into(),
                "setsid sleep 600 & exec cat".into(),
            ],
            vec![],
            false,
            cwd,
        )
        .await
        .unwrap();
    let start = Instant::now();
    let below = loop {
        let below = descendants(handed.pid);
        let apart = below
            .iter()
            .any(|&p| state(p).is_some_and(|(_, group)| group != handed.pid));
        if (below.len() >= 2 && apart) || start.elapsed() > Duration::from_secs(5) {
            break below;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(
        below.len(),
        2,
        "cat and the sleep in its own session: {below:?}"
    );
    assert!(
        below
            .iter()
            .any(|&p| state(p).is_some_and(|(_, group)| group != handed.pid)),
        "one is outside the guard's group"
    );
    keep(&run, "s1", &handed, "").await.unwrap();
    for pid in &below {
        assert_eq!(state(*pid).map(|s| s.0), Some('T'), "{pid} is frozen");
    }
    drop(keeper);
    for pid in below {
        assert!(
            gone_within(pid, Duration::from_secs(5)),
            "{pid} died with the keeper"
        );
    }
}

/// Warm starts: an agent started ahead waits, frozen, in the pool; it is
/// handed out once, to one run, never named among the kept agents (Blaise
/// would be asked about a session that does not exist), and once taken it
/// is that run's: kept at its pause for its session, never back in the pool.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_warm_agent_is_handed_out_once_and_then_belongs_to_its_session() {
    let keeper = Keeper::start().unwrap();
    let guard = warm_agent(&keeper, "wrm_1_1", "warm meta").await;
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(state(agent_below(guard)).map(|s| s.0), Some('T'), "frozen");
    assert!(keeper.kept().is_empty(), "a warm agent is no kept agent");
    let warm = keeper.warm();
    assert_eq!(warm.len(), 1);
    assert_eq!((warm[0].slot.as_str(), warm[0].pid), ("wrm_1_1", guard));

    let run = client(&keeper);
    let other = client(&keeper);
    let taken = run.take_warm().await.unwrap();
    assert_eq!((taken.pid, taken.meta.as_str()), (guard, "warm meta"));
    assert!(other.take_warm().await.is_err(), "handed out once");
    assert!(keeper.warm().is_empty());
    assert!(!keeper.release_warm("wrm_1_1"), "no longer the pool's");
    // SAFETY: kill(2) on the agent's group.
    unsafe { libc::kill(-(guard as i32), libc::SIGCONT) };
    assert_eq!(echo(&taken.stdio, "hello"), "hello");

    // Its run pauses hot: kept for the session, not back in the pool.
    keep(&run, "s1", &taken, "kept meta").await.unwrap();
    drop(taken);
    drop(run);
    assert!(keeper.warm().is_empty());
    assert_eq!(keeper.kept()[0].session, "s1");
    assert!(other.take_warm().await.is_err());
    assert!(keeper.release("s1"));
    assert!(gone_within(guard, Duration::from_secs(5)));
}

/// A warm agent let go dies; one that exits while it waits leaves its slot
/// for the daemon to remove, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn warm_agents_let_go_or_dead_leave_their_slots_to_remove() {
    let keeper = Keeper::start().unwrap();
    let mut guards = Vec::new();
    for slot in ["wrm_1_a", "wrm_1_b"] {
        guards.push(warm_agent(&keeper, slot, "").await);
    }
    assert!(keeper.release_warm("wrm_1_a"));
    assert!(gone_within(guards[0], Duration::from_secs(5)));
    super::freeze::kill(guards[1]);
    assert!(gone_within(guards[1], Duration::from_secs(5)));
    let start = Instant::now();
    while keeper.warm().len() == 1 && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(keeper.warm().is_empty());
    assert_eq!(keeper.orphaned_slots(), vec!["wrm_1_b".to_string()]);
    assert!(keeper.orphaned_slots().is_empty(), "said once");
}

/// A run that took a warm agent and ends with it still its own (it died
/// before making the slot its workspace) takes the agent along and leaves
/// the slot to the daemon.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_that_dies_with_a_taken_warm_agent_leaves_its_slot_to_the_daemon() {
    let keeper = Keeper::start().unwrap();
    warm_agent(&keeper, "wrm_c", "").await;
    let run = client(&keeper);
    let taken = run.take_warm().await.unwrap();
    assert!(keeper.orphaned_slots().is_empty());
    drop(run);
    assert!(gone_within(taken.pid, Duration::from_secs(5)));
    assert_eq!(keeper.orphaned_slots(), vec!["wrm_c".to_string()]);
}
