//! Content patterns: the regex of a `C[...]` event, compiled once at parse time.

use std::fmt;
use std::hash::{Hash, Hasher};

use regex_automata::meta::Regex;

use super::error::Subject;
use super::{ParseError, ParseErrorKind};
use crate::text;

/// The regex of a `C[...]` event, compiled once when the DSL is parsed.
///
/// The search is unanchored and case-insensitive (Unicode simple case folding), as
/// Langroid's `re.search(pattern, content, re.IGNORECASE)`: `C[done]` matches
/// "We are DONE." Inline flags such as `(?m)` or `(?-i:...)` work. A pattern means
/// what it means to Python's `re`, where the
/// [regex crate](https://docs.rs/regex/latest/regex/#syntax) that runs it would read
/// it otherwise: `$` also matches before a final newline, `\Z` is the end, `\<` and
/// `\>` are literals, `[` and `&&`, `--`, `~~` inside a class are literals, a `{`
/// that is not a repetition is literal, `{,n}` is `{0,n}`, `(?#...)` is a comment,
/// and `i`, `I`, `ı`, `İ` are one letter, octal escapes are characters.
/// Look-around, backreferences, atomic groups and possessive quantifiers work as in
/// Python (they run on a backtracking engine, behind a prefilter: see
/// [`Self::needs_backtracking`] and [`MAX_BACKTRACK`](crate::MAX_BACKTRACK)); what
/// Python refuses (a look-behind without a fixed width, a backreference to a group
/// not closed before it) is a parse error with its position, not a surprise at run
/// time.
///
/// Two patterns are equal when their source text is equal.
///
/// # Example
///
/// ```
/// use doneseq::ContentPattern;
///
/// let pattern = ContentPattern::new(r"quit|bye")?;
/// assert!(pattern.is_match("OK, Bye now"));
/// assert!(!pattern.is_match("see you"));
/// assert_eq!(pattern.as_str(), "quit|bye");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct ContentPattern {
    source: Box<str>,
    /// The pattern in the regex crate's syntax with Python's meaning (what the regex
    /// and the classifier's regex set compile).
    engine: Box<str>,
    // `Regex` is a cheap-to-clone handle (its program is shared), `Send + Sync`, and
    // kept private so that the regex crate stays out of our public API. For a pattern
    // that needs backtracking, the relaxed form (the exact form's prefilter).
    regex: Regex,
    heap: usize,
    /// The exact form, for a pattern with look-around, backreferences, atomic groups
    /// or possessive quantifiers.
    backtracking: Option<text::Backtracking>,
}

impl ContentPattern {
    /// The pattern as the regex engine compiles it: Python's meaning in the regex
    /// crate's syntax.
    pub(crate) fn engine_source(&self) -> &str {
        &self.engine
    }

    /// The exact form, when the pattern needs a backtracking engine (the regex set
    /// runs [`Self::engine_source`] as its prefilter).
    pub(crate) fn backtracking(&self) -> Option<&text::Backtracking> {
        self.backtracking.as_ref()
    }

    /// Whether the pattern needs a backtracking engine: it has look-around,
    /// backreferences, atomic groups or possessive quantifiers. Only such a pattern
    /// can pass [`MAX_BACKTRACK`](crate::MAX_BACKTRACK) ([`Self::try_match`]).
    ///
    /// ```
    /// use doneseq::ContentPattern;
    ///
    /// assert!(ContentPattern::new(r"(?<!NOT )\bAPPROVED\b")?.needs_backtracking());
    /// assert!(!ContentPattern::new(r"\bAPPROVED\b")?.needs_backtracking());
    /// # Ok::<(), doneseq::ParseError>(())
    /// ```
    #[must_use]
    pub fn needs_backtracking(&self) -> bool {
        self.backtracking.is_some()
    }

