//! The redaction plug: every transcript entry leaves the runner with its
//! secrets masked, e.g. `[REDACTED:github-token]`.
//!
//! Detection lives in [`detect`] (plain Rust, also compiled natively for the
//! benchmark against the host); streaming lives in [`stream`].

pub mod detect;
pub mod stream;

use std::cell::RefCell;

use blaise_plug::{Context, Plug, PlugInfo, TranscriptEntry, export_plug};

use detect::Redactor;
use stream::Streams;

/// The `with:` config.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Exact values to mask wherever they appear (at least 4 characters).
    #[serde(default)]
    pub literals: Vec<String>,
}

pub const CONFIG_SCHEMA: &str = r#"{
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "literals": {
      "description": "Exact values to mask wherever they appear, shown as [REDACTED:literal]",
      "type": "array",
      "items": { "type": "string", "minLength": 4 }
    }
  }
}"#;

thread_local! {
    // The config arrives with every call; build the redactor once per config.
    static REDACTOR: RefCell<Option<(String, Redactor)>> = const { RefCell::new(None) };
    static STREAMS: RefCell<Streams> = RefCell::new(Streams::default());
}

struct Redaction;

impl Plug for Redaction {
    fn describe() -> PlugInfo {
        PlugInfo::builder("redaction", env!("CARGO_PKG_VERSION"))
            .description("Masks secrets (cloud keys, VCS and API tokens, private keys, JWTs, connection-string passwords, your literals) in every transcript entry")
            .stateful(false)
            .can_resume(true)
            .filters_transcript(true)
            .config_schema(CONFIG_SCHEMA)
            .build()
    }

    fn filter(ctx: &Context, entry: TranscriptEntry) -> TranscriptEntry {
        REDACTOR.with_borrow_mut(|slot| {
            if slot
                .as_ref()
                .is_none_or(|(config, _)| *config != ctx.config)
            {
                let config: Config = serde_json::from_str(&ctx.config).unwrap_or_default();
                *slot = Some((ctx.config.clone(), Redactor::new(&config.literals)));
            }
            let redactor = &slot.as_ref().expect("set above").1;
            STREAMS.with_borrow_mut(|streams| streams.filter(redactor, entry))
        })
    }
}

export_plug!(Redaction);
