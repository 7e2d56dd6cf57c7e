//! The small tokenizer shared by every part of the FINAL protocol: word boundaries,
//! signal names, string literals (Python's quote forms, escapes and triple quotes) and
//! the two dialects they are read in.
//!
//! Everything here works on byte offsets of a `&str` and only ever returns offsets that
//! are char boundaries, so callers can slice with them. Nothing allocates.

use super::FinalKind;

/// Which lexical rules apply.
///
/// Code is read as Python: `#` starts a comment, every quote opens a string. Prose has
/// no comments, and a quote right after a letter is an apostrophe (`it's`), not a
/// string, unless the letters are a string prefix (`f"..."`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dialect {
    Text,
    Code,
}

/// A character that continues a word: Python's `\w` (Unicode letters and digits, `_`).
pub(crate) fn is_word_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// The character that ends right before byte `i`, if `i` is a boundary inside `text`.
pub(crate) fn char_before(text: &str, i: usize) -> Option<char> {
    text.get(..i)?.chars().next_back()
}

/// The character that starts at byte `i`, if `i` is a boundary inside `text`.
pub(crate) fn char_at(text: &str, i: usize) -> Option<char> {
    text.get(i..)?.chars().next()
}

/// Whether `s` is a whole Python identifier (Unicode letters, digits and `_`, not
/// starting with a digit).
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_alphabetic()) && chars.all(is_word_char)
}

/// The signal name starting at byte `p`, with the offset right after it.
///
/// The name must stand alone as a word on both sides, and it is case-sensitive:
/// `NOT_FINAL`, `FINALIZE`, `FINAL_VALUE`, `final` and `xSUBMIT` are not names.
/// `FINAL_VAR` is tried before `FINAL`, so that it is never read as `FINAL` followed by
/// `_VAR`.
pub(crate) fn name_at(text: &str, p: usize) -> Option<(FinalKind, usize)> {
    let rest = text.get(p..)?;
    let (kind, len) = if rest.starts_with("FINAL_VAR") {
        (FinalKind::Variable, 9)
    } else if rest.starts_with("FINAL") {
        (FinalKind::Direct, 5)
    } else if rest.starts_with("SUBMIT") {
        (FinalKind::Submit, 6)
    } else {
        return None;
    };
    if char_before(text, p).is_some_and(is_word_char) {
        return None;
    }
    let end = p + len;
    if char_at(text, end).is_some_and(is_word_char) {
        return None;
    }
    Some((kind, end))
}

/// The offset of the `(` that follows byte `i` after spaces and tabs, if there is one.
///
/// Whitespace before the parenthesis is allowed (`FINAL (x)`), as in Python and in
/// rlm-code's patterns, but not a line break: a name at the end of a line and a
/// parenthesis on the next are prose.
pub(crate) fn paren_after(bytes: &[u8], mut i: usize) -> Option<usize> {
    while let Some(&b) = bytes.get(i) {
        match b {
            b' ' | b'\t' => i += 1,
            b'(' => return Some(i),
            _ => return None,
        }
    }
    None
}

/// The offset of the end of the line containing byte `i` (the `\n`, or the end).
pub(crate) fn line_end(bytes: &[u8], i: usize) -> usize {
    bytes
        .get(i..)
        .and_then(|rest| rest.iter().position(|&b| b == b'\n'))
        .map_or(bytes.len(), |k| i + k)
}

/// Where the string literal whose opening quote is at `i` ends: `Ok(offset after the
/// closing quote)`, or `Err(offset where the search stopped)` when it is unterminated.
///
/// A backslash escapes the next byte, as in every Python string (raw strings too: in
/// `r"\""` the quote does not close). A single-quoted string may not contain an
/// unescaped line break; a triple-quoted one may.
pub(crate) fn string_end(bytes: &[u8], i: usize) -> Result<usize, usize> {
    let Some(&q) = bytes.get(i) else {
        return Err(bytes.len());
    };
    let triple = bytes.get(i + 1) == Some(&q) && bytes.get(i + 2) == Some(&q);
    let mut j = if triple { i + 3 } else { i + 1 };
    while let Some(&b) = bytes.get(j) {
        if b == b'\\' {
            j += 2;
        } else if b == q {
            if !triple {
                return Ok(j + 1);
            }
            if bytes.get(j + 1) == Some(&q) && bytes.get(j + 2) == Some(&q) {
                return Ok(j + 3);
            }
            j += 1;
        } else if b == b'\n' && !triple {
            return Err(j);
        } else {
            j += 1;
        }
    }
    Err(bytes.len())
}

