//! A plug built for contract 0.3.0 (`build.rs`): it imports `secrets@0.3.0`
//! and exports `hooks@0.3.0`, and must run on a 0.3.1 runner as it is. Its
//! start reads the granted secret `token` and hands it to the agent as
//! `TOKEN`.

wit_bindgen::generate!({ path: concat!(env!("OUT_DIR"), "/wit"), world: "plug" });

use exports::blaise::plug::hooks::{
    Context, Contribution, Guest, PauseInfo, PlugError, PlugInfo, TeardownInfo,
};
use exports::blaise::plug::transcript::{Guest as Transcript, TranscriptEntry};

struct Earlier;

fn contribution() -> Result<Contribution, PlugError> {
    let token = blaise::plug::secrets::get("token").map_err(|e| PlugError {
        message: format!("{e:?}"),
        field: None,
    })?;
    Ok(Contribution {
        env: vec![("TOKEN".into(), token)],
        working_dir: None,
        command_prefix: Vec::new(),
    })
}

impl Guest for Earlier {
    fn describe() -> PlugInfo {
        PlugInfo {
            name: "earlier-patch".into(),
            version: "0.1.0".into(),
            description: String::new(),
            stateful: false,
            can_resume: true,
            keeps_processes: true,
            hooks: vec![
                blaise::plug::types::Hook::OnStart,
                blaise::plug::types::Hook::OnResume,
            ],
            filters_transcript: false,
            config_schema: "{}".into(),
            needs: blaise::plug::types::Needs {
                exec: Vec::new(),
                http: Vec::new(),
                secrets: vec!["token".into()],
                storage: false,
            },
        }
    }
    fn on_start(_: Context) -> Result<Contribution, PlugError> {
        contribution()
    }
    fn on_resume(_: Context) -> Result<Contribution, PlugError> {
        contribution()
    }
    fn on_pause(_: Context, _: PauseInfo) -> Result<(), PlugError> {
        Ok(())
    }
    fn on_teardown(_: Context, _: TeardownInfo) -> Result<(), PlugError> {
        Ok(())
    }
}

impl Transcript for Earlier {
    fn filter(
        _: exports::blaise::plug::transcript::Context,
        entries: Vec<TranscriptEntry>,
    ) -> Vec<TranscriptEntry> {
        entries
    }
}

export!(Earlier);
