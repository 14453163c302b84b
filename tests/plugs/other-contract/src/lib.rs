//! A plug built against a contract version the runner does not implement
//! (the repository's WIT with its minor version bumped by `build.rs`):
//! loading it must fail naming both versions.

wit_bindgen::generate!({ path: concat!(env!("OUT_DIR"), "/wit"), world: "plug" });

use exports::blaise::plug::hooks::{
    Context, Contribution, Guest, PauseInfo, PlugError, PlugInfo, TeardownInfo,
};
use exports::blaise::plug::transcript::{Guest as Transcript, TranscriptEntry};

struct Future;

impl Guest for Future {
    fn describe() -> PlugInfo {
        PlugInfo {
            name: "from-the-future".into(),
            version: "0.1.0".into(),
            description: String::new(),
            stateful: false,
            can_resume: true,
            keeps_processes: false,
            hooks: Vec::new(),
            filters_transcript: false,
            config_schema: "{}".into(),
            needs: blaise::plug::types::Needs {
                exec: Vec::new(),
                http: Vec::new(),
                secrets: Vec::new(),
                storage: false,
            },
        }
    }
    fn on_start(_: Context) -> Result<Contribution, PlugError> {
        Ok(Contribution {
            env: Vec::new(),
            working_dir: None,
            command_prefix: Vec::new(),
        })
    }
    fn on_resume(_: Context) -> Result<Contribution, PlugError> {
        Ok(Contribution {
            env: Vec::new(),
            working_dir: None,
            command_prefix: Vec::new(),
        })
    }
    fn on_pause(_: Context, _: PauseInfo) -> Result<(), PlugError> {
        Ok(())
    }
    fn on_teardown(_: Context, _: TeardownInfo) -> Result<(), PlugError> {
        Ok(())
    }
}

impl Transcript for Future {
    fn filter(
        _: exports::blaise::plug::transcript::Context,
        entries: Vec<TranscriptEntry>,
    ) -> Vec<TranscriptEntry> {
        entries
    }
}

export!(Future);
