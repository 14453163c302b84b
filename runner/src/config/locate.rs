//! Finding where something is written in `blaise.yml`, for errors found after
//! parsing (serde_yaml only gives locations for errors it raises itself).

/// The 1-based line and column of the `n`th (0-based) plug entry's `id:` key
/// with the given value.
pub fn plug_id(text: &str, id: &str, nth: usize) -> Option<(usize, usize)> {
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let trimmed = line.trim_start();
            let body = trimmed.strip_prefix("- ").unwrap_or(trimmed).trim_start();
            let value = body.strip_prefix("id:")?;
            // `id: a  # the redaction plug`: the comment is not the id.
            let value = value.split(" #").next().unwrap_or(value).trim();
            let value = value.trim_matches(|c| c == '"' || c == '\'');
            (value == id).then(|| (i + 1, line.len() - body.len() + 1))
        })
        .nth(nth)
}

/// The line and column of `key:` inside the entry that starts at `entry_line`,
/// if it is written there; else the entry's own position.
pub fn key_in_entry(text: &str, entry: (usize, usize), key: &str) -> (usize, usize) {
    let lines: Vec<&str> = text.lines().collect();
    let base_indent = entry.1 - 1;
    for (i, line) in lines.iter().enumerate().skip(entry.0 - 1) {
        let trimmed = line.trim_start();
        let body = trimmed.strip_prefix("- ").unwrap_or(trimmed).trim_start();
        let indent = line.len() - body.len();
        if i > entry.0 - 1
            && (indent < base_indent || trimmed.starts_with("- ") && indent <= base_indent)
        {
            break;
        }
        if indent == base_indent && body.starts_with(&format!("{key}:")) {
            return (i + 1, indent + 1);
        }
    }
    entry
}

#[cfg(test)]
mod tests {
    use super::*;

    const YML: &str = "plugs:\n  - id: a\n    source: x.wasm\n    with:\n      k: 1\n  - id: \"b\"\n    source: y.wasm\n  - id: a\n";

    #[test]
    fn finds_ids_and_keys() {
        assert_eq!(plug_id(YML, "a", 0), Some((2, 5)));
        assert_eq!(plug_id(YML, "b", 0), Some((6, 5)));
        assert_eq!(plug_id(YML, "a", 1), Some((8, 5)));
        assert_eq!(key_in_entry(YML, (2, 5), "with"), (4, 5));
        assert_eq!(key_in_entry(YML, (6, 5), "with"), (6, 5), "b has no with:");
        let commented = "plugs:\n  - id: a  # the redaction plug\n    source: x.wasm\n";
        assert_eq!(plug_id(commented, "a", 0), Some((2, 5)));
    }
}
