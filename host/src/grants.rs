//! Two-key capability grants: the plug asks (`describe().needs`), the operator
//! grants (`allow:` in `blaise.yml`), and the plug gets the intersection.
//!
//! The effective set is computed once per plug when `blaise.yml` is loaded;
//! each host capability only ever sees its own slice of it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::bindings::Needs;

/// What the operator grants a plug in `blaise.yml`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Allow {
    /// Programs the plug may run (names or absolute paths).
    #[serde(default)]
    pub exec: Vec<String>,
    /// Hosts the plug may reach over HTTP: `host`, `host:port` or `*.domain`.
    #[serde(default)]
    pub http: Vec<String>,
    /// Secrets the plug may read, by the name the plug asks for, with where
    /// the runner reads each value (`{env: NAME}` or `{file: PATH}`).
    #[serde(default)]
    pub secrets: BTreeMap<String, SecretSource>,
    /// Whether the plug may have a storage directory of its own.
    #[serde(default)]
    pub storage: bool,
}

/// Where the runner reads a secret's value when a plug asks for it. Values
/// are never written into `blaise.yml`.
///
/// Written as a map with one key, `{ env: NAME }` or `{ file: PATH }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", try_from = "serde_yaml::Value")]
pub enum SecretSource {
    /// An environment variable of the runner.
    Env(String),
    /// A file (its content, without a trailing newline).
    File(PathBuf),
}

impl SecretSource {
    /// The value, read now: a variable of the runner's environment, or a
    /// file's content without its trailing newline. Never empty.
    pub fn read(&self) -> Result<String, String> {
        match self {
            SecretSource::Env(var) => match std::env::var(var) {
                Ok(value) if !value.is_empty() => Ok(value),
                _ => Err(format!(
                    "the runner's environment variable `{var}` is not set"
                )),
            },
            SecretSource::File(path) => match std::fs::read_to_string(path) {
                Ok(text) if !text.trim_end_matches(['\n', '\r']).is_empty() => {
                    Ok(text.trim_end_matches(['\n', '\r']).to_owned())
                }
                Ok(_) => Err(format!("{} is empty", path.display())),
                Err(e) => Err(format!("reading {}: {e}", path.display())),
            },
        }
    }
}

/// The map: exactly one of the keys.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SourceMap {
    env: Option<String>,
    file: Option<PathBuf>,
}

/// A secret's source as written (any YAML or JSON): the map, or something
/// refused with the map it should have been.
impl TryFrom<serde_yaml::Value> for SecretSource {
    type Error = String;

    fn try_from(written: serde_yaml::Value) -> Result<Self, String> {
        let map: SourceMap = match written {
            serde_yaml::Value::Mapping(_) => {
                serde_yaml::from_value(written).map_err(|e| {
                    // serde's "invalid type" quotes the value: it may be a secret.
                    let text = e.to_string();
                    if text.starts_with("invalid type") {
                        "a secret's `env` is a variable's name and its `file` an absolute path (strings)"
                            .to_string()
                    } else {
                        text
                    }
                })?
            }
            // YAML's tag syntax, `!env VAR`, once parsed here: say how it is written now.
            // Only the two tags that name a place are echoed (a variable's
            // name, a path); any other tag's value may be the secret itself.
            serde_yaml::Value::Tagged(tagged) if tagged.tag == "env" || tagged.tag == "file" => {
                let key = tagged.tag.to_string().trim_start_matches('!').to_owned();
                let value = tagged.value.as_str().unwrap_or("…");
                return Err(format!(
                    "a secret's source is a map: write `{{ {key}: {value} }}`, not `!{key} {value}`"
                ));
            }
            _ => {
                return Err(
                    "a secret comes from one place: `{ env: VARIABLE }` or `{ file: /absolute/path }`"
                        .into(),
                );
            }
        };
        match (map.env, map.file) {
            (Some(var), None) if !var.is_empty() => Ok(SecretSource::Env(var)),
            (None, Some(path)) if path.is_absolute() => Ok(SecretSource::File(path)),
            (None, Some(path)) => Err(format!(
                "the secret's file `{}` must be an absolute path",
                path.display()
            )),
            _ => Err(
                "a secret comes from one place: `{ env: VARIABLE }` or `{ file: /absolute/path }`"
                    .into(),
            ),
        }
    }
}

