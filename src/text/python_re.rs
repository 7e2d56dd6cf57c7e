//! Python's `re` meaning for a `C[...]` pattern, in the regex crate's syntax (or, for
//! the few patterns that need backtracking, fancy-regex's).
//!
//! Langroid runs `re.search(pattern, content, re.IGNORECASE)`. Where the regex crate
//! reads the same text differently, the pattern is rewritten to Python's meaning, or
//! refused with the position and what Python would mean:
//!
//! - `$` (without `(?m)`) also matches before a final newline, as in Python:
//!   `(?:\n?\z)` where nothing but group ends follows it (the match ends there, so
//!   taking the newline changes nothing), the look-ahead `(?=\n?\z)` elsewhere (`a$\n`).
//!   `\Z` is Python's absolute end: `\z`.
//! - `\<` and `\>` are literal `<` and `>` in Python (word boundaries in the regex
//!   crate).
//! - Inside a class, `[` is a literal (a nested class in the regex crate, so
//!   `[[:alpha:]]` is Python's class of `[`, `:`, `a`, ... followed by `]`), and `&&`,
//!   `--` and `~~` are literal characters (set operations in the regex crate).
//! - `{,n}` is `{0,n}`, and a comment group `(?#...)` is skipped, as in Python.
//! - `{` that does not start a Python repetition (`{m}`, `{m,}`, `{,n}`, `{m,n}`, no
//!   spaces) is a literal: `a{ 1 }` is the text `a{ 1 }`.
//! - Octal escapes (`\0`, `\012`, `\101`; in a class `\1` too) are the characters
//!   they name; `\b` in a class is a backspace; an escaped non-ASCII character is
//!   itself.
//! - A repetition of an anchor or a word boundary (`^*`, `\b?`) or of a repetition
//!   (`a**`, `a{2}{3}`) is refused, as Python refuses it.
//! - Under case-insensitive matching (the default of `C[...]`, until `(?-i)`), `i`,
//!   `I`, `ı` (U+0131) and `İ` (U+0130) are one letter, as in Python.
//!
//! Look-around (`(?=`, `(?!`, `(?<=`, `(?<!`), backreferences (`\1`..`\99`,
//! `(?P=name)`), atomic groups (`(?>...)`) and possessive quantifiers (`a++`, `a*+`,
//! `a?+`, `a{2}+`; these two since Python 3.11) need a backtracking engine: the scan
//! finds them in the syntax (never by retrying a pattern the regex crate refused,
//! which would let through escapes Python refuses), and the pattern gets two forms:
//! the exact one for fancy-regex, and a relaxed one in the regex crate's syntax that
//! matches wherever the exact one does, starting at the same place (a look-ahead
//! becomes an optional group of its body, a look-behind nothing, a backreference any
//! text, an atomic group or a possessive quantifier the ordinary one), which the classifier's one-pass
//! regex set runs as the exact form's prefilter. Python's rules for them are kept:
//! a look-behind has a fixed width, a backreference names a group that is defined and
//! closed before it; a conditional group `(?(1)...)` and a backreference inside a
//! look-behind are refused.
//!
//! Each form keeps a map from its bytes to the pattern's, so that an error either
//! engine reports points into the pattern as written.

use std::ops::Range;

use super::RegexError;

/// A pattern rewritten to Python's meaning.
pub(crate) struct Translated {
    /// The exact form: the regex crate's syntax, or fancy-regex's when
    /// `backtracking`.
    pub(crate) exact: Text,
    /// The regex crate's syntax, matching wherever `exact` does (from the same start);
    /// the same text as `exact` unless `backtracking`.
    pub(crate) relaxed: Text,
    /// Whether the exact form needs a backtracking engine.
    pub(crate) backtracking: bool,
    /// What folding the classes of the look-behinds' bodies costs (they are in the
    /// exact form only; see [`super::fold_work`]).
    pub(crate) look_behind_fold_work: u64,
}

