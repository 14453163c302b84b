//! Building blocks of the structure-aware inputs: words that matter to the
//! code under test, JSON values of bounded depth, and fields that are
//! sometimes missing or of the wrong type.

use arbitrary::{Arbitrary, Result, Unstructured};
use serde_json::{Map, Value};

/// Strings the parsers treat specially, or that earlier bugs were made of.
const WORDS: &[&str] = &[
    "",
    " ",
    "a",
    "default",
    "claude",
    "script",
    "fuzz",
    "checkout",
    "redaction",
    "sandbox",
    "docker",
    "git",
    "sh",
    "/bin/sh",
    "/usr/bin/git",
    "bwrap",
    "api.github.com",
    "api.github.com:443",
    "*.github.com",
    "*.",
    "*",
    ":",
    ":443",
    "host:99999",
    "GITHUB_TOKEN",
    "git-token",
    "/run/secrets/token",
    "relative/path",
    "plugs/redaction.wasm",
    "ghcr.io/acme/hello:0.1.0",
    "ghcr.io/acme/hello@sha256:6ab5b0",
    "https://example.invalid/plug.wasm",
    "sha256:",
    "sha256:0000000000000000000000000000000000000000000000000000000000000000",
    "keys/acme.pub",
    "64MiB",
    "0B",
    "30s",
    "500ms",
    "5m",
    "2h",
    "1d",
    "18446744073709551615s",
    "307445734561825861m",
    "5124095576030432h",
    "18446744073709551615GiB",
    "run_0123456789abcdef",
    "ses_0123456789abcdef",
    "env_0123456789abcdef",
    "run_",
    "perm-1",
    "msg_0123456789abcdef",
    "acp-7f",
    "agent_message",
    "tool_call",
    "notice",
    "running",
    "paused",
    "finished",
    "accepted",
    "active",
    "torn_down",
    "pause",
    "end",
    "start",
    "resume",
    "teardown",
    "closed",
    "idle",
    "timeout",
    "allow",
    "deny",
    "..",
    ".",
    "/",
    "//evil.example/",
    "/\\evil.example",
    "%2e%2e",
    "a/b",
    "\u{0}",
    "\u{7f}",
    "\t",
    "\n",
    "\r\n",
    "é",
    "\u{202e}",
    "💩",
    "null",
    "true",
    "~",
    "-",
    "- a",
    "a: b",
    "{a: b}",
    "[a]",
    "&a",
    "*a",
    "'",
    "\"",
    "#",
];

/// A string for a field: usually a known word, sometimes anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word(pub String);

impl<'a> Arbitrary<'a> for Word {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(Word(match u.int_in_range(0..=9u8)? {
            0..=5 => (*u.choose(WORDS)?).to_string(),
            6 => {
                let n = u.int_in_range(1..=4u8)?;
                let mut s = String::new();
                for _ in 0..n {
                    s.push_str(u.choose(WORDS)?);
                }
                s
            }
            7 => "a".repeat(usize::from(u.arbitrary::<u8>()?) * 8),
            _ => String::arbitrary(u)?,
        }))
    }
}

impl Word {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&Word> for Value {
    fn from(word: &Word) -> Value {
        Value::String(word.0.clone())
    }
}

/// A number for a field: the edges of every integer type the code uses.
#[derive(Debug, Clone, PartialEq)]
pub struct Number(pub Value);

impl<'a> Arbitrary<'a> for Number {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(Number(match u.int_in_range(0..=11u8)? {
            0 => 0.into(),
            1 => 1.into(),
            2 => (-1).into(),
            3 => i64::MAX.into(),
            4 => i64::MIN.into(),
            5 => u64::MAX.into(),
            6 => (u64::from(u32::MAX) + 1).into(),
            7 => {
                serde_json::Number::from_f64(f64::arbitrary(u)?).map_or(Value::Null, Value::Number)
            }
            8 => 1.5.into(),
            9 => u64::arbitrary(u)?.into(),
            _ => u16::arbitrary(u)?.into(),
        }))
    }
}

/// Any JSON value, at most four levels deep (deeper only tests serde's
/// recursion limit, which has its own tests).
#[derive(Debug, Clone, PartialEq)]
pub struct Json(pub Value);

impl<'a> Arbitrary<'a> for Json {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        value(u, 4).map(Json)
    }
}

pub fn value(u: &mut Unstructured, depth: u32) -> Result<Value> {
    let top = if depth == 0 { 3 } else { 5 };
    Ok(match u.int_in_range(0..=top)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => Number::arbitrary(u)?.0,
        3 => Value::String(Word::arbitrary(u)?.0),
        4 => {
            let n = u.int_in_range(0..=4u8)?;
            let mut items = Vec::new();
            for _ in 0..n {
                items.push(value(u, depth - 1)?);
            }
            Value::Array(items)
        }
        _ => {
            let n = u.int_in_range(0..=4u8)?;
            let mut map = Map::new();
            for _ in 0..n {
                map.insert(Word::arbitrary(u)?.0, value(u, depth - 1)?);
            }
            Value::Object(map)
        }
    })
}

/// A field of a message: mostly right, sometimes missing, null or of
/// another type.
#[derive(Debug, Clone, PartialEq)]
pub enum Field<T> {
    Right(T),
    Missing,
    Wrong(Value),
}

impl<'a, T: Arbitrary<'a>> Arbitrary<'a> for Field<T> {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(match u.int_in_range(0..=9u8)? {
            0 => Field::Missing,
            1 => Field::Wrong(value(u, 2)?),
            _ => Field::Right(T::arbitrary(u)?),
        })
    }
}

/// An object built field by field.
#[derive(Default)]
pub struct Obj(pub Map<String, Value>);

impl Obj {
    pub fn new() -> Obj {
        Obj::default()
    }

    /// `key: value` when the field is there (as given, or wrong).
    pub fn field<T>(mut self, key: &str, field: &Field<T>, to_json: impl Fn(&T) -> Value) -> Obj {
        match field {
            Field::Right(v) => {
                self.0.insert(key.to_string(), to_json(v));
            }
            Field::Wrong(v) => {
                self.0.insert(key.to_string(), v.clone());
            }
            Field::Missing => {}
        }
        self
    }

    pub fn set(mut self, key: &str, value: impl Into<Value>) -> Obj {
        self.0.insert(key.to_string(), value.into());
        self
    }

    /// Extra keys, which `deny_unknown_fields` types must refuse.
    pub fn extra(mut self, extra: &Option<(Word, Json)>) -> Obj {
        if let Some((key, value)) = extra {
            self.0.insert(key.0.clone(), value.0.clone());
        }
        self
    }

    pub fn value(self) -> Value {
        Value::Object(self.0)
    }
}

pub fn words(items: &[Word]) -> Value {
    Value::Array(items.iter().map(Value::from).collect())
}

pub fn to_bytes(value: &Value) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}
