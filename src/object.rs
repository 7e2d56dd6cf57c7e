//! The object form of a done sequence, with Langroid's field names.
//!
//! Langroid configures a sequence either as DSL text or as
//! `DoneSequence(name=..., events=[AgentEvent(event_type=..., tool_name=...,
//! content_pattern=..., responder=...)])`. [`SequenceObject`] is that second form as
//! plain data: with the `serde` feature it is what a JSON/YAML/TOML object
//! deserializes into, and the CLI prints it. Convert with `DoneSequence::try_from`
//! and `SequenceObject::from`.
//!
//! Two extensions keep every DSL value expressible: an event may say `"negated":
//! true`, and an element of `events` may be a list of events that must all hold on
//! the same message (`L & C[DONE]`). `X{n}` is written as `n` equal events.

use std::fmt;

use crate::dsl::ContentPattern;
use crate::dsl::{AgentEvent, EventKind, ToolName};
use crate::dsl::{
    DoneSequence, Element, Literal, MAX_ELEMENTS, MAX_LITERALS, MAX_PATTERNS, ParseError,
    ParseErrorKind,
};

/// A done sequence in object form: `{"name": ..., "events": [...]}`.
///
/// # Example
///
/// ```
/// use doneseq::{DoneSequence, EventType, SequenceObject};
/// use doneseq::object::{ElementObject, EventObject};
///
/// let object = SequenceObject {
///     name: Some("calc".into()),
///     events: vec![
///         ElementObject::Event(EventObject {
///             tool_name: Some("calculator".into()),
///             ..EventObject::new(EventType::SpecificTool)
///         }),
///         ElementObject::Event(EventObject::new(EventType::AgentResponse)),
///     ],
/// };
/// let seq = DoneSequence::try_from(object.clone())?;
/// assert_eq!(seq.to_string(), "calc: T[calculator], A");
/// assert_eq!(SequenceObject::from(&seq), object);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct SequenceObject {
    /// The sequence's name; absent, `null` and `""` mean no name (Langroid's default
    /// name is `""`).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub name: Option<String>,
    /// The elements, in order.
    pub events: Vec<ElementObject>,
}

/// One element of [`SequenceObject::events`]: an event object, or a list of them that
/// must all hold on the same message.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
pub enum ElementObject {
    /// A single event (Langroid's only form).
    Event(EventObject),
    /// A conjunction: every event holds on the same message.
    All(Vec<EventObject>),
}

/// One event in object form, with Langroid's `AgentEvent` field names.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct EventObject {
    /// What kind of event.
    pub event_type: EventType,
    /// The tool's name; required with `specific_tool`, refused otherwise.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub tool_name: Option<String>,
    /// The regex; required with `content_match`, refused otherwise.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub content_pattern: Option<String>,
    /// The responder the event is narrowed to (honoured, unlike in Langroid).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub responder: Option<String>,
    /// Langroid's field; must be absent or `null`. It names a Python class, which has
    /// no meaning here; a value is refused rather than ignored.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing))]
    pub tool_class: Option<String>,
    /// Langroid's field; must be absent or `null`. Use `responder`, which doneseq
    /// honours; a value is refused rather than ignored.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing))]
    pub sender: Option<String>,
    /// doneseq's extension: the event must *not* hold (`!X`).
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "is_false"))]
    pub negated: bool,
}

#[cfg(feature = "serde")]
#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` passes `&T`
fn is_false(b: &bool) -> bool {
    !*b
}

/// The `event_type` values: Langroid's `EventType` names, plus doneseq's own.
///
/// ```
/// use doneseq::EventType;
///
/// assert_eq!(EventType::AgentResponse.as_str(), "agent_response");
/// assert_eq!(EventType::Final.to_string(), "final");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum EventType {
    /// `"tool"`: `T`.
    Tool,
    /// `"specific_tool"`: `T[name]`, with `tool_name`.
    SpecificTool,
    /// `"llm_response"`: `L`.
    LlmResponse,
    /// `"agent_response"`: `A`.
    AgentResponse,
    /// `"user_response"`: `U`.
    UserResponse,
    /// `"no_response"`: `N`.
    NoResponse,
    /// `"content_match"`: `C[regex]`, with `content_pattern`.
    ContentMatch,
    /// `"final"`: `F` (doneseq).
    Final,
    /// `"error"`: `E` (doneseq).
    Error,
    /// `"any"`: `_` (doneseq).
    Any,
}

impl EventType {
    /// The `snake_case` name, as in JSON.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            EventType::Tool => "tool",
            EventType::SpecificTool => "specific_tool",
            EventType::LlmResponse => "llm_response",
            EventType::AgentResponse => "agent_response",
            EventType::UserResponse => "user_response",
            EventType::NoResponse => "no_response",
            EventType::ContentMatch => "content_match",
            EventType::Final => "final",
            EventType::Error => "error",
            EventType::Any => "any",
        }
    }
}

impl fmt::Display for EventType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl EventObject {
    /// An event object of this type with no other field set.
    #[must_use]
    pub const fn new(event_type: EventType) -> EventObject {
        EventObject {
            event_type,
            tool_name: None,
            content_pattern: None,
            responder: None,
            tool_class: None,
            sender: None,
            negated: false,
        }
    }
}

