//! A secret a command prints on a line of its own: `op read op://…/password`,
//! `terraform output -raw db_password`, `vault kv get -field=token …`,
//! `doppler secrets get KEY --plain`, `gcloud secrets versions access …`,
//! `aws secretsmanager get-secret-value … --output text`, `kubectl get secret
//! … | base64 -d`, `printenv API_TOKEN`, `echo $API_TOKEN`, `rails secret`.
//! (Random bytes a command prints, `openssl rand -hex 32`, stay: nothing
//! says they are a secret.) The command is on the line before (after any prompt: `$ `,
//! `user@host:~$ `, `❯ `, an agent's `Bash(…)`); the value is the next line,
//! one word, alone. What the command prints is a secret by what the command
//! is, whatever the value looks like, except where the value plainly is not
//! one (a host name, a path, a number, a stand-in such as `[MASKED]`).

use super::names::secret_kind;
use super::values::{dashed_identifier, hex_key, keylike, number, path, plain};
use crate::Found;

/// Longest command line read, and longest value line: a stream keeps the
/// lines before the one it holds back that fit in 1 KiB
/// (`redaction::stream`), so both fit.
const MAX_COMMAND: usize = 512;
const MAX_LINE: usize = 400;

/// What in a command line says its output is a secret: every part of one
/// row, in order (a part starting with a blank must follow a blank or the
/// start of the line). Rows marked `NAMED` print what the last argument
/// names: the name must be a secret's (`terraform output -raw endpoint`
/// prints a host).
struct Command {
    parts: &'static [&'static str],
    named: bool,
    /// What the name says nothing of is no key either (`cat README.md`).
    only_secrets: bool,
}

const fn c(parts: &'static [&'static str]) -> Command {
    Command {
        parts,
        named: false,
        only_secrets: false,
    }
}

const fn named(parts: &'static [&'static str]) -> Command {
    Command {
        parts,
        named: true,
        only_secrets: false,
    }
}

/// A file printed whose name names a secret.
const fn file(parts: &'static [&'static str]) -> Command {
    Command {
        parts,
        named: true,
        only_secrets: true,
    }
}

static COMMANDS: &[Command] = &[
    // Secret managers' reads.
    c(&["op read "]),
    c(&["op item get ", "--fields"]),
    c(&["doppler secrets get ", "--plain"]),
    c(&["doppler configs tokens create ", "--plain"]),
    c(&["doppler service-tokens create ", "--plain"]),
    c(&["vault kv get ", "-field"]),
    c(&["vault read ", "-field"]),
    c(&["vault print token"]),
    c(&["vault token create ", "-field"]),
    c(&["vault write ", "-field"]),
    c(&["gcloud secrets versions access "]),
    c(&["gcloud auth print-access-token"]),
    c(&["gcloud auth print-identity-token"]),
    c(&["gcloud auth application-default print-access-token"]),
    c(&["aws secretsmanager get-secret-value ", "text"]),
    c(&["aws ssm get-parameter ", "--with-decryption", "text"]),
    c(&["aws ecr get-login-password"]),
    c(&["aws codeartifact get-authorization-token ", "text"]),
    c(&["az keyvault secret show ", "tsv"]),
    c(&["az account get-access-token ", "tsv"]),
    c(&["kubectl get secret ", "base64 "]),
    c(&["kubectl get secret ", "base64decode"]),
    // With flags between (`kubectl -n argocd get secret …`).
    c(&["kubectl ", " get secret ", "base64 "]),
    named(&["kubectl view-secret "]),
    // PowerShell's SecretManagement and Az modules.
    c(&["Get-Secret ", "-AsPlainText"]),
    c(&["Get-AzKeyVaultSecret ", "-AsPlainText"]),
    c(&["ConvertFrom-SecureString ", "-AsPlainText"]),
    c(&["GetNetworkCredential().Password"]),
    c(&["kubectl create token "]),
    c(&["gh auth token"]),
    c(&["glab auth token"]),
    c(&["heroku auth:token"]),
    c(&["argocd admin initial-password"]),
    c(&["pass show "]),
    c(&["gopass show "]),
    c(&["security find-generic-password ", " -w"]),
    c(&["security find-internet-password ", " -w"]),
    c(&["secret-tool lookup "]),
    c(&["bw get password "]),
    c(&["lpass show ", "--password"]),
    c(&["cat ~/.vault-token"]),
    c(&["cat /run/secrets/"]),
    // A key file printed (`zabbix_agentd.psk`, Rails' `config/master.key`),
    // or written through `tee` as it is made.
    c(&["cat ", ".psk"]),
    c(&["cat ", "master.key"]),
    c(&["tee ", ".psk"]),
    // Made to be secrets.
    c(&["wg genkey"]),
    c(&["wg genpsk"]),
    c(&["makepasswd"]),
    // Keys made and printed alone: Headscale's pre-auth and API keys,
    // OpenShift's session token.
    c(&["headscale preauthkeys create"]),
    c(&["headscale apikeys create"]),
    c(&["oc whoami -t"]),
    c(&["oc whoami --show-token"]),
    c(&["wg show ", " private-key"]),
    c(&["pwgen "]),
    c(&["rails secret"]),
    c(&["mix phx.gen.secret"]),
    c(&["key:generate ", "--show"]),
    c(&["secrets.token_"]),
    c(&["get_random_secret_key"]),
    // What the last argument names.
    named(&["terraform output "]),
    named(&["tofu output "]),
    named(&["pulumi stack output "]),
    named(&["pulumi config get "]),
    named(&["doppler secrets get "]),
    named(&["printenv "]),
    named(&["echo $"]),
    named(&["echo \"$"]),
    // Keystores and key-value stores read by name.
    named(&["elasticsearch-keystore show "]),
    named(&["kibana-keystore show "]),
    named(&["consul kv get "]),
    // A file that names a secret, printed: `cat /var/lib/k3s/server/token`.
    file(&["cat "]),
    // Or encoded to be pasted into a CI secret: `base64 release.jks`.
    file(&["base64 "]),
    // `redis-cli`'s `GET config:smtp:secret`, its prompt `host:6379> `.
    named(&["GET "]),
];

