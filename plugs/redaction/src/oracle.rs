//! What a streamed redaction may differ from the whole text's by, for the tests and the fuzz
//! target that cut text into chunks: it may mask more, never show more. A value the whole
//! text's redaction masks, or any piece of it of [`PIECE`] bytes (a stream cut inside a value
//! fails by showing its first or last part), must be seen no more often in the stream's output
//! than in the whole's.

use crate::detect::Redactor;

/// The shortest piece of a masked value that must not be seen (as the runner's secret mask).
pub const PIECE: usize = 8;

/// What `got` (the stream's output for `text`) shows that `whole` (the whole text's
/// redaction) masks: the first value or piece of a value seen more often, if any.
pub fn shown_more<'t>(r: &Redactor, text: &'t str, whole: &str, got: &str) -> Option<&'t str> {
    r.find(text).into_iter().find_map(|f| {
        let secret = &text[f.start..f.end];
        let pieces = (0..secret.len()).filter_map(|i| {
            let end = i + PIECE;
            (secret.is_char_boundary(i) && end <= secret.len() && secret.is_char_boundary(end))
                .then(|| &secret[i..end])
        });
        std::iter::once(secret)
            .chain(pieces)
            .find(|shown| got.matches(shown).count() > whole.matches(shown).count())
    })
}