/// A rewritten pattern, with where each of its bytes came from.
pub(crate) struct Text {
    pub(crate) text: String,
    /// For each byte of `text` (and one past its end), the byte of the pattern it
    /// came from.
    origin: Vec<usize>,
}

impl Text {
    fn with_capacity(n: usize) -> Text {
        Text {
            text: String::with_capacity(n),
            origin: Vec::with_capacity(n),
        }
    }

    fn push(&mut self, s: &str, from: usize) {
        self.text.push_str(s);
        self.origin.extend(std::iter::repeat_n(from, s.len()));
    }

    /// The span of the pattern as written that `span` of this text covers.
    pub(crate) fn original(&self, span: &Range<usize>) -> Range<usize> {
        let at = |i: usize| self.origin[i.min(self.origin.len() - 1)];
        let start = at(span.start);
        start..at(span.end).max(start)
    }
}

/// The two forms being written. Inside a look-around nested in a look-behind, the
/// relaxed form is muted (the look-around is dropped from it: still a superset).
struct Out {
    exact: Text,
    relaxed: Text,
    muted: usize,
}

impl Out {
    fn both(&mut self, s: &str, from: usize) {
        self.split(s, s, from);
    }

    fn split(&mut self, exact: &str, relaxed: &str, from: usize) {
        self.exact.push(exact, from);
        if self.muted == 0 {
            self.relaxed.push(relaxed, from);
        }
    }
}

/// An open group, outside classes.
enum Group {
    /// A non-capturing or flag group, or an atomic group.
    Plain,
    /// A capturing group and its number.
    Capture(usize),
    /// A look-around: where it starts in the pattern, whether it looks behind,
    /// where its body starts in the relaxed form, and whether it mutes that form.
    Look {
        at: usize,
        behind: bool,
        body: usize,
        mutes: bool,
    },
}

type Fault = (RegexError, Range<usize>);

fn fault(message: impl Into<String>, span: Range<usize>) -> Fault {
    (
        RegexError::Invalid {
            message: message.into(),
        },
        span,
    )
}

/// The capturing groups seen so far: which are closed, and their names.
#[derive(Default)]
struct Groups {
    closed: Vec<bool>,
    names: Vec<(Box<str>, usize)>,
}

impl Groups {
    fn open(&mut self, name: Option<&str>) -> usize {
        self.closed.push(false);
        let n = self.closed.len();
        if let Some(name) = name {
            self.names.push((name.into(), n));
        }
        n
    }

    /// Python's check of a backreference to group `n` (at `span`).
    fn check(&self, n: usize, span: Range<usize>) -> Result<(), Fault> {
        match self.closed.get(n.wrapping_sub(1)) {
            Some(true) => Ok(()),
            Some(false) => Err(fault(
                "a backreference to a group that is still open (Python: \"cannot refer to \
                 an open group\")",
                span,
            )),
            None => Err(fault(
                format!(
                    "a backreference to group {n}, which is not defined before it (Python: \
                     \"invalid group reference {n}\")"
                ),
                span,
            )),
        }
    }

    fn named(&self, name: &str) -> Option<usize> {
        self.names
            .iter()
            .find(|(n, _)| &**n == name)
            .map(|&(_, number)| number)
    }
}