/// The effective grants of one plug.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Grants {
    pub exec: ExecGrant,
    pub http: HttpGrant,
    pub secrets: SecretGrant,
    /// Secrets the plug asked for and the operator did not grant: asking for
    /// them is expected (a plug may work without), unlike asking for others.
    pub secrets_declined: Vec<String>,
    /// The plug's storage directory is granted.
    pub storage: bool,
}

/// Secrets a plug may read, with where their values come from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct SecretGrant(pub BTreeMap<String, SecretSource>);

/// Programs a plug may run: each name as the operator wrote it, and where it
/// resolved on the runner's own `PATH` when the grant was computed (never on
/// a `PATH` a plug could set).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct ExecGrant {
    pub names: Vec<String>,
    #[serde(skip)]
    pub paths: BTreeMap<String, PathBuf>,
}

/// Hosts a plug may reach.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct HttpGrant(pub Vec<String>);

/// The outcome of putting a plug's needs next to the operator's grants.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct GrantReport {
    pub effective: Grants,
    /// Asked for by the plug but not granted: calls to these will be denied.
    pub not_granted: Vec<String>,
    /// Granted by the operator but never asked for: they have no effect.
    pub not_asked: Vec<String>,
}

pub fn effective(needs: &Needs, allow: &Allow) -> GrantReport {
    let mut report = GrantReport::default();
    let exec = intersect(&needs.exec, &allow.exec, "exec", &mut report, str::eq);
    report.effective.exec = ExecGrant::resolve(exec);
    // Host names are not case-sensitive; everything else is compared exactly.
    report.effective.http.0 = intersect(
        &needs.http,
        &allow.http,
        "http",
        &mut report,
        str::eq_ignore_ascii_case,
    );
    let granted: Vec<String> = allow.secrets.keys().cloned().collect();
    for name in intersect(&needs.secrets, &granted, "secret", &mut report, str::eq) {
        let source = allow.secrets[&name].clone();
        report.effective.secrets.0.insert(name, source);
    }
    report.effective.secrets_declined = needs
        .secrets
        .iter()
        .filter(|n| !granted.contains(n))
        .cloned()
        .collect();
    match (needs.storage, allow.storage) {
        (true, true) => report.effective.storage = true,
        (true, false) => report.not_granted.push("storage".into()),
        (false, true) => report.not_asked.push("storage".into()),
        (false, false) => {}
    }
    report
}

/// What is both asked and granted, in the operator's spelling; the rest goes
/// into the report.
fn intersect(
    asked: &[String],
    granted: &[String],
    kind: &str,
    report: &mut GrantReport,
    same: fn(&str, &str) -> bool,
) -> Vec<String> {
    let mut both = Vec::new();
    for item in asked {
        match granted.iter().find(|g| same(g, item)) {
            Some(g) if !both.contains(g) => both.push(g.clone()),
            Some(_) => {}
            None => report.not_granted.push(format!("{kind}: {item}")),
        }
    }
    for item in granted {
        if !asked.iter().any(|a| same(a, item)) {
            report.not_asked.push(format!("{kind}: {item}"));
        }
    }
    both
}

impl ExecGrant {
    /// The grant of `names`, each resolved on the runner's own `PATH`.
    pub fn resolve(names: Vec<String>) -> ExecGrant {
        let paths = names
            .iter()
            .filter_map(|name| Some((name.clone(), find_program(name)?)))
            .collect();
        ExecGrant { names, paths }
    }

