//! Timing belongs to Blaise: keys that look like timing settings are refused
//! with a message that says where they belong.

/// Words that mark a key as a session timing setting.
const TIMING_WORDS: &[&str] = &[
    "idle",
    "timeout",
    "lifetime",
    "inactivity",
    "expire",
    "expiry",
    "ttl",
    "pause",
    "session_deadline",
];

pub fn is_timing_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase().replace('-', "_");
    TIMING_WORDS.iter().any(|w| key.contains(w))
}

pub fn timing_message(key: &str) -> String {
    format!(
        "`{key}` looks like a timing setting, and blaise.yml has none: timing belongs to the agent's settings in the control plane \
         (`blaise agent set NAME --inactivity 10m --idle-policy pause --paused-lifetime 24h --timeout 2h`)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_timing_keys() {
        for key in [
            "idle_timeout",
            "idle",
            "pause-lifetime",
            "paused_lifetime",
            "run_timeout",
            "inactivity",
            "ttl",
        ] {
            assert!(is_timing_key(key), "{key}");
        }
        for key in ["plugs", "agent", "limits", "hook_deadline", "memory"] {
            assert!(!is_timing_key(key), "{key}");
        }
    }
}