/// The kind reported.
const KIND: &str = "command-output";
/// The kind reported for a value a label announced.
const ANNOUNCED: &str = "announced-secret";

/// Whether the word at `s` may be the first on its line (after its blanks,
/// an agent's `⎿ `, Codex's `└ ` or Gemini CLI's box bar `│ `, or after a password's
/// first symbol): the few byte tests made for every word.
#[inline(always)]
pub(crate) fn may_start_line(b: &[u8], s: usize) -> bool {
    s > 0
        && (b[s - 1] == b'\n'
            || (matches!(b[s - 1], b' ' | b'!' | b'*' | b'&' | b'^')
                && s >= 2
                && (matches!(b[s - 2], b' ' | b'\n' | 0xBF | 0x82)
                    // (`└`'s last two bytes; an em dash ends in one 0x94.)
                    || (b[s - 2] == 0x94 && s >= 3 && b[s - 3] == 0x94))))
}

/// Symbols a password may start with, before its first word.
fn symbol(c: &u8) -> bool {
    matches!(c, b'!' | b'*' | b'&' | b'^')
}

/// The value alone on the line of the word at `s`, if the line before runs
/// a command that prints a secret.
#[inline(never)]
pub(crate) fn at_word(b: &[u8], s: usize, found: &mut Vec<Found>) {
    let floor = s.saturating_sub(24);
    let Some(line) = b[floor..s]
        .iter()
        .rposition(|&c| c == b'\n')
        .map(|p| floor + p + 1)
    else {
        return;
    };
    let Some((start, end)) = lone_word(b, line) else {
        return;
    };
    // Both readings below want 8 bytes or more (`secret_like`): most
    // lines' lone words (`}`, `Some(0)`) end here, before the lines above
    // are looked for.
    if end - start < 8 || (start != s && !(start < s && b[start..s].iter().all(symbol))) {
        return;
    }
    let v = &b[start..end];
    if scratch_code(b, line, v) {
        found.push(Found {
            start,
            end,
            kind: KIND,
        });
        return;
    }
    let Some(before) = command_line_above(b, line) else {
        return;
    };
    // A label may follow a mark that reads as a prompt (`==> Token:`).
    // (A flag alone above names the value: `--requirepass` in a
    // container's `Args:`.)
    let kind = if printed_below(b, before, line, v) || (flag_alone(before) && secret_like(v)) {
        KIND
    } else if announced(b, line) && announced_value(v) {
        ANNOUNCED
    } else if before.len() >= MIN_BLOCK_LINE
        && last_byte(before).is_some_and(crate::b64)
        && block_line(v)
        && block_start(b, line, v.len()).is_some_and(|(_, wide)| {
            // A shorter last line: random by its digits or symbols, not a
            // word (`Finished`).
            v.len() == wide
                || v.iter()
                    .any(|&c| c.is_ascii_digit() || !c.is_ascii_alphabetic())
        })
    {
        KIND
    } else {
        return;
    };
    // A block of base64 lines with nothing before them is one mask, its
    // line breaks too: from the line above's word on.
    let start = if kind == KIND && start == line && block_line(v) {
        let above = line - previous_line(b, line).map_or(0, <[u8]>::len) - 1;
        lone_word(b, above)
            .filter(|&(s, e)| e - s >= MIN_BLOCK_LINE.max(v.len()) && block_line(&b[s..e]))
            .map_or(start, |(s, _)| s)
    } else {
        start
    };
    found.push(Found { start, end, kind });
}

/// Whether `v`, the word alone on the line at `line`, is what the command
/// on the line above it (`before`) prints.
fn printed_below(b: &[u8], before: &[u8], line: usize, v: &[u8]) -> bool {
    after_prompt(before)
        .or_else(|| codex_command(b, line))
        .and_then(printed)
        .is_some_and(|what| printed_value(what, v))
}

/// Most bytes read back through a block of base64 lines to the command that
/// printed it (a MongoDB keyfile is 1,024 characters at most, a keystore a
/// few KiB): half what a stream holds back (`MAX_HOLD`), so that a stream
/// holds the block from its first line while it goes on.
const MAX_BLOCK: usize = 16 << 10;

