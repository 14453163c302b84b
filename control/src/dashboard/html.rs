//! Escaping and the page frame.

use std::fmt::Write;

use crate::model::Millis;

/// Escapes text for HTML content and attribute values.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A time, shown in UTC and rewritten to local time by the page's script.
pub fn time(ms: Millis) -> String {
    format!("<time datetime=\"{ms}\">{}</time>", crate::timefmt::utc(ms))
}

/// A state as a labelled badge (`class="state state-orphaned"`).
pub fn state(text: &str) -> String {
    format!("<span class=\"state state-{0}\">{0}</span>", esc(text))
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2rem;color:#222}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}td,th{border-bottom:1px solid #ddd;padding:.3rem .8rem;text-align:left;vertical-align:top}
.state{padding:.1rem .4rem;border-radius:.3rem;background:#eee}.state-active,.state-running{background:#d4f5d4}
.state-paused{background:#e4ecff}.state-orphaned,.state-failed,.state-timed_out{background:#ffd9d9}
.unowned{color:#a00;font-weight:bold}.error{color:#a00}.transcript div{margin:.2rem 0}.kind{color:#777;font-size:.85em}
.text{white-space:pre-wrap;overflow-wrap:anywhere}.entry-tool_call .text,.entry-plan .text{font-family:ui-monospace,monospace;font-size:.9em}
.permission{border-left:3px solid #e0a800;padding:.2rem .8rem;margin:.5rem 0}.permission code{overflow-wrap:anywhere}
form{display:inline}h1{overflow-wrap:anywhere}
@media (max-width:600px){body{margin:1rem}table{display:block;overflow-x:auto;max-width:100%}input[name=text]{width:100%;box-sizing:border-box}}";

const SCRIPT: &str = "document.querySelectorAll('time[datetime]').forEach(function(t){var d=new Date(Number(t.getAttribute('datetime')));t.title=t.textContent;t.textContent=d.toLocaleString();t.dataset.local='1';});";

pub fn page(title: &str, body: &str) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><meta http-equiv=\"refresh\" content=\"15\"><title>{} · Blaise</title><style>{STYLE}</style></head><body><nav><a href=\"/\">Blaise</a></nav>{body}<script>{SCRIPT}</script></body></html>",
        esc(title)
    );
    out
}

pub fn login_page(problem: Option<&str>) -> String {
    let problem = problem
        .map(|p| format!("<p class=\"error\">{}</p>", esc(p)))
        .unwrap_or_default();
    page(
        "Log in",
        &format!(
            "<h1>Log in</h1>{problem}<form method=\"post\" action=\"/login\"><label>Admin token <input type=\"password\" name=\"token\"></label> <button>Log in</button></form>"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(esc("<b a=\"x\">&'"), "&lt;b a=&quot;x&quot;&gt;&amp;&#39;");
    }

    #[test]
    fn times_carry_their_instant_for_the_script() {
        assert_eq!(
            time(0),
            "<time datetime=\"0\">1970-01-01 00:00:00 UTC</time>"
        );
    }
}
