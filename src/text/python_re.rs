//! Python's `re` meaning for a `C[...]` pattern, in the regex crate's syntax.
//!
//! Langroid runs `re.search(pattern, content, re.IGNORECASE)`. Where the regex crate
//! reads the same text differently, the pattern is rewritten to Python's meaning, or
//! refused with the position and what Python would mean:
//!
//! - `$` (without `(?m)`) also matches before a final newline, as in Python:
//!   `(?:\n?\z)`. `\Z` is Python's absolute end: `\z`.
//! - `\<` and `\>` are literal `<` and `>` in Python (word boundaries in the regex
//!   crate).
//! - Inside a class, `[` is a literal (a nested class in the regex crate, so
//!   `[[:alpha:]]` is Python's class of `[`, `:`, `a`, ... followed by `]`), and `&&`,
//!   `--` and `~~` are literal characters (set operations in the regex crate).
//! - `{,n}` is `{0,n}`, and a comment group `(?#...)` is skipped, as in Python.
//! - `{` that does not start a Python repetition (`{m}`, `{m,}`, `{,n}`, `{m,n}`, no
//!   spaces) is a literal: `a{ 1 }` is the text `a{ 1 }`.
//! - Under case-insensitive matching (the default of `C[...]`, until `(?-i)`), `i`,
//!   `I`, `ı` (U+0131) and `İ` (U+0130) are one letter, as in Python.
//! - A possessive quantifier (`a++`, `a*+`, `a?+`, `a{2}+`: Python 3.11) is refused:
//!   the regex crate would read a nested repetition.
//!
//! The rewritten pattern keeps a map from its bytes to the pattern's, so that an
//! error the regex crate reports points into the pattern as written.

use std::ops::Range;

use super::RegexError;

/// A pattern in the regex crate's syntax with Python's meaning.
pub(crate) struct Translated {
    /// The rewritten pattern.
    pub(crate) text: String,
    /// For each byte of `text` (and one past its end), the byte of the pattern it
    /// came from.
    origin: Vec<usize>,
}

impl Translated {
    /// The span of the pattern as written that `span` of the rewritten one covers.
    pub(crate) fn original(&self, span: &Range<usize>) -> Range<usize> {
        let at = |i: usize| self.origin[i.min(self.origin.len() - 1)];
        let start = at(span.start);
        start..at(span.end).max(start)
    }
}

struct Out {
    text: String,
    origin: Vec<usize>,
}

impl Out {
    fn push(&mut self, s: &str, from: usize) {
        self.text.push_str(s);
        self.origin.extend(std::iter::repeat_n(from, s.len()));
    }
}

