//! The session login's password: derived, never stored. An HMAC of the
//! plug's key (a granted secret) and the login's name gives the same password
//! on every run of the session, so a resume — hot or cold, on any runner —
//! hands the agent the password it had, and plug state (kept by Blaise) holds
//! no secret. The server is sent only a SCRAM-SHA-256 verifier, never the
//! password itself: nothing in its logs or catalogs can log in.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

type HmacSha256 = Hmac<Sha256>;

/// PostgreSQL's own default iteration count (`scram_iterations`).
const ITERATIONS: u32 = 4096;

fn hmac(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    let mut mac = HmacSha256::new_from_slice(key).expect("HMAC takes any key length");
    for part in parts {
        mac.update(part);
    }
    mac.finalize().into_bytes().into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The password of `login`: 32 hex digits (128 bits) from `key`.
pub fn derive(key: &str, login: &str) -> String {
    hex(&hmac(
        key.as_bytes(),
        &[b"blaise-database/password/1\0", login.as_bytes()],
    )[..16])
}

/// The SCRAM-SHA-256 verifier PostgreSQL stores for `password`
/// (`SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`, RFC 5802
/// and 7677); `ALTER ROLE … PASSWORD` takes it as it is. The salt is derived
/// too, so the verifier of a login does not change between runs.
pub fn scram_verifier(key: &str, login: &str, password: &str) -> String {
    let salt = &hmac(
        key.as_bytes(),
        &[b"blaise-database/salt/1\0", login.as_bytes()],
    )[..16];
    let mut salted = [0u8; 32];
    // A password of hex digits needs no SASLprep.
    pbkdf2::pbkdf2_hmac::<Sha256>(password.as_bytes(), salt, ITERATIONS, &mut salted);
    let client_key = hmac(&salted, &[b"Client Key"]);
    let stored_key = Sha256::digest(client_key);
    let server_key = hmac(&salted, &[b"Server Key"]);
    format!(
        "SCRAM-SHA-256${ITERATIONS}:{}${}:{}",
        STANDARD.encode(salt),
        STANDARD.encode(stored_key),
        STANDARD.encode(server_key)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_depends_on_the_key_and_the_login_only() {
        let p = derive("key-one-0123456789", "blaise_db_s1");
        assert_eq!(p.len(), 32);
        assert!(p.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(p, derive("key-one-0123456789", "blaise_db_s1"));
        assert_ne!(p, derive("key-two-0123456789", "blaise_db_s1"));
        assert_ne!(p, derive("key-one-0123456789", "blaise_db_s2"));
    }

    /// RFC 7677's example exchange: user `user`, password `pencil`, salt
    /// `W22ZaJ0SNY7soEsUEjb6gQ==`, 4096 iterations. Its ClientProof and
    /// ServerSignature follow from the StoredKey and ServerKey computed here.
    #[test]
    fn the_verifier_agrees_with_rfc_7677() {
        let salt = STANDARD.decode("W22ZaJ0SNY7soEsUEjb6gQ==").unwrap();
        let mut salted = [0u8; 32];
        pbkdf2::pbkdf2_hmac::<Sha256>(b"pencil", &salt, 4096, &mut salted);
        let client_key = hmac(&salted, &[b"Client Key"]);
        let stored_key = Sha256::digest(client_key);
        let server_key = hmac(&salted, &[b"Server Key"]);
        let auth_message = "n=user,r=rOprNGfwEbeRWgbNEkqO,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
        let signature = hmac(&stored_key, &[auth_message.as_bytes()]);
        let proof: Vec<u8> = client_key
            .iter()
            .zip(signature)
            .map(|(a, b)| a ^ b)
            .collect();
        assert_eq!(
            STANDARD.encode(proof),
            "dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
        );
        let server_signature = hmac(&server_key, &[auth_message.as_bytes()]);
        assert_eq!(
            STANDARD.encode(server_signature),
            "6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="
        );
        let v = scram_verifier("k-0123456789abcdef", "blaise_db_s1", "0f");
        assert!(v.starts_with("SCRAM-SHA-256$4096:"), "{v}");
        assert_eq!(
            v,
            scram_verifier("k-0123456789abcdef", "blaise_db_s1", "0f")
        );
    }
}
