//! The `with:` config, checked before anything is filtered: a config the plug
//! cannot read must never mean "mask nothing".

use blaise_plug::PlugError;

/// The `with:` config; its JSON Schema is derived from it (the descriptions
/// are the doc comments), and [`Config::parse`] checks what a schema cannot.
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Exact values to mask wherever they appear, shown as [REDACTED:literal]
    #[serde(default)]
    #[schemars(inner(length(min = MIN_LITERAL_CHARS, max = MAX_LITERAL_CHARS)))]
    pub literals: Vec<String>,
    /// Your own formats: each masked as [REDACTED:name]; its test must match its regex (checked in on-start and on-resume)
    #[serde(default)]
    pub patterns: Vec<PatternConfig>,
}

/// One of `with.patterns`.
#[derive(Debug, Clone, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PatternConfig {
    /// Shown as `[REDACTED:name]`.
    #[schemars(length(min = 1, max = MAX_NAME_CHARS), regex(pattern = "^[a-z0-9][a-z0-9-]*$"))]
    pub name: String,
    /// A `regex`-crate regular expression.
    #[schemars(length(min = 1, max = MAX_REGEX_CHARS))]
    pub regex: String,
    /// A sample the regex must match: checked when the config is.
    #[schemars(length(min = 1, max = MAX_REGEX_CHARS))]
    pub test: String,
}

/// Most characters of a pattern's name.
pub const MAX_NAME_CHARS: usize = 40;
/// Most characters of a pattern's regex.
pub const MAX_REGEX_CHARS: usize = 1024;
/// Most bytes a compiled pattern (and each of its lazy DFAs) may take: a
/// pathological pattern (`(a{1000}){1000}`) is refused instead of eating the
/// plug's memory.
pub const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Compiles one checked pattern.
pub fn compile(p: &PatternConfig) -> Result<regex::Regex, String> {
    regex::RegexBuilder::new(&p.regex)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|e| match e {
            regex::Error::CompiledTooBig(limit) => format!(
                "compiles to more than {limit} bytes; simplify it (bounded repeats multiply)"
            ),
            // The syntax error would quote the pattern, which may hold part
            // of a secret.
            _ => "is not a valid regular expression (Rust `regex` syntax; no look-around, backreferences or `\\p{…}` classes)".to_string(),
        })
}

impl Config {
    /// The patterns, compiled, for the redactor. Their names live as long as
    /// the plug: a redactor is built once per config.
    pub fn compiled_patterns(&self) -> Vec<crate::detect::Pattern> {
        self.patterns
            .iter()
            .filter_map(|p| {
                Some(crate::detect::Pattern {
                    name: Box::leak(p.name.clone().into_boxed_str()),
                    regex: compile(p).ok()?,
                })
            })
            .collect()
    }
}

