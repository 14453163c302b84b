//! What a name or an id may be. Names (agents, runners) are chosen by people and end up in URL
//! paths, log lines, HTML and shell commands, so they keep to a small alphabet that is safe in all
//! of them. Ids are made only by the control plane ([`crate::auth::new_id`]), so an id of any
//! other shape cannot exist and is answered "not found" without being looked up.

use crate::error::{Error, Result};

/// The longest name.
pub const NAME_MAX: usize = 64;

/// The rule for agent and runner names, as errors and docs/control-plane.md state it.
pub const NAME_RULE: &str =
    "1 to 64 characters from a-z, 0-9, '.', '_' and '-', starting with a letter or a digit";

/// How many lowercase hex digits follow an id's prefix (`ses_0123456789abcdef`).
pub const ID_HEX_DIGITS: usize = 16;

/// The longest plug id or permission request id (both come from the runner, not from people).
const TOKEN_MAX: usize = 128;

pub fn is_name(value: &str) -> bool {
    let mut bytes = value.bytes();
    value.len() <= NAME_MAX
        && matches!(bytes.next(), Some(b'a'..=b'z' | b'0'..=b'9'))
        && bytes.all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'.' | b'_' | b'-'))
}

/// An agent or runner name that `field` of the request carries: 400 `invalid_name` unless it
/// follows [`NAME_RULE`].
pub fn check_name(field: &str, value: &str) -> Result<()> {
    if is_name(value) {
        return Ok(());
    }
    Err(Error::invalid(
        "invalid_name",
        field,
        format!(
            "`{field}` is not a valid name: {} (a name is {NAME_RULE})",
            shown(value)
        ),
    ))
}

/// The longest a person's name may be as a filter gives it: an email's longest (RFC 5321).
pub const MAX_PERSON: usize = 254;

/// Whether `who` can name someone who acts in Blaise: a person's name, an email an identity
/// provider vouched for, `admin`, a source (`linear:coder`): one line of 1 to
/// [`MAX_PERSON`] bytes.
pub fn is_person(who: &str) -> bool {
    !who.is_empty() && who.len() <= MAX_PERSON && !who.chars().any(char::is_control)
}

/// [`is_person`], or a 400 naming `field`.
pub fn check_person(field: &str, who: &str) -> Result<()> {
    if is_person(who) {
        return Ok(());
    }
    Err(Error::invalid(
        "invalid_field",
        field,
        format!(
            "`{field}` must be a person's name or email (1 to {MAX_PERSON} characters, one line)"
        ),
    ))
}

/// The most labels a runner instance may have or an agent may require.
pub const MAX_LABELS: usize = 64;

/// Runner labels (what an instance offers, what an agent requires): at most [`MAX_LABELS`],
/// each following the name rule; an error names `field[i]`.
pub fn check_labels(field: &str, labels: &[String]) -> Result<()> {
    check_list(field, labels, MAX_LABELS, "labels", check_name)
}

/// A list a request carries: at most `max` `noun`, each passing `check` (which is given the
/// field `field[i]` to name). Repeats are the caller's to fold (labels are a set).
pub fn check_list(
    field: &str,
    items: &[String],
    max: usize,
    noun: &str,
    check: impl Fn(&str, &str) -> Result<()>,
) -> Result<()> {
    if items.len() > max {
        return Err(Error::invalid(
            "invalid_field",
            field,
            format!("at most {max} {noun}, not {}", items.len()),
        ));
    }
    for (i, item) in items.iter().enumerate() {
        check(&format!("{field}[{i}]"), item)?;
    }
    Ok(())
}

/// A kind of id that requests carry: what it names and the prefix [`crate::auth::new_id`] gives it.
pub struct IdKind {
    pub what: &'static str,
    pub prefix: &'static str,
}

pub const SESSION: IdKind = IdKind {
    what: "session",
    prefix: "ses",
};
pub const RUN: IdKind = IdKind {
    what: "run",
    prefix: "run",
};
pub const ENVIRONMENT: IdKind = IdKind {
    what: "environment",
    prefix: "env",
};

/// Whether `id` has the shape of a `kind` id made by [`crate::auth::new_id`].
pub fn is_id(kind: &IdKind, id: &str) -> bool {
    id.strip_prefix(kind.prefix)
        .and_then(|rest| rest.strip_prefix('_'))
        .is_some_and(|hex| {
            hex.len() == ID_HEX_DIGITS
                && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        })
}

/// A `kind` id from a request: one of another shape is not found.
pub fn check_id(kind: &IdKind, id: &str) -> Result<()> {
    if is_id(kind, id) {
        return Ok(());
    }
    let IdKind { what, prefix } = kind;
    Err(Error::NotFound(format!(
        "no {what} with id {}: {what} ids are `{prefix}_` and {ID_HEX_DIGITS} hex digits",
        shown(id)
    )))
}

