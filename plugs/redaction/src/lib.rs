//! The redaction plug: every transcript entry leaves the runner with its
//! secrets masked, e.g. `[REDACTED:github-token]`.
//!
//! Detection lives in [`detect`] (plain Rust, also compiled natively for the
//! benchmark against the host); streaming lives in [`stream`]; the `with:`
//! config in [`config`].
//!
//! The plug fails closed: a config it cannot read fails `on-start` and
//! `on-resume` with the field named, and a filter call that still gets one
//! traps, so that the runner fails the entries instead of letting them out
//! unmasked.

pub mod config;
pub mod oracle;
pub use redaction_detect as detect;
pub mod stream;

use std::cell::RefCell;

use blaise_plug::{Context, Contribution, Plug, PlugError, PlugInfo, TranscriptEntry};

pub use config::Config;
use detect::Redactor;
use stream::Streams;

thread_local! {
    // The config arrives with every call; build the redactor once per config.
    static REDACTOR: RefCell<Option<(String, Redactor)>> = const { RefCell::new(None) };
    static STREAMS: RefCell<Streams> = RefCell::new(Streams::default());
}

struct Redaction;

#[blaise_plug::plug]
impl Plug for Redaction {
    fn describe() -> PlugInfo {
        PlugInfo::builder("redaction", env!("CARGO_PKG_VERSION"))
            .description("Masks secrets (cloud keys, VCS and API tokens, private keys, JWTs, connection-string passwords, secrets hidden by JSON, URL or base64 encoding, your literals and patterns) in every transcript entry")
            .stateful(false)
            .can_resume(true)
            // It only filters text: a hot pause changes nothing for it.
            .keeps_processes(true)
            .config::<Config>()
            .build()
    }

    fn on_start(ctx: &Context) -> Result<Contribution, PlugError> {
        Config::parse(&ctx.config)?;
        Ok(Contribution::default())
    }

    fn on_resume(ctx: &Context) -> Result<Contribution, PlugError> {
        Config::parse(&ctx.config)?;
        Ok(Contribution::default())
    }

    fn filter(ctx: &Context, entry: TranscriptEntry) -> TranscriptEntry {
        REDACTOR.with_borrow_mut(|slot| {
            if slot
                .as_ref()
                .is_none_or(|(config, _)| *config != ctx.config)
            {
                let config = Config::parse(&ctx.config).unwrap_or_else(|e| {
                    // A trap fails the call and the runner fails the entries,
                    // naming this plug: nothing leaves unmasked.
                    panic!(
                        "redaction: refusing to pass transcript entries through unmasked: {}",
                        config::describe_error(&e)
                    )
                });
                let redactor =
                    Redactor::new(&config.literals).with_patterns(config.compiled_patterns());
                *slot = Some((ctx.config.clone(), redactor));
            }
            let redactor = &slot.as_ref().expect("set above").1;
            STREAMS.with_borrow_mut(|streams| streams.filter(redactor, entry))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blaise_plug::{EntryKind, RunKind};

    fn ctx(config: &str) -> Context {
        Context {
            session_id: "s".into(),
            run_id: "r".into(),
            run_kind: RunKind::Start,
            plug_id: "redaction".into(),
            config: config.into(),
            workspace: "/ws".into(),
            storage: None,
            processes_kept: false,
        }
    }

    fn entry(text: &str) -> TranscriptEntry {
        TranscriptEntry {
            stream_id: "m".into(),
            kind: EntryKind::AgentMessage,
            text: text.into(),
            last: true,
            replay: false,
        }
    }

    #[test]
    fn declares_the_hooks_that_check_the_config_and_the_filter() {
        use blaise_plug::__private::Implemented;
        assert_eq!(
            <Redaction as Implemented>::HOOKS,
            [blaise_plug::Hook::OnStart, blaise_plug::Hook::OnResume]
        );
        const { assert!(<Redaction as Implemented>::FILTERS_TRANSCRIPT) };
    }

    #[test]
    fn start_and_resume_refuse_a_bad_config_naming_the_field() {
        let bad = ctx(r#"{"literals":["ok-literal","abc"]}"#);
        let e = Redaction::on_start(&bad).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("literals.1"));
        let e = Redaction::on_resume(&bad).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("literals.1"));
        assert!(Redaction::on_start(&ctx(r#"{"literals":["hunter2-literal"]}"#)).is_ok());
        assert!(Redaction::on_resume(&ctx("{}")).is_ok());
    }

    #[test]
    fn filter_masks_with_a_good_config() {
        let out = Redaction::filter(
            &ctx(r#"{"literals":["hunter2-literal"]}"#),
            entry("pw hunter2-literal and ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"),
        );
        assert_eq!(
            out.text,
            "pw [REDACTED:literal] and [REDACTED:github-token]"
        );
    }

    #[test]
    fn filter_masks_the_operators_patterns() {
        let config = r#"{"patterns":[{"name":"acme-key","regex":"acme_[a-z0-9]{32}","test":"acme_0123456789abcdef0123456789abcdef"}]}"#;
        assert!(Redaction::on_start(&ctx(config)).is_ok());
        let out = Redaction::filter(
            &ctx(config),
            entry("key acme_a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6 here"),
        );
        assert_eq!(out.text, "key [REDACTED:acme-key] here");
        let e = Redaction::on_resume(&ctx(
            r#"{"patterns":[{"name":"acme-key","regex":"acme_(","test":"acme_"}]}"#,
        ))
        .unwrap_err();
        assert_eq!(e.field.as_deref(), Some("patterns.0.regex"));
    }

    #[test]
    #[should_panic(expected = "refusing to pass transcript entries through unmasked")]
    fn filter_traps_instead_of_passing_entries_with_a_bad_config() {
        Redaction::filter(
            &ctx(r#"{"literal":["typo-in-the-key"]}"#),
            entry("ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"),
        );
    }
}
