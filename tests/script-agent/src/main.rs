#![doc = include_str!("../README.md")]

mod script;
mod session;
mod store;
mod turn;

use std::sync::Arc;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, CancelNotification, Content, ContentBlock, Implementation,
    InitializeRequest, InitializeResponse, LoadSessionRequest, LoadSessionResponse,
    NewSessionRequest, NewSessionResponse, PromptRequest, PromptResponse, ResumeSessionRequest,
    ResumeSessionResponse, SessionCapabilities, SessionResumeCapabilities, SessionUpdate, ToolCall,
    ToolCallContent, ToolKind,
};
use agent_client_protocol::{Agent, Client, Error, Stdio};

use crate::session::{Session, Sessions};
use crate::store::Record;
use crate::turn::{chunk, send_update, text_block, tool_status};

const USAGE: &str = "usage: blaise-script-agent [--no-load-session] [--never-initialize] [--never-open-session] [--resume] [--late-replay MS] [--linger]\n\
An ACP agent over stdio that follows a script in its prompts (see its README).";

/// How the agent behaves, from its arguments.
#[derive(Debug, Clone, Copy)]
struct Options {
    load_session: bool,
    /// Answer `initialize` (a hung agent does not).
    initialize: bool,
    open_session: bool,
    /// Advertise `sessionCapabilities.resume` and answer `session/resume`.
    resume: bool,
    /// Answer `session/load` first, then replay after this long.
    late_replay: Option<std::time::Duration>,
    /// Ignore a closed stdin: exit only on a signal.
    linger: bool,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let mut options = Options {
        load_session: true,
        initialize: true,
        open_session: true,
        resume: false,
        late_replay: None,
        linger: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--no-load-session" => options.load_session = false,
            "--never-open-session" => options.open_session = false,
            "--never-initialize" => options.initialize = false,
            "--resume" => options.resume = true,
            "--linger" => options.linger = true,
            "--late-replay" => match args.next().and_then(|ms| ms.parse::<u64>().ok()) {
                Some(ms) => options.late_replay = Some(std::time::Duration::from_millis(ms)),
                None => {
                    eprintln!("blaise-script-agent: --late-replay takes milliseconds\n{USAGE}");
                    return std::process::ExitCode::from(2);
                }
            },
            "-h" | "--help" => {
                println!("{USAGE}");
                return std::process::ExitCode::SUCCESS;
            }
            other => {
                eprintln!("blaise-script-agent: unknown argument `{other}`\n{USAGE}");
                return std::process::ExitCode::from(2);
            }
        }
    }
    let working_dir = match std::env::current_dir() {
        Ok(dir) => dir,
        Err(error) => {
            eprintln!("blaise-script-agent: no working directory: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let served = serve(Arc::new(Sessions::new(working_dir)), options).await;
    if options.linger {
        // Like agents that ignore their closed stdin: only a signal ends it.
        std::future::pending::<()>().await;
    }
    match served {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("blaise-script-agent: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Serves one client on stdin/stdout until stdin closes.
async fn serve(sessions: Arc<Sessions>, options: Options) -> Result<(), Error> {
    let Options {
        load_session,
        initialize,
        open_session,
        resume,
        late_replay,
        ..
    } = options;
    let on_initialize = sessions.clone();
    let on_new = sessions.clone();
    let on_load = sessions.clone();
    let on_resume = sessions.clone();
    let on_prompt = sessions.clone();
    let on_cancel = sessions;
    Agent
        .v1()
        .name("blaise-script-agent")
        .on_receive_request(
            async move |request: InitializeRequest, responder, _cx| {
                if !initialize {
                    // A hung agent: it never answers, not even `initialize`.
                    std::future::pending::<()>().await;
                }
                let streams = request
                    .client_capabilities
                    .meta
                    .as_ref()
                    .and_then(|m| m.get("terminal_output"))
                    .and_then(serde_json::Value::as_bool)
                    == Some(true);
                on_initialize
                    .terminal_output
                    .store(streams, std::sync::atomic::Ordering::Relaxed);
                let mut sessions = SessionCapabilities::new();
                if resume {
                    sessions = sessions.resume(SessionResumeCapabilities::new());
                }
                responder.respond(
                    InitializeResponse::new(ProtocolVersion::V1.min(request.protocol_version))
                        .agent_capabilities(
                            AgentCapabilities::new()
                                .load_session(load_session)
                                .session_capabilities(sessions),
                        )
                        .agent_info(Implementation::new(
                            "blaise-script-agent",
                            env!("CARGO_PKG_VERSION"),
                        )),
                )
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: NewSessionRequest, responder, _cx| {
                if !open_session {
                    // A hung agent: it never answers.
                    std::future::pending::<()>().await;
                }
                match on_new.create(request.cwd) {
                    Ok(session) => responder.respond(NewSessionResponse::new(session.id.clone())),
                    Err(error) => responder.respond_with_internal_error(format!("{error:#}")),
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: LoadSessionRequest, responder, cx| {
                if !load_session {
                    return responder.respond_with_error(Error::method_not_found());
                }
                match on_load.load(&request.session_id.0, request.cwd.clone()) {
                    Ok(session) => match late_replay {
                        None => {
                            replay(&cx, &session)?;
                            responder.respond(LoadSessionResponse::new())
                        }
                        // As Gemini CLI does: the answer first, the replay after.
                        Some(delay) => {
                            responder.respond(LoadSessionResponse::new())?;
                            let replay_cx = cx.clone();
                            cx.spawn(async move {
                                tokio::time::sleep(delay).await;
                                replay(&replay_cx, &session)
                            })
                        }
                    },
                    Err(error) => responder
                        .respond_with_error(Error::invalid_params().data(format!("{error:#}"))),
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: ResumeSessionRequest, responder, _cx| {
                if !resume {
                    return responder.respond_with_error(Error::method_not_found());
                }
                // The conversation is taken up again; nothing is replayed.
                match on_resume.load(&request.session_id.0, request.cwd.clone()) {
                    Ok(_) => responder.respond(ResumeSessionResponse::new()),
                    Err(error) => responder
                        .respond_with_error(Error::invalid_params().data(format!("{error:#}"))),
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: PromptRequest, responder, cx| {
                let Some(session) = on_prompt.get(&request.session_id.0) else {
                    return responder.respond_with_error(
                        Error::invalid_params()
                            .data(format!("unknown session {}", request.session_id)),
                    );
                };
                let text = prompt_text(&request.prompt);
                session.start_turn();
                if let Err(error) = session.record(Record::User { text: text.clone() }) {
                    return responder.respond_with_internal_error(format!("{error:#}"));
                }
                // The turn runs outside the dispatch loop, so that `session/cancel`
                // and the answers to permission requests can arrive meanwhile.
                let sessions = on_prompt.clone();
                let turn_cx = cx.clone();
                cx.spawn(async move {
                    let answered = match turn::run(sessions, session, turn_cx, text).await {
                        Ok(stop_reason) => responder.respond(PromptResponse::new(stop_reason)),
                        Err(error) => responder.respond_with_internal_error(format!("{error:#}")),
                    };
                    if turn::EXIT_AFTER_TURN.load(std::sync::atomic::Ordering::Acquire) {
                        // Answered: then gone, before the next turn.
                        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                        eprintln!(
                            "blaise-script-agent: exiting between turns, as the script asked"
                        );
                        std::process::exit(turn::EXIT_STATUS);
                    }
                    // A turn that cannot be answered (the client is gone) ends
                    // the turn, not the agent: it exits when its stdin closes.
                    if let Err(error) = answered {
                        eprintln!("blaise-script-agent: a turn could not be answered: {error}");
                    }
                    Ok(())
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |notification: CancelNotification, _cx| {
                if let Some(session) = on_cancel.get(&notification.session_id.0) {
                    session.cancel();
                }
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_to(Stdio::new())
        .await
}

/// The text of a prompt: its text blocks, one per line.
fn prompt_text(prompt: &[ContentBlock]) -> String {
    prompt
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(text) => Some(text.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Sends the whole conversation of `session` as `session/update` notifications.
fn replay(cx: &ConnectionTo<Client>, session: &Session) -> Result<(), Error> {
    for (index, record) in session.records().into_iter().enumerate() {
        let id = format!("m-{index}");
        let updates = match record {
            Record::User { text } => vec![SessionUpdate::UserMessageChunk(chunk(&id, text))],
            Record::Agent { text } => vec![SessionUpdate::AgentMessageChunk(chunk(&id, text))],
            Record::Thought { text } => vec![SessionUpdate::AgentThoughtChunk(chunk(&id, text))],
            Record::Tool {
                title,
                output,
                exit_code,
            } => vec![SessionUpdate::ToolCall(
                ToolCall::new(format!("replay-{id}"), title)
                    .kind(ToolKind::Execute)
                    .status(tool_status(exit_code))
                    .content(vec![ToolCallContent::Content(Content::new(text_block(
                        output,
                    )))]),
            )],
        };
        for update in updates {
            send_update(cx, &session.id, update)?;
        }
    }
    Ok(())
}