/// Shortest line of a block of base64 lines (`openssl rand -base64` and
/// `base64` wrap at 64 and 76).
const MIN_BLOCK_LINE: usize = 40;

/// Whether `v` may be a line of a block of base64: its alphabet only.
fn block_line(v: &[u8]) -> bool {
    v.len() >= 8 && v.len() <= MAX_LINE && v.iter().all(|&c| crate::b64(c))
}

/// The last byte of `line`'s text: before blanks, a `\r` and Gemini CLI's
/// closing bar.
fn last_byte(line: &[u8]) -> Option<u8> {
    let line = line.trim_ascii_end();
    let line = line.strip_suffix(BAR).unwrap_or(line).trim_ascii_end();
    line.last().copied()
}

/// The first line of the block of base64 lines the line at `line` (`width`
/// bytes of it so far) continues, and the block's width, if a command that
/// prints a secret printed it: `cat /var/lib/mongodb/keyfile`'s lines after
/// the first. The block's lines above are alone on their lines, as wide as
/// each other and at least as wide as this one.
fn block_start(b: &[u8], line: usize, width: usize) -> Option<(usize, usize)> {
    let mut at = line;
    let mut wide = None;
    loop {
        let above_start = at - previous_line(b, at)?.len() - 1;
        let word = lone_word(b, above_start)
            .map(|(s, e)| &b[s..e])
            .filter(|w| block_line(w) && w.len() >= MIN_BLOCK_LINE.max(width));
        match (word, wide) {
            (Some(w), None) => wide = Some(w.len()),
            (Some(w), Some(n)) if w.len() == n => {}
            // Above the block's first line: the command that printed it.
            _ => {
                let first = lone_word(b, at).map(|(s, e)| &b[s..e])?;
                let command = command_line_above(b, at)?;
                return (at != line && printed_below(b, command, at, first))
                    .then_some((at, first.len()));
            }
        }
        at = above_start;
        if line - at > MAX_BLOCK {
            return None;
        }
    }
}

/// Where the line of `cut` starts, if what it holds up to `cut` may be the
/// start of a value [`at_word`] would mask: the stream must hold it back.
#[inline(never)]
pub(crate) fn open_at(b: &[u8], cut: usize) -> Option<usize> {
    let line = crate::line_start(b, cut);
    if line == 0 || cut - line > MAX_LINE {
        return None;
    }
    let start = lead(b, line, cut)?;
    // (Blanks after the word: the line may go on, and the word then is not
    // alone on it. Gemini CLI's box closes the line with a bar.)
    let part = b[start..cut].trim_ascii_end();
    let part = part.strip_suffix(BAR).unwrap_or(part).trim_ascii_end();
    if part.iter().any(|c| c.is_ascii_whitespace()) {
        return None;
    }
    // A block of base64 lines a command printed: held from its first line
    // while it goes on, so that its lines are read, and masked as one,
    // with the command above.
    if part.iter().all(|&c| crate::b64(c))
        && let Some((first, _)) = block_start(b, line, part.len())
    {
        return Some(first);
    }
    let before = command_line_above(b, line)?;
    (after_prompt(before)
        .or_else(|| codex_command(b, line))
        .is_some_and(prints_a_secret)
        || announced(b, line)
        || flag_alone(before))
    .then_some(line)
}

/// Whether `line` is a flag alone that names a secret, its value on the
/// next line: a container's arguments as `kubectl describe` lists them
/// (`Args:` then `--requirepass`, then the password). (A YAML list's
/// `- --api-key` then `- …` is not read: its value is no lone word.)
fn flag_alone(line: &[u8]) -> bool {
    let flag = line.trim_ascii();
    let Some(name) = flag.strip_prefix(b"--").or_else(|| flag.strip_prefix(b"-")) else {
        return false;
    };
    name.len() >= 3
        && name.len() <= 40
        && name
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        && (secret_kind(name).is_some() || super::names::password_like(name))
}

/// The command Codex ran whose output starts on the line at `line`: its
/// transcript shows `bash -lc '<command>' in <directory>`, then `succeeded
/// in 41ms:` (or `exited 1 in 41ms:`), then the output; a few lines of
/// warnings may come first (`heroku auth:token`'s).
fn codex_command(b: &[u8], line: usize) -> Option<&[u8]> {
    let mut at = line;
    for _ in 0..4 {
        let above = previous_line(b, at)?;
        at -= above.len() + 1;
        // (Some versions print ` succeeded in …` after a blank.)
        let status = above.trim_ascii();
        if !status.ends_with(b"ms:") {
            continue;
        }
        // Older ones repeat the command after a time:
        // `[2024-05-01T10:00:00] bash -lc '…' succeeded in 41ms:`.
        if let Some(command) = timed_status(status) {
            return Some(command);
        }
        if !(status.starts_with(b"succeeded in ") || status.starts_with(b"exited ")) {
            continue;
        }
        let command = previous_line(b, at)?;
        let inner = command.strip_prefix(b"bash -lc '")?;
        let close = memchr::memrchr(b'\'', inner)?;
        return inner[close..]
            .starts_with(b"' in ")
            .then_some(&inner[..close]);
    }
    None
}

