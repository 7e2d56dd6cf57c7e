//! Content patterns: the regex of a `C[...]` event, compiled once at parse time.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};

use regex_automata::meta::{self, Regex};
use regex_automata::util::syntax;

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

/// The most heap, in bytes, that the regexes compiled by one parse may take together
/// (as the regex engine reports it: a compiled regex holds a forward and a reverse
/// automaton and more; the largest that [`MAX_REGEX_SIZE`] lets through takes about
/// 1.2 MB, so one sequence, at most 32 regexes, stays under it).
///
/// One parse is a sequence ([`DoneSequence::parse`](crate::DoneSequence::parse), an
/// object-form sequence), a list of them ([`DoneSequences::parse_all`](crate::DoneSequences::parse_all),
/// [`TaskConfig::from_dsl`](crate::TaskConfig::from_dsl), or a list read with serde),
/// a stop expression (its `seq(...)` and `text(...)`), or a whole `TaskConfig` read
/// with serde (its sequences and its stop condition together). Within
/// one parse, equal regexes are compiled once and shared, so repeating a regex costs
/// nothing. The regex that would pass the budget is refused with
/// [`ParseErrorKind::RegexMemory`], before the next one is compiled: each regex costs
/// milliseconds to compile, and a configuration of a thousand large ones would
/// otherwise take tens of seconds and gigabytes before any task limit could refuse it.
///
/// Realistic stop-word regexes take 5 to 60 KB each (`quit|bye`: 10 KB; `\w+`, with
/// Unicode classes: 57 KB), so the budget holds a thousand of them.
pub const MAX_REGEX_MEMORY: usize = 64 << 20;

/// The most work, in code-point visits, that folding the character classes of
/// case-insensitive regexes may take in one parse (the same parse as
/// [`MAX_REGEX_MEMORY`]'s): about a second of compiling.
///
/// The regex engine folds a class such as `[\s\S]` or `[^\W\D]` by visiting each
/// code point of its ranges, over a million for `[\s\S]` (milliseconds), while the
/// compiled regex stays small, so neither [`MAX_REGEX_SIZE`] nor [`MAX_REGEX_MEMORY`]
/// bounds that time. The work is counted from the pattern's syntax before it is
/// compiled, and the regex that would pass the budget is refused with
/// [`ParseErrorKind::RegexCost`]. Everyday regexes cost little: literals, `.`, `\w`
/// and `\d` nothing (they are not folded), `[a-z]` 58, `[\w.-]` or `\pL` about
/// 25,000 (the budget holds 2,500 of those); `[\s\S]` costs 1.1 million (write
/// `(?s:.)`, which costs nothing). A [`FinalPatternPolicy`](crate::answer::FinalPatternPolicy)'s
/// extra patterns have the same budget ([`PolicyError::RegexCost`](crate::answer::PolicyError::RegexCost)).
pub const MAX_REGEX_FOLD_WORK: u64 = 1 << 26;

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
    heap: usize,
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
    ///   [`MAX_REGEX_SIZE`] bytes, e.g. `\w{1000}{1000}`;
    /// - [`ParseErrorKind::RegexCost`]: its classes take more than
    ///   [`MAX_REGEX_FOLD_WORK`] to fold, e.g. 61 times `[\s\S]` (or, called while a
    ///   list of sequences is read, with the regexes before it);
    /// - [`ParseErrorKind::RegexMemory`]: called while a list of sequences is read,
    ///   it would take the regexes of that list past [`MAX_REGEX_MEMORY`].
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

    /// The heap the compiled regex takes, in bytes (shared by every clone, and by the
    /// equal patterns of the parse that compiled it). What [`MAX_REGEX_MEMORY`]
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
    let (regex, heap) = build(pattern, true)?;
    Ok(ContentPattern {
        source: pattern.into(),
        regex,
        heap,
    })
}

/// The regexes one parse has compiled, by source and case mode, and the heap they
/// take: what [`MAX_REGEX_MEMORY`] bounds.
#[derive(Default)]
struct Scope {
    compiled: HashMap<(Box<str>, bool), (Regex, usize)>,
    heap: usize,
    fold_work: u64,
}

thread_local! {
    /// The scope of the parse running on this thread, if one is.
    static SCOPE: RefCell<Option<Scope>> = const { RefCell::new(None) };
}

