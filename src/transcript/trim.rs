//! A line trimmed of the whitespace around it, cheaply.

/// `text` without the whitespace around it, as `str::trim` gives it, looked at as
/// bytes where they are ASCII (a line's ends most often are: `{`, `}` and its line
/// end), which costs a fraction of `trim`'s decoding of characters at each end; a
/// non-ASCII byte or a vertical tab (whitespace to `trim`, not to `trim_ascii`)
/// left at either end is `trim`'s to judge.
#[inline]
pub(super) fn trim(text: &str) -> &str {
    let trimmed = text.trim_ascii();
    let ascii = |b: &u8| b.is_ascii() && *b != 0x0B;
    match (trimmed.as_bytes().first(), trimmed.as_bytes().last()) {
        (Some(first), Some(last)) if ascii(first) && ascii(last) => trimmed,
        (None, _) => trimmed,
        _ => text.trim(),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    /// Whitespace of every kind `str::trim` removes, its look-alikes it keeps, and
    /// what a line holds.
    fn pieces() -> impl Strategy<Value = String> {
        let piece = prop::sample::select(vec![
            " ", "\t", "\n", "\r", "\x0B", "\x0C", "\u{85}", "\u{A0}", "\u{2028}", "\u{3000}",
            "\u{1C}", "\u{FEFF}", "\u{200B}", "{", "}", "\"", "a", "é", "😀", "0",
        ]);
        prop::collection::vec(piece, 0..8).prop_map(|p| p.concat())
    }

    proptest! {
        #[test]
        fn it_trims_as_str_trim(text in pieces()) {
            prop_assert_eq!(super::trim(&text), text.trim());
        }
    }

    #[test]
    fn a_vertical_tab_or_a_non_ascii_space_at_an_end_is_trimmed_too() {
        for text in ["\x0B{}\n", "{}\x0B", "\u{A0}{} ", " {}\u{3000}", "\u{2028}"] {
            assert_eq!(super::trim(text), text.trim(), "{text:?}");
            assert_ne!(super::trim(text).len(), text.len(), "{text:?}");
        }
    }
}
