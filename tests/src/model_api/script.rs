//! What the stand-in model answers: it follows the user's prompt, one
//! command a line, like the script agent, but as a model does: text,
//! thinking and tool calls that the real agent then carries out.
//!
//! | line | the model |
//! |---|---|
//! | `say TEXT` | says TEXT |
//! | `think TEXT` | thinks TEXT (a thinking block, a reasoning summary, a thought) |
//! | `run CMD` | calls the agent's shell tool with CMD, and waits for its result |
//! | `plan A; B` | calls the agent's plan (to-do) tool with the steps A, B |
//! | `write PATH TEXT` | calls the agent's tool that writes a new file |
//! | `recall` | says `RECALL` and the first line of each earlier prompt of the conversation (what the agent sent it: after a resume, whether it kept the earlier turns) |
//!
//! After a tool's result the model says `DONE <the result>` and goes on with
//! the lines after that tool's. A prompt with no command is answered
//! `ECHO: <its last line>`. In every line `@secret@` stands for the secret
//! the stand-in was started with and `@key@` for the API key the agent sent:
//! the model "leaks" them where the test asks, so that the test can look for
//! them where they must not be.

/// One thing the model says or does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Say(String),
    Think(String),
    Shell(String),
    Plan(Vec<String>),
    Write { path: String, content: String },
}

impl Step {
    pub fn is_tool(&self) -> bool {
        matches!(self, Step::Shell(_) | Step::Plan(_) | Step::Write { .. })
    }
}

/// What the agent sent the model: the user's prompts in order (the last is
/// the one being answered) and the results of the tools the model called
/// since the last one.
#[derive(Debug, Default)]
pub struct Conversation {
    pub prompts: Vec<String>,
    pub results: Vec<String>,
}

/// What the model says next: the lines after the last tool it called, up
/// to and with the next tool call.
pub fn answer(conversation: &Conversation, secret: &str, key: &str) -> Vec<Step> {
    let Conversation { prompts, results } = conversation;
    let prompt = prompts.last().map(String::as_str).unwrap_or_default();
    let prompt = prompt.replace("@secret@", secret).replace("@key@", key);
    let earlier: Vec<&str> = prompts[..prompts.len().saturating_sub(1)]
        .iter()
        .map(|p| p.lines().next().unwrap_or_default())
        .collect();
    let steps: Vec<Step> = prompt
        .lines()
        .filter_map(|line| match line.trim() {
            "recall" => Some(Step::Say(format!("RECALL {}", earlier.join(" | ")))),
            line => parse(line),
        })
        .collect();
    if steps.is_empty() {
        let last = prompt
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return vec![Step::Say(format!("ECHO: {}", last.trim()))];
    }
    let mut out = Vec::new();
    if let Some(result) = results.last() {
        out.push(Step::Say(format!("DONE {}", summary(result))));
    }
    let mut tools = 0;
    for step in steps {
        let is_tool = step.is_tool();
        if tools == results.len() {
            out.push(step);
            if is_tool {
                break;
            }
        }
        if is_tool {
            tools += 1;
        }
    }
    out
}

fn parse(line: &str) -> Option<Step> {
    let (word, rest) = line.trim().split_once(' ')?;
    let rest = rest.trim();
    Some(match word {
        "say" => Step::Say(rest.to_owned()),
        "think" => Step::Think(rest.to_owned()),
        "run" => Step::Shell(rest.to_owned()),
        "plan" => Step::Plan(rest.split(';').map(|s| s.trim().to_owned()).collect()),
        "write" => {
            let (path, content) = rest.split_once(' ')?;
            Step::Write {
                path: path.to_owned(),
                content: format!("{content}\n"),
            }
        }
        _ => return None,
    })
}

/// A tool's result in one line, short.
fn summary(result: &str) -> String {
    let line: String = result.split_whitespace().collect::<Vec<_>>().join(" ");
    line.chars().take(400).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(prompt: &str, results: &[&str]) -> Conversation {
        Conversation {
            prompts: vec!["first one\nmore".into(), prompt.into()],
            results: results.iter().map(|r| r.to_string()).collect(),
        }
    }

    #[test]
    fn one_tool_call_an_answer_and_the_rest_after_its_result() {
        let prompt = "context\nsay hi @secret@\nrun echo @key@\nthink next\nplan a; b\nsay bye";
        assert_eq!(
            answer(&at(prompt, &[]), "S", "K"),
            [Step::Say("hi S".into()), Step::Shell("echo K".into())]
        );
        assert_eq!(
            answer(&at(prompt, &["K\n"]), "S", "K"),
            [
                Step::Say("DONE K".into()),
                Step::Think("next".into()),
                Step::Plan(vec!["a".into(), "b".into()])
            ]
        );
        assert_eq!(
            answer(&at(prompt, &["K", "ok"]), "S", "K"),
            [Step::Say("DONE ok".into()), Step::Say("bye".into())]
        );
        assert_eq!(
            answer(&at("just words", &[]), "S", "K"),
            [Step::Say("ECHO: just words".into())]
        );
        assert_eq!(
            answer(&at("recall", &[]), "S", "K"),
            [Step::Say("RECALL first one".into())]
        );
    }
}