/// Whether the quote at byte `i` of prose opens a string literal.
///
/// After a word character it is an apostrophe (`it's`, `the '90s` is fine, `don't` is
/// not a string), unless that word is a string prefix standing alone (`f"..."`,
/// `rb'...'`).
pub(crate) fn opens_string_in_text(text: &str, i: usize) -> bool {
    let Some(before) = text.get(..i) else {
        return false;
    };
    let mut back = before.chars().rev();
    let Some(c1) = back.next().filter(|&c| is_word_char(c)) else {
        return true;
    };
    match back.next().filter(|&c| is_word_char(c)) {
        None => is_prefix(&[c1]),
        Some(c2) => !back.next().is_some_and(is_word_char) && is_prefix(&[c2, c1]),
    }
}

/// Python's string prefixes: `r`, `u`, `b`, `f` and the pairs `rb`, `br`, `rf`, `fr`,
/// in any case.
pub(crate) fn is_prefix(chars: &[char]) -> bool {
    let lower = |c: char| c.to_ascii_lowercase();
    match *chars {
        [c] => matches!(lower(c), 'r' | 'u' | 'b' | 'f'),
        [a, b] => matches!(
            (lower(a), lower(b)),
            ('r', 'b') | ('b', 'r') | ('r', 'f') | ('f', 'r')
        ),
        _ => false,
    }
}

/// Skips string literals the way one dialect reads them, remembering which searches
/// failed so that a run of unterminated quotes costs linear time, not quadratic.
///
/// Why the memo is sound: if the search for the end of a string opened at `p` failed,
/// every quote of the same kind it passed was escaped, so the search from a later
/// opener `q` it passed continues from the same state and fails at the same place.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Strings {
    dialect: Dialect,
    /// Per quote (`"`, `'`): a single-quoted string opened before this offset fails.
    single_fails_before: [usize; 2],
    /// Per quote: every later triple-quoted string fails.
    triple_fails: [bool; 2],
}

impl Strings {
    pub(crate) fn new(dialect: Dialect) -> Self {
        Strings {
            dialect,
            single_fails_before: [0; 2],
            triple_fails: [false; 2],
        }
    }

    /// The offset to continue from after the quote at byte `i` (`"` or `'`).
    ///
    /// In code, a string always opens; an unterminated one runs to the end of its line
    /// (single quotes) or of the input (triple quotes), as far as Python would have
    /// read before failing. In prose, the quote may be an apostrophe, and an
    /// unterminated string is just a quote character: prose is full of those.
    pub(crate) fn skip(&mut self, text: &str, i: usize) -> usize {
        let bytes = text.as_bytes();
        if self.dialect == Dialect::Text && !opens_string_in_text(text, i) {
            return i + 1;
        }
        let q = usize::from(bytes.get(i) == Some(&b'\''));
        let triple = bytes.get(i + 1) == bytes.get(i) && bytes.get(i + 2) == bytes.get(i);
        let known_failure = if triple {
            self.triple_fails[q]
        } else {
            i < self.single_fails_before[q]
        };
        let end = if known_failure {
            Err(if triple {
                bytes.len()
            } else {
                self.single_fails_before[q]
            })
        } else {
            string_end(bytes, i)
        };
        match end {
            Ok(end) => end,
            Err(stop) => {
                if triple {
                    self.triple_fails[q] = true;
                } else {
                    self.single_fails_before[q] = stop;
                }
                match self.dialect {
                    Dialect::Code => stop,
                    Dialect::Text => i + 1,
                }
            }
        }
    }
}

