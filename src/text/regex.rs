//! Regexes with the crate's limits: their length, compiled size, and the heap and
//! case-folding work one parse may spend on them (the budget), shared by the DSL's
//! `C[...]` and the stop language's `text(...)`; and the scan that finds where a
//! regex written inside brackets ends.

use std::cell::RefCell;
use std::collections::HashMap;

use regex_automata::meta::{self, Regex};
use regex_automata::util::syntax;

/// The largest compiled size, in bytes, that one content regex may take.
///
/// A regex such as `(?:\w{1000}){1000}` is tiny to write and enormous to compile; this
/// bound (passed to the regex crate's size limit) turns it into a
/// [`ParseErrorKind::RegexTooBig`](crate::ParseErrorKind::RegexTooBig) instead of a memory spike. 1 MiB leaves room for
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
/// [`ParseErrorKind::RegexMemory`](crate::ParseErrorKind::RegexMemory), before the next one is compiled: each regex costs
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
/// [`ParseErrorKind::RegexCost`](crate::ParseErrorKind::RegexCost). Everyday regexes cost little: literals, `.`, `\w`
/// and `\d` nothing (they are not folded), `[a-z]` 58, `[\w.-]` or `\pL` about
/// 25,000 (the budget holds 2,500 of those); `[\s\S]` costs 1.1 million (write
/// `(?s:.)`, which costs nothing). A [`FinalPatternPolicy`](crate::answer::FinalPatternPolicy)'s
/// extra patterns have the same budget ([`PolicyError::RegexCost`](crate::answer::PolicyError::RegexCost)).
pub const MAX_REGEX_FOLD_WORK: u64 = 1 << 26;

