//! What a registry sends: manifests (the artifact's, an index, the cosign
//! signature tag's), read by `oci::parse_manifest`, `oci::wasm_layer` and
//! `oci::layer_size` under the default plug size, and the signature evidence
//! `signature::verify` reads. Any bytes must give an answer, not a panic.

use arbitrary::{Arbitrary, Result, Unstructured};
use blaise_runner::distribution::download::DEFAULT_MAX_PLUG;
use blaise_runner::distribution::oci;
use blaise_runner::distribution::signature::{self, Evidence};
use blaise_runner::distribution::{Digest, OciReference};
use serde_json::{Value, json};

use super::{Outcome, Target};
use crate::shapes::{Field, Json, Number, Obj, Word, to_bytes};

pub struct OciManifest;

impl Target for OciManifest {
    fn name(&self) -> &'static str {
        "oci_manifest"
    }

    fn generate(&mut self, u: &mut Unstructured) -> Result<Vec<u8>> {
        Ok(to_bytes(&u.arbitrary::<Manifest>()?.json()))
    }

    fn run(&mut self, input: &[u8]) -> Outcome {
        run(input);
        Outcome::Ok
    }
}

pub fn run(input: &[u8]) {
    if let Ok(manifest) = oci::parse_manifest(input) {
        let layer = oci::wasm_layer(&manifest).expect("a parsed manifest has its layer");
        if let Ok(size) = oci::layer_size(layer, DEFAULT_MAX_PLUG) {
            assert!(size > 0 && size <= DEFAULT_MAX_PLUG, "{size}");
        }
        let _ = Digest::parse(&layer.digest);
    } else if let Err(e) = oci::parse_manifest(input) {
        // What reaches the operator's terminal is printable.
        let text = format!("{e:#}");
        assert!(!text.contains('\u{1b}'), "{text:?}");
    }
    // The same bytes as signature evidence and as a reference.
    let digest = Digest::of(input);
    if let Ok(evidence) = serde_json::from_slice::<Vec<Evidence>>(input) {
        assert!(signature::verify(&evidence, &digest, &[]).is_err());
    }
    if let Ok(text) = std::str::from_utf8(input)
        && text.len() < 512
        && let Ok(reference) = OciReference::parse(text)
    {
        let _ = (oci::tag_or_digest(&reference), reference.to_string());
    }
}

const MEDIA_TYPES: [&str; 7] = [
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.docker.distribution.manifest.v2+json",
    "application/vnd.wasm.config.v0+json",
    "application/wasm",
    "application/vnd.dev.cosign.simplesigning.v1+json",
    "\u{1b}[2Jx",
];

struct MediaType(String);

impl<'a> Arbitrary<'a> for MediaType {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(MediaType(match u.int_in_range(0..=9u8)? {
            0 => Word::arbitrary(u)?.0,
            n => MEDIA_TYPES[(n as usize) % MEDIA_TYPES.len()].to_string(),
        }))
    }
}

struct Descriptor {
    media_type: Field<MediaType>,
    digest: Field<Word>,
    size: Field<Number>,
    annotations: Option<Json>,
}

impl<'a> Arbitrary<'a> for Descriptor {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(Descriptor {
            media_type: u.arbitrary()?,
            digest: if u.ratio(1, 2)? {
                Field::Right(Word(Digest::of(u.bytes(4)?).to_string()))
            } else {
                u.arbitrary()?
            },
            size: u.arbitrary()?,
            annotations: u.arbitrary()?,
        })
    }
}

impl Descriptor {
    fn json(&self) -> Value {
        let mut obj = Obj::new()
            .field("mediaType", &self.media_type, |m| json!(m.0))
            .field("digest", &self.digest, |w| json!(w.0))
            .field("size", &self.size, |n| n.0.clone());
        if let Some(a) = &self.annotations {
            obj = obj.set("annotations", a.0.clone());
        }
        obj.value()
    }
}

struct Manifest {
    schema: Field<Number>,
    media_type: Field<MediaType>,
    config: Field<Descriptor>,
    layers: Vec<Descriptor>,
    manifests: Option<Vec<Descriptor>>,
    extra: Option<(Word, Json)>,
}

impl<'a> Arbitrary<'a> for Manifest {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let count = u.int_in_range(0..=3u8)?;
        Ok(Manifest {
            schema: u.arbitrary()?,
            media_type: u.arbitrary()?,
            config: u.arbitrary()?,
            layers: (0..count).map(|_| u.arbitrary()).collect::<Result<_>>()?,
            manifests: u.arbitrary()?,
            extra: u.arbitrary()?,
        })
    }
}

impl Manifest {
    fn json(&self) -> Value {
        let mut obj = Obj::new()
            .field("schemaVersion", &self.schema, |n| n.0.clone())
            .field("mediaType", &self.media_type, |m| json!(m.0))
            .field("config", &self.config, Descriptor::json)
            .set(
                "layers",
                Value::Array(self.layers.iter().map(Descriptor::json).collect()),
            )
            .extra(&self.extra);
        if let Some(m) = &self.manifests {
            obj = obj.set(
                "manifests",
                Value::Array(m.iter().map(Descriptor::json).collect()),
            );
        }
        obj.value()
    }
}
