//! Each command of the script language, through `Agent::prompt`.

use std::time::Duration;

use blaise_runner::acp::PermissionAnswer;
use blaise_runner::host::bindings::EntryKind;

use crate::support::{
    chunk, command, entry_containing, launch, message, next_permission, received, soon,
};

const GRACE: Duration = Duration::from_secs(5);

#[tokio::test]
async fn say_think_sleep_and_anything_else() {
    let dir = tempfile::tempdir().unwrap();
    let (agent, mut events) = launch(command(dir.path(), &[], &[])).await;
    let session = soon("session/new", agent.new_session()).await.unwrap();
    let stop = soon(
        "the prompt",
        agent.prompt(
            &session,
            "say hello\nthink pondering\nsleep 30\nsay world\n\nhow are you",
        ),
    )
    .await
    .unwrap();
    assert_eq!(stop.stop_reason, "end_turn");
    let (messages, _) = received(&agent, &mut events);
    assert_eq!(
        messages,
        [
            message(EntryKind::AgentMessage, "hello"),
            message(EntryKind::AgentThought, "pondering"),
            message(EntryKind::AgentMessage, "world"),
            message(EntryKind::AgentMessage, "You said: how are you"),
        ]
    );
    agent.close(GRACE).await.unwrap();
}

#[tokio::test]
async fn a_streamed_message_is_chunks_of_one_stream_ended_by_last() {
    let dir = tempfile::tempdir().unwrap();
    let (agent, mut events) = launch(command(dir.path(), &[], &[])).await;
    let session = agent.new_session().await.unwrap();
    soon(
        "the prompt",
        agent.prompt(&session, "stream 4 abcdefgh\nsay next"),
    )
    .await
    .unwrap();
    let (messages, entries) = received(&agent, &mut events);
    let chunks: Vec<(&str, &str, bool)> = entries
        .iter()
        .map(chunk)
        .map(|entry| (entry.stream_id.as_str(), entry.text.as_str(), entry.last))
        .collect();
    let (stream, next) = (
        chunk(&entries[0]).stream_id.as_str(),
        chunk(&entries[5]).stream_id.as_str(),
    );
    assert_ne!(stream, next);
    assert_eq!(
        chunks,
        [
            (stream, "ab", false),
            (stream, "cd", false),
            (stream, "ef", false),
            (stream, "gh", false),
            (stream, "", true),
            (next, "next", false),
            (next, "", true),
        ]
    );
    assert!(
        entries
            .iter()
            .map(chunk)
            .all(|entry| entry.kind == EntryKind::AgentMessage && !entry.replay)
    );
    assert_eq!(messages.len(), 2);
    agent.close(GRACE).await.unwrap();
}

#[tokio::test]
async fn run_executes_in_the_working_directory_and_reports_the_output() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("marker.txt"), "here").unwrap();
    let (agent, mut events) = launch(command(dir.path(), &[], &[])).await;
    let session = agent.new_session().await.unwrap();
    let stop = soon(
        "the prompt",
        agent.prompt(
            &session,
            "run pwd && cat marker.txt\nrun echo oops >&2; exit 3",
        ),
    )
    .await
    .unwrap();
    assert_eq!(stop.stop_reason, "end_turn");
    let (messages, _) = received(&agent, &mut events);
    let cwd = dir.path().canonicalize().unwrap();
    assert_eq!(
        messages,
        [
            message(EntryKind::ToolCall, "pwd && cat marker.txt"),
            message(EntryKind::ToolOutput, &format!("{}\nhere", cwd.display())),
            message(EntryKind::ToolCall, "echo oops >&2; exit 3"),
            message(EntryKind::ToolOutput, "oops\n"),
        ]
    );
    agent.close(GRACE).await.unwrap();
}

#[tokio::test]
async fn env_sees_only_the_given_environment_and_path() {
    let home = std::env::var("HOME").expect("the test runs with HOME set");
    assert!(!home.is_empty());
    let dir = tempfile::tempdir().unwrap();
    let (agent, mut events) = launch(command(
        dir.path(),
        &[],
        &[("BLAISE_TOKEN_FOR_TEST", "s3cret"), ("LANG", "C")],
    ))
    .await;
    let session = agent.new_session().await.unwrap();
    soon(
        "the prompt",
        agent.prompt(
            &session,
            "env BLAISE_TOKEN_FOR_TEST\nenv HOME\nenv PATH\nrun env | cut -d= -f1 | sort | tr '\\n' ' '",
        ),
    )
    .await
    .unwrap();
    let (messages, _) = received(&agent, &mut events);
    let path = std::env::var("PATH").unwrap();
    assert_eq!(
        messages[0],
        message(EntryKind::AgentMessage, "BLAISE_TOKEN_FOR_TEST=s3cret")
    );
    assert_eq!(
        messages[1],
        message(EntryKind::AgentMessage, "HOME is not set")
    );
    assert_eq!(
        messages[2],
        message(EntryKind::AgentMessage, &format!("PATH={path}"))
    );
    // What sh adds by itself (PWD, SHLVL…) aside, nothing of the runner's.
    let names: Vec<&str> = messages[4].text.split_whitespace().collect();
    for name in ["BLAISE_TOKEN_FOR_TEST", "LANG", "PATH"] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    for name in &names {
        assert!(
            [
                "BLAISE_TOKEN_FOR_TEST",
                "LANG",
                "PATH",
                "PWD",
                "SHLVL",
                "_",
                "OLDPWD"
            ]
            .contains(name),
            "{name} leaked into the agent's environment: {names:?}"
        );
    }
    agent.close(GRACE).await.unwrap();
}

