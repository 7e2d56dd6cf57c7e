//! The done-sequence DSL: typed values, their parser and their canonical text.
//!
//! A [`DoneSequence`] is a list of [`Element`]s; an element is a conjunction of
//! [`Literal`]s (`L & C[DONE]`), and a literal is a possibly negated
//! [`AgentEvent`]. Parse with [`DoneSequence::parse`] (or `str::parse`); print with
//! `Display`, which always gives the canonical text, and that text parses back to an
//! equal value.
//!
//! The grammar below is normative; its examples run as tests.
#![doc = include_str!("../../grammar.md")]

mod content;
mod display;
mod error;
mod event;
mod parse;

use smallvec::SmallVec;

pub use self::content::ContentPattern;
pub(crate) use self::error::Subject;
pub use self::error::{ParseError, ParseErrorKind};
pub use self::event::{AgentEvent, BaseKind, EventKind, ToolName};
pub(crate) use self::parse::check_canonical;

/// The longest DSL text, in bytes, that [`DoneSequence::parse`] accepts.
///
/// Done sequences are short (Langroid's longest documented one has 4 events); the
/// bound keeps a hostile configuration from making the parser hold megabytes.
pub const MAX_DSL_LEN: usize = 64 * 1024;

/// The most elements one sequence may have, counting each repetition of `X{n}`.
///
/// The matcher spends one bit per element; 256 elements is four machine words, far
/// past any sequence that makes sense, and it keeps `X{1000000}` from allocating.
pub const MAX_ELEMENTS: usize = 256;

/// The most content regexes (`C[...]`) one sequence may contain, as written (a repeat
/// `X{n}` shares one compiled regex).
///
/// Each regex may compile to [`MAX_REGEX_SIZE`](crate::MAX_REGEX_SIZE); this bounds
/// the total a single sequence can make the parser build.
pub const MAX_PATTERNS: usize = 32;

/// The most literals one element may join with `&`.
pub const MAX_LITERALS: usize = 16;

/// A done sequence: when its elements hold on the last messages of a task, in order
/// and consecutively, the task is done.
///
/// Parsed from DSL text such as `"T[calculator], A"` (see the grammar in the
/// [module docs](crate::dsl)), or built from [`Element`]s with
/// [`DoneSequence::new`]. `Display` prints the canonical text.
///
/// A `DoneSequence` is never empty, has at most [`MAX_ELEMENTS`] elements, and every
/// element can hold on some message.
///
/// # Example
///
/// ```
/// use doneseq::DoneSequence;
///
/// let seq: DoneSequence = "calc_done: TOOL[calculator], AGENT".parse()?;
/// assert_eq!(seq.name(), Some("calc_done"));
/// assert_eq!(seq.len(), 2);
/// assert_eq!(seq.to_string(), "calc_done: T[calculator], A");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DoneSequence {
    name: Option<String>,
    elements: Vec<Element>,
}

/// One position of a [`DoneSequence`]: literals that must all hold on the same message.
///
/// Most elements are a single event (`A`). `L & C[DONE]` is an LLM response whose
/// content matches `DONE`; `T & !T[search]` is a tool call that is not `search`.
///
/// # Example
///
/// ```
/// use doneseq::{AgentEvent, Element, EventKind, Literal, ToolName};
///
/// let element = Element::all([
///     Literal::new(EventKind::Tool.into()),
///     Literal::not(AgentEvent::new(EventKind::SpecificTool(ToolName::new("search")?))),
/// ])?;
/// assert_eq!(element.to_string(), "T & !T[search]");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Element {
    // Almost every element is one literal: keep it inline.
    literals: SmallVec<[Literal; 1]>,
}

/// An [`AgentEvent`] that must hold (`A`) or must not hold (`!A`) on a message.
///
/// ```
/// use doneseq::{EventKind, Literal};
///
/// let literal = Literal::not(EventKind::Error.into());
/// assert!(literal.is_negated());
/// assert_eq!(literal.to_string(), "!E");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Literal {
    event: AgentEvent,
    negated: bool,
}

