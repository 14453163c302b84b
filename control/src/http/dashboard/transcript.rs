//! The conversation as a reader wants it: a message's chunks as one, rendered from Markdown
//! safely (the agent's HTML shown as text, links only to `http`, `https` and `mailto`, images
//! never fetched: shown as links, since an image's URL can carry a secret out), tool calls as
//! cards (title, status, command, output) that open, thoughts folded, plans as lists, Blaise's
//! notices set off. Bounded: the last entries up to a count and a size, with a link to earlier
//! ones.

use std::collections::{HashMap, HashSet};
use std::fmt::Write;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use serde_json::Value;

use super::html::{esc, time};
use crate::model::{Millis, TranscriptEntry};

/// Most entries one page of a transcript reads.
pub const PAGE_ENTRIES: usize = 1000;
/// Most bytes of conversation one page shows; older lines go to the previous page.
pub const PAGE_BYTES: usize = 512 * 1024;

/// One line of the conversation: a message (its chunks joined), a tool call as it stood last,
/// or another entry.
struct Line<'a> {
    kind: &'a str,
    at: Millis,
    /// The first entry's index (where the page of earlier lines ends).
    index: i64,
    text: String,
    entry: &'a TranscriptEntry,
    /// A tool call's output as it came (its `tool_output` stream), joined.
    streamed: Option<String>,
}

fn text(e: &TranscriptEntry) -> String {
    e.content
        .get("text")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| e.content.to_string())
}

/// The chunks of one message joined, a tool call once (as it stood last, where it first
/// appeared: each update is recorded whole, by run and id), a tool's output left to its call.
fn lines(entries: &[TranscriptEntry]) -> Vec<Line<'_>> {
    let call = |e: &TranscriptEntry| {
        let id = e.content["tool_call"]["id"].as_str()?;
        (e.kind == "tool_call").then(|| (e.run_id.clone(), id.to_owned()))
    };
    let stream = |e: &TranscriptEntry| {
        let id = e.content["stream"].as_str()?;
        Some((e.run_id.clone(), id.to_owned()))
    };
    let mut last = HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        if let Some(k) = call(e) {
            last.insert(k, i);
        }
    }
    // What each call's command printed as it came, joined in order.
    // A call's whole output, recorded once it ended (no chunk before it), is left to the call.
    let mut streamed: HashMap<(Option<String>, String), String> = HashMap::new();
    for e in entries.iter().filter(|e| e.kind == "tool_output") {
        let Some(id) = e.content["tool_call_id"].as_str() else {
            continue;
        };
        let key = (e.run_id.clone(), id.to_owned());
        let chunk = e.content["last"].as_bool() == Some(false);
        if chunk || streamed.contains_key(&key) {
            streamed.entry(key).or_default().push_str(&text(e));
        }
    }
    let mut shown = HashSet::new();
    let mut out: Vec<Line> = Vec::with_capacity(entries.len());
    // The stream the previous line belongs to, while it is not ended.
    let mut open = None;
    for e in entries {
        if e.kind == "tool_output" {
            continue;
        }
        if let Some(k) = call(e) {
            if shown.insert(k.clone()) {
                let latest = &entries[last[&k]];
                out.push(Line {
                    kind: &latest.kind,
                    at: latest.at,
                    index: e.index,
                    text: text(latest),
                    entry: latest,
                    streamed: streamed.remove(&k),
                });
            }
            open = None;
            continue;
        }
        let this = stream(e);
        match out.last_mut() {
            Some(line) if this.is_some() && this == open && line.kind == e.kind => {
                line.text.push_str(&text(e))
            }
            _ => out.push(Line {
                kind: &e.kind,
                at: e.at,
                index: e.index,
                text: text(e),
                entry: e,
                streamed: None,
            }),
        }
        open = if e.content["last"].as_bool() == Some(false) {
            this
        } else {
            None
        };
    }
    out
}

/// A page of the conversation: its HTML, and the index before which earlier entries remain
/// (`None`: this page starts at the beginning).
pub struct Page {
    pub html: String,
    pub earlier_before: Option<i64>,
}