#[tokio::test]
async fn a_given_path_replaces_the_runners() {
    let dir = tempfile::tempdir().unwrap();
    let (agent, mut events) = launch(command(
        dir.path(),
        &[],
        &[("PATH", "/usr/bin:/bin:/nowhere")],
    ))
    .await;
    let session = agent.new_session().await.unwrap();
    soon("the prompt", agent.prompt(&session, "env PATH"))
        .await
        .unwrap();
    let (messages, _) = received(&agent, &mut events);
    assert_eq!(
        messages,
        [message(
            EntryKind::AgentMessage,
            "PATH=/usr/bin:/bin:/nowhere"
        )]
    );
    agent.close(GRACE).await.unwrap();
}

#[tokio::test]
async fn ask_is_a_permission_event_and_the_answer_reaches_the_agent() {
    let dir = tempfile::tempdir().unwrap();
    let (agent, mut events) = launch(command(dir.path(), &[], &[])).await;
    let session = agent.new_session().await.unwrap();
    let (stop, ()) = tokio::join!(
        soon(
            "the prompt",
            agent.prompt(&session, "say first\nask Delete the build?")
        ),
        async {
            let asked = next_permission(&mut events).await;
            // The runner's own ids: nothing of the agent's text in them.
            assert_eq!(asked.request.request_id, "perm-1");
            assert_eq!(asked.request.tool_call.id, "tc-1");
            assert_eq!(asked.request.tool_call.title, "Delete the build?");
            let options: Vec<&str> = asked
                .request
                .options
                .iter()
                .map(|option| option.option_id.as_str())
                .collect();
            assert_eq!(options, ["allow", "deny"]);
            asked
                .answer
                .send(PermissionAnswer::Selected("allow".into()))
                .unwrap();
        }
    );
    assert_eq!(stop.unwrap().stop_reason, "end_turn");
    let (messages, _) = received(&agent, &mut events);
    assert_eq!(
        messages,
        [message(EntryKind::AgentMessage, "Option chosen: allow")]
    );
    agent.close(GRACE).await.unwrap();
}

#[tokio::test]
async fn the_permission_request_comes_after_the_open_stream_ended_with_its_tool_call() {
    let dir = tempfile::tempdir().unwrap();
    let (agent, mut events) = launch(command(dir.path(), &[], &[])).await;
    let session = agent.new_session().await.unwrap();
    let (stop, ()) = tokio::join!(
        soon(
            "the prompt",
            agent.prompt(&session, "say first\nask Deploy?")
        ),
        async {
            let mut entries = Vec::new();
            let answer = loop {
                match soon("an event", events.recv()).await.unwrap() {
                    blaise_runner::acp::AgentEvent::Permission { answer, .. } => break answer,
                    event => entries.push(event),
                }
            };
            assert_eq!(
                crate::support::messages(&entries),
                [
                    message(EntryKind::AgentMessage, "first"),
                    message(EntryKind::ToolCall, "Deploy?"),
                ]
            );
            answer
                .send(PermissionAnswer::Selected("deny".into()))
                .unwrap();
        }
    );
    assert_eq!(stop.unwrap().stop_reason, "end_turn");
    let (messages, _) = received(&agent, &mut events);
    assert_eq!(
        messages,
        [message(EntryKind::AgentMessage, "Option chosen: deny")]
    );
    agent.close(GRACE).await.unwrap();
}

