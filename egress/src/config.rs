//! The egress policy as a plug's config has it (`with: network: {allow:
//! [...]}`), shared by the plugs that start `blaise-egress`.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::policy::{BadEntry, Policy};

/// An egress policy.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Egress {
    /// destinations: `host[:port]`, `*.domain[:port]`, an IP address or a
    /// CIDR range; without a port, 443 and 80
    #[schemars(inner(regex(
        pattern = r"^((\*\.)?[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?(/[0-9]{1,3})?(:[0-9]{1,5})?|\[[0-9A-Fa-f:.]+(/[0-9]{1,3})?\](:[0-9]{1,5})?|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(/[0-9]{1,3})?)$"
    )))]
    pub allow: Vec<String>,
}

impl Egress {
    /// The first entry that is not one: its index and what is wrong.
    pub fn check(&self) -> Result<(), (usize, BadEntry)> {
        for (i, entry) in self.allow.iter().enumerate() {
            Policy::parse(&[entry]).map_err(|bad| (i, bad))?;
        }
        Ok(())
    }

    /// `blaise-egress --allow E… [extra…] --`: the words before the rest of
    /// the agent's command line.
    pub fn prefix(&self, extra: &[String]) -> Vec<String> {
        let mut words = vec!["blaise-egress".to_owned()];
        for entry in &self.allow {
            words.extend(["--allow".to_owned(), entry.clone()]);
        }
        words.extend(extra.iter().cloned());
        words.push("--".to_owned());
        words
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_bad_entry_is_named_by_its_index() {
        let e = Egress {
            allow: vec!["github.com".into(), "x.example:99999".into()],
        };
        let (i, bad) = e.check().unwrap_err();
        assert_eq!(i, 1);
        assert!(bad.to_string().contains("not a port"), "{bad}");
        assert_eq!(
            e.prefix(&["--port".into(), "3129".into()]),
            [
                "blaise-egress",
                "--allow",
                "github.com",
                "--allow",
                "x.example:99999",
                "--port",
                "3129",
                "--"
            ]
        );
    }
}