    /// Whether `program` (a plug's `argv[0]`) is granted: exactly a granted
    /// name, or exactly a granted absolute path.
    pub fn allows(&self, program: &str) -> bool {
        !program.is_empty() && self.names.iter().any(|g| g == program)
    }

    /// The absolute path to run for a granted `program`; `Err` says why not.
    pub fn program(&self, program: &str) -> Result<&Path, ExecRefusal> {
        if !self.allows(program) {
            return Err(ExecRefusal::NotGranted);
        }
        self.paths
            .get(program)
            .map(PathBuf::as_path)
            .ok_or(ExecRefusal::NotFound)
    }
}

/// Why a program cannot run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecRefusal {
    /// Not in the plug's effective exec grant.
    NotGranted,
    /// Granted, but not an executable file on the runner's `PATH` (or at the
    /// granted absolute path).
    NotFound,
}

/// Programs shipped with the runner: found beside its own executable first
/// (where `cargo install` and a release archive put them), then on `PATH`.
pub const SHIPPED: [&str; 1] = ["blaise-egress"];

/// Where `name` is: an absolute path as is, a bare name on the runner's own
/// `PATH` (absolute entries only: a relative entry would depend on the
/// working directory a plug chooses), a [`SHIPPED`] program beside the
/// runner first. Anything else is never found.
pub fn find_program(name: &str) -> Option<PathBuf> {
    let executable = |path: &Path| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if name.starts_with('/') {
        let path = PathBuf::from(name);
        return executable(&path).then_some(path);
    }
    if name.is_empty() || name.contains('/') || name == "." || name == ".." {
        return None;
    }
    if SHIPPED.contains(&name)
        && let Some(beside) = std::env::current_exe()
            .ok()
            .and_then(|exe| Some(exe.parent()?.join(name)))
            .filter(|p| executable(p))
    {
        return Some(beside);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|candidate| executable(candidate))
}

