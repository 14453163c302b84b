//! A download's progress bar: drawn on a terminal (stderr), silent otherwise.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub fn bar(total: u64, what: &str) -> ProgressBar {
    // indicatif draws nothing when stderr is not a terminal (CI, logs, pipes).
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(format!("pulling {what}"));
    bar
}
