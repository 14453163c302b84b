//! Secrets masked in what Blaise keeps or sends on: a user's message, an agent's error, what a
//! webhook tells another service. The redaction plug's detector, linked natively (vendor tokens,
//! named values, private keys, URL credentials; not a runner's own literals, which Blaise does not
//! know).

use std::borrow::Cow;

/// `text` with the secrets in it masked.
pub fn masked(text: &str) -> Cow<'_, str> {
    static DETECTOR: std::sync::OnceLock<redaction_detect::Redactor> = std::sync::OnceLock::new();
    DETECTOR
        .get_or_init(|| redaction_detect::Redactor::new(&[]))
        .redact(text)
}

/// Every string in `value` (a JSON document about to leave Blaise) masked, one by one: the
/// document stays well formed whatever the detector replaces.
pub fn mask_strings(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::String(s) => {
            if let Cow::Owned(m) = masked(s) {
                *s = m;
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(mask_strings),
        serde_json::Value::Object(fields) => fields.values_mut().for_each(mask_strings),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_string_of_a_document_is_masked_and_it_stays_json() {
        let key = "ghp_d0WpixpxbB4r6bSr0pFBOPCWBRDFOxEzf5FJ";
        let mut doc = serde_json::json!({
            "text": format!("it ran `git push https://x:{key}@github.com/a/b`"),
            "request": { "command": format!("export GITHUB_TOKEN=\"{key}\""), "options": ["allow", key] },
            "at": 5,
        });
        mask_strings(&mut doc);
        let out = doc.to_string();
        assert!(!out.contains(key), "{out}");
        assert_eq!(doc["at"], 5);
        assert!(
            doc["text"]
                .as_str()
                .unwrap()
                .starts_with("it ran `git push"),
            "{doc}"
        );
        serde_json::from_str::<serde_json::Value>(&out).unwrap();
    }
}
