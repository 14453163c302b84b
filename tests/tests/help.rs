//! Issue "An operator's first day": every `--help` of `blaise` has text for
//! every command and every flag: walked over its clap definition, so a flag
//! added without a word fails here, naming it. (`blaise-runner`'s: a test of
//! `blaise-runner-cli`, `runner-cli/src/cli.rs`.)

use blaise_test_support::help::undocumented;

#[test]
fn every_command_and_flag_of_blaise_says_what_it_is() {
    let cmd = blaise_control::cli::command();
    cmd.clone().debug_assert();
    let missing = undocumented(&cmd);
    assert!(
        missing.is_empty(),
        "without help text:\n  {}",
        missing.join("\n  ")
    );
}

#[test]
fn the_servers_help_lists_only_what_it_takes() {
    let mut cmd = blaise_control::cli::command();
    // As parsing does: global flags reach the subcommands.
    cmd.build();
    for name in ["serve", "backup"] {
        let help = cmd
            .find_subcommand_mut(name)
            .unwrap()
            .render_long_help()
            .to_string();
        assert!(
            !help.contains("--url"),
            "the client's --url in `{name} --help`:\n{help}"
        );
    }
    let help = cmd
        .find_subcommand_mut("session")
        .unwrap()
        .render_long_help()
        .to_string();
    assert!(help.contains("--url"), "{help}");
}
