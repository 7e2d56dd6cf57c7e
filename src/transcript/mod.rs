//! Transcript readers (feature `json`): doneseq's JSONL, OpenAI chat messages, and
//! Langroid-style logs.
//!
//! **doneseq JSONL**: one JSON object per line (blank lines are skipped):
//!
//! ```json
//! {"role": "llm", "responder": "Calc", "content": "", "tool_calls": [{"name": "calculator", "arguments": {"x": "6*7"}}], "usage": {"input_tokens": 50, "output_tokens": 9}}
//! {"role": "agent", "content": "42", "error": null, "confidence": 0.9, "reward": 1.0}
//! {"role": "llm", "no_response": true}
//! ```
//!
//! `role` is required: `user`, `llm`, `agent`, `system`, or a Langroid or OpenAI name
//! (`LLM`, `Agent`, `assistant`, `tool`, `developer`). Every other field is optional.
//! A tool call's `arguments` are kept as JSON text: a string as it is (OpenAI's form),
//! any other value as it is written in the line.
//!
//! [`Reader::next_borrowed`] gives each message borrowing its texts from the line (a
//! replay copies no text); the [`Iterator`] gives messages that own theirs.
//! `metadata` may hold anything and is not read; any other unknown field is an
//! error, so a misspelt field is never silently ignored.
//!
//! **OpenAI** chat messages, as JSONL or as one JSON array (or an object with a
//! `messages` array, as an API request holds them, on one line or many; the
//! request's other fields, `model`, `tools` and the like, are not messages and are not
//! read): `assistant` is the LLM (a tool message when it has
//! `tool_calls` or a `function_call`), `tool` is the agent's tool result, `name` is
//! the responder, content may be a string, `null` or a list of parts (text and
//! refusal parts are joined by newlines; image, audio and file parts hold no text),
//! and a `refusal` is text too (after the content, on a line of its own).
//!
//! **Langroid**: the same lines, where tool calls are also found as JSON objects with
//! a `"request"` key inside the content (`{"request": "calculator", ...}`), as
//! Langroid's agents find them. A message that has structured calls (`tool_calls` or
//! `function_call`) has those as its tools and its content is not searched, so that a
//! log recording a call both ways does not count it twice.
//!
//! A bad line is an error naming the line (and column, for JSON syntax), never
//! skipped. Every limit ([`MAX_LINE_LEN`], [`MAX_JSON_DEPTH`], [`MAX_TOOL_SEARCH_WORK`])
//! is an error of its own [`TranscriptErrorKind`], so a reader's memory and work stay
//! bounded by the line it reads, whatever the input.

mod langroid;
mod wire;

pub use langroid::MAX_TOOL_SEARCH_WORK;

use std::io::{BufRead, Read};

use serde::Deserialize;

use crate::Message;

use TranscriptErrorKind as Kind;

/// The longest line (or whole JSON document) read, in bytes, its line end (`\n` or
/// `\r\n`) not counted.
pub const MAX_LINE_LEN: usize = 16 << 20;

/// The deepest nesting of JSON arrays and objects in a line (or a whole JSON array),
/// checked before the line is parsed.
///
/// A message is three levels deep (the line, `tool_calls`, a call) and arguments and
/// metadata rarely reach ten. serde_json stops at 128 levels on its own, but not in
/// the fields it skips (`metadata`) and not with an error of its own kind: this limit,
/// below serde_json's, makes the bound the same everywhere and
/// [`TranscriptErrorKind::TooDeep`] the error.
pub const MAX_JSON_DEPTH: usize = 64;

/// A transcript format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// A JSON array if the input starts with `[`, an object with a `messages` array
    /// if it starts with one (whatever its keys' order, on one line or many), else
    /// JSONL; all read with the union of the doneseq and OpenAI schemas.
    #[default]
    Auto,
    /// doneseq JSONL (which also accepts OpenAI's field names).
    Jsonl,
    /// OpenAI chat messages, JSONL or one JSON array.
    OpenAi,
    /// doneseq JSONL with Langroid-style tool JSON found in the content.
    Langroid,
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Format, String> {
        match s {
            "auto" => Ok(Format::Auto),
            "jsonl" => Ok(Format::Jsonl),
            "openai" => Ok(Format::OpenAi),
            "langroid" => Ok(Format::Langroid),
            _ => Err(format!(
                "unknown format '{s}' (expected auto, jsonl, openai or langroid)"
            )),
        }
    }
}