/// Whether the signal name at `p` is negated by the words right before it in its
/// clause: "Do not call FINAL_VAR(x) yet", "never use FINAL(...)", "don't FINAL(x)".
///
/// The rule: reading backwards from the name, over at most four words and without
/// crossing a line break or clause punctuation (`. ! ? : ; ,`), skip words from
/// [`FILLERS`] and stop at the first other word; the name is negated if that word is in
/// [`NEGATIONS`]. So "I'm not sure but FINAL(42)" is not negated ("but" stops the
/// walk), and "No, FINAL(42)" is not either (the comma ends the clause).
pub(crate) fn negated(text: &str, p: usize) -> bool {
    // Look at most this far back: enough for four words, and it keeps the check O(1).
    const WINDOW: usize = 80;
    const MAX_WORDS: usize = 4;
    let Some(before) = text.get(..p) else {
        return false;
    };
    // Walk back char by char, deciding at the first word that is not a filler.
    let mut words = 0;
    let mut word_end = None;
    for (k, c) in before.char_indices().rev() {
        if p - k > WINDOW {
            return false; // a word cut by the window is not read
        }
        if c.is_alphabetic() || c == '\'' || c == '\u{2019}' {
            word_end.get_or_insert(k + c.len_utf8());
            continue;
        }
        if let Some(end) = word_end.take() {
            match judge(&before[k + c.len_utf8()..end]) {
                Some(verdict) => return verdict,
                None if words + 1 == MAX_WORDS => return false,
                None => words += 1,
            }
        }
        if matches!(c, '\n' | '\r' | '.' | '!' | '?' | ':' | ';' | ',') {
            return false;
        }
    }
    // The text starts with a word.
    word_end.is_some_and(|end| judge(&before[..end]) == Some(true))
}

/// A word before a signal: `Some(true)` a negation, `None` a filler (read on),
/// `Some(false)` anything else.
fn judge(word: &str) -> Option<bool> {
    let is = |list: &[&str]| list.iter().any(|w| w.eq_ignore_ascii_case(word));
    if is(NEGATIONS) {
        Some(true)
    } else if is(FILLERS) {
        None
    } else {
        Some(false)
    }
}

/// Words that negate a signal named right after them (possibly after [`FILLERS`]).
pub(crate) const NEGATIONS: &[&str] = &[
    "not",
    "no",
    "never",
    "don't",
    "don\u{2019}t",
    "dont",
    "doesn't",
    "doesn\u{2019}t",
    "didn't",
    "didn\u{2019}t",
    "won't",
    "won\u{2019}t",
    "wouldn't",
    "wouldn\u{2019}t",
    "shouldn't",
    "shouldn\u{2019}t",
    "mustn't",
    "mustn\u{2019}t",
    "can't",
    "can\u{2019}t",
    "cannot",
    "avoid",
    "avoiding",
    "without",
];

/// Words that may stand between a negation and the signal it negates: verbs of
/// producing a signal, and small words.
pub(crate) const FILLERS: &[&str] = &[
    "call",
    "calling",
    "use",
    "using",
    "write",
    "writing",
    "output",
    "outputting",
    "emit",
    "emitting",
    "return",
    "returning",
    "print",
    "printing",
    "say",
    "saying",
    "send",
    "sending",
    "give",
    "giving",
    "produce",
    "include",
    "run",
    "invoke",
    "execute",
    "yet",
    "ever",
    "just",
    "even",
    "the",
    "a",
    "an",
    "any",
    "to",
    "be",
    "you",
    "it",
    "this",
    "that",
    "with",
];

/// Whether only spaces and tabs stand between the start of the line and byte `p`.
pub(crate) fn at_line_start(bytes: &[u8], p: usize) -> bool {
    bytes
        .get(..p)
        .unwrap_or_default()
        .iter()
        .rev()
        .find(|&&b| b != b' ' && b != b'\t')
        .is_none_or(|&b| b == b'\n' || b == b'\r')
}