/// Renders `entries` (a page read from the store, oldest first); `more_before`: the store has
/// entries before them. Lines that would take the page over [`PAGE_BYTES`] are left to the
/// previous page, the oldest first.
pub fn render(entries: &[TranscriptEntry], more_before: bool) -> Page {
    let lines = lines(entries);
    let mut rendered: Vec<(i64, String)> = Vec::new();
    let mut bytes = 0;
    let mut cut = false;
    for line in lines.iter().rev() {
        let html = line_html(line);
        if bytes + html.len() > PAGE_BYTES && !rendered.is_empty() {
            cut = true;
            break;
        }
        bytes += html.len();
        rendered.push((line.index, html));
    }
    rendered.reverse();
    let earlier_before = match rendered.first() {
        Some((index, _)) if cut || more_before => Some(*index),
        None if more_before => entries.first().map(|e| e.index),
        _ => None,
    };
    Page {
        html: rendered.into_iter().map(|(_, h)| h).collect(),
        earlier_before,
    }
}

/// Who sent a message: a message source's user (`from`: `linear:<app>`), a person (`by`), or
/// (before people were recorded) the admin.
fn sender(content: &serde_json::Value) -> String {
    match content["from"].as_str().and_then(|f| f.split_once(':')) {
        Some(("linear", app)) => format!("Linear ({app})"),
        Some((source, app)) => format!("{source} ({app})"),
        None => content["by"].as_str().unwrap_or("You").to_string(),
    }
}

fn line_html(line: &Line) -> String {
    let at = time(line.at);
    let content = &line.entry.content;
    match line.kind {
        "user_message" => format!(
            "<article class=\"msg msg-user\"><header>{} · {at}</header><div class=\"md\">{}</div></article>",
            esc(&sender(content)),
            markdown(&line.text)
        ),
        "agent_message" => format!(
            "<article class=\"msg msg-agent\"><header>Agent · {at}</header><div class=\"md\">{}</div></article>",
            markdown(&line.text)
        ),
        "agent_thought" => format!(
            "<details class=\"thought\" id=\"thought-{}\"><summary>Thought · {at}</summary><div class=\"md\">{}</div></details>",
            line.index,
            markdown(&line.text)
        ),
        "tool_call" => tool_call(
            &content["tool_call"],
            &line.text,
            line.streamed.as_deref(),
            &at,
            line.index,
        ),
        "plan" => plan(&content["plan"], &line.text, &at),
        "permission_request" => format!(
            "<p class=\"asked\">Asked for permission · {at}: {}</p>",
            esc(&line.text)
        ),
        "permission_answer" => format!(
            "<p class=\"answered\"><b>{}</b> answered <code>{}</code> through {} · {at}</p>",
            esc(content["by"].as_str().unwrap_or("?")),
            esc(content["option_id"].as_str().unwrap_or("?")),
            esc(content["via"].as_str().unwrap_or("?"))
        ),
        "notice" => format!(
            "<p class=\"notice\" role=\"note\"><b>Blaise</b> · {at}: {}</p>",
            esc(&line.text)
        ),
        other => format!(
            "<p class=\"entry\"><span class=\"kind\">{}</span> · {at} <span class=\"text\">{}</span></p>",
            esc(other),
            esc(&line.text)
        ),
    }
}

