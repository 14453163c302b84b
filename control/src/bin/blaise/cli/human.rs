//! How the CLI shows times to people: in the machine's local zone, with how
//! long ago (or how soon) they are. `--json` keeps milliseconds since the
//! epoch, for scripts.

use chrono::{Local, TimeZone as _};
use serde_json::Value;

use blaise_control::duration::Human;

/// Now, in milliseconds since the epoch.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// `2026-12-02 09:14 (3m ago)`, `2026-12-02 10:00 (in 45m)`, or `-`.
pub fn when(ms: &Value, now: i64) -> String {
    let Some(ms) = ms.as_i64() else {
        return "-".into();
    };
    let local = match Local.timestamp_millis_opt(ms).single() {
        Some(t) => t.format("%Y-%m-%d %H:%M").to_string(),
        None => return ms.to_string(),
    };
    format!("{local} ({})", age(ms, now))
}

/// `3m ago`, `in 45m`, `now`.
pub fn age(ms: i64, now: i64) -> String {
    let d = now - ms;
    if d.abs() < 1_000 {
        "now".into()
    } else if d > 0 {
        format!("{} ago", Human(round(d)))
    } else {
        format!("in {}", Human(round(-d)))
    }
}

fn round(ms: i64) -> i64 {
    blaise_control::duration::rounded(ms)
}

/// A duration in milliseconds as `5m`, or `-`.
pub fn duration(ms: &Value) -> String {
    ms.as_i64()
        .map(|ms| Human(ms).to_string())
        .unwrap_or_else(|| "-".into())
}

/// A JSON string for one line of a terminal, or `-`: what an agent wrote
/// (a tool call's title, an error) could hold escape sequences that retitle
/// the window, write the clipboard or hide what follows, so control
/// characters are shown escaped (`\u{1b}`), line breaks too.
pub fn text(v: &Value) -> String {
    v.as_str()
        .map_or_else(|| "-".into(), |t| printable(t, false))
}

pub use blaise_control::follow::printable;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_are_rounded_for_reading() {
        assert_eq!(age(1_000_000, 1_000_400), "now");
        assert_eq!(age(0, 42_500), "42s ago");
        assert_eq!(age(0, 3 * 60_000 + 59_000), "3m ago");
        assert_eq!(age(0, 2 * 3_600_000 + 59 * 60_000), "2h ago");
        assert_eq!(age(0, 3 * 86_400_000 + 5), "3d ago");
        assert_eq!(age(45 * 60_000, 0), "in 45m");
    }

    #[test]
    fn control_characters_reach_no_terminal() {
        let hostile = "ok\x1b]52;c;aGk=\x07\x1b[2Jgone\nnext";
        assert_eq!(
            text(&Value::from(hostile)),
            "ok\\u{1b}]52;c;aGk=\\u{7}\\u{1b}[2Jgone\\nnext"
        );
        assert_eq!(printable("a\n\tb\x1b", true), "a\n\tb\\u{1b}");
        assert_eq!(text(&Value::Null), "-");
    }

    #[test]
    fn missing_times_are_a_dash() {
        assert_eq!(when(&Value::Null, 0), "-");
        assert!(when(&Value::from(0), 60_000).ends_with("(1m ago)"));
    }
}
