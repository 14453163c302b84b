//! Plug distribution: plugs named in `blaise.yml` by path, `https://` URL or
//! OCI reference, fetched once, verified against their digest, cached by it,
//! pinned in `blaise.lock`, optionally required to carry a cosign signature,
//! and listed in a static JSON index.
//!
//! One file per concern: `reference` (what a source names), `download`
//! (bounded HTTP reads from strangers), `registry` (the OCI pull protocol on
//! it), `oci` (Wasm OCI artifacts), `fetch` (URLs), `cache` (on disk, by digest),
//! `lock` (`blaise.lock`), `signature` (cosign), `index` (the catalogue),
//! `locate` (from a source to a verified file), `progress` (the bar).
//! Failures are an [`Error`] of a [`Kind`]: bad input, fetch, verify, disk.

pub mod cache;
pub mod download;
pub mod error;
pub mod fetch;
pub mod files;
pub mod index;
pub mod locate;
pub mod lock;
pub mod oci;
pub mod progress;
pub mod reference;
pub mod registry;
pub mod signature;

pub use cache::PlugCache;
pub use error::{Error, Kind};
pub use locate::{Freshness, Located, Locator, Wanted};
pub use lock::{LockFile, LockedPlug};
pub use reference::{Digest, OciReference, Source};
