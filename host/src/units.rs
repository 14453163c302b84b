//! Human-written durations (`500ms`, `30s`, `5m`, `2h`) and sizes (`64MiB`).

use std::time::Duration;

pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(|| format!("`{t}` has no unit: write e.g. `500ms`, `30s`, `5m`, `2h`"))?;
    let (num, unit) = t.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("`{t}` does not start with a whole number"))?;
    let millis: u64 = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return Err(format!("`{t}`: unknown unit `{unit}` (use ms, s, m or h)")),
    };
    // Checked, in milliseconds: a product that wraps is another duration, and
    // one past u64 milliseconds cannot be added to an `Instant` (a hook call's
    // deadline is now + this).
    n.checked_mul(millis)
        .map(Duration::from_millis)
        .ok_or_else(|| format!("`{t}` is too large"))
}

pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("`{t}` does not start with a whole number"))?;
    let mult = match unit.trim() {
        "" | "B" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        other => {
            return Err(format!(
                "`{t}`: unknown unit `{other}` (use B, KiB, MiB or GiB)"
            ));
        }
    };
    n.checked_mul(mult)
        .ok_or_else(|| format!("`{t}` is too large"))
}

pub fn format_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(3_600_000) && ms > 0 {
        format!("{}h", ms / 3_600_000)
    } else if ms.is_multiple_of(60_000) && ms > 0 {
        format!("{}m", ms / 60_000)
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

pub fn format_size(bytes: u64) -> String {
    for (unit, size) in [("GiB", 1u64 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] {
        if bytes >= size && bytes.is_multiple_of(size) {
            return format!("{}{unit}", bytes / size);
        }
    }
    format!("{bytes}B")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_round_trip() {
        for s in ["500ms", "30s", "5m", "2h"] {
            assert_eq!(format_duration(parse_duration(s).unwrap()), s);
        }
        assert!(parse_duration("5").unwrap_err().contains("no unit"));
        assert!(parse_duration("5d").unwrap_err().contains("unknown unit"));
    }

    #[test]
    fn durations_too_large_are_refused_not_wrapped() {
        // Found by fuzzing (fuzz/, target blaise_yml): `m` and `h` wrapped
        // around, and a `hook_deadline` this large made the first hook call
        // panic adding it to now.
        for s in [
            "307445734561825861m",
            "5124095576030432h",
            "18446744073709551615s",
        ] {
            assert!(parse_duration(s).unwrap_err().contains("too large"), "{s}");
        }
        let largest = parse_duration("5124095576030h").unwrap();
        assert_eq!(largest, Duration::from_secs(5124095576030 * 3600));
        assert!(std::time::Instant::now().checked_add(largest).is_some());
        assert_eq!(
            parse_duration("18446744073709551615ms").unwrap(),
            Duration::from_millis(u64::MAX)
        );
    }

    #[test]
    fn sizes_round_trip() {
        assert_eq!(parse_size("64MiB").unwrap(), 64 << 20);
        assert_eq!(format_size(64 << 20), "64MiB");
        assert!(parse_size("64MB").unwrap_err().contains("unknown unit"));
    }
}
