//! The versions of the plug contract (`wit/`) this runner implements and
//! accepts, and how a hook call reaches a plug of each.
//!
//! How the contract evolves: `wit/plug.wit` is the current version; each
//! older version still loaded is frozen beside it (`wit/0.2/plug.wit`) with
//! an adapter here (`v0_2`) that links the older imports to the same host
//! capabilities and converts hook calls both ways. A field a newer version
//! added is not passed to an older plug and is read from it as its "as
//! before" value (false, none, empty); [`exports`] is the one place that
//! picks the version's bindings.

pub mod exports;
pub mod v0_2;

use std::fmt;

/// The WIT package this runner hosts.
pub const PACKAGE: &str = "blaise:plug";

/// The contract version this runner implements (the `package` line of `wit/plug.wit`).
pub const VERSION: Version = Version {
    major: 0,
    minor: 3,
    patch: 2,
};

/// Older contract versions this runner still loads, through an adapter each,
/// newest first.
pub const OLDER: &[Version] = &[v0_2::VERSION];

/// Whether this runner loads a plug built for contract `built_for`: the
/// current contract's line, or one of the older versions it adapts.
pub fn accepts(built_for: Version) -> bool {
    built_for.runs_on(VERSION) || OLDER.iter().any(|&older| built_for.runs_on(older))
}

/// Whether a plug built for `built_for` runs through an adapter (an older
/// contract): it is then not told of what newer versions added.
pub fn adapted(built_for: Version) -> bool {
    !built_for.runs_on(VERSION) && accepts(built_for)
}

/// A semver version (no pre-release or build metadata: the contract never uses them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
}

impl Version {
    pub fn parse(text: &str) -> Option<Version> {
        let mut parts = text.split('.').map(|p| p.parse::<u64>().ok());
        let v = Version {
            major: parts.next()??,
            minor: parts.next()??,
            patch: parts.next()??,
        };
        parts.next().is_none().then_some(v)
    }

    /// Whether a plug built for `self` can run on a runner implementing `host`:
    /// same major (same minor while major is 0), and not newer than the host.
    pub fn runs_on(self, host: Version) -> bool {
        let same_line = if host.major == 0 {
            self.major == 0 && self.minor == host.minor
        } else {
            self.major == host.major
        };
        same_line && self <= host
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// The contract version named by an import or export such as
/// `blaise:plug/hooks@0.1.0`, if it belongs to our package.
pub fn version_of_item(name: &str) -> Option<Version> {
    let rest = name.strip_prefix(PACKAGE)?.strip_prefix('/')?;
    let (_, version) = rest.split_once('@')?;
    Version::parse(version)
}

/// The contract versions this runner accepts, for messages:
/// `blaise:plug@0.2.0 to blaise:plug@0.3.2`.
pub fn supported_range() -> String {
    let oldest = OLDER.last().copied().unwrap_or(VERSION);
    let first = if oldest.major == 0 {
        Version { patch: 0, ..oldest }
    } else {
        Version {
            minor: 0,
            patch: 0,
            ..oldest
        }
    };
    format!("{PACKAGE}@{first} to {PACKAGE}@{VERSION}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap()
    }

    #[test]
    fn zero_major_needs_same_minor() {
        assert!(v("0.1.0").runs_on(v("0.1.3")));
        assert!(!v("0.2.0").runs_on(v("0.1.3")));
        assert!(!v("0.0.9").runs_on(v("0.1.0")));
        assert!(!v("0.1.4").runs_on(v("0.1.3")), "newer patch than the host");
    }

    #[test]
    fn nonzero_major_accepts_older_minors() {
        assert!(v("1.0.0").runs_on(v("1.4.0")));
        assert!(!v("1.5.0").runs_on(v("1.4.0")));
        assert!(!v("2.0.0").runs_on(v("1.4.0")));
    }

    #[test]
    fn accepts_the_current_line_and_the_adapted_versions_only() {
        assert!(accepts(VERSION));
        assert!(
            accepts(v("0.3.0")) && !adapted(v("0.3.0")),
            "0.3.1 added only an import"
        );
        assert!(accepts(v("0.3.1")) && !adapted(v("0.3.1")));
        assert!(
            accepts(v("0.3.2")) && !adapted(v("0.3.2")),
            "0.3.2 added only an optional export"
        );
        assert!(!accepts(v("0.3.3")), "newer than the runner");
        assert!(accepts(v("0.2.0")) && adapted(v("0.2.0")));
        assert!(!accepts(v("0.1.0")), "no adapter for 0.1");
        assert!(!accepts(v("0.4.0")), "newer than the runner");
        assert!(!accepts(v("0.2.1")), "newer than the frozen 0.2.0");
        assert_eq!(supported_range(), "blaise:plug@0.2.0 to blaise:plug@0.3.2");
    }

    #[test]
    fn reads_version_from_item_names() {
        assert_eq!(version_of_item("blaise:plug/hooks@0.1.0"), Some(v("0.1.0")));
        assert_eq!(version_of_item("wasi:cli/environment@0.2.6"), None);
        assert_eq!(version_of_item("blaise:plug/hooks"), None);
        assert_eq!(Version::parse("1.2"), None);
        assert_eq!(Version::parse("1.2.3.4"), None);
    }
}
