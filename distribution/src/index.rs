//! The index: the marketplace's catalogue, one static JSON document that any
//! web server or git host can serve (schema in `docs/using-plugs.md`).
//!
//! ```json
//! { "schema": 1,
//!   "plugs": [ { "name": "probe", "description": "…", "publisher_key": "-----BEGIN PUBLIC KEY-----…",
//!     "versions": [ { "version": "0.1.0", "reference": "registry/plugs/probe:0.1.0",
//!       "digest": "sha256:…", "contract": "0.1.0", "contract_range": ">=0.1.0, <0.2.0",
//!       "needs": { "exec": ["git"], "http": [] } } ] } ] }
//! ```

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::download::shown;
use crate::error::{Context as _, Result, bail, err};
use blaise_host::contract::{self, Version};
use blaise_host::units::format_size;

/// What this module's failures are, unless one says otherwise.
const KIND: crate::error::Kind = crate::error::Kind::BadInput;

pub const SCHEMA: u32 = 1;

/// An index is read whole: at most this many bytes, …
pub const MAX_BYTES: u64 = 16 << 20;
/// … plugs, …
pub const MAX_PLUGS: usize = 10_000;
/// … versions of one plug, and versions in all.
pub const MAX_VERSIONS: usize = 1_000;
pub const MAX_ALL_VERSIONS: usize = 50_000;
/// The longest text kept in one field (a description, a key, a schema's
/// text is not counted: it is JSON, checked where it is used).
const MAX_FIELD: usize = 8 << 10;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Index {
    pub schema: u32,
    #[serde(default, deserialize_with = "bounded_plugs")]
    pub plugs: Vec<IndexPlug>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct IndexPlug {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// The PEM public key the publisher signs this plug's versions with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publisher_key: Option<String>,
    #[serde(default, deserialize_with = "bounded_versions")]
    pub versions: Vec<IndexVersion>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct IndexVersion {
    pub version: String,
    /// Where the artifact is: an OCI reference (`registry/name:tag`).
    pub reference: String,
    /// The artifact's manifest digest.
    pub digest: String,
    /// The plug contract version the component was built for.
    pub contract: String,
    /// The contract versions a runner may implement to run it, for people.
    #[serde(default)]
    pub contract_range: String,
    /// The grants the version asks for.
    #[serde(default)]
    pub needs: Needs,
    /// The JSON Schema of its `with:` config.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_schema: Option<serde_json::Value>,
}

/// What a plug version asks for (its `describe().needs`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Needs {
    #[serde(default)]
    pub exec: Vec<String>,
    #[serde(default)]
    pub http: Vec<String>,
    /// Names of the secrets it reads.
    #[serde(default)]
    pub secrets: Vec<String>,
    /// Whether it wants a storage directory of its own.
    #[serde(default)]
    pub storage: bool,
}

impl IndexVersion {
    /// The properties its `with:` config must have.
    pub fn required_config(&self) -> Vec<String> {
        self.config_schema
            .as_ref()
            .and_then(|s| s.get("required"))
            .and_then(|r| r.as_array())
            .map(|r| {
                r.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }
}

impl IndexVersion {
    /// Whether this runner can run the version (per its `contract`).
    pub fn compatible(&self) -> Result<(), String> {
        let Some(built_for) = Version::parse(&self.contract) else {
            return Err(format!("its contract `{}` is not a version", self.contract));
        };
        if contract::accepts(built_for) {
            Ok(())
        } else {
            Err(format!(
                "it was built for plug contract {}@{built_for}, but this runner implements {}@{} (it accepts {})",
                contract::PACKAGE,
                contract::PACKAGE,
                contract::VERSION,
                contract::supported_range()
            ))
        }
    }

    fn semver(&self) -> Option<Version> {
        Version::parse(self.version.split(['-', '+']).next().unwrap_or(""))
    }
}

/// The range of contract versions a plug built for `built_for` runs on, as
/// this runner knows it: up to its own contract's line when it loads the
/// plug (an older contract through its adapter), else the plug's own line.
pub fn contract_range(built_for: Version) -> String {
    let newest = if contract::accepts(built_for) {
        contract::VERSION
    } else {
        built_for
    };
    let next = if newest.major == 0 {
        format!("0.{}.0", newest.minor + 1)
    } else {
        format!("{}.0.0", newest.major + 1)
    };
    format!(">={built_for}, <{next}")
}

impl Index {
    pub fn empty() -> Index {
        Index {
            schema: SCHEMA,
            plugs: Vec::new(),
        }
    }

    /// Reads an index; nothing in it is trusted: its counts are capped
    /// while it is read, and every text that reaches a terminal is checked.
    pub fn parse(text: &str, from: &str) -> Result<Index> {
        if text.len() as u64 > MAX_BYTES {
            bail!(
                "{from}: the index is {}, more than the {} an index may be",
                format_size(text.len() as u64),
                format_size(MAX_BYTES)
            );
        }
        let index: Index = serde_json::from_str(text)
            .map_err(|e| err!("{from}: not a plug index ({})", shown(&e.to_string())))?;
        if index.schema != SCHEMA {
            bail!(
                "{from}: index schema {} is not {SCHEMA}, the one this runner reads",
                index.schema
            );
        }
        let all: usize = index.plugs.iter().map(|p| p.versions.len()).sum();
        if all > MAX_ALL_VERSIONS {
            bail!(
                "{from}: the index lists {all} versions, more than the {MAX_ALL_VERSIONS} this runner reads"
            );
        }
        index.check_texts().map_err(|e| err!("{from}: {e}"))?;
        Ok(index)
    }

    /// Names, versions, references and descriptions are printed: no control
    /// characters (terminal escapes), nothing longer than [`MAX_FIELD`].
    fn check_texts(&self) -> Result<()> {
        for (i, plug) in self.plugs.iter().enumerate() {
            let at = |field: &str| format!("plugs[{i}].{field}");
            check_text(&at("name"), &plug.name)?;
            check_text(&at("description"), &plug.description)?;
            if let Some(key) = &plug.publisher_key {
                check_text(&at("publisher_key"), &key.replace('\n', ""))?;
            }
            for (j, v) in plug.versions.iter().enumerate() {
                let at = |field: &str| format!("plugs[{i}].versions[{j}].{field}");
                for (field, text) in [
                    ("version", &v.version),
                    ("reference", &v.reference),
                    ("digest", &v.digest),
                    ("contract", &v.contract),
                    ("contract_range", &v.contract_range),
                ] {
                    check_text(&at(field), text)?;
                }
                for (kind, items) in [
                    ("exec", &v.needs.exec),
                    ("http", &v.needs.http),
                    ("secrets", &v.needs.secrets),
                ] {
                    if items.len() > 256 {
                        bail!("{}: more than 256 entries", at(&format!("needs.{kind}")));
                    }
                    for item in items {
                        check_text(&at(&format!("needs.{kind}")), item)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Reads an index from a file or an http(s) URL.
    pub async fn load(location: &str) -> Result<Index> {
        let bytes = if location.starts_with("https://") || location.starts_with("http://") {
            let fetcher = super::download::Fetcher::new()?;
            super::fetch::download_document(&fetcher, location, MAX_BYTES).await?
        } else {
            read_capped(Path::new(location))
                .with_context(|| format!("reading the index {location}"))?
        };
        let text = String::from_utf8(bytes).map_err(|_| err!("{location}: not UTF-8"))?;
        Index::parse(&text, location)
    }

    /// Reads the index file at `path`, or an empty one if there is none.
    pub fn read_or_empty(path: &Path) -> Result<Index> {
        match read_capped(path) {
            Ok(bytes) => {
                let text =
                    String::from_utf8(bytes).map_err(|_| err!("{}: not UTF-8", path.display()))?;
                Index::parse(&text, &path.display().to_string())
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Index::empty()),
            Err(e) => Err(err!("reading {}: {e}", path.display())),
        }
    }

    pub fn write(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self)? + "\n";
        crate::files::write_atomically(path, &text)
    }

    /// Plugs whose name or description contains `term` (any case).
    pub fn search(&self, term: &str) -> Vec<&IndexPlug> {
        let term = term.to_lowercase();
        self.plugs
            .iter()
            .filter(|p| {
                p.name.to_lowercase().contains(&term)
                    || p.description.to_lowercase().contains(&term)
            })
            .collect()
    }

    pub fn plug(&self, name: &str) -> Option<&IndexPlug> {
        self.plugs.iter().find(|p| p.name == name)
    }

    /// Adds (or replaces) a version of a plug, keeping versions newest first.
    pub fn add(
        &mut self,
        name: &str,
        description: &str,
        key: Option<String>,
        version: IndexVersion,
    ) {
        let position = self.plugs.iter().position(|p| p.name == name);
        let plug = match position {
            Some(i) => &mut self.plugs[i],
            None => {
                self.plugs.push(IndexPlug {
                    name: name.to_string(),
                    description: String::new(),
                    publisher_key: None,
                    versions: Vec::new(),
                });
                self.plugs.sort_by(|a, b| a.name.cmp(&b.name));
                let i = self
                    .plugs
                    .iter()
                    .position(|p| p.name == name)
                    .expect("just added");
                &mut self.plugs[i]
            }
        };
        if !description.is_empty() {
            plug.description = description.to_string();
        }
        if key.is_some() {
            plug.publisher_key = key;
        }
        plug.versions.retain(|v| v.version != version.version);
        plug.versions.push(version);
        plug.versions.sort_by_key(|v| std::cmp::Reverse(v.semver()));
    }
}

/// A file of at most [`MAX_BYTES`] (one byte more is read, so that the
/// parser refuses it with the reason).
fn read_capped(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn check_text(at: &str, text: &str) -> Result<()> {
    if text.len() > MAX_FIELD {
        bail!("{at}: longer than {} bytes", MAX_FIELD);
    }
    if text.chars().any(char::is_control) {
        bail!("{at}: has control characters (`{}`)", shown(text));
    }
    Ok(())
}

fn bounded_plugs<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<IndexPlug>, D::Error> {
    d.deserialize_seq(Bounded::new(MAX_PLUGS, "plugs"))
}

fn bounded_versions<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<IndexVersion>, D::Error> {
    d.deserialize_seq(Bounded::new(MAX_VERSIONS, "versions of one plug"))
}

/// A list read up to a count, refused past it (before it is all in memory).
struct Bounded<T> {
    max: usize,
    what: &'static str,
    _t: std::marker::PhantomData<T>,
}

impl<T> Bounded<T> {
    fn new(max: usize, what: &'static str) -> Bounded<T> {
        Bounded {
            max,
            what,
            _t: std::marker::PhantomData,
        }
    }
}

impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Bounded<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "a list of at most {} {}", self.max, self.what)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            if items.len() == self.max {
                return Err(serde::de::Error::custom(format!(
                    "more than {} {}: this runner reads at most {}",
                    self.max, self.what, self.max
                )));
            }
            items.push(item);
        }
        Ok(items)
    }
}

impl IndexPlug {
    /// The newest version this runner can run.
    pub fn latest_compatible(&self) -> Option<&IndexVersion> {
        self.versions
            .iter()
            .filter(|v| v.compatible().is_ok())
            .max_by_key(|v| v.semver())
    }

    pub fn version(&self, version: &str) -> Option<&IndexVersion> {
        self.versions.iter().find(|v| v.version == version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(v: &str, contract: &str) -> IndexVersion {
        IndexVersion {
            version: v.into(),
            reference: format!("r/p:{v}"),
            digest: format!("sha256:{}", "a".repeat(64)),
            contract: contract.into(),
            contract_range: String::new(),
            needs: Needs::default(),
            config_schema: None,
        }
    }

    #[test]
    fn adds_searches_and_picks_compatible_versions() {
        let now = contract::VERSION.to_string();
        let mut index = Index::empty();
        index.add("probe", "Probes things", None, version("0.1.0", &now));
        index.add("probe", "", None, version("0.3.0", "0.9.0"));
        index.add("probe", "", None, version("0.2.0", &now));
        index.add("git", "Checks out", None, version("1.0.0", &now));
        let text = serde_json::to_string(&index).unwrap();
        let index = Index::parse(&text, "test").unwrap();
        assert_eq!(index.search("PROBE").len(), 1);
        assert_eq!(index.search("checks").len(), 1);
        let probe = index.plug("probe").unwrap();
        assert_eq!(probe.description, "Probes things");
        assert_eq!(probe.versions[0].version, "0.3.0");
        assert_eq!(probe.latest_compatible().unwrap().version, "0.2.0");
        let refused = probe.version("0.3.0").unwrap().compatible().unwrap_err();
        assert!(
            refused.contains("0.9.0") && refused.contains(&now),
            "{refused}"
        );
        assert_eq!(
            contract_range(Version::parse("0.1.0").unwrap()),
            ">=0.1.0, <0.2.0"
        );
        // 0.3 runners load 0.2 plugs through an adapter.
        assert!(version("0.1.1", "0.2.0").compatible().is_ok());
        assert!(version("0.1.1", "0.1.0").compatible().is_err());
        assert_eq!(
            contract_range(Version::parse("0.2.0").unwrap()),
            ">=0.2.0, <0.4.0"
        );
        assert_eq!(
            contract_range(Version::parse("0.3.0").unwrap()),
            ">=0.3.0, <0.4.0"
        );
    }
}