impl HttpGrant {
    /// Whether a request to `host:port` is granted.
    pub fn allows(&self, host: &str, port: u16) -> bool {
        let host = host.to_ascii_lowercase();
        self.0.iter().any(|pattern| {
            let pattern = pattern.to_ascii_lowercase();
            let (pat_host, pat_port) = match pattern.rsplit_once(':') {
                Some((h, p)) if p.chars().all(|c| c.is_ascii_digit()) => (h, p.parse().ok()),
                _ => (pattern.as_str(), None),
            };
            if pat_port.is_some_and(|p: u16| p != port) {
                return false;
            }
            match pat_host.strip_prefix("*.") {
                Some(domain) => host
                    .strip_suffix(domain)
                    .is_some_and(|rest| rest.ends_with('.') && rest.len() > 1),
                None => host == pat_host,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn needs(exec: &[&str], http: &[&str]) -> Needs {
        Needs {
            exec: exec.iter().map(|s| s.to_string()).collect(),
            http: http.iter().map(|s| s.to_string()).collect(),
            secrets: vec!["git-token".into()],
            storage: true,
        }
    }

    #[test]
    fn effective_is_the_intersection() {
        let allow = Allow {
            exec: vec!["git".into(), "docker".into()],
            secrets: [
                ("git-token".into(), SecretSource::Env("TOKEN".into())),
                ("other".into(), SecretSource::Env("OTHER".into())),
            ]
            .into(),
            ..Allow::default()
        };
        let r = effective(&needs(&["git", "sh"], &["api.github.com"]), &allow);
        assert_eq!(
            r.effective.secrets.0.get("git-token"),
            Some(&SecretSource::Env("TOKEN".into()))
        );
        assert!(!r.effective.storage, "storage asked but not granted");
        assert!(r.effective.secrets_declined.is_empty());
        assert_eq!(r.effective.exec.names, vec!["git"]);
        assert!(r.effective.http.0.is_empty());
        assert_eq!(
            r.not_granted,
            vec!["exec: sh", "http: api.github.com", "storage"]
        );
        assert_eq!(r.not_asked, vec!["exec: docker", "secret: other"]);
    }

    #[test]
    fn exec_matches_exactly() {
        let g = ExecGrant::resolve(vec!["sh".into(), "/bin/echo".into()]);
        assert!(g.allows("sh"));
        assert!(g.allows("/bin/echo"));
        assert!(!g.allows("/bin/sh"), "a path is not the granted name");
        assert!(!g.allows("echo"));
        assert!(!g.allows("SH"), "names are compared exactly");
        assert!(!g.allows(""));
        assert!(g.program("sh").unwrap().is_absolute(), "resolved on PATH");
        assert_eq!(g.program("/bin/echo").unwrap(), Path::new("/bin/echo"));
        assert_eq!(g.program("cat"), Err(ExecRefusal::NotGranted));
    }

    #[test]
    fn the_operators_spelling_is_kept_and_compared_exactly() {
        let allow = Allow {
            exec: vec!["git".into()],
            http: vec!["API.example.com".into()],
            secrets: [("token".into(), SecretSource::Env("T".into()))].into(),
            ..Allow::default()
        };
        let mut asked = needs(&["GIT"], &["api.example.com"]);
        asked.secrets = vec!["TOKEN".into()];
        let r = effective(&asked, &allow);
        assert!(r.effective.exec.names.is_empty(), "`GIT` is not `git`");
        assert_eq!(r.effective.http.0, vec!["API.example.com"]);
        assert!(r.effective.secrets.0.is_empty(), "`TOKEN` is not `token`");
        assert_eq!(r.not_granted, vec!["exec: GIT", "secret: TOKEN", "storage"]);
    }

    #[test]
    fn programs_are_never_found_relative_to_a_directory() {
        assert_eq!(find_program("./sh"), None);
        assert_eq!(find_program("bin/sh"), None);
        assert_eq!(find_program(".."), None);
        assert_eq!(find_program("no-such-program-here"), None);
        assert!(find_program("sh").is_some_and(|p| p.is_absolute()));
    }

    #[test]
    fn a_secrets_source_is_written_as_a_map() {
        let allow: Allow =
            serde_yaml::from_str("secrets: { a: { env: TOKEN }, b: { file: /run/secrets/b } }")
                .unwrap();
        assert_eq!(allow.secrets["a"], SecretSource::Env("TOKEN".into()));
        assert_eq!(
            allow.secrets["b"],
            SecretSource::File("/run/secrets/b".into())
        );
        for bad in [
            "secrets: { a: { env: X, file: /y } }",
            "secrets: { a: {} }",
            "secrets: { a: { file: relative } }",
            "secrets: { a: { value: hunter2 } }",
            "secrets: { a: TOKEN }",
            "secrets: { a: !value hunter2 }",
            "secrets: { a: !secret hunter2 }",
            "secrets: { a: { env: [hunter2] } }",
        ] {
            let err = serde_yaml::from_str::<Allow>(bad).unwrap_err().to_string();
            assert!(
                err.contains("env") || err.contains("absolute"),
                "{bad}: {err}"
            );
            assert!(!err.contains("hunter2"), "{err}");
        }
        // The tag syntax of an earlier version is refused with the map to write.
        let err = serde_yaml::from_str::<Allow>("secrets: { a: !env TOKEN }")
            .unwrap_err()
            .to_string();
        assert!(err.contains("write `{ env: TOKEN }`"), "{err}");
    }

    #[test]
    fn http_patterns() {
        let g = HttpGrant(vec![
            "api.github.com".into(),
            "127.0.0.1:8080".into(),
            "*.example.com".into(),
        ]);
        assert!(g.allows("API.github.com", 443));
        assert!(g.allows("127.0.0.1", 8080));
        assert!(!g.allows("127.0.0.1", 8081));
        assert!(g.allows("a.b.example.com", 443));
        assert!(!g.allows("example.com", 443));
        assert!(!g.allows("badexample.com", 443));
        assert!(!g.allows("github.com", 443));
    }
}