    /// Compiles `pattern` as a content regex.
    ///
    /// # Errors
    ///
    /// A [`ParseError`] whose input is `pattern` and whose span points into it:
    /// - [`ParseErrorKind::EmptyBracket`]: the pattern is empty (it would match
    ///   every message, which is what `_` is for);
    /// - [`ParseErrorKind::InvalidRegex`]: the regex does not parse, e.g. `(` or
    ///   `(a)\2` (no group 2, as Python says) or `(?<=a|bc)` (a look-behind without
    ///   a fixed width);
    /// - [`ParseErrorKind::StrayBracket`]: an unescaped `]` outside a class, e.g.
    ///   `a]b`, which would end `C[...]` early (write `a\]b`);
    /// - [`ParseErrorKind::UnclosedBracket`]: an unbalanced `[` or a trailing `\\`
    ///   that would swallow the closing `]` of `C[...]`, e.g. `(?x)a #[`;
    /// - [`ParseErrorKind::PatternTooLong`]: longer than [`MAX_PATTERN_LEN`](crate::MAX_PATTERN_LEN) bytes;
    /// - [`ParseErrorKind::RegexTooBig`]: it compiles to more than
    ///   [`MAX_REGEX_SIZE`](crate::MAX_REGEX_SIZE) bytes, e.g. `(?:\w{1000}){1000}`;
    /// - [`ParseErrorKind::RegexCost`]: its classes take more than
    ///   [`MAX_REGEX_FOLD_WORK`](crate::MAX_REGEX_FOLD_WORK) to fold, e.g. 61 times `[\s\S]` (or, called while a
    ///   list of sequences is read, with the regexes before it);
    /// - [`ParseErrorKind::RegexMemory`]: called while a list of sequences is read,
    ///   it would take the regexes of that list past [`MAX_REGEX_MEMORY`](crate::MAX_REGEX_MEMORY).
    pub fn new(pattern: &str) -> Result<ContentPattern, ParseError> {
        // A pattern whose `C[...]` text would not parse back to it is refused. The check
        // is on `pattern]`: the scanner must stop exactly at the added `]`. That refuses
        // a `]` that would close the bracket early (`a]b`; `\]` is the regex's own
        // escape), and an unbalanced `[` or trailing `\` that a regex accepts only
        // inside an `(?x)` comment, which would swallow the closing bracket.
        compile(pattern)
            .map_err(|(kind, span)| ParseError::new(kind, span, pattern).about(Subject::PATTERN))
    }

    /// The pattern as written, without the surrounding `C[` and `]`.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether the pattern occurs anywhere in `content` (case-insensitive); `false`
    /// when a pattern that needs backtracking passes
    /// [`MAX_BACKTRACK`](crate::MAX_BACKTRACK) (which [`Self::try_match`] tells
    /// apart, and a [`Monitor`](crate::Monitor) counts in its run state).
    #[must_use]
    pub fn is_match(&self, content: &str) -> bool {
        self.try_match(content).unwrap_or(false)
    }

    /// Whether the pattern occurs anywhere in `content` (case-insensitive).
    ///
    /// # Errors
    ///
    /// [`BacktrackLimit`](crate::BacktrackLimit) when the pattern needs backtracking
    /// and its search passed [`MAX_BACKTRACK`](crate::MAX_BACKTRACK) steps: then
    /// whether it matches is unknown.
    ///
    /// ```
    /// use doneseq::ContentPattern;
    ///
    /// let approved = ContentPattern::new(r"(?<!NOT )\bAPPROVED\b")?;
    /// assert_eq!(approved.try_match("Approved."), Ok(true));
    /// assert_eq!(approved.try_match("Not approved."), Ok(false));
    /// let pathological = ContentPattern::new(r"^(a|a)*\1$")?;
    /// assert!(pathological.try_match(&format!("{}b", "a".repeat(40))).is_err());
    /// # Ok::<(), doneseq::ParseError>(())
    /// ```
    pub fn try_match(&self, content: &str) -> Result<bool, crate::BacktrackLimit> {
        match &self.backtracking {
            None => Ok(self.regex.is_match(content)),
            Some(exact) => exact.is_match(content),
        }
    }

    /// The heap the compiled regex takes, in bytes (shared by every clone, and by the
    /// equal patterns of the parse that compiled it). What [`MAX_REGEX_MEMORY`](crate::MAX_REGEX_MEMORY)
    /// counts.
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        self.heap
    }
}

/// Compiles `pattern`; an error's span is relative to `pattern`.
pub(crate) fn compile(
    pattern: &str,
) -> Result<ContentPattern, (ParseErrorKind, std::ops::Range<usize>)> {
    let built = text::build_python(pattern).map_err(|(e, s)| (e.into(), s))?;
    Ok(ContentPattern {
        source: pattern.into(),
        engine: built.engine,
        regex: built.regex,
        heap: built.heap,
        backtracking: built.backtracking,
    })
}

impl PartialEq for ContentPattern {
    fn eq(&self, other: &ContentPattern) -> bool {
        self.source == other.source
    }
}

impl Eq for ContentPattern {}

impl Hash for ContentPattern {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.source.hash(state);
    }
}

impl fmt::Debug for ContentPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The compiled program is noise in `Debug` output (and in snapshots).
        f.debug_tuple("ContentPattern").field(&self.source).finish()
    }
}

impl fmt::Display for ContentPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}
