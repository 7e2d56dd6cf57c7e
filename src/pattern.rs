//! Content patterns: the regex of a `C[...]` event, compiled once at parse time.

use std::fmt;
use std::hash::{Hash, Hasher};

use regex::{Regex, RegexBuilder};

use crate::dsl::{ParseError, ParseErrorKind, Subject};

/// The largest compiled size, in bytes, that one content regex may take.
///
/// A regex such as `\w{1000}{1000}` is tiny to write and enormous to compile; this
/// bound (passed to the regex crate's size limit) turns it into a
/// [`ParseErrorKind::RegexTooBig`] instead of a memory spike. 1 MiB leaves room for
/// any realistic stop-word pattern, including large Unicode classes.
pub const MAX_REGEX_SIZE: usize = 1 << 20;

/// The longest content regex, in bytes, as written.
///
/// The regex crate bounds the *compiled* size ([`MAX_REGEX_SIZE`]) but not the work of
/// parsing: a few kilobytes of large Unicode classes (`\pL\pL...`) cost megabytes
/// before the size check can refuse them. Stop-word patterns are far shorter.
pub const MAX_PATTERN_LEN: usize = 1024;

/// The regex of a `C[...]` event, compiled once when the DSL is parsed.
///
/// The search is unanchored and case-insensitive (Unicode simple case folding), as
/// Langroid's `re.search(pattern, content, re.IGNORECASE)`: `C[done]` matches
/// "We are DONE." Inline flags such as `(?m)` or `(?-i)` work. The syntax is the
/// [regex crate's](https://docs.rs/regex/latest/regex/#syntax): it has no
/// look-around and no backreferences, which Python's `re` has; such a pattern is a
/// parse error, not a surprise at run time.
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
    // `Regex` is a cheap-to-clone handle (its program is shared), `Send + Sync`, and
    // kept private so that the regex crate stays out of our public API.
    regex: Regex,
}

impl ContentPattern {
    /// Compiles `pattern` as a content regex.
    ///
    /// # Errors
    ///
    /// A [`ParseError`] whose input is `pattern` and whose span points into it:
    /// - [`ParseErrorKind::EmptyBracket`]: the pattern is empty (it would match
    ///   every message, which is what `_` is for);
    /// - [`ParseErrorKind::InvalidRegex`]: the regex does not parse, e.g. `(` or
    ///   `(?<=a)b` (look-behind is not supported);
    /// - [`ParseErrorKind::StrayBracket`]: an unescaped `]` outside a class, e.g.
    ///   `a]b`, which would end `C[...]` early (write `a\]b`);
    /// - [`ParseErrorKind::UnclosedBracket`]: an unbalanced `[` or a trailing `\\`
    ///   that would swallow the closing `]` of `C[...]`, e.g. `(?x)a #[`;
    /// - [`ParseErrorKind::PatternTooLong`]: longer than [`MAX_PATTERN_LEN`] bytes;
    /// - [`ParseErrorKind::RegexTooBig`]: it compiles to more than
    ///   [`MAX_REGEX_SIZE`] bytes, e.g. `\w{1000}{1000}`.
    pub fn new(pattern: &str) -> Result<ContentPattern, ParseError> {
        // A pattern whose `C[...]` text would not parse back to it is refused. The check
        // is on `pattern]`: the scanner must stop exactly at the added `]`. That refuses
        // a `]` that would close the bracket early (`a]b`; `\]` is the regex's own
        // escape), and an unbalanced `[` or trailing `\` that a regex accepts only
        // inside an `(?x)` comment, which would swallow the closing bracket.
        let error = |kind, span| ParseError::new(kind, span, pattern).about(Subject::Pattern);
        let closed = format!("{pattern}]");
        match crate::dsl::regex_body_end(&closed) {
            Some(at) if at == pattern.len() => compile(pattern).map_err(|(k, s)| error(k, s)),
            Some(at) => Err(error(ParseErrorKind::StrayBracket, at..at + 1)),
            None => Err(error(ParseErrorKind::UnclosedBracket, 0..pattern.len())),
        }
    }

    /// The pattern as written, without the surrounding `C[` and `]`.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether the pattern occurs anywhere in `content` (case-insensitive).
    #[must_use]
    pub fn is_match(&self, content: &str) -> bool {
        self.regex.is_match(content)
    }
}

/// Compiles `pattern`; an error's span is relative to `pattern`.
pub(crate) fn compile(
    pattern: &str,
) -> Result<ContentPattern, (ParseErrorKind, std::ops::Range<usize>)> {
    let regex = build(pattern, true)?;
    Ok(ContentPattern {
        source: pattern.into(),
        regex,
    })
}

/// Builds `pattern` with the crate's limits ([`MAX_PATTERN_LEN`], [`MAX_REGEX_SIZE`]);
/// an error's span is relative to `pattern`. Shared by `C[...]` (case-insensitive)
/// and the stop conditions' `text(...)` (as written).
pub(crate) fn build(
    pattern: &str,
    case_insensitive: bool,
) -> Result<Regex, (ParseErrorKind, std::ops::Range<usize>)> {
    let whole = 0..pattern.len();
    if pattern.is_empty() {
        return Err((ParseErrorKind::EmptyBracket, whole));
    }
    // Checked before any parsing: the regex parsers build their syntax tree without a
    // size limit, and 64 KiB of `\pL` costs seconds and most of a gigabyte there.
    if pattern.len() > MAX_PATTERN_LEN {
        let kind = ParseErrorKind::PatternTooLong {
            len: pattern.len(),
            max: MAX_PATTERN_LEN,
        };
        return Err((kind, whole));
    }
    let built = RegexBuilder::new(pattern)
        .case_insensitive(case_insensitive)
        .size_limit(MAX_REGEX_SIZE)
        .build();
    match built {
        Ok(regex) => Ok(regex),
        Err(regex::Error::CompiledTooBig(limit)) => {
            Err((ParseErrorKind::RegexTooBig { limit }, whole))
        }
        Err(other) => {
            // Only on failure, ask regex-syntax *where*: `regex::Error` has a message but no
            // span. Its configuration mirrors the builder's, so it rejects the same input.
            let mut parser = regex_syntax::ParserBuilder::new()
                .case_insensitive(case_insensitive)
                .build();
            let located = match parser.parse(pattern) {
                Err(regex_syntax::Error::Parse(e)) => Some((e.kind().to_string(), *e.span())),
                Err(regex_syntax::Error::Translate(e)) => Some((e.kind().to_string(), *e.span())),
                // `regex_syntax::Error` is non-exhaustive, and a pattern the builder
                // rejected should not parse here; either way the whole pattern is blamed.
                _ => None,
            };
            let (message, span) = match located {
                Some((message, span)) => (message, span.start.offset..span.end.offset),
                None => (other.to_string(), whole),
            };
            Err((ParseErrorKind::InvalidRegex { message }, span))
        }
    }
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
