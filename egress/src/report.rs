//! What left, for the runner's record of the run: one JSON line, written to
//! the file descriptor the runner names in `BLAISE_EGRESS_REPORT_FD`.
//!
//! The descriptor is the runner's and this program's alone: it is closed
//! before the command runs (close-on-exec) and its variable is removed from
//! the command's environment, so nothing inside can write a report of its own.
//! Each line is the whole tally so far; the runner keeps the last one.
//!
//! Written by hand, not with serde: the shape is fixed and small, and this
//! program stays std and libc only (it runs beside every agent).

use crate::tally::Tally;

/// The variable that names the descriptor.
pub const FD_VAR: &str = "BLAISE_EGRESS_REPORT_FD";

impl Tally {
    /// `{"reached":[{"destination","connections","sent","received"}…],"refused":[…],"refused_more":N}`
    pub fn report_line(&self) -> String {
        let mut line = String::from("{\"reached\":[");
        for (i, (dest, c)) in self.reached().iter().enumerate() {
            if i > 0 {
                line.push(',');
            }
            line.push_str("{\"destination\":");
            string(&mut line, dest);
            line.push_str(&format!(
                ",\"connections\":{},\"sent\":{},\"received\":{}}}",
                c.connections, c.sent, c.received
            ));
        }
        line.push_str("],\"refused\":[");
        for (i, dest) in self.refusals().iter().enumerate() {
            if i > 0 {
                line.push(',');
            }
            string(&mut line, dest);
        }
        line.push_str(&format!("],\"refused_more\":{}}}\n", self.refused_more()));
        line
    }
}

/// A JSON string: quotes, backslashes and control characters escaped.
fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_is_the_whole_tally_as_json() {
        let t = Tally::default();
        assert_eq!(
            t.report_line(),
            "{\"reached\":[],\"refused\":[],\"refused_more\":0}\n"
        );
        t.connected("api.example.com:443");
        t.moved("api.example.com:443", 300, 40_000);
        t.refused("evil\"\\\n.example:443");
        t.refused("10.0.0.1:22");
        assert_eq!(
            t.report_line(),
            concat!(
                "{\"reached\":[{\"destination\":\"api.example.com:443\",\"connections\":1,\"sent\":300,\"received\":40000}],",
                "\"refused\":[\"10.0.0.1:22\",\"evil\\\"\\\\\\u000a.example:443\"],\"refused_more\":0}\n"
            )
        );
    }
}