/// The command of an older Codex status line, `[time] bash -lc '<command>'
/// succeeded in 41ms:` (or `exited 1 in 41ms:`).
fn timed_status(status: &[u8]) -> Option<&[u8]> {
    let rest = status.strip_prefix(b"[")?;
    let close = memchr::memchr(b']', &rest[..rest.len().min(40)])?;
    let inner = rest[close + 1..].strip_prefix(b" bash -lc '")?;
    let end = memchr::memrchr(b'\'', inner)?;
    let after = &inner[end + 1..];
    (after.starts_with(b" succeeded in ") || after.starts_with(b" exited "))
        .then_some(&inner[..end])
}

/// Whether a label on the line before the one at `line` (or on the one
/// before that, a blank line between) announces a secret: `Your new API key
/// (shown once):`, `Created token for ci-bot:`, `Enter the password:`.
/// The words beside the secret's and the last say what else it is in
/// `Public key:`, `API key ID:`, `Cache key:`, `Token name:`.
fn announced(b: &[u8], line: usize) -> bool {
    let Some(mut label) = previous_line(b, line) else {
        return false;
    };
    if label.iter().all(u8::is_ascii_whitespace) {
        let Some(above) = line
            .checked_sub(label.len() + 1)
            .and_then(|l| previous_line(b, l))
        else {
            return false;
        };
        label = above;
    }
    announces(label)
}

/// Words that name a secret in a label.
const SECRET_WORDS: &[&[u8]] = &[
    b"token",
    b"password",
    b"passphrase",
    b"secret",
    b"key",
    b"apikey",
    b"credential",
    b"credentials",
];

/// Longest label read.
const MAX_LABEL: usize = 96;

/// Whether `label` (a line) is a few words ending with `:` (a parenthesis
/// before it), one of them a secret's, none beside it nor the last one
/// saying what else the value is.
fn announces(label: &[u8]) -> bool {
    let label = label.strip_suffix(b"\r").unwrap_or(label);
    let label = label.trim_ascii();
    if label.len() > MAX_LABEL {
        return false;
    }
    let Some(label) = label.strip_suffix(b":") else {
        return false;
    };
    // `(shown once)`: said of the value, not naming it.
    let label = match label.strip_suffix(b")") {
        Some(open) => match memchr::memrchr(b'(', open) {
            Some(p) => open[..p].trim_ascii_end(),
            None => return false,
        },
        None => label,
    };
    let label = ["✔ ", "✓ ", "? ", "> ", "* ", "! ", "==> ", "-> "]
        .iter()
        .find_map(|m| label.strip_prefix(m.as_bytes()))
        .unwrap_or(label);
    // A log's phase before it (`[upload-certs] Using certificate key:`).
    let label = match label.strip_prefix(b"[") {
        Some(rest) => match memchr::memchr(b']', rest) {
            Some(p) if p <= 32 => rest[p + 1..].trim_ascii_start(),
            _ => label,
        },
        None => label,
    };
    let words: Vec<&[u8]> = label
        .split(|&c| c == b' ')
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty()
        || words.len() > 8
        || words.iter().any(|w| {
            !w.iter().all(|&c| {
                c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'\'' | b'.' | b'@')
            })
        })
    {
        return false;
    }
    let is_secret = |w: &[u8]| SECRET_WORDS.iter().any(|s| w.eq_ignore_ascii_case(s));
    let Some(at) = words.iter().position(|w| is_secret(w)) else {
        return false;
    };
    let says = |i: usize| {
        words
            .get(i)
            .is_some_and(|w| super::positions::says_what_it_is(w))
    };
    // The secret's word with the one before it (`cache key`, `next token`).
    let joined: Vec<u8> = at
        .checked_sub(1)
        .map_or(&[][..], |p| words[p])
        .iter()
        .chain(words[at])
        .copied()
        .collect();
    let beside = says(at + 1) || (at > 0 && says(at - 1)) || says(words.len() - 1);
    // (`certificate key`: kubeadm's key that decrypts the cluster's keys.)
    (!beside || super::names::credential_key(&joined)) && !super::names::declines(&joined)
}

/// A value announced by a label: random as a key (`keylike`, a hex key) or
/// a strong password (letters of both cases, digits and a symbol).
fn announced_value(v: &[u8]) -> bool {
    let strong = v.len() >= 12
        && v.iter().any(u8::is_ascii_lowercase)
        && v.iter().any(u8::is_ascii_uppercase)
        && v.iter().any(u8::is_ascii_digit)
        && v.iter().any(|c| c.is_ascii_punctuation())
        && !v
            .iter()
            .any(|c| matches!(c, b'=' | b'/' | b':' | b'@' | b'.'));
    // `!`, `*` or `&` first are a password's here, not YAML's.
    (strong && !crate::placeholders::stand_in(v)) || (secret_like(v) && (keylike(v) || hex_key(v)))
}

