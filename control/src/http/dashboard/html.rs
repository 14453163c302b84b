//! Escaping, the page frame, and the dashboard's one stylesheet and one script (served as files:
//! the pages' Content-Security-Policy lets nothing else run or load).

use std::fmt::Write;

use axum::http::header;
use axum::response::{IntoResponse, Response};

use crate::model::{Millis, Role};

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

/// A state as a labelled badge (`class="state state-orphaned"`), underscores shown as spaces.
pub fn state(text: &str) -> String {
    format!(
        "<span class=\"state state-{}\">{}</span>",
        esc(text),
        esc(&text.replace('_', " "))
    )
}

/// A duration for people: `45s`, `12m`, `3h 5m`, `2d 4h`.
pub fn duration(ms: Millis) -> String {
    let s = ms.max(0) / 1000;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..86_400 => format!("{}h {}m", s / 3600, s % 3600 / 60),
        _ => format!("{}d {}h", s / 86_400, s % 86_400 / 3600),
    }
}

/// Where the dashboard's script and stylesheet are served.
pub const SCRIPT_PATH: &str = "/dashboard.js";
pub const STYLE_PATH: &str = "/dashboard.css";

/// What a page may load and run: its own script and stylesheet, requests to its own server —
/// nothing from another host, no inline script, no plugin, not framed.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const STYLE: &str = r#"body{font-family:system-ui,sans-serif;margin:0;color:#1d1d1d;line-height:1.45}
header.top{background:#1d2433;padding:.5rem 1rem;display:flex;flex-wrap:wrap;gap:.3rem 1rem;align-items:center}
header.top a,header.top button{color:#fff;text-decoration:none;background:none;border:0;font:inherit;cursor:pointer;padding:.2rem 0}
header.top nav{display:flex;flex-wrap:wrap;gap:.2rem 1.2rem}header.top a[aria-current=page]{border-bottom:2px solid #fff}a.button{display:inline-block;padding:.45rem 1rem;background:#1d4ed8;color:#fff;border-radius:4px;text-decoration:none;font-weight:600}a.button:focus-visible{outline:3px solid #93c5fd}header.top form{margin-left:auto}header.top .who{margin-left:auto;color:#c9d1e0;font-size:.9em}header.top .who+form{margin-left:0}
main{padding:1rem 1.5rem;max-width:70rem}
h1{font-size:1.5rem;overflow-wrap:anywhere}h2{font-size:1.15rem;margin-top:1.6rem}
table{border-collapse:collapse;margin:.5rem 0 1rem;max-width:100%}td,th{border-bottom:1px solid #d0d0d0;padding:.3rem .7rem;text-align:left;vertical-align:top}
th{font-weight:600}.table-wrap{overflow-x:auto;max-width:100%;position:relative}
.state{padding:.05rem .4rem;border-radius:.3rem;background:#e8e8e8;white-space:nowrap}
.state-active,.state-running,.state-completed{background:#cdeccd}.state-paused,.state-in_progress,.state-pending{background:#dde6ff}
.state-orphaned,.state-failed,.state-timed_out,.state-expired{background:#ffd4d4}.state-waiting{background:#fff0c2}.state-waiting_for_you{background:#ffe08a;font-weight:600}
.count{display:inline-block;min-width:1.2em;margin-left:.3rem;padding:0 .35rem;border-radius:.6rem;background:#ffe08a;color:#1f2430;font-size:.8rem;font-weight:700;text-align:center}
.error{color:#9b0000}.unowned{color:#9b0000;font-weight:600}.muted{color:#555}
.notice-box{border-left:4px solid #c77c00;background:#fff8e6;padding:.4rem .8rem;margin:.6rem 0}
.conversation{display:flex;flex-direction:column;gap:.6rem;margin:.5rem 0}
.msg{border:1px solid #d6d6d6;border-radius:.5rem;padding:.4rem .8rem;max-width:52rem}
.msg header{font-size:.85em;color:#444;margin-bottom:.2rem}.msg-user{background:#eef4ff;align-self:flex-end}
.md p{margin:.3rem 0}.md pre,pre{background:#f4f4f4;padding:.5rem;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere;font-size:.9em}
.thought summary,.tool summary{cursor:pointer;color:#333}.thought{color:#444}
.tool{border:1px solid #d6d6d6;border-radius:.5rem;padding:.3rem .8rem;max-width:52rem}.tool-kind{font-family:ui-monospace,monospace;font-size:.85em;color:#444}
.plan{border-left:4px solid #5a6fd6;padding:.2rem .8rem}.plan header{font-size:.85em;color:#444}
.notice,.asked{color:#444;font-size:.92em;margin:.1rem 0}.kind{color:#555;font-size:.85em}
.text{white-space:pre-wrap;overflow-wrap:anywhere}
.permission{border:2px solid #c77c00;border-radius:.5rem;padding:.4rem .8rem;margin:.6rem 0;background:#fffaf0}.permission code{overflow-wrap:anywhere}
form.inline{display:inline}label{display:inline-block;margin:.2rem .6rem .2rem 0}
input,select,textarea,button{font:inherit}textarea{width:100%;max-width:40rem;box-sizing:border-box}
button{padding:.25rem .7rem;border:1px solid #888;border-radius:.3rem;background:#f6f6f6;cursor:pointer}
button.danger{border-color:#9b0000;color:#9b0000}
.token{font-family:ui-monospace,monospace;background:#f4f4f4;padding:.4rem;overflow-wrap:anywhere;display:block}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.pager,.actions{margin:.6rem 0}#filters{display:block;margin-top:1rem}.pager a{margin-right:1rem}
@media (max-width:600px){main{padding:.8rem}td,th{padding:.25rem .4rem}input[type=text],input:not([type]),select{max-width:100%}}"#;

const SCRIPT: &str = r#"(function(){
function local(root){root.querySelectorAll('time[datetime]').forEach(function(t){if(t.dataset.local)return;var d=new Date(Number(t.getAttribute('datetime')));t.title=t.textContent;t.textContent=d.toLocaleString();t.dataset.local='1';});}
local(document);
document.addEventListener('submit',function(e){var m=e.target.getAttribute('data-confirm');if(m&&!window.confirm(m)){e.preventDefault();}});
var live=document.getElementById('live');if(!live)return;
var announce=document.getElementById('announce');
var waits=live.dataset.wait==='1';
function again(ms){setTimeout(poll,ms);}
function swap(doc){
 doc.querySelectorAll('.live[id]').forEach(function(n){var here=document.getElementById(n.id);if(!here)return;
  var open={};here.querySelectorAll('details[id]').forEach(function(d){open[d.id]=d.open;});
  here.innerHTML=n.innerHTML;
  here.querySelectorAll('details[id]').forEach(function(d){if(d.id in open)d.open=open[d.id];});
  local(here);});
 var nav=doc.querySelector('header.top nav'),here=document.querySelector('header.top nav');if(nav&&here)here.innerHTML=nav.innerHTML;
 if(doc.title)document.title=doc.title;
 var v=doc.getElementById('live');if(v)live.dataset.version=v.dataset.version;
 if(announce)announce.textContent='Updated at '+new Date().toLocaleTimeString();
}
function poll(){
 var u=new URL(location.href);u.searchParams.set('since',live.dataset.version);
 fetch(u,{credentials:'same-origin'}).then(function(r){
  if(r.status===200){return r.text().then(function(t){swap(new DOMParser().parseFromString(t,'text/html'));again(waits?0:3000);});}
  if(r.status===204){again(waits?0:3000);return;}
  if(r.status===401){if(announce)announce.textContent='You are logged out: reload the page to log in again.';return;}
  again(5000);
 }).catch(function(){again(5000);});
}
again(waits?0:3000);
})();"#;

pub async fn script() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        SCRIPT,
    )
        .into_response()
}

pub async fn style() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        STYLE,
    )
        .into_response()
}

/// The sections of the dashboard, for the navigation.
/// The navigation: each section's path, name, and the role it needs (`roles::cut_to` drops the
/// link for the others).
const SECTIONS: [(&str, &str, Role); 5] = [
    ("/", "Sessions", Role::Viewer),
    ("/agents", "Agents", Role::Viewer),
    ("/runners", "Runners", Role::Viewer),
    ("/environments", "Environments", Role::Viewer),
    ("/audit", "Audit", Role::Admin),
];

/// Percent-encodes a query value (everything but unreserved characters).
pub fn percent(v: &str) -> String {
    v.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A whole page: the navigation (the current section marked), `body` in `<main>`, a polite live
/// region the script announces updates in.
pub fn page(title: &str, body: &str) -> String {
    page_waiting(title, body, 0)
}

/// The form field that carries a login's CSRF token.
pub const CSRF_FIELD: &str = "csrf";

/// `html` with `csrf` in every form it posts (the dashboard's forms are written
/// `<form method="post" …>`), as the first field.
pub fn with_csrf(html: &str, csrf: &str) -> String {
    const OPEN: &str = "<form method=\"post\"";
    let field = format!(
        "<input type=\"hidden\" name=\"{CSRF_FIELD}\" value=\"{}\">",
        esc(csrf)
    );
    let mut out = String::with_capacity(html.len() + 128);
    let mut rest = html;
    while let Some(at) = rest.find(OPEN) {
        let Some(end) = rest[at..].find('>') else {
            break;
        };
        let split = at + end + 1;
        out.push_str(&rest[..split]);
        out.push_str(&field);
        rest = &rest[split..];
    }
    out.push_str(rest);
    out
}

/// A page whose navigation says how many sessions wait for a person (`waiting`), as its title
/// does: `(2) Sessions · Blaise`.
pub fn page_waiting(title: &str, body: &str, waiting: usize) -> String {
    let mut nav = String::new();
    for (path, name, role) in SECTIONS {
        let current = if title == name || (path == "/" && title.starts_with("Session")) {
            " aria-current=\"page\""
        } else {
            ""
        };
        let count = if path == "/" && waiting > 0 {
            format!(
                " <span class=\"count\" id=\"waiting-count\" title=\"{waiting} waiting for you\"><span class=\"visually-hidden\">, waiting for you: </span>{waiting}</span>"
            )
        } else {
            String::new()
        };
        let needs = if role == Role::Viewer {
            String::new()
        } else {
            format!(" data-needs=\"{role}\"")
        };
        let _ = write!(nav, "<a href=\"{path}\"{needs}{current}>{name}{count}</a>");
    }
    let shown_title = match waiting {
        0 => esc(title).to_string(),
        n => format!("({n}) {}", esc(title)),
    };
    let mut out = String::new();
    let _ = write!(
        out,
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{} · Blaise</title><link rel=\"stylesheet\" href=\"{STYLE_PATH}\"></head><body><header class=\"top\"><nav aria-label=\"Sections\">{nav}</nav><form method=\"post\" action=\"/logout\"><button type=\"submit\">Log out</button></form></header><main>{body}<p id=\"announce\" class=\"visually-hidden\" aria-live=\"polite\"></p></main><script src=\"{SCRIPT_PATH}\"></script></body></html>",
        shown_title
    );
    out
}

/// The login page; `next`: where the form goes after logging in (a path on this server);
/// `provider`: the identity provider's name, when people sign in with one.
pub fn login_page(problem: Option<&str>, next: Option<&str>, provider: Option<&str>) -> String {
    let sso = provider
        .map(|name| {
            let next = next
                .map(|n| format!("?next={}", percent(n)))
                .unwrap_or_default();
            format!(
                "<p><a class=\"button sso\" id=\"sso\" href=\"/login/oidc{}\">Sign in with {}</a></p><p class=\"muted\">Or with a token:</p>",
                esc(&next),
                esc(name)
            )
        })
        .unwrap_or_default();
    let problem = problem
        .map(|p| format!("<p class=\"error\" role=\"alert\">{}</p>", esc(p)))
        .unwrap_or_default();
    let next = next
        .map(|n| format!("<input type=\"hidden\" name=\"next\" value=\"{}\">", esc(n)))
        .unwrap_or_default();
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>Log in · Blaise</title><link rel=\"stylesheet\" href=\"{STYLE_PATH}\"></head><body><main><h1>Log in to Blaise</h1>{problem}{sso}<form method=\"post\" action=\"/login\" id=\"login\">{next}<label>Token <input type=\"password\" name=\"token\" autocomplete=\"current-password\" required></label> <button type=\"submit\">Log in</button></form><p class=\"muted\">Your own token (an admin gives it with <code>blaise user add</code>), or the admin token: <code>blaise serve</code> printed it at its first start (or it is <code>BLAISE_TOKEN</code>).</p></main></body></html>"
    )
}

/// An error as a page, with a way back.
pub fn error_page(title: &str, message: &str, back: &str) -> String {
    page(
        title,
        &format!(
            "<h1>{}</h1><p class=\"error\" id=\"problem\" role=\"alert\">{}</p><p><a href=\"{}\">Back</a></p>",
            esc(title),
            esc(message),
            esc(back)
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

    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!(duration(45_000), "45s");
        assert_eq!(duration(12 * 60_000), "12m");
        assert_eq!(duration(3 * 3_600_000 + 5 * 60_000), "3h 5m");
        assert_eq!(duration(2 * 86_400_000 + 4 * 3_600_000), "2d 4h");
    }

    #[test]
    fn every_form_that_posts_carries_the_csrf_token_and_no_other_does() {
        let page = "<form method=\"post\" action=\"/a\"><button>A</button></form>\
                    <form method=\"get\" action=\"/\"><input name=\"q\"></form>\
                    <form method=\"post\" action=\"/b\" class=\"inline\" data-confirm=\"Sure?\"></form>";
        let out = with_csrf(page, "c0ffee\"<");
        let field = "<input type=\"hidden\" name=\"csrf\" value=\"c0ffee&quot;&lt;\">";
        assert_eq!(out.matches(field).count(), 2, "{out}");
        assert!(
            out.contains(&format!("action=\"/a\">{field}<button>")),
            "{out}"
        );
        assert!(
            out.contains(&format!("data-confirm=\"Sure?\">{field}</form>")),
            "{out}"
        );
        assert!(out.contains("action=\"/\"><input name=\"q\">"), "{out}");
    }
}