/// A plug id in a plug-state path: 400 unless it is 1 to 128 letters, digits, '-', '_' and '.',
/// not all dots (`.` and `..` are path segments clients rewrite).
pub fn check_plug_id(plug: &str) -> Result<()> {
    check_plug_id_at("plug", plug)
}

/// [`check_plug_id`], naming `field` in the error.
pub fn check_plug_id_at(field: &str, plug: &str) -> Result<()> {
    let charset = plug
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if !plug.is_empty() && plug.len() <= TOKEN_MAX && charset && !plug.chars().all(|c| c == '.') {
        return Ok(());
    }
    Err(Error::invalid(
        "invalid_plug_id",
        field,
        format!(
            "invalid plug id {}: use 1 to {TOKEN_MAX} letters, digits, '-', '_' and '.'",
            shown(plug)
        ),
    ))
}

/// Whether a permission request id (the agent's, passed on by the runner) is 1 to 128 characters
/// with no control characters.
pub fn is_request_id(id: &str) -> bool {
    !id.trim().is_empty() && id.len() <= TOKEN_MAX && !id.chars().any(char::is_control)
}

/// A permission request id in a URL path: one that could not have been stored is not found.
pub fn check_request_id_in_path(id: &str) -> Result<()> {
    if is_request_id(id) {
        return Ok(());
    }
    Err(Error::NotFound(format!(
        "no permission request with id {}",
        shown(id)
    )))
}

/// A value a runner chooses (its instance name, a report id, its agent's ACP
/// session id, a transcript entry's kind) that `field` carries: 1 to 128
/// characters, no control characters. 400 `invalid_field` otherwise, so that
/// nothing unbounded or line-breaking is stored or logged.
pub fn check_token(field: &str, value: &str) -> Result<()> {
    if is_request_id(value) {
        return Ok(());
    }
    Err(Error::invalid(
        "invalid_field",
        field,
        format!(
            "`{field}` must be 1 to {TOKEN_MAX} characters with no control characters, not {}",
            shown(value)
        ),
    ))
}

/// `value` quoted for an error message or a log line: control characters escaped and cut at 64
/// characters, so what a client sent cannot forge lines or flood the answer.
pub fn shown(value: &str) -> String {
    blaise_protocol::text::quoted(value, blaise_protocol::text::QUOTED_MAX)
}

/// A comma-separated list as people type it (`a, b,c`) → `["a", "b", "c"]`; blank → `[]`.
pub fn comma_list(list: &str) -> Vec<String> {
    list.split(',')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_in_use_are_valid() {
        for name in [
            "script",
            "box",
            "default",
            "build-box",
            "build-box-1",
            "claude",
            "dev",
            "dev-2",
            "a",
            "r",
            "box-fresh",
            "bench",
            "my_agent.v2",
            "0",
        ] {
            assert!(is_name(name), "{name}");
        }
        assert!(is_name(&"a".repeat(NAME_MAX)));
    }

    #[test]
    fn hostile_names_are_refused() {
        for name in [
            "",
            "../../x",
            "..",
            ".",
            "-x",
            "_x",
            "<script>alert(1)</script>",
            "a\0b",
            "a\nb",
            "a b",
            "A",
            "Box",
            "a/b",
            "a%2fb",
            "é",
            "runners/box/revoke?",
        ] {
            assert!(!is_name(name), "{name:?}");
            let e = check_name("agents[1]", name).unwrap_err();
            assert_eq!(e.code(), "invalid_name");
            assert!(e.to_string().contains("`agents[1]`"), "{e}");
        }
        assert!(!is_name(&"a".repeat(NAME_MAX + 1)));
    }

    #[test]
    fn ids_have_one_shape() {
        let id = crate::auth::new_id(SESSION.prefix);
        assert!(is_id(&SESSION, &id), "{id}");
        assert!(!is_id(&RUN, &id));
        for bad in [
            "ses_nope",
            "ses_0123456789abcde",
            "ses_0123456789abcdef0",
            "ses_0123456789ABCDEF",
            "../runners/box/revoke?",
            "ses-0123456789abcdef",
            "",
        ] {
            assert!(!is_id(&SESSION, bad), "{bad}");
            assert_eq!(check_id(&SESSION, bad).unwrap_err().code(), "not_found");
        }
    }

    #[test]
    fn plug_ids_and_request_ids() {
        check_plug_id("sandbox").unwrap();
        check_plug_id("my.plug_2-x").unwrap();
        for bad in ["", ".", "..", "a/b", "a b", &"p".repeat(129)] {
            assert!(check_plug_id(bad).is_err(), "{bad}");
        }
        assert!(is_request_id("perm-0"));
        assert!(is_request_id("42"));
        assert!(!is_request_id(""));
        assert!(!is_request_id("a\nb"));
        assert!(!is_request_id(&"r".repeat(129)));
    }

    #[test]
    fn shown_values_are_escaped_and_short() {
        assert_eq!(shown("a\nb"), "\"a\\nb\"");
        let long = shown(&"x".repeat(1000));
        assert!(long.len() < 80 && long.ends_with('…'), "{long}");
    }
}