/// A transcript that could not be read: where, and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}{}: {message}", column.map(|c| format!(", column {c}")).unwrap_or_default())]
pub struct TranscriptError {
    /// The 1-based line number.
    pub line: usize,
    /// The 1-based column (in bytes), for JSON syntax errors and [`MAX_JSON_DEPTH`].
    pub column: Option<usize>,
    /// What kind of problem it is.
    pub kind: TranscriptErrorKind,
    /// What was wrong.
    pub message: String,
}

/// What kind of problem a [`TranscriptError`] is.
///
/// ```
/// use doneseq::transcript::{read_transcript, Format, TranscriptErrorKind, MAX_JSON_DEPTH};
///
/// let deep = format!("{{\"role\": \"user\", \"metadata\": {}}}", "[".repeat(100));
/// let err = read_transcript(deep.as_bytes(), Format::Jsonl).unwrap_err();
/// assert_eq!(err.kind, TranscriptErrorKind::TooDeep { max: MAX_JSON_DEPTH });
/// assert_eq!((err.line, err.column), (1, Some(93))); // the 64th `[`
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TranscriptErrorKind {
    /// The input could not be read (line 0 if nothing was).
    Io,
    /// A line is not UTF-8.
    NotUtf8,
    /// A line, or a whole JSON array, is longer than [`MAX_LINE_LEN`] bytes.
    TooLong {
        /// The limit.
        max: usize,
    },
    /// JSON nested deeper than [`MAX_JSON_DEPTH`].
    TooDeep {
        /// The limit.
        max: usize,
    },
    /// Not JSON, or JSON that does not have a message's shape: a syntax error, a
    /// missing or unknown field, a value of the wrong type.
    Json,
    /// A message whose values are wrong: an unknown role, a tool call without a name,
    /// `"no_response": true` with content, an unknown content part.
    Message,
    /// The search for Langroid tool JSON in a message's content would parse more than
    /// [`MAX_TOOL_SEARCH_WORK`] allows (content full of `{` that never close).
    ToolSearch,
}

impl TranscriptError {
    fn at(line: usize, kind: TranscriptErrorKind, message: impl Into<String>) -> TranscriptError {
        TranscriptError {
            line,
            column: None,
            kind,
            message: message.into(),
        }
    }

    fn json(line_base: usize, e: &serde_json::Error) -> TranscriptError {
        // serde_json's message ends with " at line L column C": keep the message,
        // carry the position as fields.
        let text = e.to_string();
        let message = text
            .rsplit_once(" at line ")
            .map_or(text.as_str(), |(m, _)| m);
        // JSON that does not have a message's shape: say which shapes were expected.
        let message = if e.classify() == serde_json::error::Category::Data {
            format!("expected a message (doneseq's fields or an OpenAI chat message): {message}")
        } else {
            message.to_owned()
        };
        TranscriptError {
            line: line_base + e.line().max(1) - 1,
            column: (e.column() > 0).then_some(e.column()),
            kind: TranscriptErrorKind::Json,
            message,
        }
    }

    /// The error for JSON nested past [`MAX_JSON_DEPTH`] at byte `at` of `text`, whose
    /// first line is `line_base`.
    fn too_deep(line_base: usize, text: &str, at: usize) -> TranscriptError {
        let before = &text.as_bytes()[..at];
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        TranscriptError {
            line: line_base + before.iter().filter(|&&b| b == b'\n').count(),
            column: Some(at - line_start + 1),
            kind: TranscriptErrorKind::TooDeep {
                max: MAX_JSON_DEPTH,
            },
            message: format!("JSON nested deeper than {MAX_JSON_DEPTH} levels"),
        }
    }
}

/// The length of the line end (`\n` or `\r\n`) that `bytes` ends with, if any.
fn line_end(bytes: &[u8]) -> usize {
    if bytes.ends_with(b"\r\n") {
        2
    } else {
        usize::from(bytes.ends_with(b"\n"))
    }
}

/// Whether `text` is (or begins) a JSON object with a `messages` key: a document of
/// messages, not one message, which has no such field. The keys are read in order up
/// to that one, so an object cut at the end of its first line is recognised too.
fn has_messages_key(text: &str) -> bool {
    use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
    struct Keys<'f>(&'f std::cell::Cell<bool>);
    impl<'de> Visitor<'de> for Keys<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                if key == "messages" {
                    self.0.set(true);
                    // Found: the rest need not be read (the error ends the read).
                    return Err(serde::de::Error::custom("found"));
                }
                map.next_value::<IgnoredAny>()?;
            }
            Ok(())
        }
    }
    let found = std::cell::Cell::new(false);
    // The result says nothing more: an incomplete object is an error either way.
    let _ = serde_json::Deserializer::from_str(text).deserialize_map(Keys(&found));
    found.get()
}