impl DoneSequence {
    /// Parses DSL text such as `"T[calculator], A"`; the same as `str::parse`.
    ///
    /// # Errors
    ///
    /// A [`ParseError`] with the byte span of the problem, for instance:
    /// - `""` or `","`: no events ([`ParseErrorKind::Empty`]);
    /// - `"T A"`: a missing comma ([`ParseErrorKind::Unexpected`]);
    /// - `"X"` or `"t"`: an unknown event;
    /// - `"C"`, `"C[(]"`: a content event without a pattern, an invalid regex;
    /// - `"T[calc"`, `"T[calc]]"`: an unclosed or a stray bracket;
    /// - `"L & A"`: an element no message can satisfy;
    /// - texts over [`MAX_DSL_LEN`] bytes or sequences over [`MAX_ELEMENTS`].
    ///
    /// [`ParseErrorKind`] documents every case with an input that triggers it.
    pub fn parse(text: &str) -> Result<DoneSequence, ParseError> {
        crate::text::scoped(|| parse::sequence(text))
    }

    /// A sequence of these elements, without a name.
    ///
    /// # Errors
    ///
    /// - [`ParseErrorKind::Empty`] if `elements` is empty;
    /// - [`ParseErrorKind::TooManyElements`] if there are more than [`MAX_ELEMENTS`];
    /// - [`ParseErrorKind::TooManyPatterns`] if there are more than [`MAX_PATTERNS`]
    ///   content regexes (a run of equal elements counts once, as `X{n}`);
    /// - [`ParseErrorKind::CanonicalTooLong`] if the canonical text would be longer
    ///   than [`MAX_DSL_LEN`], so that it could not be parsed back.
    ///
    /// The error's input is the canonical text of what was given.
    ///
    /// # Example
    ///
    /// ```
    /// use doneseq::{DoneSequence, Element, EventKind};
    ///
    /// let seq = DoneSequence::new(vec![
    ///     Element::new(EventKind::Tool.into()),
    ///     Element::new(EventKind::Agent.into()),
    /// ])?;
    /// assert_eq!(seq, "T, A".parse()?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(elements: Vec<Element>) -> Result<DoneSequence, ParseError> {
        let seq = DoneSequence {
            name: None,
            elements,
        };
        let problem = if seq.elements.is_empty() {
            Some(ParseErrorKind::Empty)
        } else if seq.elements.len() > MAX_ELEMENTS {
            Some(ParseErrorKind::TooManyElements { max: MAX_ELEMENTS })
        } else if count_patterns(&seq.elements) > MAX_PATTERNS {
            Some(ParseErrorKind::TooManyPatterns { max: MAX_PATTERNS })
        } else {
            parse::check_canonical(&seq).err()
        };
        match problem {
            None => Ok(seq),
            Some(kind) => {
                let text = seq.to_string();
                Err(ParseError::new(kind, 0..text.len(), &text))
            }
        }
    }

    /// The same sequence with this name (shown in explanations and verdicts). An empty
    /// name removes the name.
    ///
    /// The name is not checked: a name so long that the canonical text passes
    /// [`MAX_DSL_LEN`] makes a sequence that prints but does not parse back. (The
    /// parser and the object form refuse such a sequence.)
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> DoneSequence {
        let name = name.into();
        self.name = (!name.is_empty()).then_some(name);
        self
    }

    /// The sequence's name, if it has one (`name: ...` in the DSL).
    #[must_use]
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The elements, in order; `X{n}` appears as `n` equal elements.
    #[must_use]
    pub fn elements(&self) -> &[Element] {
        &self.elements
    }

    /// The number of elements: how many consecutive messages a match spans.
    #[must_use]
    pub fn len(&self) -> usize {
        self.elements.len()
    }

    /// Always `false`: a sequence has at least one element. Present because `len` is.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.elements.is_empty()
    }
}

impl Element {
    /// An element of one event that must hold.
    #[must_use]
    pub fn new(event: AgentEvent) -> Element {
        Element {
            literals: SmallVec::from_buf([Literal::new(event)]),
        }
    }

