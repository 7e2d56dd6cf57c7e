//! Messages read and not yet given. The messages a line stands for after its first
//! (a CrewAI task's, an Agno run's, an Anthropic message's tool results) wait for the
//! reader's next calls, which do not write the line's buffer until they are given: so
//! they wait as spans of the line, not as copies of their texts, and are given
//! borrowing the buffer again, each span sliced from its text (the buffer is text,
//! checked as UTF-8 once as it was read: a slice checks only that its ends are
//! whole characters). A CrewAI task's messages read in 4,070 instructions each with
//! their spans' bytes checked as UTF-8 again, 4,601 copied (the copies were most of
//! its allocations).

use std::borrow::Cow;

use crate::Message;
use crate::message::CallArguments;

/// A message waiting to be given.
#[derive(Debug)]
pub(super) enum Pending {
    /// Free of any buffer (a document's, a line read into the scratch buffer).
    Owned(Message<'static>),
    /// A message of the line in the caller's buffer, its borrowed texts kept as spans
    /// of it.
    InLine(Detached),
}

impl Pending {
    /// `message`, free of what it borrowed from.
    pub(super) fn owned(message: Message<'_>) -> Pending {
        Pending::Owned(message.into_owned())
    }

    /// `message`, read from `line` (the whole text of the caller's buffer), its texts
    /// that borrow from it kept as spans.
    pub(super) fn in_line(message: Message<'_>, line: &str) -> Pending {
        Pending::InLine(Detached::new(message, line))
    }

    /// The message, its spans borrowing `line` (the buffer the line it was read from
    /// is still in).
    pub(super) fn into_message(self, line: &str) -> Message<'_> {
        match self {
            Pending::Owned(message) => message,
            Pending::InLine(detached) => detached.attach(line),
        }
    }
}

/// A message whose borrowed texts are spans of its line.
#[derive(Debug)]
pub(super) struct Detached {
    role: crate::Role,
    no_response: bool,
    usage: Option<crate::Usage>,
    /// The fields few messages have, but for their texts below (boxed anew: the
    /// message's box holds borrowed texts), where any is set.
    rare: Option<Box<crate::message::Rare<'static>>>,
    /// The message had those fields, and none but the texts below is set (a tool
    /// result naming its tool, most often): boxed again as it is given, the rest not
    /// kept to wait (copied out of its box, made owned and boxed anew, it cost a
    /// tool result of a CrewAI task 140 instructions).
    texts_only: bool,
    /// A tool result's tool, an error, a handoff's target.
    tool_name: Option<Text>,
    error: Option<Text>,
    handoff: Option<Text>,
    responder: Option<Text>,
    content: Text,
    calls: Vec<Call>,
    tool_call_id: Option<Text>,
}

/// A text: a span (its byte range) of the line, or its own.
#[derive(Debug)]
enum Text {
    Span(usize, usize),
    Owned(String),
}

/// A call's texts.
#[derive(Debug)]
struct Call {
    name: Text,
    arguments: Arguments,
    id: Option<Text>,
}

/// A call's arguments: a span of JSON text, of a JSON string as written (escapes
/// not decoded), or their own text.
#[derive(Debug)]
enum Arguments {
    Span(usize, usize),
    Escaped(usize, usize),
    Owned(String),
}

impl Detached {
    /// `message`, read from `line` (the whole text of the buffer): its texts that
    /// borrow from it kept as spans (a metric's name, rarer still, copied).
    fn new(mut message: Message<'_>, line: &str) -> Detached {
        let responder = message.responder.take().map(|t| Text::new(t, line));
        let content = Text::new(std::mem::take(&mut message.content), line);
        let tool_call_id = message.tool_call_id.take().map(|t| Text::new(t, line));
        let calls = std::mem::take(&mut message.tool_calls);
        // (Most messages have no call: no list is walked for them.)
        let calls = if calls.is_empty() {
            Vec::new()
        } else {
            calls
                .into_iter()
                .map(|call| {
                    let (name, arguments, id) = call.into_parts();
                    Call {
                        name: Text::new(name, line),
                        arguments: Arguments::new(arguments, line),
                        id: id.map(|t| Text::new(t, line)),
                    }
                })
                .collect()
        };
        let (mut tool_name, mut error, mut handoff) = (None, None, None);
        let mut texts_only = false;
        let rare = message.rare.and_then(|mut rare| {
            tool_name = rare.tool_name.take().map(|t| Text::new(t, line));
            error = rare.error.take().map(|t| Text::new(t, line));
            handoff = rare.handoff.take().map(|t| Text::new(t, line));
            texts_only = rare.is_empty();
            (!texts_only).then(|| Box::new(rare.into_owned()))
        });
        Detached {
            role: message.role,
            no_response: message.no_response,
            usage: message.usage,
            rare,
            texts_only,
            tool_name,
            error,
            handoff,
            responder,
            content,
            calls,
            tool_call_id,
        }
    }

