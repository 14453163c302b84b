//! Which of sixteen bytes are token bytes ([`super::TOKEN`]), in one
//! vector compare each: the scan's inner loop. Byte by byte, the plug pays a
//! table load, an address computation and, every few bytes, the engine's
//! deadline check; sixteen at a time it pays them once. The same
//! classification runs natively with SSE2 (every x86-64 has it) and in wasm
//! with the SIMD proposal (the plug is built with `simd128`, wasmtime runs
//! it), as `memchr` does; elsewhere there is no mask and the scan reads byte
//! by byte.
//!
//! A token byte is one of `[0-9A-Za-z]` and `_-+/=.:@%~,`; in ASCII:
//! - `+ , - . / 0-9 :` are one range, 0x2B..=0x3A;
//! - letters are one range once case is folded (`x | 0x20`), 0x61..=0x7A;
//! - `%`, `=`, `@`, `_` and `~` are single bytes.
//!
//! A range test is one add and one signed compare: `x - lo` moved into the
//! signed range (`+ 0x80`) is below `hi - lo + 1 - 0x80` exactly when `x`
//! is in `lo..=hi` (wrapping, so bytes ≥ 0x80 are never in an ASCII range).

/// Bit `j` is set when `rest[j]` is a token byte, for the first 64 bytes
/// of `rest` (the bits past its end are clear).
///
/// In wasm a function of its own: its vector constants would otherwise
/// take the registers of the loop that walks the mask.
#[cfg_attr(target_family = "wasm", inline(never))]
pub(crate) fn mask64(rest: &[u8]) -> u64 {
    let mut mask = 0;
    if let Some(full) = rest.get(..64) {
        for (k, block) in full.chunks_exact(16).enumerate() {
            match token_mask(block.try_into().unwrap()) {
                Some(bits) => mask |= (bits as u64) << (16 * k),
                None => return by_table(full),
            }
        }
        mask
    } else {
        // The text's last bytes.
        by_table(rest)
    }
}

fn by_table(rest: &[u8]) -> u64 {
    rest.iter()
        .take(64)
        .enumerate()
        .fold(0, |m, (j, &c)| m | (super::TOKEN[c as usize] as u64) << j)
}

/// The bytes of the ranges and singles above (used where there is a vector
/// unit).
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
const RANGE: (u8, u8) = (0x2B, 0x3A);
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
const LETTERS: (u8, u8) = (0x61, 0x7A);
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
const SINGLES: [u8; 5] = [b'%', b'=', b'@', b'_', b'~'];

/// Bit `j` is set when `block[j]` is a token byte.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn token_mask(block: &[u8; 16]) -> Option<u16> {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of x86-64; the load reads the 16 bytes of
    // `block` (no alignment needed).
    unsafe {
        let x = _mm_loadu_si128(block.as_ptr().cast());
        let in_range = |v: __m128i, (lo, hi): (u8, u8)| {
            let shifted = _mm_add_epi8(v, _mm_set1_epi8(0x80u8.wrapping_sub(lo) as i8));
            _mm_cmplt_epi8(shifted, _mm_set1_epi8((hi - lo + 1) as i8 ^ i8::MIN))
        };
        let mut m = _mm_or_si128(
            in_range(x, RANGE),
            in_range(_mm_or_si128(x, _mm_set1_epi8(0x20)), LETTERS),
        );
        for c in SINGLES {
            m = _mm_or_si128(m, _mm_cmpeq_epi8(x, _mm_set1_epi8(c as i8)));
        }
        Some(_mm_movemask_epi8(m) as u16)
    }
}

/// Bit `j` is set when `block[j]` is a token byte.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
pub(crate) fn token_mask(block: &[u8; 16]) -> Option<u16> {
    use std::arch::wasm32::*;
    // SAFETY: the load reads the 16 bytes of `block` (wasm loads need no
    // alignment).
    let x = unsafe { v128_load(block.as_ptr().cast()) };
    let in_range = |v: v128, (lo, hi): (u8, u8)| {
        let shifted = i8x16_add(v, i8x16_splat(0x80u8.wrapping_sub(lo) as i8));
        i8x16_lt(shifted, i8x16_splat((hi - lo + 1) as i8 ^ i8::MIN))
    };
    let mut m = v128_or(
        in_range(x, RANGE),
        in_range(v128_or(x, i8x16_splat(0x20)), LETTERS),
    );
    for c in SINGLES {
        m = v128_or(m, i8x16_eq(x, i8x16_splat(c as i8)));
    }
    Some(i8x16_bitmask(m))
}

/// Bit `j` is set when `block[j]` is one of `bytes`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn any_of<const N: usize>(block: &[u8; 16], bytes: [u8; N]) -> Option<u16> {
    use std::arch::x86_64::*;
    // SAFETY: as in `token_mask`.
    unsafe {
        let x = _mm_loadu_si128(block.as_ptr().cast());
        let mut m = _mm_setzero_si128();
        for c in bytes {
            m = _mm_or_si128(m, _mm_cmpeq_epi8(x, _mm_set1_epi8(c as i8)));
        }
        Some(_mm_movemask_epi8(m) as u16)
    }
}

/// Bit `j` is set when `block[j]` is one of `bytes`.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
pub(crate) fn any_of<const N: usize>(block: &[u8; 16], bytes: [u8; N]) -> Option<u16> {
    use std::arch::wasm32::*;
    // SAFETY: as in `token_mask`.
    let x = unsafe { v128_load(block.as_ptr().cast()) };
    let mut m = i8x16_splat(0);
    for c in bytes {
        m = v128_or(m, i8x16_eq(x, i8x16_splat(c as i8)));
    }
    Some(i8x16_bitmask(m))
}

/// No vector unit assumed here: the scan reads byte by byte.
#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
#[inline(always)]
pub(crate) fn token_mask(_block: &[u8; 16]) -> Option<u16> {
    None
}

#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
#[inline(always)]
pub(crate) fn any_of<const N: usize>(_block: &[u8; 16], _bytes: [u8; N]) -> Option<u16> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 64-byte mask is the table's reading (which is also what a build
    /// without a vector unit uses), for texts shorter and longer than a
    /// window.
    #[test]
    fn mask64_is_the_tables_reading() {
        let mut next = crate::tests::xorshift(0x9e37_79b9_7f4a_7c15);
        let mut text = [0u8; 200];
        for round in 0..2000 {
            text.fill_with(|| next() as u8);
            let len = round % text.len();
            assert_eq!(mask64(&text[..len]), by_table(&text[..len]), "{len} bytes");
        }
    }

    /// Every byte value, at every lane, classified as the table does.
    #[test]
    fn agrees_with_the_table_for_every_byte_at_every_lane() {
        if token_mask(&[0; 16]).is_none() {
            return;
        }
        for lane in 0..16 {
            for c in 0..=255u8 {
                // The other lanes hold a token byte and a non-token one in
                // turn, so a mask bleeding across lanes shows.
                let mut block: [u8; 16] =
                    std::array::from_fn(|j| if j % 2 == 0 { b'a' } else { b' ' });
                block[lane] = c;
                let m = token_mask(&block).unwrap();
                for (j, &b) in block.iter().enumerate() {
                    assert_eq!(
                        m >> j & 1 == 1,
                        super::super::TOKEN[b as usize],
                        "byte {b:#04x} at lane {j} (testing {c:#04x} at lane {lane})"
                    );
                }
            }
        }
    }
}
