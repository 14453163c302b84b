//! What a plug may put in an environment: the agent's (its contribution) and
//! a granted program's (`process.run`). A name must be a plain variable name,
//! and may not be one that makes a program load or run code it names — that
//! would turn "set a variable" into "run a program", which only an exec grant
//! gives. `docs/security.md` lists the names and why.
//!
//! The list covers, for every program a run starts: the dynamic loader (any
//! program), the shells (`sh -c` is how agents and git run commands), the
//! interpreters agents are written in (Node.js, Python, Ruby, Perl, Java,
//! Lua, PHP, .NET), the launchers they are started with (npx, uvx), the
//! build tools they run (make, cc, cargo, go), OpenSSL, and git, docker, ssh
//! and the helpers they start (pager, editor, askpass, credential helpers),
//! plus the variables through which all of these find their
//! configuration files (`HOME`, `XDG_CONFIG_HOME`), since a configuration
//! file can name a program to run.

/// Longest variable name a plug may set.
pub const MAX_NAME: usize = 128;
/// Longest value a plug may set (Linux refuses strings over 128 KiB to `exec`).
pub const MAX_VALUE: usize = 32 << 10;
/// Most bytes (names and values) one plug may add to an environment.
pub const MAX_TOTAL: usize = 256 << 10;

/// Exact names (compared without case) a plug may not set.
const DENIED: &[&str] = &[
    // Where programs are found.
    "PATH",
    // glibc: modules, tunables and files it loads by name.
    "GCONV_PATH",
    "GETCONF_DIR",
    "GLIBC_TUNABLES",
    "HOSTALIASES",
    "LOCPATH",
    "MALLOC_TRACE",
    "NIS_PATH",
    "NLSPATH",
    "RESOLV_HOST_CONF",
    // Shells: start-up files, options and traces that run code.
    "BASH_ENV",
    "ENV",
    "SHELLOPTS",
    "BASHOPTS",
    "PS4",
    "PROMPT_COMMAND",
    "IFS",
    "ZDOTDIR",
    "SHELL",
    // Interpreters: options and module paths.
    "NODE_OPTIONS",
    "NODE_PATH",
    "NODE_REPL_EXTERNAL_MODULE",
    "CLASSPATH",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "PHPRC",
    "PHP_INI_SCAN_DIR",
    "TCLLIBPATH",
    "GEM_HOME",
    "GEM_PATH",
    "BUNDLE_GEMFILE",
    // Programs that programs start.
    "EDITOR",
    "VISUAL",
    "PAGER",
    "MANPAGER",
    "BROWSER",
    "LESSOPEN",
    "LESSCLOSE",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "SUDO_EDITOR",
    "SYSTEMD_EDITOR",
    "SYSTEMD_PAGER",
    "SYSTEMD_PAGERSECURE",
    "LESSKEY",
    "LESSKEYIN",
    "GH_EDITOR",
    "GH_PAGER",
    "GH_BROWSER",
    // Build tools the agent runs: the compiler, linker and tools they name,
    // and flags that load compiler plugins (`-fplugin=`, `-C linker=`).
    "CC",
    "CXX",
    "CPP",
    "LD",
    "AR",
    "AS",
    "NM",
    "RANLIB",
    "STRIP",
    "OBJCOPY",
    "FC",
    "MAKE",
    "MAKEFLAGS",
    "MFLAGS",
    "GNUMAKEFLAGS",
    "CFLAGS",
    "CXXFLAGS",
    "CPPFLAGS",
    "LDFLAGS",
    "PKG_CONFIG",
    "RUSTC",
    "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER",
    "RUSTDOC",
    "RUSTFLAGS",
    "RUSTDOCFLAGS",
    "GOFLAGS",
    "GOROOT",
    "GOTOOLCHAIN",
    "GOENV",
    "GOPROXY",
    "CGO_CFLAGS",
    "CGO_LDFLAGS",
    // Credential helpers that are programs named in a config file.
    "KUBECONFIG",
    "AWS_CONFIG_FILE",
    "AWS_SHARED_CREDENTIALS_FILE",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES",
    "CLOUDSDK_CONFIG",
    "KRB5_CONFIG",
    // Desktop libraries' module paths.
    "GIO_EXTRA_MODULES",
    "GTK_MODULES",
    "GTK_PATH",
    "QT_PLUGIN_PATH",
    // Where configuration files (which can name programs) are found.
    "HOME",
    "XDG_CONFIG_HOME",
    "XDG_CONFIG_DIRS",
];