#[tokio::test]
async fn a_permission_answered_cancelled_or_dropped_or_with_an_unknown_option_is_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let (agent, mut events) = launch(command(dir.path(), &[], &[])).await;
    let session = agent.new_session().await.unwrap();
    let answers: [Option<PermissionAnswer>; 3] = [
        Some(PermissionAnswer::Cancelled),
        None,
        Some(PermissionAnswer::Selected("yolo".into())),
    ];
    for answer in answers {
        let (stop, ()) = tokio::join!(
            soon("the prompt", agent.prompt(&session, "ask May I?")),
            async {
                let asked = next_permission(&mut events).await;
                match answer.clone() {
                    Some(answer) => asked.answer.send(answer).unwrap(),
                    None => drop(asked.answer),
                }
            }
        );
        assert_eq!(stop.unwrap().stop_reason, "end_turn", "{answer:?}");
        let (messages, _) = received(&agent, &mut events);
        assert_eq!(
            messages,
            [message(
                EntryKind::AgentMessage,
                "Permission request cancelled"
            )],
            "{answer:?}"
        );
    }
    agent.close(GRACE).await.unwrap();
}

#[tokio::test]
async fn cancel_answers_a_pending_permission_request_and_ends_the_turn_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let (agent, mut events) = launch(command(dir.path(), &[], &[])).await;
    let session = agent.new_session().await.unwrap();
    let (stop, _unanswered) = tokio::join!(
        soon(
            "the prompt",
            agent.prompt(&session, "ask Anything?\nsay never said")
        ),
        async {
            let asked = next_permission(&mut events).await;
            agent.cancel(&session).await.unwrap();
            // Kept, not answered: the cancel answers it.
            asked.answer
        }
    );
    assert_eq!(stop.unwrap().stop_reason, "cancelled");
    let (messages, _) = received(&agent, &mut events);
    assert_eq!(
        messages,
        [message(
            EntryKind::AgentMessage,
            "Permission request cancelled"
        )]
    );
    agent.close(GRACE).await.unwrap();
}

#[tokio::test]
async fn wait_then_cancel_ends_the_turn_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let (agent, mut events) = launch(command(dir.path(), &[], &[])).await;
    let session = agent.new_session().await.unwrap();
    let (stop, mut entries) = tokio::join!(
        soon(
            "the prompt",
            agent.prompt(&session, "say waiting\nwait\nsay never said")
        ),
        async {
            let entries = entry_containing(&mut events, "waiting").await;
            agent.cancel(&session).await.unwrap();
            entries
        }
    );
    assert_eq!(stop.unwrap().stop_reason, "cancelled");
    entries.extend(received(&agent, &mut events).1);
    assert_eq!(
        crate::support::messages(&entries),
        [message(EntryKind::AgentMessage, "waiting")]
    );
    // The session goes on.
    assert_eq!(
        agent
            .prompt(&session, "say again")
            .await
            .unwrap()
            .stop_reason,
        "end_turn"
    );
    let (messages, _) = received(&agent, &mut events);
    assert_eq!(messages, [message(EntryKind::AgentMessage, "again")]);
    agent.close(GRACE).await.unwrap();
}

#[tokio::test]
async fn a_crash_fails_the_prompt_with_the_exit_status() {
    let dir = tempfile::tempdir().unwrap();
    let (agent, mut events) = launch(command(dir.path(), &[], &[])).await;
    let session = agent.new_session().await.unwrap();
    let error = soon(
        "the prompt",
        agent.prompt(&session, "say before\ncrash\nsay after"),
    )
    .await
    .expect_err("the agent crashed");
    let error = format!("{error:#}");
    assert!(error.contains("exited during the prompt"), "{error}");
    assert!(error.contains("exit status: 101"), "{error}");
    assert!(error.contains("crashing, as the script asked"), "{error}");
    let (messages, _) = received(&agent, &mut events);
    assert_eq!(messages, [message(EntryKind::AgentMessage, "before")]);

    let again = format!("{:#}", agent.prompt(&session, "say hi").await.unwrap_err());
    assert!(again.contains("not running"), "{again}");
    assert!(
        again.contains("exited before the prompt, with exit status: 101"),
        "{again}"
    );
    assert_eq!(agent.close(GRACE).await.unwrap().code, Some(101));
}

#[tokio::test]
async fn a_turn_no_longer_awaited_still_ends_its_open_stream() {
    let dir = tempfile::tempdir().unwrap();
    let (agent, mut events) = launch(command(dir.path(), &[], &[])).await;
    let session = agent.new_session().await.unwrap();
    // What a stop does: it stops awaiting the turn, mid-message.
    let mut entries = tokio::select! {
        stop = agent.prompt(&session, "say partial\nwait") => panic!("the turn ended: {stop:?}"),
        entries = entry_containing(&mut events, "partial") => entries,
    };
    entries.extend(received(&agent, &mut events).1);
    assert_eq!(
        crate::support::messages(&entries),
        [message(EntryKind::AgentMessage, "partial")],
        "{entries:?}"
    );
    assert!(chunk(entries.last().unwrap()).last);
    agent.close(GRACE).await.unwrap();
}
