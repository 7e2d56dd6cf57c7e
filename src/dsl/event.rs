//! The atoms of the DSL: what a single message can be said to be.
//!
//! An [`AgentEvent`] is one thing a message may satisfy: "it is an LLM response",
//! "it calls the tool `calculator`", "its content matches `quit|bye`", optionally
//! narrowed to one responder ("an agent response from `Database`"). Classification
//! (a later layer) turns each message into the set of events it satisfies; the DSL
//! arranges events into [`DoneSequence`](crate::DoneSequence)s.

use std::fmt;

use super::ContentPattern;
use super::{ParseError, ParseErrorKind, Subject};

/// The name in `T[name]`: never empty, compared exactly (case-sensitive).
///
/// Any other string is a valid name; `Display` of a `T[...]` event escapes what the
/// parser would otherwise read differently.
///
/// ```
/// use doneseq::ToolName;
///
/// let name = ToolName::new("calculator")?;
/// assert_eq!(name.as_str(), "calculator");
/// assert!(ToolName::new("").is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ToolName(Box<str>);

impl ToolName {
    /// A tool name.
    ///
    /// # Errors
    ///
    /// [`ParseErrorKind::EmptyBracket`] if `name` is empty: `T[]` names no tool.
    pub fn new(name: &str) -> Result<ToolName, ParseError> {
        if name.is_empty() {
            let err = ParseError::new(ParseErrorKind::EmptyBracket, 0..0, name);
            return Err(err.about(Subject::TOOL_NAME));
        }
        Ok(ToolName(name.into()))
    }

    /// For the parser, which never produces an empty name.
    pub(crate) fn from_parsed(name: String) -> ToolName {
        debug_assert!(!name.is_empty());
        ToolName(name.into_boxed_str())
    }

    /// The name.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<&str> for ToolName {
    type Error = ParseError;

    fn try_from(name: &str) -> Result<ToolName, ParseError> {
        ToolName::new(name)
    }
}

impl PartialEq<str> for ToolName {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for ToolName {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl fmt::Debug for ToolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for ToolName {
    /// The name as is, unescaped (it is not DSL text).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What kind of message an [`AgentEvent`] stands for.
///
/// The first seven kinds are Langroid's `EventType`s with the same meaning; `Final`,
/// `Error` and `Any` are doneseq's own. The enum will grow, so it is
/// `#[non_exhaustive]`.
///
/// The *base kinds* `Tool`, `SpecificTool`, `Llm`, `Agent`, `User` and `NoResponse`
/// are exclusive: a message is exactly one of an LLM tool call, an LLM text, an agent
/// response, a user response, or no response (as Langroid classifies it). `Content`,
/// `Final`, `Error` and `Any` are predicates that hold in addition to the base kind.
///
/// # Example
///
/// ```
/// use doneseq::{AgentEvent, EventKind, ToolName};
///
/// let event: AgentEvent = "T[calculator]".parse()?;
/// assert_eq!(event.kind(), &EventKind::SpecificTool(ToolName::new("calculator")?));
/// assert_eq!(event.kind().letter(), 'T');
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EventKind {
    /// `T` / `TOOL`: an LLM message that calls any tool (Langroid `TOOL`).
    Tool,
    /// `T[name]`: an LLM message with a tool call named exactly `name`, case-sensitive
    /// (Langroid `SPECIFIC_TOOL`).
    SpecificTool(ToolName),
    /// `L` / `LLM`: an LLM message without tool calls (Langroid `LLM_RESPONSE`).
    Llm,
    /// `A` / `AGENT`: an agent's response, e.g. a tool result (Langroid `AGENT_RESPONSE`).
    Agent,
    /// `U` / `USER`: a user's response (Langroid `USER_RESPONSE`).
    User,
    /// `N` / `NO_RESPONSE`: a step that produced no valid response (Langroid
    /// `NO_RESPONSE`).
    NoResponse,
    /// `C[regex]` / `CONTENT[regex]`: the content matches the regex, searched
    /// unanchored and case-insensitively (Langroid `CONTENT_MATCH`).
    Content(ContentPattern),
    /// `F` / `FINAL`: the content carries a `FINAL(...)` or `FINAL_VAR(...)` answer.
    Final,
    /// `E` / `ERROR`: the message reports an error.
    Error,
    /// `_` / `ANY`: any message at all; a placeholder in a sequence.
    Any,
}

impl EventKind {
    /// The one-character code this kind prints as in canonical DSL text.
    ///
    /// ```
    /// use doneseq::EventKind;
    ///
    /// assert_eq!(EventKind::NoResponse.letter(), 'N');
    /// assert_eq!(EventKind::Any.letter(), '_');
    /// ```
    #[must_use]
    pub const fn letter(&self) -> char {
        match self {
            EventKind::Tool | EventKind::SpecificTool(_) => 'T',
            EventKind::Llm => 'L',
            EventKind::Agent => 'A',
            EventKind::User => 'U',
            EventKind::NoResponse => 'N',
            EventKind::Content(_) => 'C',
            EventKind::Final => 'F',
            EventKind::Error => 'E',
            EventKind::Any => '_',
        }
    }

