//! Tokens: random, shown once, stored as their sha256.

use sha2::{Digest, Sha256};

use crate::names::ID_HEX_DIGITS;

/// A new random token with a recognisable prefix (`blr_` runner, `bla_` admin).
pub fn new_token(prefix: &str) -> String {
    format!("{prefix}{}", random_hex(32))
}

pub fn hash_token(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

pub fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).expect("the operating system's random source failed");
    hex::encode(buf)
}

/// A new id such as `ses_1f3a…`: 8 random bytes as [`ID_HEX_DIGITS`] hex digits (the shape
/// [`crate::names::is_id`] checks).
pub fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", random_hex(ID_HEX_DIGITS / 2))
}

/// The token of an `Authorization: Bearer …` header value.
pub fn bearer(header: Option<&str>) -> Option<&str> {
    header?.strip_prefix("Bearer ").map(str::trim)
}