/// A tool call as a card: its kind, title, state (with its exit status and how long it took),
/// the command, and what it printed — as it comes while it runs (the card is open then).
fn tool_call(call: &Value, text: &str, streamed: Option<&str>, at: &str, index: i64) -> String {
    let s = |k: &str| call[k].as_str().unwrap_or_default();
    let status = match s("status") {
        "" => "pending",
        other => other,
    };
    let title = match s("title") {
        "" => text.lines().next().unwrap_or("a tool call"),
        t => t,
    };
    let mut ended = Vec::new();
    if let Some(code) = call["exit_code"].as_i64() {
        ended.push(format!("exit {code}"));
    }
    if let Some(ms) = call["duration_ms"].as_u64() {
        ended.push(blaise_protocol::entries::took(ms));
    }
    let ended = if ended.is_empty() {
        String::new()
    } else {
        format!(" <span class=\"exit\">{}</span>", esc(&ended.join(" · ")))
    };
    let running = status == "in_progress" && streamed.is_some_and(|o| !o.is_empty());
    let mut out = format!(
        "<details class=\"tool tool-{0}\" id=\"tool-{index}\"{open}><summary><span class=\"tool-kind\">{1}</span> {2} <span class=\"state state-{0}\">{3}</span>{ended} · {at}</summary>",
        esc(status),
        esc(if s("kind").is_empty() {
            "tool"
        } else {
            s("kind")
        }),
        esc(title),
        esc(&status.replace('_', " ")),
        open = if running { " open" } else { "" },
    );
    if !s("command").is_empty() {
        let _ = write!(out, "<pre class=\"command\">$ {}</pre>", esc(s("command")));
    }
    for location in call["locations"].as_array().into_iter().flatten() {
        if let Some(path) = location["path"].as_str() {
            let _ = write!(out, "<p class=\"path\"><code>{}</code></p>", esc(path));
        }
    }
    // Diffs are in the text (unified, after the title line); the output once it has ended.
    let body: String = text.lines().skip(1).collect::<Vec<_>>().join("\n");
    if !body.trim().is_empty() && s("output").is_empty() && streamed.is_none() {
        let _ = write!(out, "<pre class=\"detail\">{}</pre>", esc(&body));
    }
    let output = match (s("output"), streamed) {
        ("", Some(streamed)) => streamed,
        (output, _) => output,
    };
    if !output.is_empty() {
        let _ = write!(out, "<pre class=\"output\">{}</pre>", esc(output));
    }
    out.push_str("</details>");
    out
}

fn plan(plan: &Value, text: &str, at: &str) -> String {
    let Some(items) = plan.as_array() else {
        return format!(
            "<div class=\"plan\"><header>Plan · {at}</header><pre>{}</pre></div>",
            esc(text)
        );
    };
    let mut out = format!("<div class=\"plan\"><header>Plan · {at}</header><ol>");
    for item in items {
        let status = item["status"].as_str().unwrap_or("pending");
        let _ = write!(
            out,
            "<li class=\"plan-{0}\">{1} <span class=\"state state-{0}\">{2}</span></li>",
            esc(status),
            esc(item["content"].as_str().unwrap_or_default()),
            esc(&status.replace('_', " "))
        );
    }
    out.push_str("</ol></div>");
    out
}

/// Whether a link may be followed from the page: only to another site over the web, or mail.
fn safe_link(url: &str) -> bool {
    let lower = url.trim_start().to_ascii_lowercase();
    ["http://", "https://", "mailto:"]
        .iter()
        .any(|s| lower.starts_with(s))
}

/// Markdown of the agent's (or the user's) as HTML nobody can use against the viewer: their own
/// HTML is text, a link goes out only to the web and opens no window onto this page, an image
/// is a link (nothing is fetched by itself).
pub fn markdown(text: &str) -> String {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    // What each open link or image becomes when it closes.
    let mut closing: Vec<Option<String>> = Vec::new();
    let events = Parser::new_ext(text, options).map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        Event::Start(Tag::Link { dest_url, .. }) => {
            if safe_link(&dest_url) {
                closing.push(Some("</a>".into()));
                Event::InlineHtml(
                    format!(
                        "<a href=\"{}\" rel=\"noopener noreferrer nofollow\" referrerpolicy=\"no-referrer\">",
                        esc(&dest_url)
                    )
                    .into(),
                )
            } else {
                closing.push(None);
                Event::Text("".into())
            }
        }
        Event::End(TagEnd::Link) => match closing.pop().flatten() {
            Some(tag) => Event::InlineHtml(tag.into()),
            None => Event::Text("".into()),
        },
        Event::Start(Tag::Image { dest_url, .. }) => {
            let shown = format!(" ({})", dest_url);
            if safe_link(&dest_url) {
                closing.push(Some(format!("</a>{}", esc(&shown))));
                Event::InlineHtml(
                    format!(
                        "<a class=\"image\" href=\"{}\" rel=\"noopener noreferrer nofollow\" referrerpolicy=\"no-referrer\">image: ",
                        esc(&dest_url)
                    )
                    .into(),
                )
            } else {
                closing.push(Some(esc(&shown)));
                Event::Text("image: ".into())
            }
        }
        Event::End(TagEnd::Image) => match closing.pop().flatten() {
            Some(tail) => Event::InlineHtml(tail.into()),
            None => Event::Text("".into()),
        },
        other => other,
    });
    let mut out = String::new();
    pulldown_cmark::html::push_html(&mut out, events);
    out
}