/// Rewrites `pattern` (case-insensitive at its start when `case_insensitive`).
#[allow(clippy::too_many_lines)] // one scan, one match per syntax form
pub(crate) fn translate(pattern: &str, case_insensitive: bool) -> Result<Translated, Fault> {
    check_repeats(pattern)?;
    let multiline = sets_multiline(pattern);
    // Inline flags that turn case-insensitivity off are followed roughly: after any
    // `(?-i` the rest is taken as case-sensitive.
    let mut out = Out {
        exact: Text::with_capacity(pattern.len() + 8),
        relaxed: Text::with_capacity(pattern.len() + 8),
        muted: 0,
    };
    let bytes = pattern.as_bytes();
    let mut fold = case_insensitive;
    let mut backtracking = false;
    let mut look_behind_fold_work = 0u64;
    let mut stack: Vec<Group> = Vec::new();
    let mut groups = Groups::default();
    let in_look_behind = |stack: &[Group]| {
        stack
            .iter()
            .any(|g| matches!(g, Group::Look { behind: true, .. }))
    };
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
                out.both("\\", i);
                i += 1;
                continue;
            };
            let mut escaped = &pattern[i..i + 1 + next.len_utf8()];
            // `\p{..}`, `\P{..}`, `\x{..}`: the braces belong to the escape.
            if matches!(next, 'p' | 'P' | 'x')
                && pattern[i + 2..].starts_with('{')
                && let Some(close) = pattern[i + 2..].find('}')
            {
                escaped = &pattern[i..i + 3 + close];
            }
            if next.is_ascii_digit() {
                let (n, taken) = digit_escape(pattern, i, class_depth > 0)?;
                match n {
                    Escape::Char(ch) => out.both(&format!("\\x{{{:X}}}", u32::from(ch)), i),
                    Escape::Group(n) => {
                        let span = i..i + taken;
                        if in_look_behind(&stack) {
                            return Err(fault(
                                "a backreference inside a look-behind: not supported",
                                span,
                            ));
                        }
                        groups.check(n, span)?;
                        out.split(&format!("\\k<{n}>"), "(?s:.*?)", i);
                        backtracking = true;
                    }
                }
                i += taken;
                continue;
            }
            match (class_depth, next) {
                // Python leaves an escaped character other than an ASCII letter or
                // digit alone; the regex crate refuses a non-ASCII one.
                (0, '\u{131}' | '\u{130}') if fold => out.both(I_LETTERS, i),
                (_, c) if !c.is_ascii() => {
                    class_has_i |= class_depth > 0 && is_i(c);
                    out.both(&pattern[i + 1..i + 1 + c.len_utf8()], i);
                }
                (0, 'Z') => out.both("\\z", i),
                // In a class, Python's `\b` is a backspace.
                (1, 'b') => out.both("\\x08", i),
                (_, '<') => out.both("<", i),
                (_, '>') => out.both(">", i),
                _ => out.both(escaped, i),
            }
            i += escaped.len();
            continue;
        }
        if class_depth > 0 {
            match c {
                '[' => out.both("\\[", i),
                ']' => {
                    class_depth = 0;
                    // Python folds i, I, ı and İ together: so does the class.
                    if fold && class_has_i {
                        out.both(&I_LETTERS[1..I_LETTERS.len() - 1], i);
                    }
                    out.both("]", i);
                }
                '&' | '-' | '~' if bytes.get(i + 1) == Some(&(c as u8)) => {
                    let pair = if c == '&' {
                        "\\&\\&"
                    } else if c == '-' {
                        "\\-\\-"
                    } else {
                        "\\~\\~"
                    };
                    out.both(pair, i);
                    i += 2;
                    continue;
                }
                '-' if class_prev.is_some() => {
                    let low = class_prev.take().unwrap_or('-');
                    if let Some(high) = pattern[i + 1..].chars().next().filter(|&h| h != ']') {
                        class_has_i |= ['i', 'I', '\u{131}', '\u{130}']
                            .iter()
                            .any(|c| (low..=high).contains(c));
                    }
                    out.both("-", i);
                }
                _ => {
                    class_has_i |= is_i(c);
                    class_prev = Some(c);
                    out.both(&pattern[i..i + len], i);
                }
            }
            i += len;
            continue;
        }
        let rest = &pattern[i..];
        match c {
            // A comment group: Python skips it.
            '(' if rest.starts_with("(?#") => {
                let end = rest.find(')').map_or(pattern.len(), |n| i + n + 1);
                i = end;
                continue;
            }
            '(' if ["(?=", "(?!", "(?<=", "(?<!"]
                .iter()
                .any(|open| rest.starts_with(open)) =>
            {
                let behind = bytes[i + 2] == b'<';
                let opener = &rest[..if behind { 4 } else { 3 }];
                // Nested in a look-behind, a look-around is dropped from the relaxed
                // form, which keeps the look-behind's fixed width checkable there.
                let mutes = in_look_behind(&stack);
                // A look-behind's body is written to the relaxed form only to check its
                // width, then replaced by nothing: it is not part of the match, and
                // as an optional group it would start the relaxed match early.
                let relaxed = match (mutes, behind) {
                    (true, _) => "(?:)",
                    (false, true) => "",
                    (false, false) => "(?:(?:",
                };
                out.split(opener, relaxed, i);
                if mutes {
                    out.muted += 1;
                }
                stack.push(Group::Look {
                    at: i,
                    behind,
                    body: out.relaxed.text.len(),
                    mutes,
                });
                backtracking = true;
                i += opener.len();
                continue;
            }
            '(' if rest.starts_with("(?>") => {
                out.split("(?>", "(?:", i);
                stack.push(Group::Plain);
                backtracking = true;
                i += 3;
                continue;
            }
            '(' if rest.starts_with("(?P=") => {
                let Some(close) = rest.find(')') else {
                    return Err(fault(
                        "a backreference '(?P=name)' without its ')'",
                        i..pattern.len(),
                    ));
                };
                let span = i..i + close + 1;
                let name = &rest[4..close];
                if in_look_behind(&stack) {
                    return Err(fault(
                        "a backreference inside a look-behind: not supported",
                        span,
                    ));
                }
                let Some(n) = groups.named(name) else {
                    return Err(fault(
                        format!(
                            "a backreference to '{name}', which no group before it is named (Python: \"unknown group name\")"
                        ),
                        span,
                    ));
                };
                groups.check(n, span)?;
                out.split(&rest[..=close], "(?s:.*?)", i);
                backtracking = true;
                i += close + 1;
                continue;
            }
            '(' if rest.starts_with("(?(") => {
                let end = rest.find(')').map_or(pattern.len(), |n| i + n + 1);
                return Err(fault(
                    "a conditional group '(?(1)yes|no)': not supported",
                    i..end,
                ));
            }
            // A named group: `(?P<name>` or `(?<name>`.
            '(' if rest.starts_with("(?P<") || rest.starts_with("(?<") => {
                let start = if rest.starts_with("(?P<") { 4 } else { 3 };
                let close = rest.find('>').unwrap_or(rest.len() - 1);
                let name = rest.get(start..close).unwrap_or("");
                stack.push(Group::Capture(groups.open(Some(name))));
                out.both(&rest[..=close], i);
                i += close + 1;
                continue;
            }
            // Flags, as written: `(?i)` for the rest, `(?i:` a group.
            '(' if bytes.get(i + 1) == Some(&b'?') => {
                let stop = rest[2..].find([':', ')']).map_or(rest.len(), |n| n + 3);
                if rest.as_bytes().get(stop - 1) == Some(&b':') {
                    stack.push(Group::Plain);
                }
                out.both(&rest[..stop], i);
                i += stop;
                continue;
            }
            '(' => {
                stack.push(Group::Capture(groups.open(None)));
                out.both("(", i);
            }
            ')' => match stack.pop() {
                Some(Group::Capture(n)) => {
                    groups.closed[n - 1] = true;
                    out.both(")", i);
                }
                Some(Group::Look {
                    at,
                    behind,
                    body,
                    mutes,
                }) => {
                    let after = &pattern[i + 1..];
                    let repeat = match after.bytes().next() {
                        Some(b'*' | b'+' | b'?') => 1,
                        Some(b'{') => repetition(after).unwrap_or(0),
                        _ => 0,
                    };
                    if repeat > 0 {
                        return Err(fault(
                            "a repetition of a look-around: not supported (Python reads \
                             '(?=x)+' as '(?=x)' and '(?=x)*' as nothing: write that)",
                            i + 1..i + 1 + repeat,
                        ));
                    }
                    if mutes {
                        out.muted -= 1;
                        out.exact.push(")", i);
                    } else {
                        if behind {
                            let text = &out.relaxed.text[body..];
                            if char_width(text, fold).is_none() {
                                return Err(fault(
                                    "a look-behind whose alternatives or repetitions match \
                                     different numbers of characters (Python: \"look-behind \
                                     requires fixed-width pattern\")",
                                    at..i + 1,
                                ));
                            }
                            // fancy-regex compiles the body: its classes are folded.
                            look_behind_fold_work += super::fold_work(text);
                            out.relaxed.text.truncate(body);
                            out.relaxed.origin.truncate(body);
                            out.split(")", "(?:)", i);
                        } else {
                            out.split(")", ")?)", i);
                        }
                    }
                }
                _ => out.both(")", i),
            },
            '[' => {
                class_depth = 1;
                (class_has_i, class_prev) = (false, None);
                out.both("[", i);
                i += 1;
                // A leading `^`, then a leading `]`, are part of the class.
                if bytes.get(i) == Some(&b'^') {
                    out.both("^", i);
                    i += 1;
                }
                if bytes.get(i) == Some(&b']') {
                    out.both("\\]", i);
                    i += 1;
                }
                continue;
            }
            '$' if !multiline => {
                // In a look-behind, `$` must stay zero-width for the width check.
                if only_group_ends_follow(pattern, i + 1) && !in_look_behind(&stack) {
                    out.both("(?:\\n?\\z)", i);
                } else {
                    out.split("(?=\\n?\\z)", "(?:)", i);
                    backtracking = true;
                }
            }
            '{' => match repetition(rest) {
                Some(n) => {
                    // Python's `{,n}` is `{0,n}`.
                    if rest.starts_with("{,") {
                        out.both("{0", i);
                        out.both(&pattern[i + 1..i + n], i + 1);
                    } else {
                        out.both(&pattern[i..i + n], i);
                    }
                    i += n;
                    backtracking |= possessive(&mut out, pattern, i);
                    i += usize::from(bytes.get(i) == Some(&b'+'));
                    continue;
                }
                None => out.both("\\{", i),
            },
            '*' | '+' | '?' => {
                out.both(&pattern[i..i + 1], i);
                i += 1;
                if bytes.get(i) == Some(&b'?') {
                    // Lazy.
                    out.both("?", i);
                    i += 1;
                } else if possessive(&mut out, pattern, i) {
                    backtracking = true;
                    i += 1;
                }
                continue;
            }
            c if fold && is_i(c) => out.both(I_LETTERS, i),
            _ => out.both(&pattern[i..i + len], i),
        }
        i += len;
    }
    out.exact.origin.push(pattern.len());
    out.relaxed.origin.push(pattern.len());
    Ok(Translated {
        exact: out.exact,
        relaxed: out.relaxed,
        backtracking,
        look_behind_fold_work,
    })
}

