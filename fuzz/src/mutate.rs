//! Byte-level mutations of seed inputs: what a parser meets when a file is
//! hand-edited badly, a message is cut, or a peer is hostile.

use crate::rng::Rng;

/// Inputs never grow past this: parsers are fed whole files and bodies, and
/// bigger inputs only slow the run down.
pub const MAX_LEN: usize = 64 * 1024;

/// Fragments that change how YAML, JSON, paths and numbers are read.
const TOKENS: &[&[u8]] = &[
    b":",
    b": ",
    b"-",
    b"- ",
    b"\n  - ",
    b"[",
    b"]",
    b"{",
    b"}",
    b",",
    b"\"",
    b"'",
    b"\\",
    b"\n",
    b"\r\n",
    b"\t",
    b"  ",
    b"#",
    b"&a ",
    b"*a",
    b"<<: *a",
    b"!!binary ",
    b"!tag ",
    b"? ",
    b"|\n",
    b"null",
    b"true",
    b"~",
    b"0",
    b"-1",
    b"1e309",
    b"-0.0",
    b"9223372036854775807",
    b"9223372036854775808",
    b"-9223372036854775809",
    b"18446744073709551615",
    b"18446744073709551616",
    b"99999999999999999999999999999",
    b"\0",
    b"\\u0000",
    b"\\ud800",
    b"\xff",
    b"\xc3\x28",
    b"\xe2\x80\xae",
    b"\xf0\x9f\x92\xa9",
    b"%00",
    b"%2F",
    b"%",
    b"/",
    b"//",
    b"/..",
    b"?",
    b"&",
    b"=",
    b"ms",
    b"s",
    b"h",
    b"MiB",
    b"GiB",
];

/// Numbers at the edges of the integer types and the unit arithmetic.
const NUMBERS: &[&[u8]] = &[
    b"0",
    b"18446744073709551615",
    b"18446744073709551616",
    b"9223372036854775807",
    b"4294967296",
    b"307445734561825861",
    b"5124095576030432",
    b"00000000000000000000001",
];

/// Bytes that separate tokens: a swap replaces one of these by another.
const STRUCTURAL: &[u8] = b":-[]{},\"'\n /?&=#";

/// 1 to 8 mutations of `input`; `corpus` supplies splices.
pub fn mutate(rng: &mut Rng, input: &[u8], corpus: &[Vec<u8>]) -> Vec<u8> {
    let mut out = input.to_vec();
    let most = if rng.one_in(4) { 8 } else { 3 };
    let count = 1 + rng.below(most);
    for _ in 0..count {
        once(rng, &mut out, corpus);
    }
    out.truncate(MAX_LEN);
    out
}

fn once(rng: &mut Rng, out: &mut Vec<u8>, corpus: &[Vec<u8>]) {
    let len = out.len();
    let at = rng.below(len + 1);
    match rng.below(13) {
        // A bit flip.
        0 if len > 0 => {
            let i = rng.below(len);
            out[i] ^= 1 << rng.below(8);
        }
        // A random byte.
        1 if len > 0 => {
            let i = rng.below(len);
            out[i] = rng.next_u64() as u8;
        }
        // Random bytes inserted.
        2 => {
            let n = 1 + rng.below(8);
            let bytes = rng.bytes(n);
            out.splice(at..at, bytes);
        }
        // A range deleted.
        3 if len > 0 => {
            let start = at.min(len - 1);
            let n = 1 + rng.below((len - start).min(64));
            out.drain(start..start + n);
        }
        // A range repeated.
        4 if len > 0 => {
            let start = rng.below(len);
            let n = 1 + rng.below((len - start).min(256));
            let copy = out[start..start + n].to_vec();
            let most = if rng.one_in(8) { 64 } else { 2 };
            let times = 1 + rng.below(most);
            let at = rng.below(len + 1);
            for _ in 0..times {
                out.splice(at..at, copy.iter().copied());
            }
        }
        // A splice from another seed: the tail of this one replaced.
        5 if !corpus.is_empty() => {
            let other = rng.pick(corpus);
            if !other.is_empty() {
                let from = rng.below(other.len());
                out.truncate(at);
                out.extend_from_slice(&other[from..]);
            }
        }
        // A range of another seed inserted.
        6 if !corpus.is_empty() => {
            let other = rng.pick(corpus);
            if !other.is_empty() {
                let from = rng.below(other.len());
                let n = 1 + rng.below((other.len() - from).min(128));
                out.splice(at..at, other[from..from + n].iter().copied());
            }
        }
        // A token inserted.
        7 | 8 => {
            let token = *rng.pick(TOKENS);
            out.splice(at..at, token.iter().copied());
        }
        // A structural byte swapped for another.
        9 => {
            let spots: Vec<usize> = (0..len).filter(|&i| STRUCTURAL.contains(&out[i])).collect();
            if !spots.is_empty() {
                let i = *rng.pick(&spots);
                out[i] = *rng.pick(STRUCTURAL);
            }
        }
        // A number replaced by an extreme one.
        10 => {
            let digits: Vec<usize> = (0..len).filter(|&i| out[i].is_ascii_digit()).collect();
            if !digits.is_empty() {
                let start = *rng.pick(&digits);
                let end = (start..len)
                    .find(|&i| !out[i].is_ascii_digit())
                    .unwrap_or(len);
                let number = *rng.pick(NUMBERS);
                out.splice(start..end, number.iter().copied());
            }
        }
        // A line removed or doubled (YAML's and NDJSON's unit).
        11 => {
            let starts: Vec<usize> = std::iter::once(0)
                .chain((0..len).filter(|&i| out[i] == b'\n').map(|i| i + 1))
                .filter(|&i| i < len)
                .collect();
            if !starts.is_empty() {
                let start = *rng.pick(&starts);
                let end = (start..len)
                    .find(|&i| out[i] == b'\n')
                    .map_or(len, |i| i + 1);
                if rng.one_in(2) {
                    out.drain(start..end);
                } else {
                    let line = out[start..end].to_vec();
                    out.splice(start..start, line);
                }
            }
        }
        // Cut short.
        _ => out.truncate(at),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_stay_bounded_and_change_things() {
        let mut rng = Rng::new(1);
        let seed = b"agent:\n  command: [a]\nplugs: []\n".to_vec();
        let corpus = vec![seed.clone(), b"{\"a\": 1}".to_vec()];
        let mut changed = 0;
        for _ in 0..2000 {
            let out = mutate(&mut rng, &seed, &corpus);
            assert!(out.len() <= MAX_LEN);
            changed += usize::from(out != seed);
        }
        assert!(changed > 1800, "{changed}");
        // The empty input survives every mutation.
        for _ in 0..200 {
            mutate(&mut rng, b"", &corpus);
        }
    }
}
