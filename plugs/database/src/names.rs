//! The names of what the plug makes, derived from the plug's id and the
//! session's: any run on any runner finds them again, also after a start that
//! failed before its state was kept.

use sha2::{Digest, Sha256};

/// PostgreSQL's longest identifier, in bytes.
const MAX: usize = 63;

/// The session's database and login (the same name: databases and roles are
/// apart in PostgreSQL): `blaise_<plug id>_<session id>`, lower case, letters,
/// digits and `_`; cut, with a digest of the whole, when it is too long.
pub fn branch(plug_id: &str, session_id: &str) -> String {
    fit(
        &format!("blaise_{}_{}", plug(plug_id), clean(session_id)),
        &[plug_id, session_id],
    )
}

/// The plug id as it goes in a name: itself when it is lower-case letters,
/// digits and `_`; else cleaned, with a digest of it, so that `main-db` and
/// `main_db` in one `blaise.yml` never share a branch.
fn plug(plug_id: &str) -> String {
    let clean = clean(plug_id);
    if clean == plug_id {
        return clean;
    }
    format!("{clean}_{}", &digest(plug_id)[..6])
}

fn digest(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The template the plug prepares for a config: `blaise_tpl_<plug id>_<key>`.
pub fn template(plug_id: &str, key: &str) -> String {
    fit(
        &format!("{}{key}", template_prefix(plug_id)),
        &[plug_id, key],
    )
}

/// What every template of this plug id starts with (older ones are found by it).
pub fn template_prefix(plug_id: &str) -> String {
    // At most 24 bytes of it, so that the key fits; a longer one keeps its
    // head and a digest of the whole.
    let mut id = plug(plug_id);
    if id.len() > 24 {
        id = format!("{}_{}", &clean(plug_id)[..17], &digest(plug_id)[..6]);
    }
    format!("blaise_tpl_{id}_")
}

fn clean(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// `name`, or when it is longer than PostgreSQL keeps, its head and a digest
/// of `parts` (two long ids differing only at their ends stay apart).
fn fit(name: &str, parts: &[&str]) -> String {
    if name.len() <= MAX {
        return name.to_owned();
    }
    let mut hash = Sha256::new();
    for part in parts {
        hash.update((part.len() as u64).to_le_bytes());
        hash.update(part.as_bytes());
    }
    let digest: String = hash.finalize()[..6]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{}_{digest}", &name[..MAX - 1 - digest.len()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_branch_is_named_after_the_plug_and_the_session() {
        assert_eq!(
            branch("db", "3f2a9c1e-0b7d-4e55-9a31-2c8e5f6d7a10"),
            "blaise_db_3f2a9c1e_0b7d_4e55_9a31_2c8e5f6d7a10"
        );
        let odd = branch("Main-DB", "S 1;drop");
        assert!(
            odd.starts_with("blaise_main_db_") && odd.ends_with("_s_1_drop"),
            "{odd}"
        );
        assert_ne!(branch("main-db", "s"), branch("main_db", "s"));
        assert_eq!(branch("main_db", "s"), "blaise_main_db_s");
    }

    #[test]
    fn long_names_fit_and_stay_apart() {
        let long = "x".repeat(80);
        let a = branch("db", &format!("{long}a"));
        let b = branch("db", &format!("{long}b"));
        assert!(a.len() <= MAX && b.len() <= MAX, "{a}");
        assert_ne!(a, b);
        let t = template(&"p".repeat(70), "0123456789abcdef");
        assert!(
            t.len() <= MAX && t.starts_with(&template_prefix(&"p".repeat(70))),
            "{t}"
        );
    }
}
