//! Launching and ending the agent's process.

use std::time::{Duration, Instant};

use blaise_runner::acp::{Agent, AgentCommand};

use crate::support::{
    AGENT, command, gone, launch, next_permission, process_exists, received, soon,
};

#[tokio::test]
async fn close_ends_the_agent_within_the_grace_period() {
    let dir = tempfile::tempdir().unwrap();
    let (agent, _events) = launch(command(dir.path(), &[], &[])).await;
    let session = agent.new_session().await.unwrap();
    agent.prompt(&session, "say hi").await.unwrap();
    let pid = agent.pid();
    assert!(process_exists(pid));
    let grace = Duration::from_secs(10);
    let started = Instant::now();
    soon("close", agent.close(grace)).await.unwrap();
    // Between turns nothing is lost by not waiting: its stdin closed, the
    // agent gets SIGTERM at once (many real agents ignore a closed stdin).
    let took = started.elapsed();
    assert!(took < Duration::from_millis(300), "took {took:?}");
    assert!(!process_exists(pid), "the agent {pid} is still running");
}

#[tokio::test]
async fn close_in_the_middle_of_a_turn_with_a_pending_permission_request() {
    let dir = tempfile::tempdir().unwrap();
    let (agent, mut events) = launch(command(dir.path(), &[], &[])).await;
    let session = agent.new_session().await.unwrap();
    let pid = agent.pid();
    // A stop (or SIGTERM) while the agent waits for an answer: the run loop
    // stops awaiting the prompt and closes the agent; nobody ever answers.
    let asked = tokio::select! {
        stop = agent.prompt(&session, "ask Never answered?\nwait") => panic!("the turn ended: {stop:?}"),
        asked = next_permission(&mut events) => asked,
    };
    let grace = Duration::from_secs(10);
    let started = Instant::now();
    let closed = soon("close", agent.close(grace)).await.unwrap();
    assert!(started.elapsed() < grace, "took {:?}", started.elapsed());
    // In the middle of a turn it had its grace, and exited by itself on its
    // closed stdin.
    assert_eq!(closed.code, Some(0));
    assert!(!process_exists(pid));
    drop(asked);
}

#[tokio::test]
async fn an_agent_that_ignores_its_closed_stdin_and_sigterm_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    // The agent exits on its closed stdin, but the shell around it then
    // sleeps with SIGTERM ignored: only SIGKILL ends it.
    let script = format!("trap '' TERM; '{AGENT}'; exec sleep 60");
    let (agent, _events) = launch(AgentCommand {
        argv: vec!["sh".into(), "-c".into(), script],
        env: vec![],
        cwd: dir.path().to_path_buf(),
        cwd_within: Vec::new(),
        egress_report: false,
    })
    .await;
    let pid = agent.pid();
    let grace = Duration::from_millis(300);
    let started = Instant::now();
    let closed = soon("close", agent.close(grace)).await.unwrap();
    let took = started.elapsed();
    assert_eq!(closed.code, None, "killed by a signal");
    // Idle: SIGTERM at once, SIGKILL after one grace period.
    assert!(
        took >= grace,
        "SIGKILL only after the grace period: {took:?}"
    );
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert!(!process_exists(pid));
}

#[tokio::test]
async fn close_also_ends_what_the_agent_left_running_in_its_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let (agent, mut events) = launch(command(dir.path(), &[], &[])).await;
    let session = agent.new_session().await.unwrap();
    soon(
        "the prompt",
        agent.prompt(&session, "run sleep 300 >/dev/null 2>&1 & echo $!"),
    )
    .await
    .unwrap();
    let (messages, _) = received(&agent, &mut events);
    let left: u32 = messages[1]
        .text
        .trim()
        .parse()
        .expect("the pid of the sleep");
    assert!(process_exists(left));
    agent.close(Duration::from_secs(10)).await.unwrap();
    gone(left).await;
}

#[tokio::test]
async fn a_dropped_agent_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let (agent, _events) = launch(command(dir.path(), &[], &[])).await;
    let pid = agent.pid();
    drop(agent);
    gone(pid).await;
}

#[tokio::test]
async fn a_program_that_does_not_exist_does_not_launch() {
    let dir = tempfile::tempdir().unwrap();
    let (events, _received) = tokio::sync::mpsc::channel(blaise_runner::acp::EVENTS);
    let error = Agent::launch(
        AgentCommand {
            argv: vec!["/nonexistent/agent".into(), "--flag".into()],
            env: vec![],
            cwd: dir.path().to_path_buf(),
            cwd_within: Vec::new(),
            egress_report: false,
        },
        events,
        None,
    )
    .await
    .unwrap_err();
    let error = format!("{error:#}");
    assert!(
        error.contains("could not start the agent `/nonexistent/agent --flag`"),
        "{error}"
    );
}

#[tokio::test]
async fn a_program_that_is_not_an_agent_fails_to_initialize() {
    let dir = tempfile::tempdir().unwrap();
    let (events, _received) = tokio::sync::mpsc::channel(blaise_runner::acp::EVENTS);
    let error = soon(
        "launch",
        Agent::launch(
            AgentCommand {
                argv: vec![
                    "sh".into(),
                    "-c".into(),
                    "echo not an agent >&2; exit 7".into(),
                ],
                env: vec![],
                cwd: dir.path().to_path_buf(),
                cwd_within: Vec::new(),
                egress_report: false,
            },
            events,
            None,
        ),
    )
    .await
    .unwrap_err();
    let error = format!("{error:#}");
    assert!(error.contains("initialize"), "{error}");
    assert!(error.contains("exit status: 7"), "{error}");
    assert!(error.contains("not an agent"), "{error}");
}

#[tokio::test]
async fn close_hands_over_everything_the_agent_wrote_before_it_went() {
    let dir = tempfile::tempdir().unwrap();
    let (agent, mut events) = launch(command(dir.path(), &[], &[])).await;
    let session = agent.new_session().await.unwrap();
    // More events than the channel holds (a message and a paragraph break
    // each), and nobody takes them yet: the connection is held back with the
    // rest unread while the agent waits. (Few enough that the agent has
    // written them all: what it still held when it went is its own loss.)
    tokio::select! {
        stop = agent.prompt(&session, "flood 150 1000000\nwait") => panic!("the turn ended: {stop:?}"),
        () = tokio::time::sleep(Duration::from_millis(500)) => {}
    }
    // A stop: the turn is no longer awaited, the agent is closed, and the
    // caller takes events meanwhile, as the run does.
    let closing = agent.close(Duration::from_secs(10));
    tokio::pin!(closing);
    let is_flood = |event: &blaise_runner::acp::AgentEvent| matches!(event, blaise_runner::acp::AgentEvent::Chunk(e) if e.text.starts_with("sent_us="));
    let mut floods = 0;
    let closed = loop {
        tokio::select! {
            closed = &mut closing => break closed.unwrap(),
            Some(event) = events.recv() => floods += usize::from(is_flood(&event)),
        }
    };
    while let Ok(event) = events.try_recv() {
        floods += usize::from(is_flood(&event));
    }
    assert_eq!(closed.code, Some(0), "it exited on its closed stdin");
    assert_eq!(floods, 150, "every message it wrote before it went");
}
