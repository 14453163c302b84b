//! A plug whose `describe` spins forever: the runner must stop it at the
//! plug's configured hook deadline, not at a default of its own.

wit_bindgen::generate!({ path: "../../../wit", world: "plug" });

use exports::blaise::plug::hooks::{
    Context, Contribution, Guest, PauseInfo, PlugError, PlugInfo, TeardownInfo,
};
use exports::blaise::plug::transcript::{Guest as Transcript, TranscriptEntry};

struct Slow;

impl Guest for Slow {
    fn describe() -> PlugInfo {
        let mut n: u64 = 0;
        loop {
            n = std::hint::black_box(n.wrapping_add(1));
        }
    }
    fn on_start(_: Context) -> Result<Contribution, PlugError> {
        Err(PlugError {
            message: "never loaded".into(),
            field: None,
        })
    }
    fn on_resume(_: Context) -> Result<Contribution, PlugError> {
        Err(PlugError {
            message: "never loaded".into(),
            field: None,
        })
    }
    fn on_pause(_: Context, _: PauseInfo) -> Result<(), PlugError> {
        Ok(())
    }
    fn on_teardown(_: Context, _: TeardownInfo) -> Result<(), PlugError> {
        Ok(())
    }
}

impl Transcript for Slow {
    fn filter(
        _: exports::blaise::plug::transcript::Context,
        entries: Vec<TranscriptEntry>,
    ) -> Vec<TranscriptEntry> {
        entries
    }
}

export!(Slow);