/// Why an object could not become a [`DoneSequence`]. The `path` says which event
/// (`events[2]`, or `events[2][1]` inside a conjunction).
///
/// ```
/// use doneseq::object::{ElementObject, EventObject};
/// use doneseq::{DoneSequence, EventType, ObjectError, SequenceObject};
///
/// let object = SequenceObject {
///     name: None,
///     events: vec![ElementObject::Event(EventObject::new(EventType::SpecificTool))],
/// };
/// let err = DoneSequence::try_from(object).unwrap_err();
/// assert!(matches!(err, ObjectError::MissingField { field: "tool_name", .. }));
/// assert_eq!(err.to_string(), "events[0]: event_type 'specific_tool' needs 'tool_name'");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ObjectError {
    /// A field the event type needs is absent, `null` or empty: `specific_tool`
    /// without `tool_name`, `content_match` without `content_pattern`.
    #[error("{path}: event_type '{event_type}' needs '{field}'")]
    MissingField {
        /// Which event.
        path: String,
        /// Its type.
        event_type: EventType,
        /// The missing field.
        field: &'static str,
    },
    /// A field that the event type does not use is set (`tool_name` on `tool`), or
    /// Langroid's `tool_class`/`sender` has a value. Refused rather than ignored.
    #[error("{path}: '{field}' is not allowed with event_type '{event_type}'{hint}")]
    UnexpectedField {
        /// Which event.
        path: String,
        /// Its type.
        event_type: EventType,
        /// The field.
        field: &'static str,
        /// How to say it instead, in parentheses, or empty.
        hint: &'static str,
    },
    /// An optional field given as `""` (`responder`): leave it out or `null` instead.
    #[error("{path}: '{field}' is empty (leave it out for none)")]
    EmptyField {
        /// Which event.
        path: String,
        /// The field.
        field: &'static str,
    },
    /// A `content_pattern` that is not a valid regex.
    #[error("{path}: content_pattern: {error}")]
    Pattern {
        /// Which event.
        path: String,
        /// The error, with its span in the pattern.
        error: ParseError,
    },
    /// The sequence or one element as a whole is invalid: no events, too many (of
    /// elements, literals in an element or regexes, checked before anything is
    /// converted), an empty conjunction or one no message can satisfy, or a canonical
    /// text too long to parse back.
    #[error("{path}: {error}")]
    Invalid {
        /// `events`, or which element.
        path: String,
        /// The error, whose input is the canonical text of what was given (empty for a
        /// count checked before converting).
        error: ParseError,
    },
}

impl TryFrom<SequenceObject> for DoneSequence {
    type Error = ObjectError;

    fn try_from(object: SequenceObject) -> Result<DoneSequence, ObjectError> {
        crate::text::scoped(|| from_object(object))
    }
}

/// [`DoneSequence::try_from`], in a regex scope.
fn from_object(object: SequenceObject) -> Result<DoneSequence, ObjectError> {
    check_counts(&object.events)?;
    let mut elements: Vec<Element> = Vec::with_capacity(object.events.len());
    for (index, element) in object.events.iter().enumerate() {
        // A run of equal elements is how this form writes `X{n}`: converted (and
        // its regexes compiled) once.
        if let Some(last) = elements
            .last()
            .filter(|_| object.events[index - 1] == *element)
        {
            elements.push(last.clone());
            continue;
        }
        let path = format!("events[{index}]");
        let literals = match element {
            ElementObject::Event(event) => vec![to_literal(event.clone(), &path)?],
            ElementObject::All(events) => events
                .iter()
                .enumerate()
                .map(|(member, event)| to_literal(event.clone(), &format!("{path}[{member}]")))
                .collect::<Result<_, _>>()?,
        };
        let element =
            Element::all(literals).map_err(|error| ObjectError::Invalid { path, error })?;
        elements.push(element);
    }
    let invalid = |path: &str, error| ObjectError::Invalid {
        path: path.to_owned(),
        error,
    };
    let seq = DoneSequence::new(elements).map_err(|error| invalid("events", error))?;
    let seq = match object.name {
        Some(name) => seq.with_name(name),
        None => seq,
    };
    // A long name can still make the canonical text too long to parse back.
    crate::dsl::check_canonical(&seq).map_err(|kind| {
        let text = seq.to_string();
        invalid("name", ParseError::new(kind, 0..text.len(), &text))
    })?;
    Ok(seq)
}

