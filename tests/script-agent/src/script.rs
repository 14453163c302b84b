//! The script language: one command per line of the prompt text.

use std::time::Duration;

/// One line of a prompt, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `say TEXT`: one agent message chunk.
    Say(String),
    /// `think TEXT`: one agent thought chunk.
    Think(String),
    /// `stream N TEXT`: TEXT as one agent message in N chunks.
    Stream(usize, String),
    /// `drip MS N TEXT`: as `stream`, MS milliseconds between chunks (each its own batch).
    Drip(u64, usize, String),
    /// `run CMD`: `sh -c CMD` in the working directory, reported as a tool call.
    Run(String),
    /// `env NAME`: says the value of the environment variable NAME.
    Env(String),
    /// `ask TITLE`: asks the client for permission (options `allow`, `deny`).
    Ask(String),
    /// `wait`: waits until the turn is cancelled.
    Wait,
    /// `sleep MS`: waits MS milliseconds (or until the turn is cancelled).
    Sleep(Duration),
    /// `crash`: exits the process with status 101 in the middle of the turn.
    Crash,
    /// `hang`: waits for ever, ignoring `session/cancel` (a wedged agent).
    Hang,
    /// `exit`: the turn is answered, then the process exits with status 3
    /// before the next one (an agent that dies between turns).
    Exit,
    /// `spew BYTES`: writes BYTES bytes to stderr, in lines of about 1 KiB.
    Spew(usize),
    /// `leak TEXT`: TEXT in every field an agent can fill (see the README).
    Leak(String),
    /// `fail TEXT`: the turn is answered with an error whose message is TEXT.
    Fail(String),
    /// `flood N RATE`: N one-chunk agent messages, RATE per second, each
    /// saying when it was sent (`sent_us=MICROS`): load for benchmarks.
    Flood(usize, u32),
    /// Anything else: answered with `You said: LINE`.
    Echo(String),
}

/// Parses a prompt: one command per non-blank line; a line that is not a
/// well-formed command is echoed.
pub fn parse(prompt: &str) -> Vec<Command> {
    prompt
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(parse_line)
        .collect()
}

fn parse_line(line: &str) -> Command {
    let echo = || Command::Echo(line.to_owned());
    let trimmed = line.trim_start();
    let (word, rest) = trimmed.split_once(' ').unwrap_or((trimmed, ""));
    let rest = rest.trim_end_matches(['\r', '\n']);
    match word.trim_end() {
        "say" => Command::Say(rest.to_owned()),
        "think" => Command::Think(rest.to_owned()),
        "stream" => {
            let (count, text) = rest.split_once(' ').unwrap_or((rest, ""));
            match count.parse::<usize>() {
                Ok(count) if count > 0 => Command::Stream(count, text.to_owned()),
                _ => echo(),
            }
        }
        "drip" => {
            let mut words = rest.splitn(3, ' ');
            let ms = words.next().and_then(|w| w.parse::<u64>().ok());
            let count = words.next().and_then(|w| w.parse::<usize>().ok());
            match (ms, count, words.next()) {
                (Some(ms), Some(count), Some(text)) if count > 0 => {
                    Command::Drip(ms, count, text.to_owned())
                }
                _ => echo(),
            }
        }
        "run" if !rest.trim().is_empty() => Command::Run(rest.to_owned()),
        "env" if !rest.trim().is_empty() => Command::Env(rest.trim().to_owned()),
        "ask" => Command::Ask(rest.to_owned()),
        "wait" if rest.trim().is_empty() => Command::Wait,
        "sleep" => match rest.trim().parse::<u64>() {
            Ok(ms) => Command::Sleep(Duration::from_millis(ms)),
            Err(_) => echo(),
        },
        "crash" if rest.trim().is_empty() => Command::Crash,
        "hang" if rest.trim().is_empty() => Command::Hang,
        "exit" if rest.trim().is_empty() => Command::Exit,
        "spew" => match rest.trim().parse::<usize>() {
            Ok(bytes) => Command::Spew(bytes),
            Err(_) => echo(),
        },
        "leak" if !rest.trim().is_empty() => Command::Leak(rest.to_owned()),
        "fail" if !rest.trim().is_empty() => Command::Fail(rest.to_owned()),
        "flood" => {
            let mut words = rest.split_whitespace().map(str::parse::<u64>);
            match (words.next(), words.next(), words.next()) {
                (Some(Ok(count)), Some(Ok(rate)), None) if rate > 0 => {
                    Command::Flood(count as usize, rate.min(u64::from(u32::MAX)) as u32)
                }
                _ => echo(),
            }
        }
        _ => echo(),
    }
}

/// Splits `text` into `count` chunks of nearly equal length (in characters),
/// in order; their concatenation is `text`. Never more chunks than
/// characters, and at least one chunk.
pub fn chunks(text: &str, count: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let count = count.clamp(1, chars.len().max(1));
    let (size, extra) = (chars.len() / count, chars.len() % count);
    let mut out = Vec::with_capacity(count);
    let mut start = 0;
    for index in 0..count {
        let len = size + usize::from(index < extra);
        out.push(chars[start..start + len].iter().collect());
        start += len;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flood_takes_a_count_and_a_rate() {
        assert_eq!(parse("flood 5000 1000"), vec![Command::Flood(5000, 1000)]);
        for bad in [
            "flood",
            "flood 10",
            "flood 10 0",
            "flood ten 5",
            "flood 1 2 3",
        ] {
            assert_eq!(parse(bad), vec![Command::Echo(bad.into())], "{bad}");
        }
    }

    #[test]
    fn each_line_is_one_command() {
        let script = "say hello world\nthink hmm\nstream 3 abcdefg\nrun ls -l\nenv HOME\nask Delete files?\nwait\nsleep 20\ncrash\n\nhow are you";
        assert_eq!(
            parse(script),
            vec![
                Command::Say("hello world".into()),
                Command::Think("hmm".into()),
                Command::Stream(3, "abcdefg".into()),
                Command::Run("ls -l".into()),
                Command::Env("HOME".into()),
                Command::Ask("Delete files?".into()),
                Command::Wait,
                Command::Sleep(Duration::from_millis(20)),
                Command::Crash,
                Command::Echo("how are you".into()),
            ]
        );
    }

    #[test]
    fn malformed_commands_are_echoed() {
        for line in [
            "stream x abc",
            "stream 0 abc",
            "sleep soon",
            "run",
            "env",
            "wait now",
            "crash later",
            "leak",
            "fail",
        ] {
            assert_eq!(parse(line), vec![Command::Echo(line.into())], "{line}");
        }
    }

    #[test]
    fn chunks_concatenate_to_the_text() {
        assert_eq!(chunks("abcdefg", 3), ["abc", "de", "fg"]);
        assert_eq!(chunks("ab", 5), ["a", "b"]);
        assert_eq!(chunks("", 3), [""]);
        assert_eq!(chunks("héllo", 2).concat(), "héllo");
    }
}