/// Runs `parse` as one parse for [`MAX_REGEX_MEMORY`]: the regexes it compiles share
/// one budget and equal ones are compiled once. Nested calls join the outermost
/// scope (a list's sequences, a stop tree's `seq(...)`), which ends with it, also when
/// `parse` unwinds.
pub(crate) fn scoped<T>(parse: impl FnOnce() -> T) -> T {
    struct Outermost(bool);
    impl Drop for Outermost {
        fn drop(&mut self) {
            if self.0 {
                SCOPE.with(|scope| *scope.borrow_mut() = None);
            }
        }
    }
    let outermost = SCOPE.with(|scope| {
        let mut scope = scope.borrow_mut();
        let open = scope.is_none();
        if open {
            *scope = Some(Scope::default());
        }
        open
    });
    let _scope = Outermost(outermost);
    parse()
}

/// Builds `pattern` with the crate's limits ([`MAX_PATTERN_LEN`], [`MAX_REGEX_SIZE`],
/// and [`MAX_REGEX_MEMORY`] in a [`scoped`] parse), with the heap it takes; an
/// error's span is relative to `pattern`. Shared by `C[...]` (case-insensitive) and
/// the stop conditions' `text(...)` (as written).
pub(crate) fn build(
    pattern: &str,
    case_insensitive: bool,
) -> Result<(Regex, usize), (ParseErrorKind, std::ops::Range<usize>)> {
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
    // A regex built outside a parse (`ContentPattern::new`) is a parse of its own.
    scoped(|| build_in_scope(pattern, case_insensitive))
}

fn build_in_scope(
    pattern: &str,
    case_insensitive: bool,
) -> Result<(Regex, usize), (ParseErrorKind, std::ops::Range<usize>)> {
    let whole = 0..pattern.len();
    let key = (Box::<str>::from(pattern), case_insensitive);
    let shared = SCOPE.with(|scope| {
        let scope = scope.borrow();
        scope.as_ref().and_then(|s| s.compiled.get(&key).cloned())
    });
    if let Some(shared) = shared {
        return Ok(shared);
    }
    // Counted whether or not the pattern is case-insensitive: `(?i)` may turn it on.
    let fold_work = crate::regex_cost::fold_work(pattern);
    SCOPE.with(|scope| {
        let mut scope = scope.borrow_mut();
        let scope = scope.as_mut().expect("built in a scope");
        if scope.fold_work.saturating_add(fold_work) > MAX_REGEX_FOLD_WORK {
            let kind = ParseErrorKind::RegexCost {
                max: MAX_REGEX_FOLD_WORK,
            };
            return Err((kind, whole.clone()));
        }
        scope.fold_work += fold_work;
        Ok(())
    })?;
    let regex = Regex::builder()
        .syntax(syntax::Config::new().case_insensitive(case_insensitive))
        .configure(meta::Config::new().nfa_size_limit(Some(MAX_REGEX_SIZE)))
        .build(pattern)
        .map_err(|e| build_error(&e, pattern))?;
    let heap = regex.memory_usage();
    // Charged after the compile (its size is known only then), so the budget is
    // passed by at most one regex, which is refused.
    SCOPE.with(|scope| {
        let mut scope = scope.borrow_mut();
        let scope = scope.as_mut().expect("built in a scope");
        if scope.heap + heap > MAX_REGEX_MEMORY {
            let kind = ParseErrorKind::RegexMemory {
                max: MAX_REGEX_MEMORY,
            };
            return Err((kind, whole));
        }
        scope.heap += heap;
        scope.compiled.insert(key, (regex.clone(), heap));
        Ok((regex, heap))
    })
}

/// The error of a regex that did not build, with the span of its fault.
fn build_error(e: &meta::BuildError, pattern: &str) -> (ParseErrorKind, std::ops::Range<usize>) {
    let whole = 0..pattern.len();
    if let Some(limit) = e.size_limit() {
        return (ParseErrorKind::RegexTooBig { limit }, whole);
    }
    let located = match e.syntax_error() {
        Some(regex_syntax::Error::Parse(e)) => Some((e.kind().to_string(), *e.span())),
        Some(regex_syntax::Error::Translate(e)) => Some((e.kind().to_string(), *e.span())),
        // `regex_syntax::Error` is non-exhaustive, and a build error other than size
        // and syntax should not happen with this configuration; either way the whole
        // pattern is blamed.
        _ => None,
    };
    let (message, span) = match located {
        Some((message, span)) => (message, span.start.offset..span.end.offset),
        None => (e.to_string(), whole),
    };
    (ParseErrorKind::InvalidRegex { message }, span)
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