/// In code, why the name at `p` is not a call of the protocol's function, if it is not:
/// an attribute (`obj.FINAL(x)`) or a definition (`def FINAL(x):`).
pub(crate) fn not_a_call(text: &str, p: usize) -> Option<super::RejectReason> {
    let before = text.get(..p)?.trim_end_matches([' ', '\t']);
    if before.ends_with('.') {
        return Some(super::RejectReason::Attribute);
    }
    let word_start = before.trim_end_matches(is_word_char).len();
    let word = &before[word_start..];
    (word == "def" || word == "class").then_some(super::RejectReason::Definition)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_need_word_boundaries() {
        let at = |t: &str| name_at(t, t.find(['F', 'S']).unwrap()).map(|(k, _)| k);
        assert_eq!(at("FINAL(x)"), Some(FinalKind::Direct));
        assert_eq!(at("FINAL_VAR(x)"), Some(FinalKind::Variable));
        assert_eq!(at(" SUBMIT(a=1)"), Some(FinalKind::Submit));
        assert_eq!(at("NOT_FINAL(3)"), None);
        assert_eq!(at("FINALIZE(3)"), None);
        assert_eq!(at("FINAL_VALUE(3)"), None);
        assert_eq!(at("FINAL_VARS(3)"), None);
        assert_eq!(at("\u{e9}FINAL(3)"), None);
        assert_eq!(at("\u{2014}FINAL(3)"), Some(FinalKind::Direct));
    }

    #[test]
    fn strings_end_where_python_says() {
        let end = |t: &str| string_end(t.as_bytes(), 0);
        assert_eq!(end(r#""a)b" x"#), Ok(5));
        assert_eq!(end(r#""a\"b" x"#), Ok(6));
        assert_eq!(end(r#""""a"b""" x"#), Ok(9));
        assert_eq!(end("'a\nb'"), Err(2));
        assert_eq!(end("'''a\nb'''"), Ok(9));
        assert_eq!(end(r#""" x"#), Ok(2));
        assert_eq!(end(r#""abc\"#), Err(5));
    }

    #[test]
    fn apostrophes_are_not_strings_in_prose() {
        let opens = |t: &str| opens_string_in_text(t, t.rfind(['\'', '"']).unwrap());
        assert!(!opens("it'"));
        assert!(opens("the '"));
        assert!(opens("(f'"));
        assert!(opens("rb\""));
        assert!(!opens("elif'"));
        assert!(!opens("self'"));
    }

    #[test]
    fn unterminated_strings_are_quotes_in_prose_and_strings_to_the_line_end_in_code() {
        let mut text = Strings::new(Dialect::Text);
        assert_eq!(text.skip("x 'abc\ndef", 2), 3);
        let mut code = Strings::new(Dialect::Code);
        assert_eq!(code.skip("x 'abc\ndef", 2), 6);
        assert_eq!(code.skip("x '''abc\ndef", 2), 12);
    }

    #[test]
    fn negation_reads_the_clause_before_the_name() {
        let neg = |t: &str| negated(t, t.find("FINAL").unwrap());
        assert!(neg("Do not call FINAL_VAR(x) yet"));
        assert!(neg("never use FINAL(x)"));
        assert!(neg("Don\u{2019}t FINAL(x)"));
        assert!(!neg("I'm not sure but FINAL(42)"));
        assert!(!neg("No, FINAL(42)"));
        assert!(!neg("FINAL(42)"));
        assert!(!neg("I think it might be FINAL('42')"));
        assert!(!neg("not now.\nFINAL(42)"));
        assert!(neg("not FINAL(42)"));
        assert!(neg("no\u{e9} not call FINAL(42)"));
        assert!(!neg("you just call the FINAL(42)"));
        assert!(!neg(&format!("not {}FINAL(42)", "the ".repeat(30))));
    }

    #[test]
    fn line_starts() {
        let start = |t: &str| at_line_start(t.as_bytes(), t.find("FINAL").unwrap());
        assert!(start("FINAL(x)"));
        assert!(start("a\n  \tFINAL(x)"));
        assert!(!start("a FINAL(x)"));
        assert!(!start("`FINAL(x)`"));
    }
}
