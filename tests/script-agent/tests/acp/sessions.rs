//! Sessions outlive the agent's process: `session/load` in a new process
//! replays the whole conversation; `--no-load-session` turns that off.

use std::time::Duration;

use blaise_runner::host::bindings::EntryKind;

use crate::support::{command, launch, message, received, replayed, soon};

const GRACE: Duration = Duration::from_secs(5);

#[tokio::test]
async fn a_new_process_in_the_same_directory_loads_the_whole_conversation() {
    let dir = tempfile::tempdir().unwrap();
    let (agent, mut events) = launch(command(dir.path(), &[], &[])).await;
    assert!(agent.can_load_session());
    let session = agent.new_session().await.unwrap();
    let first = "say one\nrun echo two\nthink three";
    soon("a prompt", agent.prompt(&session, first))
        .await
        .unwrap();
    soon("a prompt", agent.prompt(&session, "stream 2 four"))
        .await
        .unwrap();
    drop(received(&agent, &mut events));
    agent.close(GRACE).await.unwrap();
    assert!(
        dir.path()
            .join(".blaise-script-agent")
            .join(format!("{session}.json"))
            .is_file()
    );

    let (agent, mut events) = launch(command(dir.path(), &[], &[])).await;
    assert!(agent.can_load_session());
    // The caller marks the replay: the agent's answer need not end it.
    assert!(agent.set_replay(true).is_none());
    soon("session/load", agent.load_session(&session))
        .await
        .unwrap();
    let (messages, _) = received(&agent, &mut events);
    assert!(agent.set_replay(false).is_none(), "ended by `received`");
    let whole = [
        replayed(EntryKind::UserMessage, first),
        replayed(EntryKind::AgentMessage, "one"),
        replayed(EntryKind::ToolCall, "echo two"),
        replayed(EntryKind::ToolOutput, "two\n"),
        replayed(EntryKind::AgentThought, "three"),
        replayed(EntryKind::UserMessage, "stream 2 four"),
        replayed(EntryKind::AgentMessage, "four"),
    ];
    assert_eq!(messages, whole);

    // The conversation goes on, live again.
    assert_eq!(
        soon("a prompt", agent.prompt(&session, "say five"))
            .await
            .unwrap()
            .stop_reason,
        "end_turn"
    );
    let (messages, _) = received(&agent, &mut events);
    assert_eq!(messages, [message(EntryKind::AgentMessage, "five")]);
    agent.close(GRACE).await.unwrap();

    // …and what it said after the load is kept too.
    let (agent, mut events) = launch(command(dir.path(), &[], &[])).await;
    agent.set_replay(true);
    agent.load_session(&session).await.unwrap();
    let (messages, _) = received(&agent, &mut events);
    assert_eq!(messages[..whole.len()], whole);
    assert_eq!(
        messages[whole.len()..],
        [
            replayed(EntryKind::UserMessage, "say five"),
            replayed(EntryKind::AgentMessage, "five"),
        ]
    );
    agent.close(GRACE).await.unwrap();
}

#[tokio::test]
async fn a_session_without_prompts_loads_with_nothing_to_replay() {
    let dir = tempfile::tempdir().unwrap();
    let (agent, _events) = launch(command(dir.path(), &[], &[])).await;
    let session = agent.new_session().await.unwrap();
    agent.close(GRACE).await.unwrap();

    let (agent, mut events) = launch(command(dir.path(), &[], &[])).await;
    agent.load_session(&session).await.unwrap();
    assert!(received(&agent, &mut events).1.is_empty());
    assert_eq!(
        agent.prompt(&session, "say hi").await.unwrap().stop_reason,
        "end_turn"
    );
    agent.close(GRACE).await.unwrap();
}

#[tokio::test]
async fn loading_a_session_the_agent_never_had_fails() {
    let dir = tempfile::tempdir().unwrap();
    let (agent, mut events) = launch(command(dir.path(), &[], &[])).await;
    let error = format!(
        "{:#}",
        soon("session/load", agent.load_session("sa-unknown"))
            .await
            .unwrap_err()
    );
    assert!(error.contains("session/load"), "{error}");
    assert!(
        error.contains("no conversation for session sa-unknown"),
        "{error}"
    );
    assert!(received(&agent, &mut events).1.is_empty());
    // The agent is still there.
    let session = agent.new_session().await.unwrap();
    assert_eq!(
        agent.prompt(&session, "say ok").await.unwrap().stop_reason,
        "end_turn"
    );
    agent.close(GRACE).await.unwrap();
}

#[tokio::test]
async fn no_load_session_is_not_advertised_and_not_attempted() {
    let dir = tempfile::tempdir().unwrap();
    let (agent, _events) = launch(command(dir.path(), &[], &[])).await;
    let session = agent.new_session().await.unwrap();
    agent.prompt(&session, "say remember me").await.unwrap();
    agent.close(GRACE).await.unwrap();

    let (agent, mut events) = launch(command(dir.path(), &["--no-load-session"], &[])).await;
    assert!(!agent.can_load_session());
    let error = format!("{:#}", agent.load_session(&session).await.unwrap_err());
    assert!(error.contains("cannot load sessions"), "{error}");
    // The fallback: a new conversation in the same directory.
    let fresh = agent.new_session().await.unwrap();
    assert_ne!(fresh, session);
    assert_eq!(
        agent
            .prompt(&fresh, "say hello again")
            .await
            .unwrap()
            .stop_reason,
        "end_turn"
    );
    let (messages, _) = received(&agent, &mut events);
    assert_eq!(messages, [message(EntryKind::AgentMessage, "hello again")]);
    agent.close(GRACE).await.unwrap();
}
