//! The marketplace index (`Index::parse`): what `plug search` and `plug add`
//! read from a URL. Any bytes give an index within its caps, or an error
//! that is printable.

use arbitrary::{Arbitrary, Result, Unstructured};
use blaise_runner::distribution::index::{Index, MAX_PLUGS, MAX_VERSIONS};
use serde_json::{Value, json};

use super::{Outcome, Target};
use crate::shapes::{Field, Json, Number, Obj, Word, to_bytes};

pub struct PlugIndex;

impl Target for PlugIndex {
    fn name(&self) -> &'static str {
        "plug_index"
    }

    fn generate(&mut self, u: &mut Unstructured) -> Result<Vec<u8>> {
        Ok(to_bytes(&u.arbitrary::<IndexShape>()?.json()))
    }

    fn run(&mut self, input: &[u8]) -> Outcome {
        run(input);
        Outcome::Ok
    }
}

pub fn run(input: &[u8]) {
    let text = String::from_utf8_lossy(input);
    match Index::parse(&text, "https://index.example/plugs.json") {
        Ok(index) => {
            assert!(index.plugs.len() <= MAX_PLUGS);
            for plug in &index.plugs {
                assert!(plug.versions.len() <= MAX_VERSIONS);
                assert!(!plug.name.chars().any(char::is_control));
                let _ = plug.latest_compatible();
                for v in &plug.versions {
                    let _ = (v.compatible(), v.required_config());
                }
            }
            let _ = index.search("a");
            let _ = serde_json::to_string(&index);
        }
        Err(e) => {
            let text = format!("{e:#}");
            assert!(!text.contains('\u{1b}'), "{text:?}");
        }
    }
}

struct Version {
    version: Field<Word>,
    reference: Field<Word>,
    digest: Field<Word>,
    contract: Field<Word>,
    needs: Option<Json>,
    schema: Option<Json>,
}

impl<'a> Arbitrary<'a> for Version {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(Version {
            version: u.arbitrary()?,
            reference: u.arbitrary()?,
            digest: u.arbitrary()?,
            contract: if u.ratio(1, 2)? {
                Field::Right(Word(blaise_runner::contract::VERSION.to_string()))
            } else {
                u.arbitrary()?
            },
            needs: u.arbitrary()?,
            schema: u.arbitrary()?,
        })
    }
}

struct Plug {
    name: Field<Word>,
    description: Field<Word>,
    versions: Vec<Version>,
}

impl<'a> Arbitrary<'a> for Plug {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let count = u.int_in_range(0..=3u8)?;
        Ok(Plug {
            name: u.arbitrary()?,
            description: u.arbitrary()?,
            versions: (0..count).map(|_| u.arbitrary()).collect::<Result<_>>()?,
        })
    }
}

struct IndexShape {
    schema: Field<Number>,
    plugs: Vec<Plug>,
    extra: Option<(Word, Json)>,
}

impl<'a> Arbitrary<'a> for IndexShape {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let count = u.int_in_range(0..=4u8)?;
        Ok(IndexShape {
            schema: if u.ratio(3, 4)? {
                Field::Right(Number(json!(1)))
            } else {
                u.arbitrary()?
            },
            plugs: (0..count).map(|_| u.arbitrary()).collect::<Result<_>>()?,
            extra: u.arbitrary()?,
        })
    }
}

impl IndexShape {
    fn json(&self) -> Value {
        let plugs = self.plugs.iter().map(|p| {
            let versions = p.versions.iter().map(|v| {
                let mut obj = Obj::new()
                    .field("version", &v.version, |w| json!(w.0))
                    .field("reference", &v.reference, |w| json!(w.0))
                    .field("digest", &v.digest, |w| json!(w.0))
                    .field("contract", &v.contract, |w| json!(w.0));
                if let Some(n) = &v.needs {
                    obj = obj.set("needs", n.0.clone());
                }
                if let Some(s) = &v.schema {
                    obj = obj.set("config_schema", s.0.clone());
                }
                obj.value()
            });
            Obj::new()
                .field("name", &p.name, |w| json!(w.0))
                .field("description", &p.description, |w| json!(w.0))
                .set("versions", Value::Array(versions.collect()))
                .value()
        });
        Obj::new()
            .field("schema", &self.schema, |n| n.0.clone())
            .set("plugs", Value::Array(plugs.collect()))
            .extra(&self.extra)
            .value()
    }
}
