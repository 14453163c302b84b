//! The `with:` config, checked before anything is filtered: a config the plug
//! cannot read must never mean "mask nothing".

use blaise_plug::PlugError;

/// The `with:` config.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Exact values to mask wherever they appear.
    #[serde(default)]
    pub literals: Vec<String>,
}

/// Shorter literals would mask ordinary words.
pub const MIN_LITERAL_CHARS: usize = 4;
/// Longer literals could be cut between two chunks further back than a
/// stream holds back ([`crate::detect::MAX_HOLD`]: 4 bytes per char at most).
pub const MAX_LITERAL_CHARS: usize = 1024;

pub const CONFIG_SCHEMA: &str = r#"{
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "literals": {
      "description": "Exact values to mask wherever they appear, shown as [REDACTED:literal]",
      "type": "array",
      "items": { "type": "string", "minLength": 4, "maxLength": 1024 }
    }
  }
}"#;

impl Config {
    /// Reads and checks the `with:` config (JSON). The error names the field
    /// (`literals.2`) and never repeats a literal: literals are secrets.
    pub fn parse(json: &str) -> Result<Config, PlugError> {
        let value: serde_json::Value = serde_json::from_str(json)
            .map_err(|e| PlugError::new(format!("the `with:` config is not JSON: {e}")))?;
        let Some(map) = value.as_object() else {
            return Err(PlugError::new(
                "`with:` must be a mapping, e.g. `with: { literals: [\"…\"] }`",
            ));
        };
        if let Some(key) = map.keys().find(|k| *k != "literals") {
            return Err(PlugError::field(
                key.clone(),
                "unknown key: the only key is `literals`",
            ));
        }
        if let Some(literals) = map.get("literals") {
            let Some(items) = literals.as_array() else {
                return Err(PlugError::field(
                    "literals",
                    "must be a list of strings (the exact values to mask)",
                ));
            };
            for (i, item) in items.iter().enumerate() {
                let field = format!("literals.{i}");
                let Some(text) = item.as_str() else {
                    return Err(PlugError::field(field, "must be a string"));
                };
                let chars = text.chars().count();
                if chars < MIN_LITERAL_CHARS {
                    return Err(PlugError::field(
                        field,
                        format!(
                            "is {chars} characters long; a literal needs at least {MIN_LITERAL_CHARS}, or it would mask ordinary words"
                        ),
                    ));
                }
                if chars > MAX_LITERAL_CHARS {
                    return Err(PlugError::field(
                        field,
                        format!(
                            "is {chars} characters long; a literal may have at most {MAX_LITERAL_CHARS}"
                        ),
                    ));
                }
            }
        }
        serde_json::from_value(value)
            .map_err(|e| PlugError::new(format!("the `with:` config cannot be read: {e}")))
    }
}

/// `with.field: message`, as the runner shows a plug error.
pub fn describe_error(e: &PlugError) -> String {
    match &e.field {
        Some(field) => format!("`with.{field}`: {}", e.message),
        None => e.message.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field_of(json: &str) -> Option<String> {
        Config::parse(json).unwrap_err().field
    }

    #[test]
    fn accepts_good_configs() {
        assert!(Config::parse("{}").unwrap().literals.is_empty());
        let c = Config::parse(r#"{"literals":["hunter2-literal","ünïcödé"]}"#).unwrap();
        assert_eq!(c.literals.len(), 2);
        let at_most = "x".repeat(MAX_LITERAL_CHARS);
        assert!(Config::parse(&serde_json::json!({ "literals": [at_most] }).to_string()).is_ok());
    }

    #[test]
    fn refuses_bad_configs_naming_the_field() {
        assert_eq!(
            field_of(r#"{"literal":["typo"]}"#).as_deref(),
            Some("literal")
        );
        assert_eq!(
            field_of(r#"{"literals":"one-value"}"#).as_deref(),
            Some("literals")
        );
        assert_eq!(
            field_of(r#"{"literals":["good-one",42]}"#).as_deref(),
            Some("literals.1")
        );
        assert_eq!(
            field_of(r#"{"literals":["abc"]}"#).as_deref(),
            Some("literals.0")
        );
        assert_eq!(
            field_of(r#"{"literals":[""]}"#).as_deref(),
            Some("literals.0")
        );
        let too_long = "x".repeat(MAX_LITERAL_CHARS + 1);
        let json = serde_json::json!({ "literals": ["fine-literal", too_long] }).to_string();
        assert_eq!(field_of(&json).as_deref(), Some("literals.1"));
    }

    #[test]
    fn refuses_what_is_not_a_mapping() {
        for json in [
            "",
            "not json",
            "null",
            "[]",
            r#""literals""#,
            "{\"literals\": [",
        ] {
            let e = Config::parse(json).unwrap_err();
            assert_eq!(e.field, None, "{json}");
        }
    }

    #[test]
    fn errors_never_repeat_a_literal() {
        let e = Config::parse(r#"{"literals":["s3c"]}"#).unwrap_err();
        assert!(!e.message.contains("s3c"), "{}", e.message);
        assert!(!describe_error(&e).contains("s3c"));
    }

    #[test]
    fn the_schema_is_json() {
        let schema: serde_json::Value = serde_json::from_str(CONFIG_SCHEMA).unwrap();
        assert_eq!(
            schema["properties"]["literals"]["items"]["minLength"],
            MIN_LITERAL_CHARS
        );
        assert_eq!(
            schema["properties"]["literals"]["items"]["maxLength"],
            MAX_LITERAL_CHARS
        );
    }
}