/// Where `text` nests JSON arrays and objects deeper than [`MAX_JSON_DEPTH`]: the byte
/// offset of the bracket one level too deep. Brackets in strings are text.
fn too_deep(text: &str) -> Option<usize> {
    // Nesting cannot be deeper than the number of opening brackets: count them first
    // with memchr (vectorized), and walk the text byte by byte (about 15
    // instructions a byte, a fifth of a replay's time) only when there are more.
    let opening = memchr::memchr2_iter(b'[', b'{', text.as_bytes()).take(MAX_JSON_DEPTH + 1);
    if opening.count() <= MAX_JSON_DEPTH {
        return None;
    }
    let mut depth = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    for (i, &b) in text.as_bytes().iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_JSON_DEPTH {
                    return Some(i);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// Reads a whole transcript.
///
/// ```
/// use doneseq::transcript::{read_transcript, Format};
/// use doneseq::Role;
///
/// let log = r#"{"role": "user", "content": "6*7?"}
/// {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "calculator", "arguments": "{\"x\": \"6*7\"}"}}]}
/// {"role": "tool", "tool_call_id": "c1", "content": "42"}
/// "#;
/// let messages = read_transcript(log.as_bytes(), Format::Auto)?;
/// assert_eq!(messages[1].role(), Role::Llm);
/// assert_eq!(messages[1].tool_calls()[0].name(), "calculator");
/// assert_eq!(messages[2].role(), Role::Agent);
///
/// let err = read_transcript(&b"{\"role\": \"llm\"}\n{\"role\": \"lm\"}\n"[..], Format::Jsonl).unwrap_err();
/// assert_eq!(err.line, 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// The first line that is not UTF-8, longer than [`MAX_LINE_LEN`], not JSON, or not
/// a valid message; or an I/O error (line 0).
pub fn read_transcript<R: BufRead>(
    reader: R,
    format: Format,
) -> Result<Vec<Message<'static>>, TranscriptError> {
    Reader::new(reader, format).collect()
}

/// A streaming transcript reader: yields one message at a time, so that a replay's
/// memory does not grow with the transcript (a JSON array is read whole).
///
/// As an [`Iterator`] it gives messages that own their texts;
/// [`Reader::next_borrowed`] gives them borrowed from the line read, with no copy.
#[derive(Debug)]
pub struct Reader<R> {
    /// The line (or JSON document) read last: what a borrowed message borrows from.
    buffer: Vec<u8>,
    state: State<R>,
}

/// Everything of a [`Reader`] but its buffer, so that a message borrowing the buffer
/// does not keep the rest from being updated.
#[derive(Debug)]
struct State<R> {
    input: R,
    format: Format,
    line: usize,
    /// The messages of a JSON array, once read.
    array: Option<std::vec::IntoIter<Message<'static>>>,
    seen_message: bool,
    failed: bool,
}

impl<R: BufRead> Reader<R> {
    /// A reader of `input` in `format`.
    pub fn new(input: R, format: Format) -> Reader<R> {
        Reader {
            buffer: Vec::new(),
            state: State {
                input,
                format,
                line: 0,
                array: None,
                seen_message: false,
                failed: false,
            },
        }
    }

    /// The 1-based number of the line last read.
    #[must_use]
    pub const fn line(&self) -> usize {
        self.state.line
    }

    /// The next message, borrowing its texts from the line read where it can: what a
    /// replay reads, with no copy of a line's texts (the [`Iterator`] gives messages
    /// that own theirs). After an error it gives nothing more.
    ///
    /// ```
    /// use doneseq::transcript::{Format, Reader};
    ///
    /// let log = "{\"role\": \"user\", \"content\": \"6*7?\"}\n{\"role\": \"llm\", \"content\": \"42\"}\n";
    /// let mut reader = Reader::new(log.as_bytes(), Format::Jsonl);
    /// let mut contents = Vec::new();
    /// while let Some(message) = reader.next_borrowed() {
    ///     contents.push(message?.content().to_owned());
    /// }
    /// assert_eq!(contents, ["6*7?", "42"]);
    /// # Ok::<(), doneseq::transcript::TranscriptError>(())
    /// ```
    pub fn next_borrowed(&mut self) -> Option<Result<Message<'_>, TranscriptError>> {
        if self.state.failed {
            return None;
        }
        match self.state.next_message(&mut self.buffer) {
            Ok(message) => message.map(Ok),
            Err(e) => {
                self.state.failed = true;
                Some(Err(e))
            }
        }
    }
}