/// The word alone on the line at `line`: after blanks or an agent's `⎿ `,
/// before blanks, a `\r` and the line's end.
#[inline]
fn lone_word(b: &[u8], line: usize) -> Option<(usize, usize)> {
    let limit = (line + MAX_LINE).min(b.len());
    let start = lead(b, line, limit)?;
    let mut end = start;
    while end < limit && !b[end].is_ascii_whitespace() {
        end += 1;
    }
    let mut i = end;
    while i < limit && matches!(b[i], b' ' | b'\t' | b'\r') {
        i += 1;
    }
    // Gemini CLI's box: ` │` closes the line.
    if b[i..limit].starts_with(BAR) {
        i += BAR.len();
        while i < limit && matches!(b[i], b' ' | b'\t' | b'\r') {
            i += 1;
        }
    }
    if !(i == b.len() || b[i] == b'\n') || end == start {
        return None;
    }
    Some((start, end))
}

/// The box-drawing bar that frames Gemini CLI's tool output.
const BAR: &[u8] = "│".as_bytes();

/// The line above the one at `line` that may run its command: the one
/// before it, or past the blank lines of Gemini CLI's box (`│      │`)
/// between a tool's title and its output.
fn command_line_above(b: &[u8], line: usize) -> Option<&[u8]> {
    let mut at = line;
    for _ in 0..3 {
        let above = previous_line(b, at)?;
        let inner = above.trim_ascii();
        let box_blank = inner.len() >= 2 * BAR.len()
            && inner.starts_with(BAR)
            && inner.ends_with(BAR)
            && inner[BAR.len()..inner.len() - BAR.len()]
                .trim_ascii()
                .is_empty();
        if !box_blank {
            return Some(above);
        }
        at -= above.len() + 1;
    }
    None
}

/// Past the blanks and the agent's mark (`⎿`) that start the line at
/// `line`, before `limit`.
fn lead(b: &[u8], line: usize, limit: usize) -> Option<usize> {
    let mut i = line;
    while i < limit && matches!(b[i], b' ' | b'\t') {
        i += 1;
    }
    if let Some(mark) = ["⎿".as_bytes(), BAR, "└".as_bytes()]
        .into_iter()
        .find(|m| b[i..limit].starts_with(m))
    {
        i += mark.len();
        while i < limit && matches!(b[i], b' ' | b'\t') {
            i += 1;
        }
    }
    (i - line <= 16).then_some(i)
}

/// The line before the one at `line`, without its `\n`.
/// Whether `v`, alone on the line at `line`, is one of the emergency
/// scratch codes of a `.google_authenticator` file: 8 digits, under its
/// options (`" TOTP_AUTH`, `" RATE_LIMIT 3 30`) and the codes before it.
fn scratch_code(b: &[u8], mut line: usize, v: &[u8]) -> bool {
    if v.len() != 8 || !v.iter().all(u8::is_ascii_digit) {
        return false;
    }
    for _ in 0..12 {
        let Some(above) = previous_line(b, line) else {
            return false;
        };
        line -= above.len() + 1;
        let t = above.trim_ascii();
        let t = t
            .strip_prefix("⎿".as_bytes())
            .map_or(t, <[u8]>::trim_ascii_start);
        if let Some(option) = t.strip_prefix(b"\" ") {
            return [
                &b"TOTP_AUTH"[..],
                b"HOTP_COUNTER",
                b"RATE_LIMIT",
                b"WINDOW_SIZE",
                b"DISALLOW_REUSE",
                b"STEP_SIZE",
            ]
            .iter()
            .any(|o| option.starts_with(o));
        }
        if t.len() != 8 || !t.iter().all(u8::is_ascii_digit) {
            return false;
        }
    }
    false
}

fn previous_line(b: &[u8], line: usize) -> Option<&[u8]> {
    let end = line.checked_sub(1)?;
    let floor = end.saturating_sub(MAX_COMMAND + 1);
    let start = b[floor..end]
        .iter()
        .rposition(|&c| c == b'\n')
        .map(|p| floor + p + 1);
    match start {
        Some(s) => Some(&b[s..end]),
        None if floor == 0 => Some(&b[..end]),
        None => None,
    }
}

/// A secret's value, not what plainly is something else: a host name, a
/// path, a number, words, a stand-in.
pub(super) fn secret_like(v: &[u8]) -> bool {
    if v.len() < 8 || !plain(v) || path(v) || number(v) {
        return false;
    }
    let letters = v.iter().filter(|c| c.is_ascii_alphabetic()).count();
    let digits = v.iter().filter(|c| c.is_ascii_digit()).count();
    // `db.cluster-x.rds.amazonaws.com`, `https://…`, `us-east-1`: a host,
    // a URL, a region.
    let host = v.contains(&b'.')
        && v.iter()
            .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'.' | b'-'));
    // `us-east-1`, `prod_db`, `v1.2.3`: words and small numbers.
    let words = v.split(|&c| matches!(c, b'-' | b'_' | b'.')).all(|part| {
        part.iter().all(u8::is_ascii_lowercase)
            || (part.len() <= 4 && part.iter().all(u8::is_ascii_digit))
    });
    // `X-API-Key`, `dbPassword`: a name; `ci-deploy-account-7k2m`: words
    // with a random tail.
    let name = (digits == 0 && dashed_identifier(v)) || super::values::worded(v);
    !(host || words || name || v.windows(3).any(|w| w == b"://") || letters + digits < 6)
}