/// Rewrites `pattern` (case-insensitive at its start when `case_insensitive`).
pub(crate) fn translate(
    pattern: &str,
    case_insensitive: bool,
) -> Result<Translated, (RegexError, Range<usize>)> {
    let multiline = sets_multiline(pattern);
    // Inline flags that turn case-insensitivity off are followed roughly: after any
    // `(?-i` the rest is taken as case-sensitive.
    let mut out = Out {
        text: String::with_capacity(pattern.len() + 8),
        origin: Vec::with_capacity(pattern.len() + 8),
    };
    let bytes = pattern.as_bytes();
    let mut fold = case_insensitive;
    let mut class_depth = 0usize;
    // Inside a class: whether it holds i or I (as a letter or in a range), and the
    // last letter (the start of a possible range).
    let (mut class_has_i, mut class_prev): (bool, Option<char>) = (false, None);
    let mut i = 0;
    while i < pattern.len() {
        let c = pattern[i..].chars().next().unwrap_or('\0');
        let len = c.len_utf8();
        if class_depth == 0 && pattern[i..].starts_with("(?-i") {
            fold = false;
        }
        if c == '\\' {
            let Some(next) = pattern[i + 1..].chars().next() else {
                out.push("\\", i);
                i += 1;
                continue;
            };
            let mut escaped = &pattern[i..i + 1 + next.len_utf8()];
            // `\p{..}`, `\P{..}`, `\x{..}`: the braces belong to the escape.
            if matches!(next, 'p' | 'P' | 'x') && pattern[i + 2..].starts_with('{') {
                if let Some(close) = pattern[i + 2..].find('}') {
                    escaped = &pattern[i..i + 3 + close];
                }
            }
            match (class_depth, next) {
                (0, 'Z') => out.push("\\z", i),
                (_, '<') => out.push("<", i),
                (_, '>') => out.push(">", i),
                _ => out.push(escaped, i),
            }
            i += escaped.len();
            continue;
        }
        if class_depth > 0 {
            match c {
                '[' => out.push("\\[", i),
                ']' => {
                    class_depth = 0;
                    // Python folds i, I, ı and İ together: so does the class.
                    if fold && class_has_i {
                        out.push("\u{131}\u{130}", i);
                    }
                    out.push("]", i);
                }
                '&' | '-' | '~' if bytes.get(i + 1) == Some(&(c as u8)) => {
                    let pair = if c == '&' {
                        "\\&\\&"
                    } else if c == '-' {
                        "\\-\\-"
                    } else {
                        "\\~\\~"
                    };
                    out.push(pair, i);
                    i += 2;
                    continue;
                }
                '-' if class_prev.is_some() => {
                    let low = class_prev.take().unwrap_or('-');
                    if let Some(high) = pattern[i + 1..].chars().next().filter(|&h| h != ']') {
                        class_has_i |= (low..=high).contains(&'i') || (low..=high).contains(&'I');
                    }
                    out.push("-", i);
                }
                _ => {
                    class_has_i |= matches!(c, 'i' | 'I');
                    class_prev = Some(c);
                    out.push(&pattern[i..i + len], i);
                }
            }
            i += len;
            continue;
        }
        match c {
            // A comment group: Python skips it.
            '(' if pattern[i..].starts_with("(?#") => {
                let end = pattern[i..].find(')').map_or(pattern.len(), |n| i + n + 1);
                i = end;
                continue;
            }
            // A group's flags and name are copied as written.
            '(' if bytes.get(i + 1) == Some(&b'?') => {
                let rest = &pattern[i + 2..];
                let stop = rest
                    .find([':', ')', '>', '=', '!'])
                    .map_or(rest.len(), |n| n + 1);
                out.push(&pattern[i..i + 2 + stop], i);
                i += 2 + stop;
                continue;
            }
            '[' => {
                class_depth = 1;
                (class_has_i, class_prev) = (false, None);
                out.push("[", i);
                i += 1;
                // A leading `^`, then a leading `]`, are part of the class.
                if bytes.get(i) == Some(&b'^') {
                    out.push("^", i);
                    i += 1;
                }
                if bytes.get(i) == Some(&b']') {
                    out.push("\\]", i);
                    i += 1;
                }
                continue;
            }
            '$' if !multiline => out.push("(?:\\n?\\z)", i),
            '{' => match repetition(&pattern[i..]) {
                Some(n) => {
                    // Python's `{,n}` is `{0,n}`.
                    if pattern[i..].starts_with("{,") {
                        out.push("{0", i);
                        out.push(&pattern[i + 1..i + n], i + 1);
                    } else {
                        out.push(&pattern[i..i + n], i);
                    }
                    i += n;
                    possessive(pattern, i)?;
                    continue;
                }
                None => out.push("\\{", i),
            },
            '*' | '+' | '?' => {
                out.push(&pattern[i..i + 1], i);
                i += 1;
                if bytes.get(i) == Some(&b'?') {
                    // Lazy.
                    out.push("?", i);
                    i += 1;
                } else {
                    possessive(pattern, i)?;
                }
                continue;
            }
            'i' | 'I' | '\u{131}' | '\u{130}' if fold => out.push("[iI\u{131}\u{130}]", i),
            _ => out.push(&pattern[i..i + len], i),
        }
        i += len;
    }
    out.origin.push(pattern.len());
    Ok(Translated {
        text: out.text,
        origin: out.origin,
    })
}