/// Name prefixes (compared without case) a plug may not set.
const DENIED_PREFIXES: &[&str] = &[
    // The dynamic loader: LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT… (and macOS's).
    "LD_",
    "DYLD_",
    // Interpreter options, start-up files and module paths.
    "PYTHON",
    "PERL",
    "RUBY",
    "LUA_",
    // Bash functions exported through the environment.
    "BASH_FUNC_",
    // git (GIT_SSH_COMMAND, GIT_CONFIG_*, GIT_EXEC_PATH, GIT_TEMPLATE_DIR…)
    // and docker (DOCKER_CONFIG, DOCKER_HOST…): see `GIT_ALLOWED`.
    "GIT_",
    "DOCKER_",
    // OpenSSL (in Node.js, Python, curl, git) loads providers and engines
    // named in `OPENSSL_CONF`, `OPENSSL_MODULES`, `OPENSSL_ENGINES`.
    "OPENSSL_",
    // The launchers agents are started with (`npx`, `uvx`, `yarn dlx`):
    // script shells, node options, registries, the interpreter they run.
    "NPM_CONFIG_",
    "YARN_",
    "UV_",
    "PIP_",
    "PIPX_",
    // .NET start-up hooks and profilers.
    "DOTNET_",
    "CORECLR_",
    "COMPLUS_",
    // Cargo's and rustup's config and toolchains (build scripts, linkers).
    "CARGO_",
    "RUSTUP_",
    // podman as docker, and its helpers.
    "CONTAINERS_",
];

/// `GIT_` names that only describe, never point at code or files.
const GIT_ALLOWED: &[&str] = &[
    "GIT_TERMINAL_PROMPT",
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_AUTHOR_DATE",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "GIT_COMMITTER_DATE",
];

/// Checks one variable; the error says what is wrong with it.
pub fn check(name: &str, value: &str) -> Result<(), String> {
    check_name(name)?;
    if value.len() > MAX_VALUE {
        return Err(format!(
            "the value of `{name}` is {} bytes, more than the {MAX_VALUE} a plug may set",
            value.len()
        ));
    }
    if value.contains('\0') {
        return Err(format!("the value of `{name}` contains a NUL byte"));
    }
    Ok(())
}

/// Checks a whole list of variables, with the total size.
pub fn check_all(vars: &[(String, String)]) -> Result<(), String> {
    let mut total = 0;
    for (name, value) in vars {
        check(name, value)?;
        total += name.len() + value.len();
    }
    if total > MAX_TOTAL {
        return Err(format!(
            "{total} bytes of environment, more than the {MAX_TOTAL} a plug may set"
        ));
    }
    Ok(())
}

fn check_name(name: &str) -> Result<(), String> {
    let plain = !name.is_empty()
        && name.len() <= MAX_NAME
        && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !plain {
        return Err(format!(
            "`{}` is not a variable name (use 1 to {MAX_NAME} letters, digits and `_`, not starting with a digit)",
            name.escape_debug()
        ));
    }
    let upper = name.to_ascii_uppercase();
    let denied = DENIED.contains(&upper.as_str())
        || (DENIED_PREFIXES.iter().any(|p| upper.starts_with(p))
            && !GIT_ALLOWED.contains(&upper.as_str()));
    if denied {
        return Err(format!(
            "`{name}` may not be set by a plug: it makes a program load or run code it names (docs/security.md lists these)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_loading_names_are_denied_in_any_case() {
        for name in [
            "LD_PRELOAD",
            "ld_preload",
            "LD_LIBRARY_PATH",
            "PATH",
            "Path",
            "BASH_ENV",
            "NODE_OPTIONS",
            "PYTHONPATH",
            "PYTHONSTARTUP",
            "PERL5OPT",
            "RUBYOPT",
            "GIT_SSH_COMMAND",
            "GIT_CONFIG_COUNT",
            "GIT_EXEC_PATH",
            "DOCKER_CONFIG",
            "GLIBC_TUNABLES",
            "HOME",
            "JAVA_TOOL_OPTIONS",
            "OPENSSL_CONF",
            "openssl_modules",
            "npm_config_script_shell",
            "NPM_CONFIG_NODE_OPTIONS",
            "UV_PYTHON",
            "PIP_INDEX_URL",
            "DOTNET_STARTUP_HOOKS",
            "CORECLR_PROFILER_PATH",
            "KUBECONFIG",
            "AWS_CONFIG_FILE",
            "RUSTC_WRAPPER",
            "CARGO_HOME",
            "CC",
            "CFLAGS",
            "MAKEFLAGS",
            "GOFLAGS",
            "SUDO_EDITOR",
            "GIO_EXTRA_MODULES",
        ] {
            assert!(check(name, "x").is_err(), "{name} must be denied");
        }
    }

    #[test]
    fn plain_names_pass_and_odd_ones_do_not() {
        for name in ["GREETING", "GIT_AUTHOR_NAME", "OPENAI_API_KEY", "_X1"] {
            assert_eq!(check(name, "v"), Ok(()), "{name}");
        }
        for name in ["", "1X", "A=B", "A B", "A\0", "BASH_FUNC_ls%%", "É"] {
            assert!(check(name, "v").is_err(), "{name:?} must be refused");
        }
        assert!(check("A", "a\0b").is_err());
        assert!(check("A", &"x".repeat(MAX_VALUE + 1)).is_err());
        let many: Vec<(String, String)> = (0..20)
            .map(|i| (format!("V{i}"), "x".repeat(MAX_VALUE - 10)))
            .collect();
        assert!(check_all(&many).is_err(), "the total is capped");
    }
}
