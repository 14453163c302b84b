//! The structured content of transcript entries is `blaise-protocol`'s ([`blaise_protocol::entries`]);
//! what the runner adds is their text form, which every entry carries for readers that only read
//! text.

pub use blaise_protocol::entries::*;

/// An entry's content as text.
pub trait Text {
    fn text(&self) -> String;
}

impl Text for ToolCall {
    /// The call in one line or a few, for readers of text: title and status,
    /// the command when the title is not it, each diff as a unified diff.
    /// (Its output is an entry of its own for them: `tool_output`.)
    fn text(&self) -> String {
        let mut state = vec![self.status.clone()];
        if let Some(code) = self.exit_code {
            state.push(format!("exit {code}"));
        }
        if let Some(ms) = self.duration_ms {
            state.push(took(ms));
        }
        let mut text = format!("{} [{}]", self.title, state.join(", "));
        if let Some(command) = self.command.as_deref().filter(|c| *c != self.title) {
            text.push_str("\n$ ");
            text.push_str(command);
        }
        for part in &self.content {
            if let ToolContent::Diff {
                path,
                old_text,
                new_text,
            } = part
            {
                text.push('\n');
                text.push_str(&unified_diff(path, old_text.as_deref(), new_text));
            }
        }
        text
    }
}

/// A change to `path` as a unified diff (a new file: every line added).
fn unified_diff(path: &str, old: Option<&str>, new: &str) -> String {
    let before = if old.is_some() { path } else { "/dev/null" };
    similar::TextDiff::from_lines(old.unwrap_or(""), new)
        .unified_diff()
        .context_radius(3)
        .header(before, path)
        .to_string()
        .trim_end_matches('\n')
        .to_owned()
}

/// The plan as text: one step a line, `[x]` done, `[~]` under way.
pub fn plan_text(steps: &[PlanStep]) -> String {
    steps
        .iter()
        .map(|step| {
            let mark = match step.status.as_str() {
                "completed" => "x",
                "in_progress" => "~",
                _ => " ",
            };
            format!("[{mark}] {}", step.content)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

impl Text for Permission {
    /// The request as one line: the tool call's title and the choices.
    fn text(&self) -> String {
        let options: Vec<String> = self
            .options
            .iter()
            .map(|o| format!("{} ({})", o.name, o.option_id))
            .collect();
        let mut text = format!("{} [{}]", self.tool_call.title, options.join(", "));
        if let Some(command) = self
            .tool_call
            .command
            .as_deref()
            .filter(|c| *c != self.tool_call.title)
        {
            text.push_str("\n$ ");
            text.push_str(command);
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_calls_text_shows_its_command_and_diffs() {
        let call = ToolCall {
            id: "tc-1".into(),
            title: "Edit lib.rs".into(),
            kind: "edit".into(),
            status: "completed".into(),
            content: vec![
                ToolContent::Diff {
                    path: "src/lib.rs".into(),
                    old_text: Some("a\nb\nc\n".into()),
                    new_text: "a\nB\nc\n".into(),
                },
                ToolContent::Diff {
                    path: "NEW.md".into(),
                    old_text: None,
                    new_text: "hello\n".into(),
                },
            ],
            ..ToolCall::default()
        };
        assert_eq!(
            call.text(),
            "Edit lib.rs [completed]\n--- src/lib.rs\n+++ src/lib.rs\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n--- /dev/null\n+++ NEW.md\n@@ -0,0 +1 @@\n+hello"
        );
        let run = ToolCall {
            title: "List".into(),
            status: "completed".into(),
            command: Some("ls -a".into()),
            output: Some(".\n..".into()),
            ..ToolCall::default()
        };
        assert_eq!(run.text(), "List [completed]\n$ ls -a");
        let ended = ToolCall {
            title: "cargo test".into(),
            status: "failed".into(),
            command: Some("cargo test".into()),
            exit_code: Some(101),
            duration_ms: Some(61_500),
            ..ToolCall::default()
        };
        assert_eq!(ended.text(), "cargo test [failed, exit 101, 1m 1.5s]");
    }
}