/// Whether an inline flag group turns multi-line mode on (`(?m)`, `(?im:`, ...).
fn sets_multiline(pattern: &str) -> bool {
    let mut rest = pattern;
    while let Some(at) = rest.find("(?") {
        rest = &rest[at + 2..];
        let flags = rest.split([':', ')']).next().unwrap_or("");
        let on = flags.split('-').next().unwrap_or("");
        if on.chars().all(char::is_alphabetic) && on.contains('m') {
            return true;
        }
    }
    false
}

/// The length of a Python repetition `{m}`, `{m,}`, `{,n}` or `{m,n}` at the start
/// of `rest`, if there is one.
fn repetition(rest: &str) -> Option<usize> {
    let close = rest.find('}')?;
    let inner = &rest[1..close];
    let (min, max) = match inner.split_once(',') {
        Some((min, max)) => (min, Some(max)),
        None => (inner, None),
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let valid = digits(min)
        && max.is_none_or(digits)
        && (!min.is_empty() || max.is_some_and(|m| !m.is_empty()));
    valid.then_some(close + 1)
}

/// Refuses a possessive quantifier: a `+` right after a quantifier ending at `at`.
fn possessive(pattern: &str, at: usize) -> Result<(), (RegexError, Range<usize>)> {
    if pattern.as_bytes().get(at) == Some(&b'+') {
        return Err((
            RegexError::Invalid {
                message: "a possessive quantifier (Python 3.11's 'a++', 'a*+', 'a?+'): \
                          not supported; write the quantifier without the '+'"
                    .to_owned(),
            },
            at..at + 1,
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::translate;

    #[test]
    fn rewrites_to_pythons_meaning() {
        let cases = [
            ("DONE$", false, "DONE(?:\\n?\\z)"),
            ("(?m)^DONE$", false, "(?m)^DONE$"),
            ("end\\Z", false, "end\\z"),
            ("\\<b\\>", false, "<b>"),
            ("[[:alpha:]]", false, "[\\[:alpha:]]"),
            ("[a&&b]", false, "[a\\&\\&b]"),
            ("[a--b]", false, "[a\\-\\-b]"),
            ("a{ 1 }", false, "a\\{ 1 }"),
            ("a{2,3}", false, "a{2,3}"),
            ("a{,3}", false, "a{0,3}"),
            ("(?#note)a", false, "a"),
            ("x{}", false, "x\\{}"),
            ("bitti", true, "b[iI\u{131}\u{130}]tt[iI\u{131}\u{130}]"),
            ("[hi]", true, "[hi\u{131}\u{130}]"),
            ("[i-z]", true, "[i-z\u{131}\u{130}]"),
            ("[a-z]", true, "[a-z\u{131}\u{130}]"),
            ("[0-9]", true, "[0-9]"),
            ("[^i]", true, "[^i\u{131}\u{130}]"),
            ("(?-i)bitti", true, "(?-i)bitti"),
            ("[]a]", false, "[\\]a]"),
            ("a*?b+?", false, "a*?b+?"),
            ("(?i)bit", true, "(?i)b[iI\u{131}\u{130}]t"),
            ("(?P<id>x)", true, "(?P<id>x)"),
            ("(?im)^x$", false, "(?im)^x$"),
        ];
        for (pattern, fold, expected) in cases {
            let t = translate(pattern, fold).unwrap();
            assert_eq!(t.text, expected, "{pattern}");
        }
    }

    #[test]
    fn refuses_possessive_quantifiers_where_they_are() {
        for (pattern, at) in [("a++", 2), ("xa*+", 3), ("a?+", 2), ("a{2}+", 4)] {
            let (_, span) = translate(pattern, false).err().unwrap();
            assert_eq!(span, at..at + 1, "{pattern}");
        }
    }

    #[test]
    fn spans_map_back_to_the_pattern_as_written() {
        let t = translate("ab$c(", false).unwrap();
        // `(` is the last byte of the rewritten text and of the pattern.
        let last = t.text.len() - 1;
        assert_eq!(t.original(&(last..last + 1)), 4..5);
    }
}