/// The four letters Python's case-insensitive matching takes as one: i, I, ı (U+0131)
/// and İ (U+0130), as a class.
const I_LETTERS: &str = "[iI\u{131}\u{130}]";

fn is_i(c: char) -> bool {
    matches!(c, 'i' | 'I' | '\u{131}' | '\u{130}')
}

/// Refuses a repetition Python refuses where the regex crate would take it: of an
/// anchor or a word boundary (`^*`, `\b?`, `$+`: "nothing to repeat"), or of a
/// repetition (`a**`, `a{2}{3}`: "multiple repeat"; a lazy `?` or a possessive `+`
/// after a repetition is part of it).
fn check_repeats(pattern: &str) -> Result<(), Fault> {
    #[derive(PartialEq)]
    enum Prev {
        Atom,
        Anchor,
        Repeat,
    }
    let bytes = pattern.as_bytes();
    let mut prev = Prev::Atom;
    let mut i = 0;
    while i < bytes.len() {
        let repeat_len = match bytes[i] {
            b'*' | b'+' | b'?' => 1,
            b'{' => repetition(&pattern[i..]).unwrap_or(0),
            _ => 0,
        };
        if repeat_len > 0 {
            let span = i..i + repeat_len;
            match prev {
                Prev::Anchor => {
                    return Err(fault(
                        "a repetition of an anchor or a word boundary (Python: \"nothing to \
                         repeat\")",
                        span,
                    ));
                }
                Prev::Repeat => {
                    return Err(fault(
                        "a repetition of a repetition (Python: \"multiple repeat\"; group \
                         it: '(?:a*)*')",
                        span,
                    ));
                }
                Prev::Atom => {}
            }
            i += repeat_len;
            // A lazy `?` or a possessive `+` belongs to the repetition.
            if matches!(bytes.get(i), Some(b'?' | b'+')) {
                i += 1;
            }
            prev = Prev::Repeat;
            continue;
        }
        prev = Prev::Atom;
        match bytes[i] {
            b'\\' => {
                if matches!(bytes.get(i + 1), Some(b'b' | b'B' | b'A' | b'Z' | b'z')) {
                    prev = Prev::Anchor;
                }
                i += 1;
            }
            b'^' | b'$' => prev = Prev::Anchor,
            b'[' => i = class_end(bytes, i),
            b'(' if pattern[i..].starts_with("(?#") => {
                i += pattern[i..].find(')').unwrap_or(pattern.len() - i);
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

/// A possessive quantifier's `+` at `at` (right after a quantifier): kept in the
/// exact form, dropped from the relaxed one. Whether there is one.
fn possessive(out: &mut Out, pattern: &str, at: usize) -> bool {
    let is = pattern.as_bytes().get(at) == Some(&b'+');
    if is {
        out.split("+", "", at);
    }
    is
}

/// What a backslash and digits mean to Python.
enum Escape {
    Char(char),
    Group(usize),
}

/// Reads the escape `\` + digits at `at` as Python does: outside a class, `\0` and
/// up to two more octal digits, or three octal digits, are a character, anything
/// else one or two digits naming a group; inside a class, up to three octal digits
/// are a character and `\8`, `\9` an error. Returns the escape and its length.
fn digit_escape(pattern: &str, at: usize, in_class: bool) -> Result<(Escape, usize), Fault> {
    let digits = &pattern.as_bytes()[at + 1..];
    let octal = |n: usize| digits.get(n).is_some_and(|d| (b'0'..=b'7').contains(d));
    let decimal = |n: usize| digits.get(n).is_some_and(u8::is_ascii_digit);
    let char_of = |count: usize| -> Result<(Escape, usize), Fault> {
        let text = &pattern[at + 1..at + 1 + count];
        let value = u32::from_str_radix(text, 8).unwrap_or(u32::MAX);
        match char::from_u32(value).filter(|_| value <= 0o377) {
            Some(ch) => Ok((Escape::Char(ch), count + 1)),
            None => Err(fault(
                format!("octal escape \\{text} outside of range 0-0o377 (as in Python)"),
                at..at + 1 + count,
            )),
        }
    };
    if in_class || digits[0] == b'0' {
        if !octal(0) {
            return Err(fault(
                format!(
                    "bad escape \\{} in a class (as in Python)",
                    char::from(digits[0])
                ),
                at..at + 2,
            ));
        }
        let count = 1 + usize::from(octal(1)) + usize::from(octal(1) && octal(2));
        return char_of(count);
    }
    if decimal(1) && octal(0) && octal(1) && octal(2) {
        return char_of(3);
    }
    let count = 1 + usize::from(decimal(1));
    let n = pattern[at + 1..at + 1 + count]
        .parse()
        .unwrap_or(usize::MAX);
    Ok((Escape::Group(n), count + 1))
}

/// Whether only the ends of groups follow `at` on every path through the pattern: a
/// `)`, or a `|` (which skips to the end of its group), up to the pattern's end.
fn only_group_ends_follow(pattern: &str, mut at: usize) -> bool {
    let bytes = pattern.as_bytes();
    loop {
        match bytes.get(at) {
            None => return true,
            Some(b')') => at += 1,
            Some(b'|') => match group_end(pattern, at) {
                Some(end) => at = end,
                None => return true,
            },
            Some(_) => return false,
        }
    }
}

/// The `)` that closes the group holding `at`, if it has one (`None` at the top).
fn group_end(pattern: &str, mut at: usize) -> Option<usize> {
    let bytes = pattern.as_bytes();
    let mut depth = 0usize;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 1,
            b'[' => at = class_end(bytes, at),
            b'(' => depth += 1,
            b')' if depth == 0 => return Some(at),
            b')' => depth -= 1,
            _ => {}
        }
        at += 1;
    }
    None
}

/// Where the Python class opening at `open` ends: its `]` (one right after `[` or
/// `[^` is a member; `[` inside is a literal), or the pattern's end.
fn class_end(bytes: &[u8], open: usize) -> usize {
    let mut at = open + 1;
    if bytes.get(at) == Some(&b'^') {
        at += 1;
    }
    if bytes.get(at) == Some(&b']') {
        at += 1;
    }
    while at < bytes.len() && bytes[at] != b']' {
        at += usize::from(bytes[at] == b'\\') + 1;
    }
    at
}

/// The width in characters of every match of `body` (in the regex crate's syntax),
/// if all have the same: Python's condition on a look-behind.
fn char_width(body: &str, fold: bool) -> Option<usize> {
    use regex_syntax::hir::{Hir, HirKind};
    fn width(hir: &Hir) -> Option<usize> {
        match hir.kind() {
            HirKind::Empty | HirKind::Look(_) => Some(0),
            HirKind::Literal(lit) => {
                Some(std::str::from_utf8(&lit.0).map_or(lit.0.len(), |s| s.chars().count()))
            }
            HirKind::Class(_) => Some(1),
            HirKind::Capture(cap) => width(&cap.sub),
            HirKind::Repetition(rep) => {
                let one = width(&rep.sub)?;
                if one == 0 {
                    Some(0)
                } else if rep.max == Some(rep.min) {
                    one.checked_mul(usize::try_from(rep.min).ok()?)
                } else {
                    None
                }
            }
            HirKind::Concat(parts) => parts.iter().map(width).sum(),
            HirKind::Alternation(alts) => {
                let first = width(alts.first()?)?;
                alts.iter()
                    .all(|a| width(a) == Some(first))
                    .then_some(first)
            }
        }
    }
    let hir = regex_syntax::ParserBuilder::new()
        .case_insensitive(fold)
        .build()
        .parse(body)
        // A body that does not parse is reported where the whole pattern is built.
        .ok()?;
    width(&hir)
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

#[cfg(test)]
mod tests {
    use super::translate;

    #[test]
    fn rewrites_to_pythons_meaning() {
        let cases = [
            ("DONE$", false, "DONE(?:\\n?\\z)"),
            ("(DONE$|x)", false, "(DONE(?:\\n?\\z)|x)"),
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
            ("[hi]", true, "[hiiI\u{131}\u{130}]"),
            ("[i-z]", true, "[i-ziI\u{131}\u{130}]"),
            ("[a-z]", true, "[a-ziI\u{131}\u{130}]"),
            ("[0-9]", true, "[0-9]"),
            ("[^i]", true, "[^iiI\u{131}\u{130}]"),
            ("[\u{131}]", true, "[\u{131}iI\u{131}\u{130}]"),
            ("\\\u{130}x", true, "[iI\u{131}\u{130}]x"),
            ("(?-i)bitti", true, "(?-i)bitti"),
            ("[]a]", false, "[\\]a]"),
            ("a*?b+?", false, "a*?b+?"),
            ("(?i)bit", true, "(?i)b[iI\u{131}\u{130}]t"),
            ("(?P<id>x)", true, "(?P<id>x)"),
            ("(?im)^x$", false, "(?im)^x$"),
            ("\\0\\101\\012x", false, "\\x{0}\\x{41}\\x{A}x"),
            ("[\\1\\7]", false, "[\\x{1}\\x{7}]"),
            ("\\\u{131}x", false, "\u{131}x"),
            ("[\\b]\\b", false, "[\\x08]\\b"),
            ("a*?b{2}?c", false, "a*?b{2}?c"),
        ];
        for (pattern, fold, expected) in cases {
            let t = translate(pattern, fold).unwrap();
            assert_eq!(t.exact.text, expected, "{pattern}");
            assert_eq!(t.relaxed.text, expected, "{pattern}");
            assert!(!t.backtracking, "{pattern}");
        }
    }

    #[test]
    fn backtracking_syntax_gets_an_exact_and_a_relaxed_form() {
        // (pattern, exact, relaxed)
        let cases = [
            ("(?<!NOT )\\bOK\\b", "(?<!NOT )\\bOK\\b", "(?:)\\bOK\\b"),
            ("a(?=b)", "a(?=b)", "a(?:(?:b)?)"),
            ("a(?!b)c", "a(?!b)c", "a(?:(?:b)?)c"),
            ("(\\w+) \\1", "(\\w+) \\k<1>", "(\\w+) (?s:.*?)"),
            ("(?P<w>a)(?P=w)", "(?P<w>a)(?P=w)", "(?P<w>a)(?s:.*?)"),
            ("(?>ab|a)c", "(?>ab|a)c", "(?:ab|a)c"),
            ("a++b", "a++b", "a+b"),
            ("a{2}+", "a{2}+", "a{2}"),
            ("a$\\n", "a(?=\\n?\\z)\\n", "a(?:)\\n"),
            ("(?<=(?!x)y)z", "(?<=(?!x)y)z", "(?:)z"),
            ("a(?=b(?<=b))", "a(?=b(?<=b))", "a(?:(?:b(?:))?)"),
            ("a(?<=a$)", "a(?<=a(?=\\n?\\z))", "a(?:)"),
        ];
        for (pattern, exact, relaxed) in cases {
            let t = translate(pattern, false).unwrap();
            assert!(t.backtracking, "{pattern}");
            assert_eq!(t.exact.text, exact, "{pattern}");
            assert_eq!(t.relaxed.text, relaxed, "{pattern}");
        }
    }

    #[test]
    fn refuses_what_python_refuses_where_it_is() {
        // (pattern, span of the fault, a word of the message)
        let cases = [
            ("(a)\\2", 3..5, "group 2"),
            ("(a\\1)", 2..4, "open"),
            ("\\1(a)", 0..2, "group 1"),
            ("(?P=x)(?P<x>a)", 0..6, "named"),
            ("x(?<=a|bc)", 1..10, "look-behind"),
            ("x(?<=a{1,2})", 1..12, "look-behind"),
            ("(a)(?<=\\1)", 7..9, "look-behind"),
            ("(?(1)a|b)", 0..5, "conditional"),
            ("[\\8]", 1..3, "bad escape"),
            ("\\777", 0..4, "octal"),
            ("a\\b?", 3..4, "nothing to repeat"),
            ("^*a", 1..2, "nothing to repeat"),
            ("a$+", 2..3, "nothing to repeat"),
            ("a**", 2..3, "multiple repeat"),
            ("a{2}{3}", 4..7, "multiple repeat"),
            ("a*?*", 3..4, "multiple repeat"),
            ("(?=a)+", 5..6, "look-around"),
            ("x(?<!a){1,2}", 7..12, "look-around"),
        ];
        for (pattern, span, word) in cases {
            let Err((e, at)) = translate(pattern, false) else {
                panic!("{pattern} was not refused");
            };
            assert_eq!(at, span, "{pattern}");
            assert!(format!("{e:?}").contains(word), "{pattern}: {e:?}");
        }
        // Fixed widths pass, in characters: `ı` is two bytes.
        for pattern in ["(?<=ab|cd)x", "(?<=a{2})x", "(?<=\u{131})x", "(?<=[ab])x"] {
            assert!(translate(pattern, true).is_ok(), "{pattern}");
        }
    }

    #[test]
    fn spans_map_back_to_the_pattern_as_written() {
        let t = translate("ab$c(", false).unwrap();
        // `(` is the last byte of the rewritten text and of the pattern.
        let last = t.exact.text.len() - 1;
        assert_eq!(t.exact.original(&(last..last + 1)), 4..5);
    }
}
