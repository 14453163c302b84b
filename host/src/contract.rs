//! The version of the plug contract (`wit/`) this runner implements, and which
//! plug versions it accepts.

use std::fmt;

/// The WIT package this runner hosts.
pub const PACKAGE: &str = "blaise:plug";

/// The contract version this runner implements (the `package` line of `wit/plug.wit`).
pub const VERSION: Version = Version {
    major: 0,
    minor: 2,
    patch: 0,
};

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

/// The range of contract versions this runner accepts, for messages.
pub fn supported_range() -> String {
    if VERSION.major == 0 {
        format!("{PACKAGE}@0.{}.0 to {PACKAGE}@{}", VERSION.minor, VERSION)
    } else {
        format!("{PACKAGE}@{}.0.0 to {PACKAGE}@{}", VERSION.major, VERSION)
    }
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
    fn reads_version_from_item_names() {
        assert_eq!(version_of_item("blaise:plug/hooks@0.1.0"), Some(v("0.1.0")));
        assert_eq!(version_of_item("wasi:cli/environment@0.2.6"), None);
        assert_eq!(version_of_item("blaise:plug/hooks"), None);
        assert_eq!(Version::parse("1.2"), None);
        assert_eq!(Version::parse("1.2.3.4"), None);
    }
}
