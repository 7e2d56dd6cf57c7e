//! JSON strings as a log writes them: their plain runs found eight bytes at a time,
//! their escapes checked and decoded as serde_json decodes them. The transcript
//! scanner reads strings with these; a tool call whose arguments a log wrote as a
//! JSON string keeps it as written and decodes it with these when asked.

/// The text of the JSON string `quoted` (its quotes included), or `None` if it is
/// not one.
pub(crate) fn decode(quoted: &str) -> Option<String> {
    let bytes = quoted.as_bytes();
    if bytes.first() != Some(&b'"') {
        return None;
    }
    let end = 1 + plain(&bytes[1..])?;
    let mut out = String::with_capacity(quoted.len());
    out.push_str(quoted.get(1..end)?);
    let end = if bytes[end] == b'"' {
        end + 1
    } else {
        unescape_into(quoted, end, &mut out)?
    };
    (end == quoted.len()).then_some(out)
}

/// Decodes the rest of a string's text onto `out`, from the backslash at `at` in
/// `text` (a line), and gives where the string ends (just past its closing quote);
/// `None` at an escape JSON does not have, a lone surrogate or a control character.
pub(crate) fn unescape_into(text: &str, mut at: usize, out: &mut String) -> Option<usize> {
    let bytes = text.as_bytes();
    loop {
        // At a backslash.
        let escape = *bytes.get(at + 1)?;
        at += 2;
        if escape == b'u' {
            let (c, end) = unicode_escape(bytes, at)?;
            out.push(c);
            at = end;
        } else {
            out.push(char::from(match escape {
                b'"' => b'"',
                b'\\' => b'\\',
                b'/' => b'/',
                b'b' => 0x8,
                b'f' => 0xc,
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                _ => return None,
            }));
        }
        at = copy_run(text, at, out)?;
        // At the quote or the backslash that ended the run.
        if bytes[at] == b'"' {
            return Some(at + 1);
        }
    }
}

/// Checks the rest of a string's text from the backslash at `at` in `bytes`, as
/// [`unescape_into`] decodes it, and gives where the string ends (just past its
/// closing quote). (Out of line: most strings have no escape, and their skip is then
/// a few instructions.)
#[cold]
pub(crate) fn skip_escaped(bytes: &[u8], mut at: usize) -> Option<usize> {
    loop {
        // At a backslash.
        let escape = *bytes.get(at + 1)?;
        at += 2;
        match escape {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
            b'u' => at = unicode_escape(bytes, at)?.1,
            _ => return None,
        }
        let end = at + plain(bytes.get(at..)?)?;
        if bytes[end] == b'"' {
            return Some(end + 1);
        }
        at = end;
    }
}

/// The character of a `\u` escape whose four digits begin at `at`, a surrogate pair
/// joined, and where the escape ends; a lone surrogate gives up (serde_json refuses
/// it in a string it reads).
pub(crate) fn unicode_escape(bytes: &[u8], at: usize) -> Option<(char, usize)> {
    let first = hex4(bytes, at)?;
    match first {
        0xD800..=0xDBFF => {
            if bytes.get(at + 4..at + 6)? != b"\\u" {
                return None;
            }
            let second = hex4(bytes, at + 6)?;
            if !(0xDC00..=0xDFFF).contains(&second) {
                return None;
            }
            let c = char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))?;
            Some((c, at + 10))
        }
        0xDC00..=0xDFFF => None,
        _ => Some((char::from_u32(first)?, at + 4)),
    }
}

/// The value of the four hex digits at `at`.
fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    let mut value = 0;
    for &d in digits {
        value = value * 16 + char::from(d).to_digit(16)?;
    }
    Some(value)
}

/// Copies the plain run of a string's text that starts at `at` onto `out` and gives
/// where it ends (at a quote or a backslash; a control character gives up):
/// measured, then copied in one call.
#[inline(always)]
fn copy_run(text: &str, at: usize, out: &mut String) -> Option<usize> {
    let end = at + plain(text.as_bytes().get(at..)?)?;
    out.push_str(text.get(at..end)?);
    Some(end)
}

/// The length of the plain run at the start of a string's remaining bytes: up to the
/// closing quote or a backslash, which must come; a control character (which JSON
/// does not allow in a string) gives up.
#[inline]
pub(crate) fn plain(rest: &[u8]) -> Option<usize> {
    let mut i = 0;
    while let Some(word) = rest.get(i..i + 8) {
        let flags = special(u64::from_le_bytes(word.try_into().ok()?));
        if flags != 0 {
            i += flags.trailing_zeros() as usize / 8;
            return (rest[i] >= 0x20).then_some(i);
        }
        i += 8;
    }
    let tail = rest.get(i..)?;
    let end = i + tail
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
    (rest[end] >= 0x20).then_some(end)
}

/// Eight bytes of a string at once (SWAR, as serde_json scans strings), in the order
/// they come: the high bit of each byte that is a quote, a backslash or below 0x20
/// (which ends a plain run) is set. Each test can flag bytes after a true one (a borrow
/// carries), never before it, so the lowest flag is the first.
#[inline(always)]
fn special(x: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    zero(x ^ (ONES * u64::from(b'"')))
        | zero(x ^ (ONES * u64::from(b'\\')))
        | (x.wrapping_sub(ONES * 0x20) & !x & HIGH)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{decode, plain};

    proptest! {
        /// The eight-bytes-at-a-time search finds what a byte loop finds: the first quote
        /// or backslash, or nothing where a control character or the end comes first.
        #[test]
        fn plain_finds_the_first_special_byte(
            bytes in proptest::collection::vec(
                prop_oneof![
                    4 => 0x20u8..0x7f,
                    1 => Just(b'"'),
                    1 => Just(b'\\'),
                    1 => 0u8..0x20,
                    1 => 0x80u8..=0xff,
                ],
                0..40,
            )
        ) {
            let naive = bytes
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .filter(|&i| bytes[i] >= 0x20);
            prop_assert_eq!(plain(&bytes), naive);
        }
    }

    #[test]
    fn decodes_as_serde_json_does() {
        for quoted in [
            r#""""#,
            r#""plain""#,
            r#""{\"a\": 1}""#,
            r#""tab\there\nand \u00e9 \ud83d\ude00 \/ \\ \b\f\r""#,
            r#""é and \"quotes\"""#,
        ] {
            let expected: String = serde_json::from_str(quoted).unwrap();
            assert_eq!(decode(quoted).as_deref(), Some(&*expected), "{quoted}");
        }
    }

    #[test]
    fn refuses_what_serde_json_refuses() {
        for quoted in [
            "",
            "plain",
            r#""unclosed"#,
            r#""bad \x escape""#,
            r#""lone \ud83d surrogate""#,
            r#""lone \ude00 low""#,
            "\"control \u{1} byte\"",
            r#""after" the quote"#,
            r#""short \u12""#,
        ] {
            assert!(serde_json::from_str::<String>(quoted).is_err(), "{quoted}");
            assert_eq!(decode(quoted), None, "{quoted}");
        }
    }
}