/// The command on `line` after its prompt (`$ `, `user@host:~$ `, `# `,
/// `% `, `> `, `❯ `, `➜ `, set -x's `+ `, an agent's `Bash(` or `• Ran `), if it has
/// one within its first bytes: a command the transcript shows running.
/// In Gemini CLI's box (`│ ✔  Shell <command> │`), without the closing bar.
fn after_prompt(line: &[u8]) -> Option<&[u8]> {
    let boxed = line.trim_ascii();
    let line = match boxed.strip_prefix(BAR).and_then(|l| l.strip_suffix(BAR)) {
        Some(inner) => inner.trim_ascii_end(),
        None => line,
    };
    let head = &line[..line.len().min(MAX_PROMPT)];
    let mut at = 0;
    while let Some(p) = memchr::memchr2(b' ', b'(', &head[at..]).map(|p| at + p) {
        let before = &head[..p];
        let prompt = if head[p] == b'(' {
            before.ends_with(b"Bash")
        } else {
            matches!(before.last(), Some(b'$' | b'#' | b'%' | b'>' | b'+'))
                || before.ends_with("❯".as_bytes())
                || before.ends_with("➜".as_bytes())
                || before.ends_with("✔  Shell".as_bytes())
                // Codex's `• Ran <command>`, its output after `└ `.
                || before.ends_with("• Ran".as_bytes())
        };
        if prompt {
            return Some(&line[p + 1..]);
        }
        at = p + 1;
    }
    None
}

/// Longest prompt read before a command (`alice@build-host:~/src/shop$ `).
const MAX_PROMPT: usize = 96;

/// What a command prints that its value must look like.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Printed {
    /// A secret: anything not plainly something else (`secret_like`).
    Secret,
    /// What a name that says nothing names (`terraform output -raw
    /// relay`): a key's shape.
    Key,
    /// A file that is wholly a secret, by its name (`.erlang.cookie`'s 20
    /// capitals, `.google_authenticator`'s TOTP seed): one word.
    File,
}

/// Whether the command on `line` (after its prompt) prints a secret.
fn prints_a_secret(line: &[u8]) -> bool {
    printed(line).is_some()
}

/// What the command on `line` (after its prompt) prints, if a secret.
fn printed(line: &[u8]) -> Option<Printed> {
    if line.len() > MAX_COMMAND {
        return None;
    }
    COMMANDS.iter().find_map(|c| {
        let end = parts_in(line, c.parts)?;
        if c.only_secrets {
            if file_base(&line[end..]).is_some_and(|base| SECRET_FILES.contains(&base)) {
                return Some(Printed::File);
            }
            file_names_a_secret(&line[end..]).then_some(Printed::Secret)
        } else if c.named {
            argument_names(&line[end..])
        } else {
            (!fetches_something_else(line)).then_some(Printed::Secret)
        }
    })
}

/// Whether the file the last argument names is named for a secret, by its
/// whole base name (`master.key`, `server/token`; `public.key` says it is
/// public, `README.md` nothing).
fn file_names_a_secret(args: &[u8]) -> bool {
    let Some(base) = file_base(args) else {
        return false;
    };
    // A signature, a public key, a certificate or a digest, whatever the
    // name before (`plugin-kit.sig`, `SHA256.sig`, `release.pub`).
    const PUBLIC: [&[u8]; 9] = [
        b"sig", b"minisig", b"asc", b"pub", b"crt", b"cer", b"cert", b"sha256", b"sha512",
    ];
    if let Some(dot) = memchr::memrchr(b'.', base)
        && PUBLIC
            .iter()
            .any(|e| base[dot + 1..].eq_ignore_ascii_case(e))
    {
        return false;
    }
    // A keystore: Java's, Android's, PKCS#12, a KeePass database.
    const STORES: [&[u8]; 8] = [
        b"jks",
        b"keystore",
        b"p12",
        b"pfx",
        b"bks",
        b"p8",
        b"kdbx",
        b"keytab",
    ];
    if let Some(dot) = memchr::memrchr(b'.', base)
        && STORES
            .iter()
            .any(|e| base[dot + 1..].eq_ignore_ascii_case(e))
    {
        return true;
    }
    // (A MongoDB replica set's shared key: `keyfile`, `mongodb-keyfile`.)
    let keyfile = base.len() >= 7 && base[base.len() - 7..].eq_ignore_ascii_case(b"keyfile");
    !base.is_empty() && (keyfile || secret_kind(base).is_some())
}

/// Files whose whole content is a secret, by a name that does not say so:
/// Erlang's distribution cookie (RabbitMQ's cluster secret), a Kerberos
/// keytab, a TOTP seed's file.
const SECRET_FILES: [&[u8]; 2] = [b"erlang.cookie", b"google_authenticator"];

/// The base name of the file the last argument names, its dot aside
/// (`/var/lib/rabbitmq/.erlang.cookie` → `erlang.cookie`). The command
/// ends at a pipe, `;` or `&&` (`cat admin.password; echo`).
fn file_base(args: &[u8]) -> Option<&[u8]> {
    let args = args.strip_suffix(b")").unwrap_or(args);
    let args = &args[..memchr::memchr3(b'|', b';', b'&', args).unwrap_or(args.len())];
    let last = args
        .split(|&c| c == b' ')
        .rfind(|w| !w.is_empty() && !w.starts_with(b"-"))?;
    let base = memchr::memrchr(b'/', last).map_or(last, |p| &last[p + 1..]);
    Some(base.strip_prefix(b".").unwrap_or(base))
}