    /// The message, its spans borrowing `line`.
    fn attach(self, line: &str) -> Message<'_> {
        let rare = self.rare.or_else(|| self.texts_only.then(Box::default));
        let rare = rare.map(|rare| {
            let mut rare: Box<crate::message::Rare<'_>> = rare;
            rare.tool_name = self.tool_name.map(|t| t.attach(line));
            rare.error = self.error.map(|t| t.attach(line));
            rare.handoff = self.handoff.map(|t| t.attach(line));
            rare
        });
        Message {
            role: self.role,
            no_response: self.no_response,
            responder: self.responder.map(|t| t.attach(line)),
            content: self.content.attach(line),
            tool_calls: if self.calls.is_empty() {
                Vec::new()
            } else {
                self.calls
                    .into_iter()
                    .map(|call| {
                        crate::ToolCall::from_parts(
                            call.name.attach(line),
                            call.arguments.attach(line),
                            call.id.map(|id| id.attach(line)),
                        )
                    })
                    .collect()
            },
            usage: self.usage,
            tool_call_id: self.tool_call_id.map(|t| t.attach(line)),
            rare,
        }
    }
}

/// Where `text` lies in `line`, if it is a part of it.
fn span(text: &str, line: &str) -> Option<(usize, usize)> {
    let start = (text.as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
    let end = start.checked_add(text.len())?;
    (end <= line.len()).then_some((start, end))
}

/// The text of `line[start..end]`: a span taken from a text of the line, which the
/// buffer still holds unchanged, so always whole characters of it (were it not, the
/// bytes are read as `String::from_utf8_lossy` reads them: no panic).
fn text_at(line: &str, start: usize, end: usize) -> Cow<'_, str> {
    match line.get(start..end) {
        Some(text) => Cow::Borrowed(text),
        None => String::from_utf8_lossy(line.as_bytes().get(start..end).unwrap_or_default()),
    }
}

impl Text {
    fn new(text: Cow<'_, str>, line: &str) -> Text {
        match text {
            Cow::Owned(text) => Text::Owned(text),
            Cow::Borrowed(text) => match span(text, line) {
                Some((start, end)) => Text::Span(start, end),
                None => Text::Owned(text.to_owned()),
            },
        }
    }

    fn attach(self, line: &str) -> Cow<'_, str> {
        match self {
            Text::Span(start, end) => text_at(line, start, end),
            Text::Owned(text) => Cow::Owned(text),
        }
    }
}

impl Arguments {
    fn new(arguments: CallArguments<'_>, line: &str) -> Arguments {
        let spanned = match &arguments {
            CallArguments::Borrowed(text) => span(text, line).map(|(s, e)| Arguments::Span(s, e)),
            CallArguments::Escaped(quoted) => {
                span(quoted, line).map(|(s, e)| Arguments::Escaped(s, e))
            }
            CallArguments::Owned(_) => None,
        };
        spanned.unwrap_or_else(|| Arguments::Owned(arguments.into_string()))
    }

