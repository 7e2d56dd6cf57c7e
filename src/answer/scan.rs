//! The scanner: one left-to-right pass that finds the protocol's calls in a text and
//! reports each one as a signal or as a rejected candidate. Non-allocating; both
//! [`FinalDetector::find`](super::FinalDetector::find) and
//! [`FinalDetector::detect`](super::FinalDetector::detect) are consumers of it, so they
//! cannot disagree.
//!
//! # What is a signal
//!
//! A *candidate* is a signal name standing alone as a word and followed by `(`
//! ([`lex::name_at`], [`lex::paren_after`]). Its argument runs to the matching `)`,
//! counting parentheses outside string literals. A candidate that closes is a signal if
//! its argument is well formed ([`args::check`]) and, in prose, it is not negated nor,
//! in strict mode, off the start of its line. A *signal* is a well-formed call that is
//! not inside the argument of another call that closed: `FINAL("use FINAL(x)")` and
//! `FINAL(f(FINAL(x)))` are one signal each, and a rejected call (`don't call
//! FINAL(x)`) swallows what it contains.
//!
//! A call that never closes is rejected, but what it contains is still read: in
//! `FINAL(x ... FINAL(42)`, `FINAL(42)` is a signal.
//!
//! # Why one pass with a stack
//!
//! Scanning each candidate's argument separately is quadratic on a text made of many
//! unclosed `FINAL(`. Here every byte is lexed once (plus once more per enclosing
//! `SUBMIT` whose fields are checked), and the calls still open are kept on a
//! fixed-size stack of [`MAX_OPEN`] entries, each remembering the first signal found
//! inside it and the first one that differs from it, which is all the caller needs if
//! the call never closes.

use std::ops::ControlFlow;
use std::sync::LazyLock;

use memchr::memmem::Finder;

use super::lex::{self, Dialect, Strings};
use super::{FinalKind, FinalOptions, RejectReason, args};

/// How many calls may be open inside one another. A deeper one is rejected
/// ([`RejectReason::NestedTooDeep`]) and its parenthesis counted as a plain one; this
/// only matters when the outer calls never close.
pub(crate) const MAX_OPEN: usize = 8;

/// The searchers for the names that start a candidate, built once: `str::find`
/// builds a two-way searcher per call, which costs more than the search itself on
/// the short texts most messages are, and memchr's searchers are vectorized.
static FINAL: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("FINAL"));
static SUBMIT: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("SUBMIT"));

/// A signal: a well-formed call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hit {
    pub(crate) kind: FinalKind,
    /// From the name to the closing parenthesis, inclusive.
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// What identifies the answer: see [`args::check`].
    pub(crate) key: (usize, usize),
}

impl Hit {
    /// Whether two signals say different things (kind or key text differ).
    pub(crate) fn differs(&self, other: &Hit, text: &str) -> bool {
        self.kind != other.kind
            || text.get(self.key.0..self.key.1) != text.get(other.key.0..other.key.1)
    }
}

/// What the scanner reports, in source order of the signals.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Event {
    Signal(Hit),
    Rejected {
        start: usize,
        end: usize,
        reason: RejectReason,
    },
}

/// A call whose `(` has been read and whose `)` has not.
#[derive(Clone, Copy, Debug)]
struct Open {
    kind: FinalKind,
    start: usize,
    paren: usize,
    /// The parenthesis depth outside this call.
    depth: usize,
    /// Already known to be rejected (negated, not at a line start): it is kept on the
    /// stack all the same, so that it swallows its argument.
    reject: Option<RejectReason>,
    /// The first signal closed directly inside it, and the first one after that which
    /// differs from it. They become signals only if this call never closes.
    first: Option<Hit>,
    differ: Option<Hit>,
}

const EMPTY: Open = Open {
    kind: FinalKind::Direct,
    start: 0,
    paren: 0,
    depth: 0,
    reject: None,
    first: None,
    differ: None,
};

/// Runs the scanner over `text`, calling `sink` with each event until it breaks.
pub(crate) fn scan(text: &str, options: FinalOptions, sink: impl FnMut(Event) -> ControlFlow<()>) {
    let mut scanner = Scanner {
        text,
        bytes: text.as_bytes(),
        dialect: options.dialect(),
        strict: options.is_strict(),
        strings: Strings::new(options.dialect()),
        stack: [EMPTY; MAX_OPEN],
        open: 0,
        depth: 0,
        next_final: Next::Unknown,
        next_submit: Next::Unknown,
        sink,
        done: false,
    };
    scanner.run();
}

/// A cached search result for the next occurrence of a name in prose.
#[derive(Clone, Copy, Debug)]
enum Next {
    Unknown,
    At(usize),
    None,
}

struct Scanner<'t, F> {
    text: &'t str,
    bytes: &'t [u8],
    dialect: Dialect,
    strict: bool,
    strings: Strings,
    stack: [Open; MAX_OPEN],
    open: usize,
    /// Parentheses open (outside strings), counting the calls' own.
    depth: usize,
    next_final: Next,
    next_submit: Next,
    sink: F,
    done: bool,
}

