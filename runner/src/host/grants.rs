//! Two-key capability grants: the plug asks (`describe().needs`), the operator
//! grants (`allow:` in `blaise.yml`), and the plug gets the intersection.
//!
//! The effective set is computed once per plug when `blaise.yml` is loaded;
//! each host capability only ever sees its own slice of it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::bindings::Needs;

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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum SecretSource {
    /// An environment variable of the runner.
    Env(String),
    /// A file (its content, without a trailing newline).
    File(PathBuf),
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

/// Programs a plug may run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct ExecGrant(pub Vec<String>);

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
    report.effective.exec.0 = intersect(&needs.exec, &allow.exec, "exec", &mut report);
    report.effective.http.0 = intersect(&needs.http, &allow.http, "http", &mut report);
    let granted: Vec<String> = allow.secrets.keys().cloned().collect();
    for name in intersect(&needs.secrets, &granted, "secret", &mut report) {
        let source = allow.secrets[&name].clone();
        report.effective.secrets.0.insert(name, source);
    }
    report.effective.secrets_declined = needs
        .secrets
        .iter()
        .filter(|n| !granted.iter().any(|g| g.eq_ignore_ascii_case(n)))
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

/// What is both asked and granted; the rest goes into the report.
fn intersect(
    asked: &[String],
    granted: &[String],
    kind: &str,
    report: &mut GrantReport,
) -> Vec<String> {
    let mut both = Vec::new();
    for item in asked {
        if let Some(g) = granted.iter().find(|g| g.eq_ignore_ascii_case(item)) {
            // Secrets are looked up by the operator's spelling.
            both.push(if kind == "secret" {
                g.clone()
            } else {
                item.clone()
            });
        } else {
            report.not_granted.push(format!("{kind}: {item}"));
        }
    }
    for item in granted {
        if !asked.iter().any(|a| a.eq_ignore_ascii_case(item)) {
            report.not_asked.push(format!("{kind}: {item}"));
        }
    }
    both
}

impl ExecGrant {
    /// Whether `program` (a plug's `argv[0]`) is granted. A bare name matches a
    /// granted name; a path only matches the same granted absolute path.
    pub fn allows(&self, program: &str) -> bool {
        !program.is_empty() && self.0.iter().any(|g| g == program)
    }
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
        assert_eq!(r.effective.exec.0, vec!["git"]);
        assert!(r.effective.http.0.is_empty());
        assert_eq!(
            r.not_granted,
            vec!["exec: sh", "http: api.github.com", "storage"]
        );
        assert_eq!(r.not_asked, vec!["exec: docker", "secret: other"]);
    }

    #[test]
    fn exec_matches_exactly() {
        let g = ExecGrant(vec!["git".into(), "/usr/bin/docker".into()]);
        assert!(g.allows("git"));
        assert!(g.allows("/usr/bin/docker"));
        assert!(!g.allows("/usr/bin/git"), "a path is not the granted name");
        assert!(!g.allows("docker"));
        assert!(!g.allows(""));
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
