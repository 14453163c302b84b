//! Every `--help`: each visible command and flag has text.

/// `path: what` for each visible command or argument of `cmd` (and of its
/// subcommands) without help text.
pub fn undocumented(cmd: &clap::Command) -> Vec<String> {
    let mut missing = Vec::new();
    walk(cmd, "", &mut missing);
    missing
}

fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
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
            walk(sub, &path, missing);
        }
    }
}