/// The count limits of [`DoneSequence`], checked on the object before anything is
/// converted: every `content_match` compiles a regex, and the work must stay bounded
/// by the limits, not by the size of the object.
fn check_counts(events: &[ElementObject]) -> Result<(), ObjectError> {
    let invalid = |path: String, kind| ObjectError::Invalid {
        path,
        error: ParseError::new(kind, 0..0, ""),
    };
    if events.len() > MAX_ELEMENTS {
        let kind = ParseErrorKind::TooManyElements { max: MAX_ELEMENTS };
        return Err(invalid("events".into(), kind));
    }
    let mut patterns = 0;
    for (index, element) in events.iter().enumerate() {
        let members = match element {
            ElementObject::Event(event) => std::slice::from_ref(event),
            ElementObject::All(events) => events.as_slice(),
        };
        if members.len() > MAX_LITERALS {
            let kind = ParseErrorKind::TooManyLiterals { max: MAX_LITERALS };
            return Err(invalid(format!("events[{index}]"), kind));
        }
        if index == 0 || events[index - 1] != *element {
            patterns += members
                .iter()
                .filter(|e| e.event_type == EventType::ContentMatch)
                .count();
        }
    }
    if patterns > MAX_PATTERNS {
        let kind = ParseErrorKind::TooManyPatterns { max: MAX_PATTERNS };
        return Err(invalid("events".into(), kind));
    }
    Ok(())
}

fn to_literal(object: EventObject, path: &str) -> Result<Literal, ObjectError> {
    let negated = object.negated;
    let event = to_event(object, path)?;
    Ok(if negated {
        Literal::not(event)
    } else {
        Literal::new(event)
    })
}

/// The event of an event object (everything but `negated`).
fn to_event(object: EventObject, path: &str) -> Result<AgentEvent, ObjectError> {
    let event_type = object.event_type;
    let unexpected = |field, hint| ObjectError::UnexpectedField {
        path: path.to_owned(),
        event_type,
        field,
        hint,
    };
    if object.tool_class.is_some() {
        return Err(unexpected(
            "tool_class",
            " (name the tool with 'tool_name')",
        ));
    }
    if object.sender.is_some() {
        return Err(unexpected("sender", " (use 'responder')"));
    }
    let missing = |field| ObjectError::MissingField {
        path: path.to_owned(),
        event_type,
        field,
    };
    // A misplaced field is refused even when empty; a required one must not be empty.
    if object.tool_name.is_some() && event_type != EventType::SpecificTool {
        return Err(unexpected("tool_name", " (use event_type 'specific_tool')"));
    }
    if object.content_pattern.is_some() && event_type != EventType::ContentMatch {
        return Err(unexpected(
            "content_pattern",
            " (use event_type 'content_match')",
        ));
    }
    let tool_name = object.tool_name.filter(|n| !n.is_empty());
    let pattern = object.content_pattern.filter(|p| !p.is_empty());
    let kind = match event_type {
        EventType::Tool => EventKind::Tool,
        EventType::SpecificTool => EventKind::SpecificTool(ToolName::from_parsed(
            tool_name.ok_or(missing("tool_name"))?,
        )),
        EventType::LlmResponse => EventKind::Llm,
        EventType::AgentResponse => EventKind::Agent,
        EventType::UserResponse => EventKind::User,
        EventType::NoResponse => EventKind::NoResponse,
        EventType::ContentMatch => {
            let source = pattern.ok_or(missing("content_pattern"))?;
            let pattern = ContentPattern::new(&source).map_err(|error| ObjectError::Pattern {
                path: path.to_owned(),
                error,
            })?;
            EventKind::Content(pattern)
        }
        EventType::Final => EventKind::Final,
        EventType::Error => EventKind::Error,
        EventType::Any => EventKind::Any,
    };
    let event = AgentEvent::new(kind);
    Ok(match object.responder {
        Some(responder) if responder.is_empty() => {
            return Err(ObjectError::EmptyField {
                path: path.to_owned(),
                field: "responder",
            });
        }
        Some(responder) => event.with_responder(responder),
        None => event,
    })
}

impl From<&DoneSequence> for SequenceObject {
    fn from(seq: &DoneSequence) -> SequenceObject {
        let events = seq
            .elements()
            .iter()
            .map(|element| match element.literals() {
                [literal] => ElementObject::Event(EventObject::from(literal)),
                literals => ElementObject::All(literals.iter().map(EventObject::from).collect()),
            })
            .collect();
        SequenceObject {
            name: seq.name().map(str::to_owned),
            events,
        }
    }
}

impl From<&Literal> for EventObject {
    fn from(literal: &Literal) -> EventObject {
        let event = literal.event();
        let (event_type, tool_name, content_pattern) = match event.kind() {
            EventKind::Tool => (EventType::Tool, None, None),
            EventKind::SpecificTool(name) => (
                EventType::SpecificTool,
                Some(name.as_str().to_owned()),
                None,
            ),
            EventKind::Llm => (EventType::LlmResponse, None, None),
            EventKind::Agent => (EventType::AgentResponse, None, None),
            EventKind::User => (EventType::UserResponse, None, None),
            EventKind::NoResponse => (EventType::NoResponse, None, None),
            EventKind::Content(p) => (EventType::ContentMatch, None, Some(p.as_str().to_owned())),
            EventKind::Final => (EventType::Final, None, None),
            EventKind::Error => (EventType::Error, None, None),
            EventKind::Any => (EventType::Any, None, None),
        };
        EventObject {
            tool_name,
            content_pattern,
            responder: event.responder().map(str::to_owned),
            negated: literal.is_negated(),
            ..EventObject::new(event_type)
        }
    }
}
