//! Durations as people write them: `500ms`, `30s`, `5m`, `2h` (and `1d`).

use std::fmt;

/// Parses `500ms`, `30s`, `5m`, `2h`, `1d` into milliseconds.
pub fn parse(text: &str) -> Result<i64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(|| format!("{text:?} has no unit: write 500ms, 30s, 5m or 2h"))?;
    let (number, unit) = text.split_at(split);
    let n: i64 = number.parse().map_err(|_| {
        format!("{text:?} does not start with a number: write 500ms, 30s, 5m or 2h")
    })?;
    let factor = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => {
            return Err(format!(
                "{text:?}: unknown unit {unit:?}; use ms, s, m, h or d"
            ));
        }
    };
    n.checked_mul(factor)
        .ok_or_else(|| format!("{text:?} is too long"))
}

/// Formats milliseconds back into the largest exact unit.
pub struct Human(pub i64);

impl fmt::Display for Human {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0;
        for (factor, unit) in [
            (86_400_000, "d"),
            (3_600_000, "h"),
            (60_000, "m"),
            (1_000, "s"),
        ] {
            if ms != 0 && ms % factor == 0 {
                return write!(f, "{}{unit}", ms / factor);
            }
        }
        write!(f, "{ms}ms")
    }
}

/// To a whole second below a minute, a whole minute below an hour, …: a
/// duration to read at a glance (`4m`), not `4m12s`.
pub fn rounded(ms: i64) -> i64 {
    let unit = if ms < 60_000 {
        1_000
    } else if ms < 3_600_000 {
        60_000
    } else if ms < 86_400_000 {
        3_600_000
    } else {
        86_400_000
    };
    ms / unit * unit
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_units() {
        assert_eq!(parse("500ms"), Ok(500));
        assert_eq!(parse("30s"), Ok(30_000));
        assert_eq!(parse("5m"), Ok(300_000));
        assert_eq!(parse("2h"), Ok(7_200_000));
        assert_eq!(parse("1d"), Ok(86_400_000));
    }

    #[test]
    fn rejects_what_is_not_a_duration() {
        assert!(parse("5").unwrap_err().contains("no unit"));
        assert!(parse("m5").is_err());
        assert!(parse("5 weeks").is_err());
        assert!(parse("").is_err());
    }

    #[test]
    fn formats_in_the_largest_exact_unit() {
        assert_eq!(Human(7_200_000).to_string(), "2h");
        assert_eq!(Human(90_000).to_string(), "90s");
        assert_eq!(Human(1_500).to_string(), "1500ms");
        assert_eq!(Human(0).to_string(), "0ms");
    }
}