    /// The Langroid `EventType` value of this kind (`"specific_tool"`, `"llm_response"`,
    /// ...), or doneseq's own name for the kinds Langroid lacks (`"final"`, `"error"`,
    /// `"any"`). These are the `event_type` values of the serde object form.
    ///
    /// ```
    /// use doneseq::EventKind;
    ///
    /// assert_eq!(EventKind::Agent.event_type(), "agent_response");
    /// ```
    #[must_use]
    pub const fn event_type(&self) -> &'static str {
        match self {
            EventKind::Tool => "tool",
            EventKind::SpecificTool(_) => "specific_tool",
            EventKind::Llm => "llm_response",
            EventKind::Agent => "agent_response",
            EventKind::User => "user_response",
            EventKind::NoResponse => "no_response",
            EventKind::Content(_) => "content_match",
            EventKind::Final => "final",
            EventKind::Error => "error",
            EventKind::Any => "any",
        }
    }

    /// The exclusive base kind this kind implies, if any: `Tool` for `Tool` and
    /// `SpecificTool`, itself for `Llm`, `Agent`, `User` and `NoResponse`, and `None`
    /// for the predicates `Content`, `Final`, `Error` and `Any`.
    ///
    /// Two events whose base kinds differ can never hold on the same message.
    #[must_use]
    pub const fn base(&self) -> Option<BaseKind> {
        match self {
            EventKind::Tool | EventKind::SpecificTool(_) => Some(BaseKind::Tool),
            EventKind::Llm => Some(BaseKind::Llm),
            EventKind::Agent => Some(BaseKind::Agent),
            EventKind::User => Some(BaseKind::User),
            EventKind::NoResponse => Some(BaseKind::NoResponse),
            EventKind::Content(_) | EventKind::Final | EventKind::Error | EventKind::Any => None,
        }
    }
}

/// The exclusive classification of a message, as Langroid decides it: every message is
/// exactly one of these.
///
/// ```
/// use doneseq::{BaseKind, EventKind, ToolName};
///
/// assert_eq!(EventKind::SpecificTool(ToolName::new("search")?).base(), Some(BaseKind::Tool));
/// assert_eq!(EventKind::Final.base(), None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum BaseKind {
    /// An LLM message with at least one tool call.
    Tool,
    /// An LLM message without tool calls.
    Llm,
    /// An agent's response.
    Agent,
    /// A user's response.
    User,
    /// A step without a valid response.
    NoResponse,
}

impl BaseKind {
    /// The DSL letter: `T`, `L`, `A`, `U` or `N`.
    ///
    /// ```
    /// assert_eq!(doneseq::BaseKind::NoResponse.letter(), "N");
    /// ```
    #[must_use]
    pub const fn letter(self) -> &'static str {
        match self {
            BaseKind::Tool => "T",
            BaseKind::Llm => "L",
            BaseKind::Agent => "A",
            BaseKind::User => "U",
            BaseKind::NoResponse => "N",
        }
    }
}

/// One atom of a done sequence: an [`EventKind`], optionally narrowed to a responder.
///
/// Construct one with [`AgentEvent::new`] (it cannot fail) or parse one from DSL text
/// (`"T[calculator]"`, `"A@Database"`, `"C[quit|bye]"`). `Display` prints the
/// canonical text, which parses back to an equal value.
///
/// # Example
///
/// ```
/// use doneseq::{AgentEvent, EventKind};
///
/// let event = AgentEvent::new(EventKind::Agent).with_responder("Database");
/// assert_eq!(event.to_string(), "A@Database");
/// assert_eq!("AGENT@Database".parse::<AgentEvent>()?, event);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AgentEvent {
    kind: EventKind,
    responder: Option<String>,
}

impl AgentEvent {
    /// An event of this kind, from any responder.
    #[must_use]
    pub const fn new(kind: EventKind) -> AgentEvent {
        AgentEvent {
            kind,
            responder: None,
        }
    }

    /// The same event, narrowed to messages produced by `responder` (an agent, entity
    /// or sub-task name, compared exactly). Langroid's `AgentEvent.responder` field,
    /// which Langroid ignores and doneseq honours.
    #[must_use]
    pub fn with_responder(mut self, responder: impl Into<String>) -> AgentEvent {
        self.responder = Some(responder.into());
        self
    }

    /// What kind of message this event stands for.
    #[must_use]
    pub const fn kind(&self) -> &EventKind {
        &self.kind
    }

    /// The responder this event is narrowed to, if any.
    #[must_use]
    pub fn responder(&self) -> Option<&str> {
        self.responder.as_deref()
    }
}

impl From<EventKind> for AgentEvent {
    fn from(kind: EventKind) -> AgentEvent {
        AgentEvent::new(kind)
    }
}

impl fmt::Display for BaseKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BaseKind::Tool => "tool call",
            BaseKind::Llm => "LLM response",
            BaseKind::Agent => "agent response",
            BaseKind::User => "user response",
            BaseKind::NoResponse => "no response",
        })
    }
}