    /// An element whose literals must all hold on the same message (`X & Y`).
    ///
    /// # Errors
    ///
    /// - [`ParseErrorKind::Empty`]: no literals;
    /// - [`ParseErrorKind::TooManyLiterals`]: more than [`MAX_LITERALS`];
    /// - [`ParseErrorKind::Unsatisfiable`]: no message can satisfy them all, e.g.
    ///   `L & A`, `T & !T`, `!_`.
    ///
    /// The error's input is the canonical text of the literals.
    pub fn all(literals: impl IntoIterator<Item = Literal>) -> Result<Element, ParseError> {
        let element = Element {
            literals: literals.into_iter().collect(),
        };
        let problem = if element.literals.is_empty() {
            Some(ParseErrorKind::Empty)
        } else if element.literals.len() > MAX_LITERALS {
            Some(ParseErrorKind::TooManyLiterals { max: MAX_LITERALS })
        } else {
            parse::unsatisfiable(&element.literals)
        };
        match problem {
            None => Ok(element),
            Some(kind) => {
                let text = element.to_string();
                Err(ParseError::new(kind, 0..text.len(), &text).about(Subject::ELEMENT))
            }
        }
    }

    /// The literals that must all hold, in the order written.
    #[must_use]
    pub fn literals(&self) -> &[Literal] {
        &self.literals
    }
}

impl DoneSequence {
    /// Renames each `T[name]` where `rename` gives a new name (a tool class name
    /// resolved to its request name), in place: the compiler owns its copy of the
    /// sequences, and a second copy of each was a fifth of compiling 1,000 of them.
    pub(crate) fn rename_tools(&mut self, rename: &dyn Fn(&str) -> Option<ToolName>) {
        for element in &mut self.elements {
            for literal in &mut element.literals {
                if let EventKind::SpecificTool(name) = literal.event.kind()
                    && let Some(new) = rename(name.as_str())
                {
                    let mut event = AgentEvent::new(EventKind::SpecificTool(new));
                    if let Some(responder) = literal.event.responder() {
                        event = event.with_responder(responder);
                    }
                    literal.event = event;
                }
            }
        }
    }
}

impl Literal {
    /// A literal that holds when `event` does.
    #[must_use]
    pub const fn new(event: AgentEvent) -> Literal {
        Literal {
            event,
            negated: false,
        }
    }

    /// A literal that holds when `event` does not (`!event`).
    #[must_use]
    pub const fn not(event: AgentEvent) -> Literal {
        Literal {
            event,
            negated: true,
        }
    }

    /// The event this literal tests.
    #[must_use]
    pub const fn event(&self) -> &AgentEvent {
        &self.event
    }

    /// Whether the literal holds when the event does *not*.
    #[must_use]
    pub const fn is_negated(&self) -> bool {
        self.negated
    }
}

/// The content regexes of `elements` as the canonical text writes them: a run of
/// equal elements is one `X{n}`, whose regexes count once.
fn count_patterns(elements: &[Element]) -> usize {
    let is_content = |l: &Literal| matches!(l.event().kind(), crate::EventKind::Content(_));
    elements
        .iter()
        .enumerate()
        .filter(|&(i, e)| i == 0 || elements[i - 1] != *e)
        .map(|(_, e)| e.literals.iter().filter(|l| is_content(l)).count())
        .sum()
}

impl From<AgentEvent> for Element {
    fn from(event: AgentEvent) -> Element {
        Element::new(event)
    }
}

impl std::str::FromStr for DoneSequence {
    type Err = ParseError;

    fn from_str(text: &str) -> Result<DoneSequence, ParseError> {
        DoneSequence::parse(text)
    }
}

impl std::str::FromStr for AgentEvent {
    type Err = ParseError;

    /// Parses one event such as `T[calculator]`, `AGENT@Database` or `C[quit|bye]`
    /// (no negation, no `&`, no comma).
    fn from_str(text: &str) -> Result<AgentEvent, ParseError> {
        crate::text::scoped(|| parse::event(text))
    }
}
