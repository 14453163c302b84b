//! Issue "An operator's first day": every `--help` of both binaries has text
//! for every command and every flag: walked over their clap definitions, so a
//! flag added without a word fails here, naming it.

use clap::CommandFactory;

/// `path: what` for each visible command or argument of `cmd` without help text.
fn undocumented(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
    let path = format!("{path} {}", cmd.get_name()).trim().to_string();
    if cmd.get_about().is_none() && cmd.get_long_about().is_none() {
        missing.push(format!("{path}: the command"));
    }
    for arg in cmd.get_arguments() {
        let id = arg.get_id().as_str();
        if arg.is_hide_set() || id == "help" || id == "version" {
            continue;
        }
        if arg.get_help().is_none() && arg.get_long_help().is_none() {
            let shown = match arg.get_long() {
                Some(long) => format!("--{long}"),
                None => format!("<{id}>"),
            };
            missing.push(format!("{path}: {shown}"));
        }
    }
    for sub in cmd.get_subcommands() {
        if !sub.is_hide_set() && sub.get_name() != "help" {
            undocumented(sub, &path, missing);
        }
    }
}

#[test]
fn every_command_and_flag_of_both_binaries_says_what_it_is() {
    let mut missing = Vec::new();
    for cmd in [
        blaise_control::cli::command(),
        blaise_runner::cli::Cli::command(),
    ] {
        cmd.clone().debug_assert();
        undocumented(&cmd, "", &mut missing);
    }
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
