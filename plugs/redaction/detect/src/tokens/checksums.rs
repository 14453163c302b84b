//! Checks that vendor formats carry (a checksum, a documented shape of
//! their groups): a token that fails its own is text that only looks like
//! one.

/// A NATS NKEY seed: base32 (RFC 4648, no padding) of two prefix bytes, the
/// 32-byte seed and a CRC-16/XMODEM of those 34, little-endian.
pub(super) fn nkey(token: &[u8]) -> bool {
    token.len() == 58 && nkey_checks(token)
}

/// A NATS NKEY public key (`U…` a user's, `A…` an account's, `O…`, `N…`,
/// `C…`, `X…`): one prefix byte, the 32-byte key and its CRC-16, 56 letters.
/// Public: a server's config lists them.
pub(crate) fn nkey_public(token: &[u8]) -> bool {
    token.len() == 56
        && matches!(token[0], b'U' | b'A' | b'O' | b'N' | b'C' | b'X')
        && nkey_checks(token)
}

/// Whether the base32 `token`'s last two bytes are the CRC-16 of the rest.
fn nkey_checks(token: &[u8]) -> bool {
    let mut raw = [0u8; 36];
    let (mut acc, mut bits, mut n) = (0u32, 0u32, 0usize);
    for &c in token {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'2'..=b'7' => c - b'2' + 26,
            _ => return false,
        };
        acc = (acc << 5) | u32::from(v);
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            if n == raw.len() {
                return false;
            }
            raw[n] = (acc >> bits) as u8;
            n += 1;
        }
    }
    // (The last letter's spare bits are zero, as an encoder leaves them.)
    n >= 3
        && acc & ((1 << bits) - 1) == 0
        && crc16_xmodem(&raw[..n - 2]) == u16::from_le_bytes([raw[n - 2], raw[n - 1]])
}

/// A Slack token's first group after its prefix (`xoxb-`, `xoxe.xoxp-`) is
/// a number followed by `-`: the format Slack documents for each kind.
pub(super) fn slack_groups(token: &[u8]) -> bool {
    let Some(dash) = memchr::memchr(b'-', token) else {
        return false;
    };
    let rest = &token[dash + 1..];
    let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
    digits > 0 && rest.get(digits) == Some(&b'-')
}

fn crc16_xmodem(data: &[u8]) -> u16 {
    let mut crc = 0u16;
    for &b in data {
        crc ^= u16::from(b) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nkey_seeds_are_told_by_their_checksum() {
        // Made as `nkeys` makes them (random seeds, Python, seed 51).
        let table: &[(&str, bool)] = &[
            (
                "SUAHYUT5O2BMX3NPXDDI5TQDHIHIIEHULKYZTPHFMIH6AVXQAYPTMNZRYI",
                true,
            ),
            (
                "SAAFT3II33KGNPJZ7BN3PZX5HTQQLXQU6IZZ32YOU7LSZUMOOPYPO3OV5Y",
                true,
            ),
            (
                "SOABXJPOTXRGPNEWQH3EXWC3HGMO2BKQ24TZDYHE6TBQRDSHZXHMLIRNRY",
                true,
            ),
            // One letter changed (in the seed; in the spare bits); one
            // short; not base32.
            (
                "SUAHYUT5O2BMX3NPXDDI5TQDHIHIIEHULKYZTPHFMIH6AVXQAYPTMNZRZI",
                false,
            ),
            (
                "SUAHYUT5O2BMX3NPXDDI5TQDHIHIIEHULKYZTPHFMIH6AVXQAYPTMNZRYJ",
                false,
            ),
            (
                "SUAHYUT5O2BMX3NPXDDI5TQDHIHIIEHULKYZTPHFMIH6AVXQAYPTMNZRY",
                false,
            ),
            (
                "SUAHYUT5O2BMX3NPXDDI5TQDHIHIIEHULKYZTPHFMIH6AVXQAYPTMNZR1I",
                false,
            ),
        ];
        for &(token, valid) in table {
            assert_eq!(nkey(token.as_bytes()), valid, "{token}");
        }
    }

    #[test]
    fn slack_tokens_start_with_a_number() {
        let table: &[(&str, bool)] = &[
            (
                "xoxb-2210535565-1893204817302-QPbVnSBvRHeTlJbaAQLtUEmZ",
                true,
            ),
            (
                "xoxp-2210535565-2216839247-4210582219462-0f1d8e2c7b6a5d4c3b2a19f8e7d6c5b4",
                true,
            ),
            ("xoxe.xoxp-1-Mi0yLTIyMTA1MzU1NjUtNDIxMDU4MjIxOTQ2Mi0", true),
            ("xoxb-not-a-real-token", false),
            ("xoxb-123abc-456", false),
        ];
        for &(token, valid) in table {
            assert_eq!(slack_groups(token.as_bytes()), valid, "{token}");
        }
    }

    #[test]
    fn nkey_public_keys_are_told_by_their_checksum() {
        // Made as `nkeys` makes them (a random key, Python, seed 51).
        let table: &[(&str, bool)] = &[
            (
                "UB6FE7LWQLF63L5YY2HM4AZ2B2CBB5C2WGM3ZZLCB7QFN4AGD43DPI4Z",
                true,
            ),
            (
                "UB6FE7LWQLF63L5YY2HM4AZ2B2CBB5C2WGM3ZZLCB7QFN4AGD43DPI5Z",
                false,
            ),
            (
                "SUAHYUT5O2BMX3NPXDDI5TQDHIHIIEHULKYZTPHFMIH6AVXQAYPTMNZRYI",
                false,
            ),
        ];
        for &(token, valid) in table {
            assert_eq!(nkey_public(token.as_bytes()), valid, "{token}");
        }
    }
}
