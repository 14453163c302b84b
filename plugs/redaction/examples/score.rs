//! Scores the detector on a corpus of marked texts, one JSON object per line
//! (`{"template": …, "positive": true|false, "text": "…"}`, a positive's
//! secrets between `«` and `»`), as `benches/recall/agent_written/` holds:
//!
//! ```text
//! cargo run --release -p redaction --example score -- rows.jsonl            # totals
//! cargo run --release -p redaction --example score -- rows.jsonl --misses   # and each miss
//! cargo run --release -p redaction --example score -- rows.jsonl --view cat-n  # as a viewer shows it
//! ```
//!
//! `--view` shows each text as a viewer would before scoring it, to measure
//! how much a decoration costs: `cat-n` (`     3\t`), `claude-read`
//! (`     3→`), `grep` (`path:3:`), `diff` (`+`), `ci` (a timestamp),
//! `quote` (`> `), `compose` (`web-1  | `), `kube` (`[pod/…/app] `),
//! `json` (the whole text as one JSON string, escaped).
//!
//! A secret is recalled when every byte of it is masked; a negative with any
//! mask is a false positive, unless all it masks are keys public by design
//! that are masked on purpose (`public_by_design`: Stripe's and Clerk's
//! `pk_…`, Mapbox's `pk.eyJ…`, Google's `AIza…`), counted apart. `--misses` lists what failed, for a tuning set:
//! never run it on a held-out one.

#[path = "../benches/recall/marks.rs"]
mod marks;

use marks::unmark;
use redaction::detect::{Redactor, public_by_design};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args
        .iter()
        .enumerate()
        .find(|(i, a)| !a.starts_with("--") && (*i == 0 || args[i - 1] != "--view"))
        .map(|(_, a)| a)
    else {
        eprintln!("usage: score <rows.jsonl> [--misses]");
        std::process::exit(2);
    };
    let list = args.iter().any(|a| a == "--misses");
    let view = args
        .iter()
        .position(|a| a == "--view")
        .map(|i| args.get(i + 1).cloned().unwrap_or_default());
    if let Some(v) = &view
        && shown(v, "").is_none()
    {
        eprintln!(
            "score: unknown view {v:?} (cat-n, claude-read, grep, diff, ci, quote, compose, kube, json)"
        );
        std::process::exit(2);
    }
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("score: reading {path}: {e}");
            std::process::exit(1);
        }
    };
    let r = Redactor::new(&[]);
    let (mut secrets, mut recalled, mut negatives, mut clean, mut public) = (0, 0, 0, 0, 0);
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let row: serde_json::Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("score: {path}:{}: {e}", n + 1);
                std::process::exit(1);
            }
        };
        let template = row["template"].as_str().unwrap_or("?");
        let marked = row["text"].as_str().unwrap_or_default();
        let marked = match &view {
            Some(v) => shown(v, marked).expect("checked"),
            None => marked.to_string(),
        };
        let (plain, spans) = unmark(&marked);
        let found = r.find(&plain);
        let masked = |s: &std::ops::Range<usize>| {
            let mut at = s.start;
            let mut fs: Vec<_> = found.iter().map(|f| f.start..f.end).collect();
            fs.sort_by_key(|f| f.start);
            for f in fs {
                if f.start <= at && f.end > at {
                    at = f.end;
                }
            }
            at >= s.end
        };
        if row["positive"].as_bool().unwrap_or(false) {
            for s in &spans {
                secrets += 1;
                if masked(s) {
                    recalled += 1;
                } else if list {
                    println!(
                        "MISS {template} (line {}): {:?}\n{}\n",
                        n + 1,
                        &plain[s.clone()],
                        plain
                    );
                }
            }
        } else {
            negatives += 1;
            if found.is_empty() {
                clean += 1;
            } else if found
                .iter()
                .all(|f| public_by_design(&plain[f.start..f.end]))
            {
                clean += 1;
                public += 1;
            } else if list {
                println!(
                    "FALSE POSITIVE {template} (line {}): {:?}\n{}\n",
                    n + 1,
                    found
                        .iter()
                        .map(|f| (f.kind, &plain[f.start..f.end]))
                        .collect::<Vec<_>>(),
                    plain
                );
            }
        }
    }
    println!(
        "recall {recalled}/{secrets} ({:.1} %), false positives {}/{negatives} ({:.1} %; {public} more mask only keys public by design)",
        100.0 * recalled as f64 / secrets.max(1) as f64,
        negatives - clean,
        100.0 * (negatives - clean) as f64 / negatives.max(1) as f64
    );
}

/// `text` as the viewer `view` shows it; `None` if there is no such view.
fn shown(view: &str, text: &str) -> Option<String> {
    let lines = |f: &dyn Fn(usize, &str) -> String| {
        text.split('\n')
            .enumerate()
            .map(|(i, l)| f(i + 1, l))
            .collect::<Vec<_>>()
            .join("\n")
    };
    Some(match view {
        "cat-n" => lines(&|n, l| format!("{n:>6}\t{l}")),
        "claude-read" => lines(&|n, l| format!("{n:>6}→{l}")),
        "grep" => lines(&|n, l| format!("deploy/app/config.txt:{n}:{l}")),
        "diff" => lines(&|_, l| format!("+{l}")),
        "ci" => lines(&|n, l| format!("2024-05-01T10:00:{:02}.1234567Z {l}", n % 60)),
        "quote" => lines(&|_, l| format!("> {l}")),
        "compose" => lines(&|_, l| format!("web-1  | {l}")),
        "kube" => lines(&|_, l| format!("[pod/api-7d4b9-x2k/app] {l}")),
        "json" => serde_json::json!({"type": "tool_result", "content": text}).to_string(),
        _ => return None,
    })
}
