//! `blaise.lock` (`LockFile::parse`) and what `check` asks of it: the entry
//! of a plug by id and source. A lock file is the operator's, but it is
//! edited by hand and merged by git: any text gives an answer.

use std::path::Path;

use arbitrary::{Arbitrary, Result, Unstructured};
use blaise_runner::distribution::LockFile;
use serde_json::{Value, json};

use super::{Outcome, Target};
use crate::shapes::{Field, Number, Obj, Word};

pub struct BlaiseLock;

impl Target for BlaiseLock {
    fn name(&self) -> &'static str {
        "blaise_lock"
    }

    fn generate(&mut self, u: &mut Unstructured) -> Result<Vec<u8>> {
        let lock = u.arbitrary::<Lock>()?;
        Ok(serde_yaml::to_string(&lock.json())
            .unwrap_or_default()
            .into_bytes())
    }

    fn run(&mut self, input: &[u8]) -> Outcome {
        run(input);
        Outcome::Ok
    }
}

pub fn run(input: &[u8]) {
    let text = String::from_utf8_lossy(input);
    if let Ok(lock) = LockFile::parse(&text, Path::new("/srv/runner/blaise.lock")) {
        for plug in lock.plugs.iter().take(64) {
            let _ = lock.find(&plug.id, &plug.source);
            let _ = lock.find(&plug.id, "other");
        }
        let _ = lock.find("absent", "x");
    }
}

struct Entry {
    id: Field<Word>,
    source: Field<Word>,
    digest: Field<Word>,
}

impl<'a> Arbitrary<'a> for Entry {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(Entry {
            id: u.arbitrary()?,
            source: u.arbitrary()?,
            digest: if u.ratio(1, 2)? {
                Field::Right(Word(format!("sha256:{}", "ab".repeat(32))))
            } else {
                u.arbitrary()?
            },
        })
    }
}

struct Lock {
    version: Field<Number>,
    plugs: Vec<Entry>,
}

impl<'a> Arbitrary<'a> for Lock {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let count = u.int_in_range(0..=4u8)?;
        Ok(Lock {
            version: if u.ratio(3, 4)? {
                Field::Right(Number(json!(1)))
            } else {
                u.arbitrary()?
            },
            plugs: (0..count).map(|_| u.arbitrary()).collect::<Result<_>>()?,
        })
    }
}

impl Lock {
    fn json(&self) -> Value {
        let plugs = self.plugs.iter().map(|e| {
            Obj::new()
                .field("id", &e.id, |w| json!(w.0))
                .field("source", &e.source, |w| json!(w.0))
                .field("digest", &e.digest, |w| json!(w.0))
                .value()
        });
        Obj::new()
            .field("version", &self.version, |n| n.0.clone())
            .set("plugs", Value::Array(plugs.collect()))
            .value()
    }
}