    fn attach(self, line: &str) -> CallArguments<'_> {
        match self {
            Arguments::Span(start, end) => CallArguments::text(text_at(line, start, end)),
            Arguments::Escaped(start, end) => match text_at(line, start, end) {
                Cow::Borrowed(quoted) => CallArguments::Escaped(quoted),
                // Not whole characters (never, for a span of the line): its bytes
                // as read, decoded as an escaped text.
                Cow::Owned(quoted) => {
                    CallArguments::Owned(CallArguments::Escaped(&quoted).into_string())
                }
            },
            Arguments::Owned(text) => CallArguments::Owned(text),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::Pending;
    use crate::message::CallArguments;
    use crate::{Message, ToolCall};

    /// A message whose texts are every kind: borrowed from the line, borrowed from
    /// elsewhere, owned; with a call of each kind of arguments and rare fields.
    fn message<'a>(line: &'a str, elsewhere: &'a str) -> Message<'a> {
        let at = |word: &str| &line[line.find(word).unwrap()..][..word.len()];
        let mut message = Message::llm(at("hello"))
            .with_responder(elsewhere)
            .with_tool_call(
                ToolCall::with_arguments(
                    Cow::Borrowed(at("calc")),
                    CallArguments::Borrowed(at("{}")),
                )
                .with_id(String::from("owned-id")),
            )
            .with_tool_call(ToolCall::with_arguments(
                Cow::Borrowed("static"),
                CallArguments::Escaped(at(r#""{\"a\": 1}""#)),
            ))
            .with_tool_name(at("tool"))
            .with_error(String::from("boom"));
        message.tool_call_id = Some(Cow::Borrowed(at("id-1")));
        message
    }

    #[test]
    fn a_message_waits_as_spans_of_its_line_and_reads_back_the_same() {
        let line = r#"{"x": "hello calc {} tool id-1 "{\"a\": 1}""}"#;
        let elsewhere = String::from("responder");
        let expected = message(line, &elsewhere).into_owned();
        let pending = Pending::in_line(message(line, &elsewhere), line);
        let read = pending.into_message(line);
        assert_eq!(read, expected);
        // The line's texts borrow the line again; the others are owned.
        assert!(matches!(read.content, Cow::Borrowed(_)));
        assert!(matches!(read.responder, Some(Cow::Owned(_))));
        assert!(matches!(
            read.tool_calls[1].clone().into_parts().1,
            CallArguments::Escaped(_)
        ));
        assert_eq!(read.tool_calls[1].arguments(), r#"{"a": 1}"#);
    }

    #[test]
    fn every_rare_field_waits_and_reads_back_the_same() {
        let line = r#"{"x": "hello tool agent"}"#;
        let at = |word: &str| &line[line.find(word).unwrap()..][..word.len()];
        // Texts only (a tool result naming its tool): boxed again as given.
        let texts = Message::agent("42").with_tool_name(at("tool"));
        // Texts beside the other fields, each kind of them.
        let all = Message::llm(at("hello"))
            .with_tool_name(at("tool"))
            .with_handoff(at("agent"))
            .with_confidence(0.5)
            .with_reward(1.0)
            .with_metric(at("hello"), 2.0)
            .with_input(true)
            .with_elapsed(std::time::Duration::from_millis(3))
            .with_usage(crate::Usage {
                input_tokens: 1,
                output_tokens: 2,
            });
        // No text among them.
        let others = Message::llm("x").with_confidence(0.25);
        // Their box made and left with nothing set: kept (given as it was).
        let mut empty = Message::llm("y");
        empty.rare();
        for message in [texts, all, others, empty] {
            let expected = message.clone().into_owned();
            let read = Pending::in_line(message, line).into_message(line);
            assert_eq!(read, expected);
            assert_eq!(read.rare.is_some(), expected.rare.is_some());
        }
    }

    #[test]
    fn spans_of_a_buffer_that_changed_do_not_panic() {
        let line = r#"{"x": "hello calc {} tool id-1 "{\"a\": 1}""}"#;
        let elsewhere = String::from("responder");
        let pending = Pending::in_line(message(line, &elsewhere), line);
        // Shorter: texts lost, no panic.
        let read = pending.into_message("{\u{e9}\u{e9}}");
        assert_eq!(read.responder(), Some("responder"));
        assert_eq!(read.content(), "");
        // A span (the content's, bytes 7 to 12) that no longer falls on whole
        // characters: its bytes read as `String::from_utf8_lossy` reads them.
        let pending = Pending::in_line(message(line, &elsewhere), line);
        let read = pending.into_message("\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}");
        assert_eq!(read.content(), "\u{fffd}\u{e9}\u{e9}");
    }
}