/// Whether `v` is what a command that prints `what` prints.
fn printed_value(what: Printed, v: &[u8]) -> bool {
    // A password file's line, `user:$apr1$…` (`cat .htpasswd`): a hash.
    if let Some(colon) = memchr::memchr(b':', v)
        && crate::placeholders::stand_in(&v[colon + 1..])
    {
        return false;
    }
    match what {
        Printed::Secret => secret_like(v),
        Printed::Key => secret_like(v) && keylike(v),
        Printed::File => {
            secret_like(v) || (v.len() >= 16 && plain(v) && v.iter().all(u8::is_ascii_alphanumeric))
        }
    }
}

/// Flags whose value names the field or the secret read (`vault kv get
/// -field=host`, `aws ssm get-parameter --name /app/db_host`).
const FIELD_FLAGS: &[&[u8]] = &[
    b"-field",
    b"--field",
    b"--fields",
    b"--name",
    b"-n",
    b"-Name",
    b"--secret",
    b"--secret-id",
];

/// Whether the command reads a field whose name says what else it is: a
/// host, a bucket, a user, a URL (`op read op://Prod/db/hostname`, `kubectl
/// get secret app -o jsonpath='{.data.bucket}' | base64 -d`). Secret
/// stores hold settings too; their values are masked by what they look like.
fn fetches_something_else(line: &[u8]) -> bool {
    // A reference or a path into the secret first, then a flag's value
    // (`kubectl … -n prod` names a namespace, not the field).
    let (mut reference, mut flag): (Option<&[u8]>, Option<&[u8]>) = (None, None);
    let mut words = line
        .split(|&c| c == b' ')
        .filter(|w| !w.is_empty())
        .peekable();
    while let Some(w) = words.next() {
        let w = trim_quotes(w);
        if let Some(at) = crate::find(w, b"op://") {
            reference = Some(&w[at..]);
        } else if let Some(at) = crate::find(w, b".data") {
            // `{.data.bucket}`, `{.data['db-host']}`, `{{.data.host | …}}`.
            reference = Some(&w[at + 5..]);
        } else if let Some(eq) = w.iter().position(|&c| c == b'=')
            && FIELD_FLAGS.contains(&&w[..eq])
        {
            flag = Some(&w[eq + 1..]);
        } else if FIELD_FLAGS.contains(&w)
            && let Some(next) = words.peek()
        {
            flag = Some(trim_quotes(next));
        }
    }
    let Some(field) = reference.or(flag) else {
        return false;
    };
    // Its last part: `op://Prod/db/hostname`, `/app/prod/db_host`,
    // `label=username`, `['db-host']}`.
    let mut field = field.split(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-')));
    let Some(key) = field.rfind(|p| !p.is_empty()) else {
        return false;
    };
    super::positions::says_what_it_is(key) && secret_kind(key).is_none()
}

fn trim_quotes(w: &[u8]) -> &[u8] {
    let w = w
        .strip_prefix(b"'")
        .or_else(|| w.strip_prefix(b"\""))
        .unwrap_or(w);
    w.strip_suffix(b"'")
        .or_else(|| w.strip_suffix(b"\""))
        .unwrap_or(w)
}

/// Where the last of `parts` ends in `line`, all found in order.
fn parts_in(line: &[u8], parts: &[&str]) -> Option<usize> {
    let mut at = 0;
    for (i, part) in parts.iter().enumerate() {
        let p = part.as_bytes();
        let found = crate::find(&line[at..], p)? + at;
        // The command itself starts a word (`sop read` is not `op read`).
        if i == 0
            && found > 0
            && !matches!(
                line[found - 1],
                b' ' | b'(' | b'`' | b'$' | b'>' | b'.' | b'/'
            )
        {
            let rest = parts_in(&line[found + 1..], parts)?;
            return Some(found + 1 + rest);
        }
        at = found + p.len();
    }
    Some(at)
}

/// What the last argument of what follows the command names: a secret
/// (`db_password`, `$API_TOKEN`, `shop:apiToken`), or nothing it says
/// (`relay`: a key if it looks like one).
fn argument_names(args: &[u8]) -> Option<Printed> {
    let args = args.strip_suffix(b")").unwrap_or(args);
    // What it pipes into is another command (`… relay | jq -r`).
    // (The command ends at a pipe, `;` or `&&`: `cat admin.password; echo`.)
    let args = &args[..memchr::memchr3(b'|', b';', b'&', args).unwrap_or(args.len())];
    let last = args
        .split(|&c| c == b' ')
        .rfind(|w| !w.is_empty() && !w.starts_with(b"-"))?;
    let name: Vec<u8> = last
        .iter()
        .copied()
        .filter(|&c| !matches!(c, b'$' | b'"' | b'\'' | b'{' | b'}'))
        .collect();
    let key = match name.iter().rposition(|&c| c == b':' || c == b'.') {
        Some(p) => &name[p + 1..],
        None => &name[..],
    };
    if secret_kind(key).is_some() {
        Some(Printed::Secret)
    } else {
        super::positions::says_nothing(key).then_some(Printed::Key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_commands_that_print_secrets() {
        let (s, k, no) = (Some(Printed::Secret), Some(Printed::Key), None);
        let cases: &[(&str, Option<Printed>)] = &[
            ("$ op read op://Private/Stripe/credential", s),
            ("alice@box:~/shop$ doppler secrets get API_KEY --plain", s),
            ("⏺ Bash(terraform output -raw db_password)", s),
            ("$ terraform output -raw endpoint", no),
            ("$ pulumi config get shop:apiToken", s),
            ("$ printenv GITHUB_TOKEN", s),
            // A name that says nothing: a key if it looks like one.
            ("$ printenv HOME", k),
            ("$ terraform output -json relay | jq -r", k),
            ("$ echo $API_KEY", s),
            ("$ echo $PATH", no),
            (
                "$ aws secretsmanager get-secret-value --secret-id db --query SecretString --output text",
                s,
            ),
            ("$ aws secretsmanager list-secrets --output text", no),
            ("$ sop read x", no),
            ("op read op://Private/Stripe/credential (no prompt)", no),
            ("$ openssl rand -hex 32", no),
            // Gemini CLI's box.
            (
                "│ ✔  Shell sudo elasticsearch-keystore show s3.client.default.secret_key │",
                s,
            ),
            (
                "│ ✔  Shell elasticsearch-keystore list                        │",
                no,
            ),
            ("  ❯ op read op://Private/Stripe/credential", s),
            // oh-my-zsh's theme: the command after the branch.
            ("➜  shop git:(main) ✗ gh auth token", s),
            ("➜  shop git:(main) ✗ gh auth status", no),
            ("$ base64 < /dev/urandom | head -c 72", no),
            ("$ ls -la", no),
            // A field that says what else it is.
            ("$ vault kv get -field=host secret/app/db", no),
            ("$ vault kv get -field=password secret/app/db", s),
            ("$ op read op://Prod/Database/hostname", no),
            ("$ op read \"op://Prod/Database/credential\"", s),
            (
                "$ kubectl get secret app -o jsonpath='{.data.bucket}' | base64 -d",
                no,
            ),
            (
                "$ kubectl get secret app -o jsonpath=\"{.data['db-user']}\" | base64 --decode",
                no,
            ),
            (
                "$ kubectl get secret app -o jsonpath='{.data.upstream}' | base64 -d",
                s,
            ),
            (
                "$ aws ssm get-parameter --name /app/prod/db_host --with-decryption --query Parameter.Value --output text",
                no,
            ),
            (
                "$ az keyvault secret show --vault-name kv -n sql-url --query value -o tsv",
                no,
            ),
            (
                "$ gcloud secrets versions access latest --secret=api-signing",
                s,
            ),
            // Keystores and key-value stores read by name; a program by its path.
            (
                "$ sudo /usr/share/elasticsearch/bin/elasticsearch-keystore show s3.client.default.secret_key",
                s,
            ),
            (
                "$ elasticsearch-keystore show xpack.security.http.ssl.keystore.secure_password",
                s,
            ),
            ("$ elasticsearch-keystore show cluster.name", no),
            ("$ consul kv get app/db/password", s),
            // Keys made and printed alone.
            (
                "root@hs:/etc# headscale preauthkeys create --user lab --reusable",
                s,
            ),
            ("root@hs:/etc# headscale preauthkeys list --user lab", no),
            ("$ oc whoami -t", s),
            ("$ oc whoami", no),
            ("$ wg genpsk", s),
            // A file that names a secret, printed.
            ("$ sudo cat /var/lib/rancher/k3s/server/token", s),
            ("$ cat config/master.key", s),
            ("$ cat VERSION", no),
            ("$ cat README.md", no),
        ];
        for (line, want) in cases {
            let command = after_prompt(line.as_bytes());
            assert_eq!(command.and_then(printed), *want, "{line}");
        }
    }

    #[test]
    fn a_password_files_hashes_are_no_secret_printed() {
        for v in [
            "kenji:$apr1$3Y/kUGIQ$vwTgEkKwJ1DxL57JH4gecC",
            "dev:$2y$05$5M2ee.QF2BlF/Dpok4GGp01tYa2JERUQzIA2T1IRi6bQDU5qOTIW0",
        ] {
            assert!(!printed_value(Printed::Secret, v.as_bytes()), "{v}");
        }
        assert!(printed_value(Printed::Secret, b"admin:Xk2-Vq9mLp7Rt3Zw"));
    }

    #[test]
    fn masks_only_what_looks_like_a_secret() {
        let cases: &[(&str, bool)] = &[
            ("Xk2-Vq9mLp7Rt3Zw", true),
            ("7YQd^tA6UisBqyjEC#=c3wYH", true),
            ("0dfd660fe13fa17168d13375f2e0156d", true),
            ("db.cluster-62k9ub8gxsmy.us-east-1.rds.amazonaws.com", false),
            ("/home/alice", false),
            ("[MASKED]", false),
            ("***", false),
            ("1234567890", false),
            ("us-east-1", false),
            ("https://vault.example.com", false),
        ];
        for (v, want) in cases {
            assert_eq!(secret_like(v.as_bytes()), *want, "{v}");
        }
    }
}