impl<F: FnMut(Event) -> ControlFlow<()>> Scanner<'_, F> {
    fn run(&mut self) {
        let mut i = 0;
        while i < self.bytes.len() && !self.done {
            i = if self.open == 0 && self.dialect == Dialect::Text {
                self.prose(i)
            } else {
                self.lex(i)
            };
        }
        self.finish();
    }

    /// Outside every call, prose is not tokenized at all: jump to the next name.
    fn prose(&mut self, i: usize) -> usize {
        let Some(p) = self.next_name(i) else {
            return self.bytes.len();
        };
        self.candidate(p).unwrap_or(p + 1)
    }

    fn next_name(&mut self, i: usize) -> Option<usize> {
        let find = |cache: &mut Next, finder: &Finder<'_>| {
            if let Next::At(p) = *cache {
                if p >= i {
                    return Some(p);
                }
            } else if let Next::None = *cache {
                return None;
            }
            // Every offset the scanner resumes at is a char boundary.
            *cache = match self.bytes.get(i..).and_then(|rest| finder.find(rest)) {
                Some(k) => Next::At(i + k),
                None => Next::None,
            };
            match *cache {
                Next::At(p) => Some(p),
                _ => None,
            }
        };
        let f = find(&mut self.next_final, &FINAL);
        let s = find(&mut self.next_submit, &SUBMIT);
        match (f, s) {
            (Some(f), Some(s)) => Some(f.min(s)),
            (f, s) => f.or(s),
        }
    }

    /// Inside a call (or anywhere in code): read tokens.
    fn lex(&mut self, i: usize) -> usize {
        match self.bytes[i] {
            b'(' => {
                self.depth += 1;
                i + 1
            }
            b')' => {
                self.close(i);
                i + 1
            }
            b'"' | b'\'' => self.strings.skip(self.text, i),
            b'#' if self.dialect == Dialect::Code => lex::line_end(self.bytes, i),
            b'F' | b'S' => self.candidate(i).unwrap_or(i + 1),
            _ => {
                // Skip the bytes that cannot start anything, without a branch each.
                let rest = &self.bytes[i + 1..];
                i + 1
                    + rest
                        .iter()
                        .position(|&b| INTERESTING[usize::from(b)])
                        .unwrap_or(rest.len())
            }
        }
    }

    /// If a candidate starts at `p`, opens it and returns where to continue.
    fn candidate(&mut self, p: usize) -> Option<usize> {
        let (kind, name_end) = lex::name_at(self.text, p)?;
        let paren = lex::paren_after(self.bytes, name_end)?;
        let mut reject = None;
        match self.dialect {
            Dialect::Code => {
                if let Some(reason) = lex::not_a_call(self.text, p) {
                    // Not the protocol's function: its parentheses are plain ones.
                    self.emit(Event::Rejected {
                        start: p,
                        end: name_end,
                        reason,
                    });
                    return Some(name_end);
                }
            }
            Dialect::Text => {
                if self.strict && !lex::at_line_start(self.bytes, p) {
                    reject = Some(RejectReason::NotAtLineStart);
                } else if lex::negated(self.text, p) {
                    reject = Some(RejectReason::Negated);
                }
            }
        }
        if self.open == MAX_OPEN {
            self.emit(Event::Rejected {
                start: p,
                end: paren + 1,
                reason: RejectReason::NestedTooDeep,
            });
            return Some(name_end);
        }
        self.stack[self.open] = Open {
            kind,
            start: p,
            paren,
            depth: self.depth,
            reject,
            ..EMPTY
        };
        self.open += 1;
        self.depth += 1;
        Some(paren + 1)
    }

    /// A `)` at `i`: closes a plain parenthesis or the innermost call.
    fn close(&mut self, i: usize) {
        let Some(depth) = self.depth.checked_sub(1) else {
            return; // a stray `)` at the top level of code
        };
        self.depth = depth;
        if self.open == 0 || self.stack[self.open - 1].depth != depth {
            return;
        }
        self.open -= 1;
        let call = self.stack[self.open];
        let end = i + 1;
        let key = match call.reject {
            Some(reason) => Err(reason),
            None => args::check(self.text, self.dialect, call.kind, call.paren + 1, i),
        };
        match key {
            Err(reason) => self.emit(Event::Rejected {
                start: call.start,
                end,
                reason,
            }),
            Ok(key) => {
                let hit = Hit {
                    kind: call.kind,
                    start: call.start,
                    end,
                    key,
                };
                if self.open == 0 {
                    self.emit(Event::Signal(hit));
                } else {
                    let parent = &mut self.stack[self.open - 1];
                    match parent.first {
                        None => parent.first = Some(hit),
                        Some(first)
                            if parent.differ.is_none() && first.differs(&hit, self.text) =>
                        {
                            parent.differ = Some(hit);
                        }
                        Some(_) => {}
                    }
                }
            }
        }
    }

    /// The end of the text: the calls still open are rejected, and the signals they
    /// hold are signals after all (outermost first, which is source order).
    fn finish(&mut self) {
        for k in 0..self.open {
            let call = self.stack[k];
            self.emit(Event::Rejected {
                start: call.start,
                end: call.paren + 1,
                reason: RejectReason::Unclosed,
            });
            for hit in [call.first, call.differ].into_iter().flatten() {
                self.emit(Event::Signal(hit));
            }
        }
        self.open = 0;
    }

    fn emit(&mut self, event: Event) {
        if !self.done && (self.sink)(event).is_break() {
            self.done = true;
        }
    }
}

/// The bytes the lexer must look at: everything else is skipped in bulk.
const INTERESTING: [bool; 256] = {
    let mut table = [false; 256];
    let mut k = 0;
    let bytes = b"()\"'#FS";
    while k < bytes.len() {
        table[bytes[k] as usize] = true;
        k += 1;
    }
    table
};