impl<R: BufRead> State<R> {
    /// Reads the next line into `buffer`; false at the end of the input.
    fn read_line(&mut self, buffer: &mut Vec<u8>) -> Result<bool, TranscriptError> {
        buffer.clear();
        // The line's own bytes, its line end (`\n` or `\r\n`) not counted, plus one to
        // see it is over.
        let limit = MAX_LINE_LEN as u64 + 3;
        let read = (&mut self.input)
            .take(limit)
            .read_until(b'\n', buffer)
            .map_err(|e| {
                TranscriptError::at(self.line + 1, Kind::Io, format!("cannot read: {e}"))
            })?;
        if read == 0 {
            return Ok(false);
        }
        self.line += 1;
        if buffer.len() - line_end(buffer) > MAX_LINE_LEN {
            return Err(TranscriptError::at(
                self.line,
                Kind::TooLong { max: MAX_LINE_LEN },
                format!("line longer than {MAX_LINE_LEN} bytes"),
            ));
        }
        Ok(true)
    }

    /// The next message, its texts borrowed from `buffer` (a message of a JSON array,
    /// and the first line's, own theirs).
    fn next_message<'b>(
        &mut self,
        buffer: &'b mut Vec<u8>,
    ) -> Result<Option<Message<'b>>, TranscriptError> {
        if let Some(array) = &mut self.array {
            return Ok(array.next());
        }
        loop {
            if !self.read_line(buffer)? {
                return Ok(None);
            }
            // A line is blank if it is all whitespace. Most lines start with `{`: seen
            // on the bytes, the line is validated as UTF-8 once, when it is parsed.
            match buffer.iter().find(|b| !b.is_ascii_whitespace()) {
                None => continue,
                Some(b) if b.is_ascii() => break,
                Some(_) => {}
            }
            if !utf8(buffer, self.line)?.trim().is_empty() {
                break;
            }
        }
        let first = self.array.is_none() && !self.seen_message;
        let document = first && matches!(self.format, Format::Auto | Format::OpenAi);
        // Only the first line may open a document.
        let opening = match document {
            true => String::from_utf8_lossy(buffer).trim_start().chars().next(),
            false => None,
        };
        if opening == Some('[') {
            return self.read_array(buffer, None);
        }
        if opening == Some('{') {
            // The first line may open a whole document instead: `{"messages": [...]}`,
            // whatever its keys' order and layout (an API request's). If it is not a
            // message, the rest is read to see; if the input is not a document, the
            // line's error stands. (Its message owns its texts, so the buffer is free
            // for that read.)
            return match self.parse_line(buffer) {
                Ok(Ok(message)) => Ok(Some(message.into_owned())),
                Ok(Err(e)) => Err(e),
                Err(line_error) => self.read_array(buffer, Some(line_error)),
            };
        }
        let buffer: &'b [u8] = buffer;
        self.parse_line(buffer)?.map(Some)
    }

    /// The message on the line in `buffer`; the outer error is the JSON's (the first
    /// line may then open a document), the inner the message's.
    fn parse_line<'b>(&mut self, buffer: &'b [u8]) -> Result<Parsed<'b>, TranscriptError> {
        let text = match utf8(buffer, self.line) {
            Ok(text) => text,
            Err(e) => return Ok(Err(e)),
        };
        if let Some(at) = too_deep(text) {
            return Ok(Err(TranscriptError::too_deep(self.line, text, at)));
        }
        // Parsed trimmed (any Unicode whitespace around a line is accepted), with the
        // columns of the line as written.
        let trimmed = text.trim();
        let lead = text.len() - text.trim_start().len();
        let line = serde_json::from_str::<wire::JsonLine<'_>>(trimmed).map_err(|e| {
            let mut err = TranscriptError::json(self.line, &e);
            err.column = err.column.map(|c| c + lead);
            err
        })?;
        self.seen_message = true;
        Ok(convert(self.format, line).map_err(|(kind, m)| TranscriptError::at(self.line, kind, m)))
    }

    /// Reads the rest of the input as one JSON array of messages (or an object with a
    /// `messages` array), starting with the line in the buffer. With `line_error` (the
    /// first line's error as a message), an input that is not an object with a
    /// `messages` key gives that error instead of the document's.
    fn read_array(
        &mut self,
        buffer: &mut Vec<u8>,
        line_error: Option<TranscriptError>,
    ) -> Result<Option<Message<'static>>, TranscriptError> {
        let start = self.line;
        // As for a line: a final line end is not counted, one byte more shows it is
        // over (the first line, in the buffer, may already be).
        let limit = (MAX_LINE_LEN + 2).saturating_sub(buffer.len()) as u64 + 1;
        (&mut self.input)
            .take(limit)
            .read_to_end(buffer)
            .map_err(|e| TranscriptError::at(start, Kind::Io, format!("cannot read: {e}")))?;
        // Not a document after all: the first line's error stands.
        if let Some(e) = line_error {
            if !has_messages_key(&String::from_utf8_lossy(buffer)) {
                return Err(e);
            }
        }
        if buffer.len() - line_end(buffer) > MAX_LINE_LEN {
            return Err(TranscriptError::at(
                start,
                Kind::TooLong { max: MAX_LINE_LEN },
                format!("JSON document longer than {MAX_LINE_LEN} bytes"),
            ));
        }
        let text = utf8(buffer, start)?;
        if let Some(at) = too_deep(text) {
            return Err(TranscriptError::too_deep(start, text, at));
        }
        /// `{"messages": [...]}`, as an API request holds them; its other fields
        /// (`model`, `tools`, ...) are the request's, not messages, and not read.
        #[derive(Deserialize)]
        struct Document<'a> {
            #[serde(borrow)]
            messages: Vec<wire::JsonLine<'a>>,
        }
        // Read as what it starts with (not as an untagged enum, whose only error is
        // "did not match any variant", at the end), so an error names the field and
        // its position.
        let lines = match text.trim_start().as_bytes().first() {
            Some(b'[') => serde_json::from_str::<Vec<wire::JsonLine<'_>>>(text),
            _ => serde_json::from_str::<Document<'_>>(text).map(|d| d.messages),
        }
        .map_err(|e| TranscriptError::json(start, &e))?;
        self.line += text.matches('\n').count();
        let mut messages = Vec::with_capacity(lines.len());
        for (i, line) in lines.into_iter().enumerate() {
            let message = convert(self.format, line).map_err(|(kind, m)| {
                TranscriptError::at(start, kind, format!("message {i} of the array: {m}"))
            })?;
            messages.push(message.into_owned());
        }
        self.seen_message = true;
        let mut array = messages.into_iter();
        let first = array.next();
        self.array = Some(array);
        Ok(first)
    }
}

