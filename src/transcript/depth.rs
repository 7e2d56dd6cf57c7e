//! The nesting check: where a JSON text nests arrays and objects deeper than
//! [`MAX_JSON_DEPTH`], before serde reads it (serde_json skips the values nothing
//! reads, and keeps raw ones, without a limit of its own).

use super::MAX_JSON_DEPTH;

/// Where `text` nests JSON arrays and objects deeper than [`MAX_JSON_DEPTH`]: the byte
/// offset of the bracket one level too deep. Brackets in strings are text, and so is
/// the byte after a backslash in a string.
pub(super) fn too_deep(text: &str) -> Option<usize> {
    // Nesting cannot be deeper than the number of opening brackets: count them first,
    // and walk the text only when there are more.
    let bytes = text.as_bytes();
    if openings(bytes) <= MAX_JSON_DEPTH {
        return None;
    }
    #[cfg(test)]
    WALKS.set(WALKS.get() + 1);
    walk(bytes)
}

#[cfg(test)]
thread_local! {
    /// The walks [`too_deep`] made on this thread (what a reading costs in them is
    /// tested).
    pub(crate) static WALKS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The walk for the nesting check: the brackets outside strings, counted.
fn walk(bytes: &[u8]) -> Option<usize> {
    let mut depth = 0usize;
    brackets(bytes, 0, |b, _| {
        if b == b'[' || b == b'{' {
            depth += 1;
            depth > MAX_JSON_DEPTH
        } else {
            depth = depth.saturating_sub(1);
            false
        }
    })
}

/// The brackets of `bytes` outside strings, from `from` (outside a string), each
/// given to `bracket` with its offset until it says stop (`true`): that offset, or
/// `None` at the end. Brackets in strings are text, and so is the byte after a
/// backslash in a string. Nothing else is checked: the JSON is not validated.
///
/// Eight bytes at a time, the bytes that matter (quotes, backslashes, brackets)
/// found in a word at once by their bits ([`marks`]), each taken in turn; a string's
/// text with none of them in [`LONG`] words in a row is jumped over to its next
/// quote or backslash by memchr. (A walk a byte at a time was 15 instructions a byte;
/// one that called memchr at each string, 7 on a sample's JSON, whose strings are
/// mostly short keys and values.)
#[inline(always)]
pub(super) fn brackets(
    bytes: &[u8],
    from: usize,
    mut bracket: impl FnMut(u8, usize) -> bool,
) -> Option<usize> {
    let mut walk = Walk::default();
    let mut at = from;
    // Words of a string's text without a mark, in a row.
    let mut plain = 0;
    while let Some(word) = bytes.get(at..at + 8) {
        let Ok(word) = <[u8; 8]>::try_from(word) else {
            break;
        };
        let mut word_marks = marks(u64::from_le_bytes(word));
        if word_marks == 0 && walk.in_string {
            plain += 1;
            if plain == LONG {
                // A long string's text: on to its next quote or backslash.
                at += 8 + memchr::memchr2(b'"', b'\\', &bytes[at + 8..])?;
                plain = 0;
                continue;
            }
        } else {
            plain = 0;
        }
        while word_marks != 0 {
            let i = at + (word_marks.trailing_zeros() / 8) as usize;
            word_marks &= word_marks - 1;
            if walk.is_bracket(bytes[i], i) && bracket(bytes[i], i) {
                return Some(i);
            }
        }
        at += 8;
    }
    for (i, &b) in bytes.iter().enumerate().skip(at) {
        if matches!(b, b'"' | b'\\' | b'[' | b']' | b'{' | b'}')
            && walk.is_bracket(b, i)
            && bracket(b, i)
        {
            return Some(i);
        }
    }
    None
}

/// The words of a string's text without a mark after which the rest of the string is
/// searched by memchr (a call, dear where the string ends soon after).
const LONG: usize = 4;

/// Where the walk is: in a string or not.
#[derive(Default)]
struct Walk {
    in_string: bool,
    /// The bytes before it that come after a backslash in a string are text.
    text_until: usize,
}

impl Walk {
    /// The quote, backslash or bracket `b` at offset `i` taken: whether it is a
    /// bracket outside strings.
    #[inline(always)]
    fn is_bracket(&mut self, b: u8, i: usize) -> bool {
        if i < self.text_until {
            return false;
        }
        match b {
            b'"' => self.in_string = !self.in_string,
            b'\\' if self.in_string => self.text_until = i + 2,
            _ if self.in_string => {}
            b'[' | b'{' | b']' | b'}' => return true,
            _ => {}
        }
        false
    }
}

/// The bytes of `word` (eight, little-endian) that are a quote, a backslash, a
/// bracket or a brace: their high bits set, the others clear.
#[inline(always)]
fn marks(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    // A byte's high bit set where the byte is 0. Exact: each byte's low seven bits
    // plus 0x7F never carry into the next byte.
    let zero = |x: u64| !(((x & !HIGH) + !HIGH) | x) & HIGH;
    // `[` (0x5B) and `{` (0x7B) are the only bytes that are `{` with bit 5 set, `]`
    // and `}` the only ones that are `}`.
    let every = |b: u8| ONES * u64::from(b);
    let folded = word | every(0x20);
    zero(word ^ every(b'"'))
        | zero(word ^ every(b'\\'))
        | zero(folded ^ every(b'{'))
        | zero(folded ^ every(b'}'))
}

/// How many `[` and `{` `bytes` holds. A loop the compiler vectorizes: `[` (0x5B) and
/// `{` (0x7B) are the only bytes that are `{` with bit 5 set, so one comparison a
/// byte, summed in bytes over blocks of 255. (Searching for each bracket with memchr
/// calls it once per bracket: several times slower on a line of JSON.)
fn openings(bytes: &[u8]) -> usize {
    bytes
        .chunks(255)
        .map(|block| {
            let count = block
                .iter()
                .fold(0u8, |n, &b| n + u8::from(b | 0x20 == b'{'));
            usize::from(count)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::outside_strings;
    use super::{MAX_JSON_DEPTH, marks, walk};

    /// The walk a byte at a time, as the rule says it: the brackets outside strings
    /// (as [`outside_strings`] finds them for `compact`), counted. What the
    /// word-at-a-time walk must give.
    fn by_bytes(bytes: &[u8]) -> Option<usize> {
        let text = std::str::from_utf8(bytes).expect("ASCII");
        let mut depth = 0usize;
        for (i, b) in outside_strings(text) {
            match b {
                b'[' | b'{' => {
                    depth += 1;
                    if depth > MAX_JSON_DEPTH {
                        return Some(i);
                    }
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        None
    }

    fn walked(bytes: &[u8]) -> Option<usize> {
        walk(bytes)
    }

    #[test]
    fn each_byte_is_marked_as_it_is() {
        for b in 0..=255u8 {
            for place in 0..8 {
                let mut word = [b'a'; 8];
                word[place] = b;
                let marked = marks(u64::from_le_bytes(word));
                let expected = if b"\"\\[]{}".contains(&b) {
                    0x80 << (8 * place)
                } else {
                    0
                };
                assert_eq!(marked, expected, "byte {b:#x} at {place}");
            }
        }
    }

    #[test]
    fn a_bracket_too_deep_is_found_where_it_is() {
        let deep =
            |open: &str, close: &str, n: usize| format!("{}{}", open.repeat(n), close.repeat(n));
        let at_limit = deep("[", "]", MAX_JSON_DEPTH);
        assert_eq!(walked(at_limit.as_bytes()), None);
        let past = format!(
            r#"{{"k": "\"[[[", "v": {}}}"#,
            deep("[", "]", MAX_JSON_DEPTH)
        );
        assert_eq!(walked(past.as_bytes()), by_bytes(past.as_bytes()));
        assert_eq!(
            walked(past.as_bytes()),
            Some(past.find(": [").unwrap() + 2 + MAX_JSON_DEPTH - 1)
        );
        // In a long string, brackets are text; after it, they count again.
        let long = format!(
            r#"["{}\\", {}]"#,
            "[".repeat(300),
            deep("{\"a\":", "}", MAX_JSON_DEPTH)
        );
        assert_eq!(walked(long.as_bytes()), by_bytes(long.as_bytes()));
        assert!(walked(long.as_bytes()).is_some());
        // An escaped quote does not end a string, an escaped backslash is text.
        let escaped = format!(r#"["\"{}", "\\", {}]"#, "[".repeat(70), deep("[", "]", 70));
        assert_eq!(walked(escaped.as_bytes()), by_bytes(escaped.as_bytes()));
        assert!(walked(escaped.as_bytes()).is_some());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// Any text of the bytes that matter, and others, in runs of any length: the
        /// same answer as a byte at a time.
        #[test]
        fn the_walk_is_the_walk_a_byte_at_a_time(
            pieces in proptest::collection::vec(
                (prop::sample::select(&b"\"\\[]{}a :"[..]), 1..40usize),
                0..200,
            )
        ) {
            let bytes: Vec<u8> = pieces.iter().flat_map(|&(b, n)| std::iter::repeat_n(b, n)).collect();
            prop_assert_eq!(walked(&bytes), by_bytes(&bytes));
        }
    }
}
