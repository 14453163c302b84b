//! Runs a target for a number of executions: seeds as they are, then a mix
//! of mutated seeds and structure-aware inputs, every one under
//! `catch_unwind`.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::Once;
use std::time::{Duration, Instant};

use arbitrary::Unstructured;

use crate::mutate::mutate;
use crate::rng::Rng;
use crate::targets::{Outcome, Target};

#[derive(Debug, Clone)]
pub struct Options {
    pub runs: u64,
    pub seed: u64,
    /// Write each distinct failing input under `fuzz/crashes/<target>/`.
    pub save: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Panic,
    ServerError,
}

/// One distinct failure, with the first input that showed it.
#[derive(Debug, Clone)]
pub struct Finding {
    pub kind: Kind,
    pub key: String,
    pub message: String,
    pub input: Vec<u8>,
    pub count: u64,
    pub saved: Option<PathBuf>,
}

#[derive(Debug, Clone)]
pub struct Summary {
    pub target: &'static str,
    pub seed: u64,
    pub executions: u64,
    pub panics: u64,
    pub server_errors: u64,
    pub findings: Vec<Finding>,
    pub elapsed: Duration,
    pub stats: Option<String>,
}

impl Summary {
    pub fn distinct(&self, kind: Kind) -> usize {
        self.findings.iter().filter(|f| f.kind == kind).count()
    }

    pub fn per_second(&self) -> f64 {
        self.executions as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    pub fn clean(&self) -> bool {
        self.findings.is_empty()
    }
}

/// Fuzzes `target` from `seeds` for `options.runs` executions.
pub fn fuzz(target: &mut dyn Target, seeds: &[Vec<u8>], options: &Options) -> Summary {
    let started = Instant::now();
    let mut rng = Rng::new(options.seed ^ name_hash(target.name()));
    let mut summary = Summary {
        target: target.name(),
        seed: options.seed,
        executions: 0,
        panics: 0,
        server_errors: 0,
        findings: Vec::new(),
        elapsed: Duration::ZERO,
        stats: None,
    };
    for i in 0..options.runs {
        let input = if (i as usize) < seeds.len() {
            seeds[i as usize].clone()
        } else if seeds.is_empty() || rng.one_in(3) {
            let most = if rng.one_in(4) { 8192 } else { 1024 };
            let len = 16 + rng.below(most);
            let raw = rng.bytes(len);
            target
                .generate(&mut Unstructured::new(&raw))
                .unwrap_or_default()
        } else {
            let seed = &seeds[rng.below(seeds.len())];
            mutate(&mut rng, seed, seeds)
        };
        summary.executions += 1;
        match execute(target, &input) {
            Ok(Outcome::Ok) => {}
            Ok(Outcome::ServerError(message)) => {
                summary.server_errors += 1;
                record(&mut summary, Kind::ServerError, message, &input, options);
            }
            Err(message) => {
                summary.panics += 1;
                target.reset();
                record(&mut summary, Kind::Panic, message, &input, options);
            }
        }
    }
    summary.elapsed = started.elapsed();
    summary.stats = target.stats();
    summary
}

/// Runs one input; `Err` is the panic's message and place.
pub fn execute(target: &mut dyn Target, input: &[u8]) -> Result<Outcome, String> {
    install_hook();
    QUIET.set(true);
    let result = panic::catch_unwind(AssertUnwindSafe(|| target.run(input)));
    QUIET.set(false);
    result.map_err(|_| {
        CAUGHT
            .take()
            .unwrap_or_else(|| "a panic with no message".into())
    })
}

fn record(summary: &mut Summary, kind: Kind, message: String, input: &[u8], options: &Options) {
    let key = key_of(&message);
    if let Some(known) = summary
        .findings
        .iter_mut()
        .find(|f| f.kind == kind && f.key == key)
    {
        known.count += 1;
        return;
    }
    let saved = options
        .save
        .then(|| crate::corpus::save_crash(summary.target, &key, input).ok())
        .flatten();
    summary.findings.push(Finding {
        kind,
        key,
        message,
        input: input.to_vec(),
        count: 1,
        saved,
    });
}

/// What makes two failures the same: where it panicked (or what the server
/// said), numbers and ids aside.
fn key_of(message: &str) -> String {
    let first = message.lines().next().unwrap_or_default();
    let mut key = String::new();
    let mut in_number = false;
    for c in first.chars() {
        if c.is_ascii_hexdigit() && (in_number || c.is_ascii_digit()) {
            if !in_number {
                key.push('#');
            }
            in_number = true;
        } else {
            in_number = false;
            key.push(c);
        }
    }
    key.chars().take(160).collect()
}

/// An input as printable text, shortened.
pub fn escaped(input: &[u8]) -> String {
    let shown = &input[..input.len().min(2000)];
    let mut text = shown.escape_ascii().to_string();
    if input.len() > shown.len() {
        text.push_str(&format!("… ({} bytes in all)", input.len()));
    }
    text
}

fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
    static CAUGHT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// A panic hook that, while a target runs on this thread, keeps the message
/// and place instead of printing them; other panics print as before.
fn install_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if QUIET.get() {
                let payload = info
                    .payload()
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| info.payload().downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                let place = info
                    .location()
                    .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
                    .unwrap_or_default();
                CAUGHT.set(Some(format!("panic at {place}: {payload}")));
            } else {
                previous(info);
            }
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fragile;

    impl Target for Fragile {
        fn name(&self) -> &'static str {
            "fragile"
        }
        fn generate(&mut self, u: &mut Unstructured) -> arbitrary::Result<Vec<u8>> {
            u.arbitrary()
        }
        fn run(&mut self, input: &[u8]) -> Outcome {
            assert!(input.first() != Some(&b'!'), "bang {}", input.len());
            if input.first() == Some(&b'5') {
                return Outcome::ServerError("500 at 12".into());
            }
            Outcome::Ok
        }
    }

    #[test]
    fn panics_and_server_errors_are_caught_counted_and_deduplicated() {
        let seeds = vec![
            b"!a".to_vec(),
            b"!bb".to_vec(),
            b"5".to_vec(),
            b"ok".to_vec(),
        ];
        let options = Options {
            runs: 4,
            seed: 1,
            save: false,
        };
        let summary = fuzz(&mut Fragile, &seeds, &options);
        assert_eq!(summary.executions, 4);
        assert_eq!(summary.panics, 2);
        assert_eq!(summary.server_errors, 1);
        assert_eq!(summary.distinct(Kind::Panic), 1, "{:?}", summary.findings);
        assert_eq!(summary.findings[0].input, b"!a");
        assert!(summary.findings[0].message.contains("bang 2"));
        assert!(summary.findings[0].message.contains("driver.rs"));
    }
}