/// The regexes one parse has compiled, by source and case mode, and the heap they
/// take: what [`MAX_REGEX_MEMORY`] bounds.
#[derive(Default)]
struct Scope {
    compiled: HashMap<(Box<str>, bool), (Regex, usize)>,
    /// The exact forms compiled on fancy-regex, by their text.
    backtracking: HashMap<Box<str>, super::Backtracking>,
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

/// A regex error and the span of the pattern it concerns.
pub(crate) type Located = (RegexError, std::ops::Range<usize>);

/// A `C[...]` pattern built with Python's `re` meaning.
pub(crate) struct PythonRegex {
    /// The regex crate's form: exact, or, when `backtracking` is there, its relaxed
    /// form (the prefilter).
    pub(crate) regex: Regex,
    pub(crate) heap: usize,
    /// The source of `regex` (what the classifier's regex set compiles).
    pub(crate) engine: Box<str>,
    /// The exact form, when it needs a backtracking engine.
    pub(crate) backtracking: Option<super::Backtracking>,
}

/// Builds a `C[...]` pattern with Python's `re` meaning (see [`super::translate`]):
/// the limits and the bracket check on the pattern as written, the regex crate on its
/// translation (and fancy-regex on its exact form where it needs backtracking),
/// errors pointing into the pattern as written.
pub(crate) fn build_python(pattern: &str) -> Result<PythonRegex, Located> {
    check_len(pattern)?;
    let whole = 0..pattern.len();
    let closed = format!("{pattern}]");
    match regex_body_end(&closed) {
        Some(at) if at == pattern.len() => {}
        Some(at) => return Err((RegexError::StrayBracket, at..at + 1)),
        None => return Err((RegexError::UnclosedBracket, whole)),
    }
    let t = super::translate(pattern, true)?;
    scoped(|| {
        // The relaxed form first: the regex crate's errors have positions.
        let (regex, heap) = build_in_scope(&t.relaxed.text, true)
            .map_err(|(e, span)| (e, t.relaxed.original(&span)))?;
        let backtracking = if t.backtracking {
            Some(build_backtracking(&t, &regex, heap, &whole)?)
        } else {
            None
        };
        Ok(PythonRegex {
            regex,
            heap,
            engine: t.relaxed.text.as_str().into(),
            backtracking,
        })
    })
}

/// Builds the exact form of `t` on fancy-regex, with `prefilter` (its relaxed form,
/// which takes `heap`); equal exact forms in one parse are compiled once.
fn build_backtracking(
    t: &super::python_re::Translated,
    prefilter: &Regex,
    heap: usize,
    whole: &std::ops::Range<usize>,
) -> Result<super::Backtracking, Located> {
    let key: &str = &t.exact.text;
    let shared = SCOPE.with(|scope| {
        let scope = scope.borrow();
        scope
            .as_ref()
            .and_then(|s| s.backtracking.get(key).cloned())
    });
    if let Some(shared) = shared {
        return Ok(shared);
    }
    // fancy-regex compiles the same classes again (its parts run on the regex crate)
    // and does not report its heap: it is charged as much as the relaxed form once
    // more, and the look-behinds' bodies that only it compiles.
    let fold_work = super::cost::fold_work(&t.relaxed.text) + t.look_behind_fold_work;
    charge(fold_work, heap, whole)?;
    let exact = fancy_regex::RegexBuilder::new(key)
        .case_insensitive(true)
        .backtrack_limit(super::MAX_BACKTRACK)
        .delegate_size_limit(MAX_REGEX_SIZE)
        .build()
        .map_err(|e| fancy_error(&e, &t.exact))?;
    let built = super::Backtracking {
        exact,
        prefilter: prefilter.clone(),
    };
    SCOPE.with(|scope| {
        let mut scope = scope.borrow_mut();
        let scope = scope.as_mut().expect("built in a scope");
        scope.backtracking.insert(key.into(), built.clone());
    });
    Ok(built)
}

/// The error of an exact form fancy-regex refused, in the pattern as written.
fn fancy_error(e: &fancy_regex::Error, exact: &super::python_re::Text) -> Located {
    let whole = exact.original(&(0..exact.text.len()));
    match e {
        fancy_regex::Error::ParseError(at, kind) => (
            RegexError::Invalid {
                message: kind.to_string(),
            },
            exact.original(&(*at..*at + 1)),
        ),
        fancy_regex::Error::CompileError(kind) => match &**kind {
            fancy_regex::CompileError::InnerError(inner) if inner.size_limit().is_some() => (
                RegexError::TooBig {
                    limit: MAX_REGEX_SIZE,
                },
                whole,
            ),
            kind => (
                RegexError::Invalid {
                    message: kind.to_string(),
                },
                whole,
            ),
        },
        other => (
            RegexError::Invalid {
                message: other.to_string(),
            },
            whole,
        ),
    }
}

/// Charges the current scope `fold_work` and `heap`, or refuses (on `span`) the
/// regex that would pass [`MAX_REGEX_FOLD_WORK`] or [`MAX_REGEX_MEMORY`].
fn charge(fold_work: u64, heap: usize, span: &std::ops::Range<usize>) -> Result<(), Located> {
    SCOPE.with(|scope| {
        let mut scope = scope.borrow_mut();
        let scope = scope.as_mut().expect("built in a scope");
        if scope.fold_work.saturating_add(fold_work) > MAX_REGEX_FOLD_WORK {
            let max = MAX_REGEX_FOLD_WORK;
            return Err((RegexError::Cost { max }, span.clone()));
        }
        if scope.heap + heap > MAX_REGEX_MEMORY {
            let max = MAX_REGEX_MEMORY;
            return Err((RegexError::Memory { max }, span.clone()));
        }
        scope.fold_work += fold_work;
        scope.heap += heap;
        Ok(())
    })
}

/// A pattern that is empty or longer than [`MAX_PATTERN_LEN`], as an error on the
/// whole pattern. Checked before any parsing: the regex parsers build their syntax
/// tree without a size limit, and 64 KiB of `\pL` costs seconds and most of a
/// gigabyte there.
fn check_len(pattern: &str) -> Result<(), Located> {
    let whole = 0..pattern.len();
    if pattern.is_empty() {
        return Err((RegexError::Empty, whole));
    }
    if pattern.len() > MAX_PATTERN_LEN {
        let kind = RegexError::TooLong {
            len: pattern.len(),
            max: MAX_PATTERN_LEN,
        };
        return Err((kind, whole));
    }
    Ok(())
}

/// Builds `pattern` with the crate's limits ([`MAX_PATTERN_LEN`], [`MAX_REGEX_SIZE`],
/// and [`MAX_REGEX_MEMORY`] in a [`scoped`] parse), with the heap it takes; an
/// error's span is relative to `pattern`. Shared by `C[...]` (case-insensitive) and
/// the stop conditions' `text(...)` (as written).
pub(crate) fn build(pattern: &str, case_insensitive: bool) -> Result<(Regex, usize), Located> {
    check_len(pattern)?;
    // A regex built outside a parse (`ContentPattern::new`) is a parse of its own.
    scoped(|| build_in_scope(pattern, case_insensitive))
}

fn build_in_scope(
    pattern: &str,
    case_insensitive: bool,
) -> Result<(Regex, usize), (RegexError, std::ops::Range<usize>)> {
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
    charge(super::cost::fold_work(pattern), 0, &whole)?;
    let regex = Regex::builder()
        .syntax(syntax::Config::new().case_insensitive(case_insensitive))
        .configure(meta::Config::new().nfa_size_limit(Some(MAX_REGEX_SIZE)))
        .build(pattern)
        .map_err(|e| build_error(&e, pattern))?;
    let heap = regex.memory_usage();
    // Charged after the compile (its size is known only then), so the budget is
    // passed by at most one regex, which is refused.
    charge(0, heap, &whole)?;
    SCOPE.with(|scope| {
        let mut scope = scope.borrow_mut();
        let scope = scope.as_mut().expect("built in a scope");
        scope.compiled.insert(key, (regex.clone(), heap));
    });
    Ok((regex, heap))
}

/// The error of a regex that did not build, with the span of its fault.
fn build_error(e: &meta::BuildError, pattern: &str) -> (RegexError, std::ops::Range<usize>) {
    let whole = 0..pattern.len();
    if let Some(limit) = e.size_limit() {
        return (RegexError::TooBig { limit }, whole);
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
    (RegexError::Invalid { message }, span)
}

/// What is wrong with a regex, before the DSL or the stop language says it in its
/// own words (the DSL's [`ParseErrorKind`](crate::ParseErrorKind) variants of the same
/// names; the stop language's invalid-pattern errors).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RegexError {
    /// The regex is empty.
    Empty,
    /// Longer than [`MAX_PATTERN_LEN`].
    TooLong { len: usize, max: usize },
    /// It does not parse.
    Invalid { message: String },
    /// Its compiled size passes [`MAX_REGEX_SIZE`].
    TooBig { limit: usize },
    /// It would take the parse's regexes past [`MAX_REGEX_MEMORY`].
    Memory { max: usize },
    /// Its case folding would take the parse past [`MAX_REGEX_FOLD_WORK`].
    Cost { max: u64 },
    /// An unescaped `]` outside a class, which would end the brackets early.
    StrayBracket,
    /// An unbalanced `[` or a trailing `\\`, which would swallow the closing `]`.
    UnclosedBracket,
}

/// Where the `]` that closes a content bracket is, in `body` (the text after `[`), or
/// `None` if it is not closed.
///
/// The scan knows enough regex syntax to keep `]` that belongs to the regex: `\]` is an
/// escape, and `[...]` is a character class, which may nest (`[a-z&&[^aeiou]]`) and
/// may start with a literal `]` (`[]a]`, `[^]a]`). This is what lets commas and
/// classes live inside `C[...]` (Langroid PR #1135).
pub(crate) fn regex_body_end(body: &str) -> Option<usize> {
    let bytes = body.as_bytes();
    let mut depth = 0usize;
    let mut at = 0;
    // The structural characters are ASCII, so a byte scan never splits a UTF-8
    // sequence where it matters.
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 1,
            b'[' => {
                depth += 1;
                // A `]` right after `[` or `[^` is a literal member of the class.
                if bytes.get(at + 1) == Some(&b'^') {
                    at += 1;
                }
                if bytes.get(at + 1) == Some(&b']') {
                    at += 1;
                }
            }
            b']' if depth == 0 => return Some(at),
            b']' => depth -= 1,
            _ => {}
        }
        at += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::regex_body_end;

    #[test]
    fn regex_body_ends_at_the_first_bracket_outside_escapes_and_classes() {
        // (body after `C[`, where the closing `]` is)
        let cases: &[(&str, Option<usize>)] = &[
            ("abc]", Some(3)),
            ("a,b], A", Some(3)),
            ("\\]]", Some(2)),
            ("[a-z]+]", Some(6)),
            ("[]a]]", Some(4)),
            ("[^]a]]", Some(5)),
            ("[a-z&&[^aeiou]]]", Some(15)),
            ("[[:alpha:]]]", Some(11)),
            ("[\\]]]", Some(4)),
            ("é]", Some(2)),
            ("abc", None),
            ("[abc]", None),
            ("\\]", None),
            ("a\\", None),
            ("", None),
        ];
        for &(body, end) in cases {
            assert_eq!(regex_body_end(body), end, "{body:?}");
        }
    }
}