/// Shorter literals would mask ordinary words.
pub const MIN_LITERAL_CHARS: usize = 4;
/// Longer literals could be cut between two chunks further back than a
/// stream holds back ([`crate::detect::MAX_HOLD`]: 4 bytes per char at most).
pub const MAX_LITERAL_CHARS: usize = 1024;

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
        if let Some(key) = map.keys().find(|k| *k != "literals" && *k != "patterns") {
            return Err(PlugError::field(
                key.clone(),
                "unknown key: the keys are `literals` and `patterns`",
            ));
        }
        if let Some(patterns) = map.get("patterns") {
            check_patterns(patterns)?;
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

/// Checks `with.patterns`: shape, names, that each regex compiles within the
/// size limit, matches no empty text and matches its test. Errors name the
/// field and never repeat a regex or a test (they may hold part of a secret).
fn check_patterns(patterns: &serde_json::Value) -> Result<(), PlugError> {
    let Some(items) = patterns.as_array() else {
        return Err(PlugError::field(
            "patterns",
            "must be a list of `{name, regex, test}`",
        ));
    };
    let mut names = std::collections::HashSet::new();
    for (i, item) in items.iter().enumerate() {
        let field = |key: &str| format!("patterns.{i}.{key}");
        let Some(map) = item.as_object() else {
            return Err(PlugError::field(
                format!("patterns.{i}"),
                "must be a mapping `{name, regex, test}`",
            ));
        };
        if let Some(key) = map
            .keys()
            .find(|k| !matches!(k.as_str(), "name" | "regex" | "test"))
        {
            return Err(PlugError::field(
                field(key),
                "unknown key: the keys are `name`, `regex` and `test`",
            ));
        }
        let string = |key: &str| -> Result<String, PlugError> {
            match map.get(key) {
                Some(serde_json::Value::String(s)) => Ok(s.clone()),
                Some(_) => Err(PlugError::field(field(key), "must be a string")),
                None => Err(PlugError::field(field(key), "is missing")),
            }
        };
        let (name, regex, test) = (string("name")?, string("regex")?, string("test")?);
        if name.is_empty()
            || name.chars().count() > MAX_NAME_CHARS
            || !name
                .bytes()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
            || name.starts_with('-')
        {
            return Err(PlugError::field(
                field("name"),
                format!(
                    "must be 1 to {MAX_NAME_CHARS} characters of a-z, 0-9 and `-` (it is shown as [REDACTED:name])"
                ),
            ));
        }
        if !names.insert(name.clone()) {
            return Err(PlugError::field(
                field("name"),
                "is the name of an earlier pattern",
            ));
        }
        let chars = regex.chars().count();
        if chars == 0 || chars > MAX_REGEX_CHARS {
            return Err(PlugError::field(
                field("regex"),
                format!("is {chars} characters long; a regex needs 1 to {MAX_REGEX_CHARS}"),
            ));
        }
        let compiled = compile(&PatternConfig {
            name,
            regex,
            test: String::new(),
        })
        .map_err(|e| PlugError::field(field("regex"), e))?;
        if compiled.is_match("") {
            return Err(PlugError::field(
                field("regex"),
                "matches the empty text: it would mask nothing useful and everything in between",
            ));
        }
        if test.is_empty() || test.chars().count() > MAX_REGEX_CHARS {
            return Err(PlugError::field(
                field("test"),
                format!("needs 1 to {MAX_REGEX_CHARS} characters: a sample of the secret"),
            ));
        }
        match compiled.find(&test) {
            None => {
                return Err(PlugError::field(field("test"), "does not match the regex"));
            }
            Some(m) if m.len() > crate::detect::MAX_PATTERN_MATCH => {
                return Err(PlugError::field(
                    field("test"),
                    format!(
                        "matches {} bytes; a match is masked only up to {} bytes",
                        m.len(),
                        crate::detect::MAX_PATTERN_MATCH
                    ),
                ));
            }
            Some(_) => {}
        }
    }
    Ok(())
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

    fn pattern(name: &str, regex: &str, test: &str) -> String {
        serde_json::json!({ "patterns": [
            { "name": "fine", "regex": "fine_[0-9]{8}", "test": "fine_12345678" },
            { "name": name, "regex": regex, "test": test }
        ] })
        .to_string()
    }

    #[test]
    fn accepts_patterns_and_compiles_them() {
        let c = Config::parse(&pattern(
            "acme-key",
            "acme_[a-z0-9]{32}",
            "acme_0123456789abcdef0123456789abcdef",
        ))
        .unwrap();
        let compiled = c.compiled_patterns();
        assert_eq!(compiled.len(), 2);
        assert_eq!(compiled[1].name, "acme-key");
        // What the plug's lean regex build still has.
        for (regex, test) in [
            (r"(?i)acme_\w{8}", "ACME_abcd1234"),
            (r"\bkey-\d{6}\b", "a key-123456 b"),
            (r"(?-u:\x00)?tok_[[:alnum:]]{10}", "tok_abcdefghij"),
        ] {
            assert!(Config::parse(&pattern("p", regex, test)).is_ok(), "{regex}");
        }
    }

    #[test]
    fn refuses_bad_patterns_naming_the_field() {
        for (json, want) in [
            (pattern("Bad Name", "x[0-9]+", "x1"), "patterns.1.name"),
            (pattern("fine", "x[0-9]+", "x1"), "patterns.1.name"),
            (pattern("ok", "acme_(", "acme_"), "patterns.1.regex"),
            (pattern("ok", "(?=lookahead)x", "x"), "patterns.1.regex"),
            (pattern("ok", "a*", "aaa"), "patterns.1.regex"),
            (pattern("ok", "(a{1000}){1000}", "a"), "patterns.1.regex"),
            (pattern("ok", "acme_[a-z]{4}", "nope"), "patterns.1.test"),
            // A match longer than what a stream holds back.
            (
                pattern("ok", "xé{600}", &format!("x{}", "é".repeat(600))),
                "patterns.1.test",
            ),
            (pattern("ok", "x", &"x".repeat(1025)), "patterns.1.test"),
            (pattern("ok", "", "x"), "patterns.1.regex"),
            (
                r#"{"patterns":[{"name":"a","regex":"a+"}]}"#.into(),
                "patterns.0.test",
            ),
            (
                r#"{"patterns":[{"name":"a","regex":"a+","test":"a","x":1}]}"#.into(),
                "patterns.0.x",
            ),
            (r#"{"patterns":["a+"]}"#.into(), "patterns.0"),
            (r#"{"patterns":{"a":"b"}}"#.into(), "patterns"),
        ] {
            assert_eq!(field_of(&json).as_deref(), Some(want), "{json}");
        }
    }

    #[test]
    fn pattern_errors_never_repeat_the_regex_or_the_test() {
        let e = Config::parse(&pattern("ok", "s3cr3t-prefix_(", "s3cr3t-sample")).unwrap_err();
        assert!(!describe_error(&e).contains("s3cr3t"), "{}", e.message);
        let e = Config::parse(&pattern("ok", "s3cr3t_[0-9]+", "s3cr3t-sample")).unwrap_err();
        assert!(!describe_error(&e).contains("s3cr3t"), "{}", e.message);
    }

    #[test]
    fn the_schema_is_derived_with_the_limits_the_parser_checks() {
        let schema = serde_json::to_value(schemars::schema_for!(Config)).unwrap();
        assert_eq!(
            schema["properties"]["literals"]["items"]["minLength"],
            MIN_LITERAL_CHARS
        );
        assert_eq!(
            schema["properties"]["literals"]["items"]["maxLength"],
            MAX_LITERAL_CHARS
        );
        let item = &schema["$defs"]["PatternConfig"];
        assert_eq!(item["properties"]["name"]["maxLength"], MAX_NAME_CHARS);
        assert_eq!(item["properties"]["regex"]["maxLength"], MAX_REGEX_CHARS);
        assert_eq!(
            item["required"],
            serde_json::json!(["name", "regex", "test"])
        );
    }
}