/// A line's message, or what is wrong with the message.
type Parsed<'b> = Result<Message<'b>, TranscriptError>;

/// `bytes`, line `line` of the input, as text.
fn utf8(bytes: &[u8], line: usize) -> Result<&str, TranscriptError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let message = format!("not UTF-8 (byte {})", e.valid_up_to());
        TranscriptError::at(line, Kind::NotUtf8, message)
    })
}

/// A line's message, with Langroid's tools found in its content for that format.
fn convert<'de>(format: Format, line: wire::JsonLine<'de>) -> Result<Message<'de>, (Kind, String)> {
    let message = line.into_message().map_err(|m| (Kind::Message, m))?;
    if format != Format::Langroid || !message.tool_calls().is_empty() {
        return Ok(message);
    }
    let calls = langroid::tool_calls(message.content()).map_err(|m| (Kind::ToolSearch, m))?;
    Ok(calls.into_iter().fold(message, Message::with_tool_call))
}

/// Reads one message in the transcript schema (doneseq's fields, or an OpenAI chat
/// message: the fields [`Reader`] reads) from any serde deserializer, with the same
/// checks: an unknown field, a bad role or an impossible message is an error. The
/// Python package reads its message dicts through it.
///
/// ```
/// use doneseq::Role;
///
/// let json = r#"{"role": "assistant", "content": "", "tool_calls": [{"name": "calc", "arguments": {}}]}"#;
/// let mut de = serde_json::Deserializer::from_str(json);
/// let message = doneseq::transcript::deserialize_message(&mut de)?;
/// assert_eq!((message.role(), message.tool_calls()[0].name()), (Role::Llm, "calc"));
///
/// let mut de = serde_json::Deserializer::from_str(r#"{"role": "user", "text": "hi"}"#);
/// assert!(doneseq::transcript::deserialize_message(&mut de).unwrap_err().to_string().contains("unknown field `text`"));
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn deserialize_message<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Message<'de>, D::Error> {
    <wire::Line<'de>>::deserialize(deserializer)?
        .into_message()
        .map_err(serde::de::Error::custom)
}

impl<R: BufRead> Iterator for Reader<R> {
    type Item = Result<Message<'static>, TranscriptError>;

    /// The next message, owning its texts, or the error that ends the transcript
    /// (after an error the reader yields nothing more).
    fn next(&mut self) -> Option<Self::Item> {
        self.next_borrowed()
            .map(|message| message.map(Message::into_owned))
    }
}
