//! Transcript readers (feature `json`): doneseq's JSONL, and the logs of OpenAI
//! (Chat Completions and the Responses API), Anthropic, AutoGen, Langroid, Pydantic
//! AI, LangChain, Gemini and Google ADK, smolagents, Amazon Bedrock Converse (Strands
//! Agents), Agno, LlamaIndex, CrewAI, rlm-code, locus, Claude Code (and the Claude
//! Agent SDK), Codex CLI, mini-swe-agent, Inspect AI, Microsoft Agent Framework, and
//! OpenTelemetry traces (GenAI, OpenInference and Langfuse spans, GenAI log records),
//! each format detected from the content by [`Format::Auto`].
//!
//! [`Reader::next_borrowed`] gives each message borrowing its texts from the line (a
//! replay of one message a line copies no text but the strings it decodes from
//! escapes; a Responses model turn copies what the lines after its first add); the
//! [`Iterator`] gives messages that own theirs.
//!
//! A bad record is an error naming the line (and column, for JSON), the format the
//! reader expected there and what was wrong, never skipped. Every limit
//! ([`MAX_LINE_LEN`], [`MAX_DOCUMENT_LEN`], [`MAX_JSON_DEPTH`],
//! [`MAX_TOOL_SEARCH_WORK`]) is an error of its own [`TranscriptErrorKind`], so a
//! reader's memory and work stay bounded by the record it reads, whatever the input.
//!
#![doc = include_str!("../../transcripts.md")]

mod agent_framework;
mod agno;
mod anthropic;
mod autogen;
mod bedrock;
mod claude_code;
mod codex;
mod completion;
mod crewai;
mod depth;
mod detect;
#[cfg(feature = "eval-archives")]
mod eval_archive;
mod fast;
mod first_key;
mod gemini;
pub(crate) mod inspect;
mod langchain;
mod langroid;
mod langroid_tsv;
mod llamaindex;
mod locus;
mod mini_swe_agent;
mod ollama;
mod otel;
mod parts;
mod pending;
mod pydantic_ai;
mod record;
mod responses;
mod rlm_code;
mod skim;
mod smolagents;
mod swe_agent;
mod trim;
mod wire;

#[cfg(feature = "eval-archives")]
pub use eval_archive::{ArchiveError, EvalArchive, MAX_SAMPLE_LEN};
pub use langroid::MAX_TOOL_SEARCH_WORK;

use std::borrow::Cow;
use std::io::{self, BufRead, Read};

use serde::Deserialize;

use crate::Message;
#[cfg(test)]
use depth::WALKS;
use depth::too_deep;

use TranscriptErrorKind as Kind;

/// The longest line read, in bytes, its line end (`\n` or `\r\n`) not counted: a
/// record of a log of one a line. (An input's first line, where it starts a JSON
/// document, is bounded as the document is, by [`MAX_DOCUMENT_LEN`].)
pub const MAX_LINE_LEN: usize = 16 << 20;

/// The longest JSON document read, in bytes, a final line end not counted: a whole
/// transcript in one document (an array of messages, a trajectory, an eval sample),
/// or several one after another, on as many lines as it takes, its first among them.
///
/// A document is read whole before it is parsed, and one run of an agent can be
/// large: an Inspect sample keeps every model call's input beside its messages,
/// tens of megabytes for a long agentic run, on one line where it was written
/// compactly. The bound is what keeps an endless or absurd input from taking the
/// machine's memory; a log of one record a line keeps [`MAX_LINE_LEN`]'s per line.
pub const MAX_DOCUMENT_LEN: usize = 1 << 30;

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
///
/// Every format but [`Format::Jsonl`] and [`Format::Langroid`] is read from JSON
/// Lines (one record a line) or from JSON documents (an array of records, or one
/// record on many lines; one, or several one after another).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// Detected from the content: from the first record's keys, and again from a
    /// record's own keys where it does not have the shape expected.
    #[default]
    Auto,
    /// doneseq JSONL: one message a line, doneseq's fields (which take OpenAI's and
    /// Anthropic's message shapes too).
    Jsonl,
    /// OpenAI Chat Completions: chat messages, `chat.completion` response objects, or
    /// a request's `{"messages": [...]}`, as OpenAI and OpenAI-compatible providers
    /// (DeepSeek, vLLM, OpenRouter, Mistral, Gemini's endpoint, LiteLLM) write them;
    /// Ollama's chat responses.
    OpenAi,
    /// OpenAI Responses API: input and output items (the OpenAI Agents SDK's
    /// `to_input_list()`), response objects, or a request's `{"input": ...}`.
    Responses,
    /// Anthropic Messages: messages with content blocks, a request with its `system`,
    /// or response messages.
    Anthropic,
    /// AutoGen AgentChat messages and events as `model_dump()` writes them, or a
    /// `TaskResult`.
    AutoGen,
    /// doneseq JSONL with Langroid-style tool JSON found in the content (`auto` does
    /// this for a log whose roles are Langroid's `LLM`, `Agent`, `User`, `System`).
    Langroid,
    /// Langroid's own task log: the tab-separated `logs/<task>.tsv` a `Task` writes,
    /// read as the task's `response_sequence` (the message each step ended with).
    LangroidTsv,
    /// OpenTelemetry: OTLP JSON exports of spans, read by the GenAI semantic
    /// conventions, OpenInference's or Langfuse's attributes; and exports of logs
    /// whose records are GenAI events.
    Otel,
    /// Pydantic AI's message history: `ModelRequest`s and `ModelResponse`s as a run's
    /// `all_messages_json()` writes them, or one a line.
    PydanticAi,
    /// LangChain's messages (a LangGraph agent's): `messages_to_dict()`, a message's
    /// `model_dump()` or `dumpd()`, or a LangGraph state's `{"messages": [...]}`.
    LangChain,
    /// Gemini's contents (the Gemini API's and the google-genai SDK's: a chat's
    /// history, a `generateContent` request or response) and Google ADK's events (a
    /// run's, or a saved session's).
    Gemini,
    /// smolagents' memory: a run's steps as `agent.memory.get_full_steps()` (or
    /// `get_succinct_steps()`) gives them.
    Smolagents,
    /// Amazon Bedrock's Converse API: messages of content blocks (Strands Agents'
    /// `agent.messages`, with the usage Strands adds), a request with its `system`,
    /// or a response.
    Bedrock,
    /// Agno's runs: its messages (`Message.to_dict()`), a run (`RunOutput.to_dict()`),
    /// a session with its runs, or the rows of its JSON database's runs.
    Agno,
    /// LlamaIndex's chat messages (`ChatMessage.model_dump()`, an agent's memory), a
    /// `SimpleChatStore` as it persists, or a `ChatMemoryBuffer`'s `to_dict()`.
    LlamaIndex,
    /// CrewAI's outputs: a crew's (`CrewOutput`), a task's (`TaskOutput`) or an
    /// agent's (`LiteAgentOutput`), with the messages of each task's agent, its
    /// final answer and its tools' failures.
    CrewAi,
    /// rlm-code's run logs: the events its runner appends to
    /// `.rlm_code/rlm/runs/<run_id>.jsonl` (each step's action and observation, the
    /// run's end).
    RlmCode,
    /// locus's agent state: a run's `AgentState` as its checkpointers save it, or an
    /// `AgentResult`'s `model_dump()`.
    Locus,
    /// Claude Code's session logs (the Claude Agent SDK's too): the records it
    /// appends to `~/.claude/projects/<project>/<session id>.jsonl`, a model turn
    /// written a content block a record.
    ClaudeCode,
    /// Codex CLI's session logs: the rollouts it appends to
    /// `~/.codex/sessions/<date>/rollout-<time>-<session id>.jsonl`, their Responses
    /// API items a model call's turn and its tools' outputs.
    Codex,
    /// mini-swe-agent's trajectories: the `.traj.json` a run saves (its messages,
    /// each command the model ran a call of `bash`, the submission a stop).
    MiniSweAgent,
    /// SWE-agent's trajectories: the `.traj` a run saves (its history: each command
    /// the model ran a call, the submission a stop).
    SweAgent,
    /// Inspect AI's eval samples: a sample of an eval log (a `.eval` log keeps each
    /// in its own member), or a JSON eval log of one sample; the model's calls'
    /// usage from its model events, a tool's error failed.
    Inspect,
    /// Microsoft Agent Framework's messages as `to_dict()` writes them: a session's
    /// history as its `FileHistoryProvider` keeps it (a message a line), a list of
    /// messages, an agent's response, or a session whose state keeps them.
    AgentFramework,
}

impl Format {
    /// Every format, in the order `--help` lists them.
    pub const ALL: [Format; 25] = [
        Format::Auto,
        Format::Jsonl,
        Format::OpenAi,
        Format::Responses,
        Format::Anthropic,
        Format::AutoGen,
        Format::Langroid,
        Format::LangroidTsv,
        Format::Otel,
        Format::PydanticAi,
        Format::LangChain,
        Format::Gemini,
        Format::Smolagents,
        Format::Bedrock,
        Format::Agno,
        Format::LlamaIndex,
        Format::CrewAi,
        Format::RlmCode,
        Format::Locus,
        Format::ClaudeCode,
        Format::Codex,
        Format::MiniSweAgent,
        Format::SweAgent,
        Format::Inspect,
        Format::AgentFramework,
    ];

    /// The format's name, as [`str::parse`] reads it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::Jsonl => "jsonl",
            Format::OpenAi => "openai",
            Format::Responses => "openai-responses",
            Format::Anthropic => "anthropic",
            Format::AutoGen => "autogen",
            Format::Langroid => "langroid",
            Format::LangroidTsv => "langroid-tsv",
            Format::Otel => "otel",
            Format::PydanticAi => "pydantic-ai",
            Format::LangChain => "langchain",
            Format::Gemini => "gemini",
            Format::Smolagents => "smolagents",
            Format::Bedrock => "bedrock",
            Format::Agno => "agno",
            Format::LlamaIndex => "llamaindex",
            Format::CrewAi => "crewai",
            Format::RlmCode => "rlm-code",
            Format::Locus => "locus",
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::MiniSweAgent => "mini-swe-agent",
            Format::SweAgent => "swe-agent",
            Format::Inspect => "inspect",
            Format::AgentFramework => "agent-framework",
        }
    }

    /// Whether the format reads JSON documents (not only lines).
    const fn reads_documents(self) -> bool {
        !matches!(self, Format::Jsonl | Format::Langroid | Format::LangroidTsv)
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Format {
    type Err = String;

    /// A format by its name (`responses` is `openai-responses` too).
    fn from_str(s: &str) -> Result<Format, String> {
        if s == "responses" {
            return Ok(Format::Responses);
        }
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
                format!(
                    "unknown format '{s}' (expected one of {})",
                    names.join(", ")
                )
            })
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
    /// The format the record was read as (the one given, or the one `auto`
    /// detected), for an error in a record's shape or values.
    pub format: Option<Format>,
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
    /// A line is longer than [`MAX_LINE_LEN`] bytes, or a JSON document than
    /// [`MAX_DOCUMENT_LEN`].
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
            format: None,
        }
    }

    /// The error for JSON nested past [`MAX_JSON_DEPTH`] at byte `at` of `text`, whose
    /// first line is `line_base`.
    fn too_deep(line_base: usize, text: &str, at: usize) -> TranscriptError {
        let (line, column) = position(text, at);
        TranscriptError {
            line: line_base + line,
            column: Some(column),
            kind: TranscriptErrorKind::TooDeep {
                max: MAX_JSON_DEPTH,
            },
            message: format!("JSON nested deeper than {MAX_JSON_DEPTH} levels"),
            format: None,
        }
    }
}

/// Where `within`, a part of `whole`, starts in it (0 if it is not a part).
pub(crate) fn offset_in(within: &str, whole: &str) -> usize {
    let offset = (within.as_ptr() as usize).saturating_sub(whole.as_ptr() as usize);
    if offset <= whole.len() { offset } else { 0 }
}

/// The 0-based line and 1-based column (in bytes) of byte `at` of `text`.
fn position(text: &str, at: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..at.min(text.len())];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let lines = memchr::memchr_iter(b'\n', before).count();
    (lines, before.len() - line_start + 1)
}

/// Appends to `buffer` the input up to and including the next `\n`, or to its end,
/// but no more than `limit` bytes: `BufRead::read_until` on a `Take`, with memchr's
/// vectorized search for the line end (the standard library's is a tenth of a
/// replay's reading on short lines).
fn read_until_newline<R: BufRead + ?Sized>(
    input: &mut R,
    buffer: &mut Vec<u8>,
    limit: usize,
) -> io::Result<()> {
    let start = buffer.len();
    loop {
        let room = limit - (buffer.len() - start);
        let available = match input.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let available = &available[..available.len().min(room)];
        let (taken, done) = match memchr::memchr(b'\n', available) {
            Some(i) => (i + 1, true),
            None => (available.len(), available.is_empty()),
        };
        buffer.extend_from_slice(&available[..taken]);
        input.consume(taken);
        if done || taken == room {
            return Ok(());
        }
    }
}

/// `text`, a line as read, without its line end.
fn without_line_end(text: &str) -> &str {
    &text[..text.len() - line_end(text.as_bytes())]
}

/// UTF-8's byte order mark (U+FEFF), which the input may start with.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Drops the byte order mark a text's first bytes may start with (a transcript's
/// first line, a configuration file), as some tools write it (Windows PowerShell's
/// UTF-8, Python's `utf-8-sig`), which no JSON, TOML or YAML parser here reads: not
/// the text's. (Out of line: once a transcript.)
#[cold]
#[inline(never)]
pub(crate) fn skip_bom(first: &mut Vec<u8>) {
    if first.starts_with(BOM) {
        first.drain(..BOM.len());
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

/// A JSON value as text: a string as it is (decoded), any other value its JSON text,
/// compact (what a framework gives the model for a tool's return).
pub(super) fn value_text(json: &str) -> serde_json::Result<Cow<'_, str>> {
    if json.starts_with('"') {
        return serde_json::from_str::<wire::Str<'_>>(json).map(wire::Str::into_cow);
    }
    Ok(compact(json))
}

/// The JSON text `json` without the whitespace between its tokens (a log saved
/// indented holds it; the model was given none); borrowed where there is none.
pub(super) fn compact(json: &str) -> Cow<'_, str> {
    let mut out = String::new();
    // `json` up to here is in `out`, or (while `copied` is 0) needs no copy.
    let mut copied = 0;
    for (i, c) in outside_strings(json) {
        if matches!(c, b' ' | b'\n' | b'\r' | b'\t') {
            if out.capacity() == 0 {
                // One allocation: the text without its whitespace fits in its length.
                out.reserve(json.len());
            }
            // ASCII: `i` is a character boundary.
            out.push_str(&json[copied..i]);
            copied = i + 1;
        }
    }
    if copied == 0 {
        return Cow::Borrowed(json);
    }
    out.push_str(&json[copied..]);
    Cow::Owned(out)
}

/// The bytes of the JSON text `text` that are not in a string (its quotes neither),
/// with their offsets.
fn outside_strings(text: &str) -> impl Iterator<Item = (usize, u8)> + '_ {
    let (mut in_string, mut escaped) = (false, false);
    text.bytes().enumerate().filter(move |&(_, b)| {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            false
        } else {
            in_string = b == b'"';
            !in_string
        }
    })
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
/// memory does not grow with the transcript (a JSON document is read whole).
///
/// As an [`Iterator`] it gives messages that own their texts;
/// [`Reader::next_borrowed`] gives them borrowed from the line read, with no copy.
#[derive(Debug)]
pub struct Reader<R> {
    /// The line (or JSON document) read last: what a borrowed message borrows from.
    /// Text, checked as UTF-8 once as it is read: the messages of a line given after
    /// its first wait as spans of it, taken again as slices of text (a check of their
    /// ends), not bytes checked again.
    buffer: String,
    state: State<R>,
}

/// Everything of a [`Reader`] but its buffer, so that a message borrowing the buffer
/// does not keep the rest from being updated.
#[derive(Debug)]
struct State<R> {
    input: R,
    format: Format,
    /// The kind of record read last: what the next one is read as first.
    kind: Option<record::Kind>,
    line: usize,
    /// Where lines are read once `buffer` is lent to a message.
    scratch: String,
    /// The bytes of the line just read where it is not UTF-8 (its error's).
    not_utf8: Vec<u8>,
    /// `scratch` holds a line not read yet, which ended a model turn: the turn is
    /// given first, and the line read at the next call as its caller's line, its
    /// messages borrowing it (see [`State::scratch_line`]).
    carried: bool,
    /// The kind of record each first key (of the record's object) was, lately.
    by_first_key: first_key::FirstKeys,
    /// Messages read and not yet given: a record's after its first, and those of a
    /// whole document.
    pending: std::collections::VecDeque<pending::Pending>,
    cx: record::Context,
    /// The Langroid task log being read, once its header is (its lines are not JSON).
    tsv: Option<langroid_tsv::Log>,
    seen_record: bool,
    /// The input is read to its end, or no more of it is to be read (an error is
    /// deferred).
    ended: bool,
    /// An error found after records whose messages are still in `pending`: given
    /// once they are (a document of a stream of them that is wrong, after the
    /// documents before it, as a wrong line comes after the lines before it; a tool
    /// output that is not UTF-8, after the model turn it ends).
    deferred: Option<TranscriptError>,
    failed: bool,
}

impl<R: BufRead> Reader<R> {
    /// A reader of `input` in `format`.
    pub fn new(input: R, format: Format) -> Reader<R> {
        Reader {
            buffer: String::new(),
            state: State {
                input,
                format,
                kind: None,
                line: 0,
                scratch: String::new(),
                not_utf8: Vec::new(),
                carried: false,
                by_first_key: first_key::FirstKeys::default(),
                pending: std::collections::VecDeque::new(),
                cx: record::Context {
                    langroid: format == Format::Langroid,
                    detect_langroid: format == Format::Auto,
                    ..record::Context::default()
                },
                tsv: None,
                seen_record: false,
                ended: false,
                deferred: None,
                failed: false,
            },
        }
    }

    /// The 1-based number of the line last read.
    #[must_use]
    pub const fn line(&self) -> usize {
        self.state.line
    }

    /// The format the records read so far were read as: the one given, or for
    /// [`Format::Auto`] the one detected (`Auto` before the first record).
    #[must_use]
    pub fn format(&self) -> Format {
        if self.state.tsv.is_some() {
            return Format::LangroidTsv;
        }
        match (self.state.format, self.state.kind) {
            (Format::Auto, Some(kind)) => kind.format(),
            (format, _) => format,
        }
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
                // (The bytes of a line that was not UTF-8, kept for the turn it may
                // end, are not kept past the reading.)
                self.state.not_utf8 = Vec::new();
                Some(Err(e))
            }
        }
    }
}

impl<R: BufRead> State<R> {
    /// Reads the next line into `buffer`, checked as UTF-8; false at the end of the
    /// input. A line that is not UTF-8 is an error, its bytes kept in `not_utf8`.
    fn read_line(&mut self, buffer: &mut String) -> Result<bool, TranscriptError> {
        // Read as bytes into the buffer's own allocation, which the text takes back.
        let mut bytes = std::mem::take(buffer).into_bytes();
        bytes.clear();
        // The line's own bytes, its line end (`\n` or `\r\n`) not counted, plus one to
        // see it is over.
        let limit = MAX_LINE_LEN + 3;
        read_until_newline(&mut self.input, &mut bytes, limit).map_err(|e| {
            TranscriptError::at(self.line + 1, Kind::Io, format!("cannot read: {e}"))
        })?;
        if bytes.is_empty() {
            *buffer = String::from_utf8(bytes).unwrap_or_default();
            return Ok(false);
        }
        if self.line == 0 {
            skip_bom(&mut bytes);
        }
        self.line += 1;
        if bytes.len() - line_end(&bytes) > MAX_LINE_LEN {
            self.read_long_first_line(&mut bytes)?;
        }
        match String::from_utf8(bytes) {
            Ok(text) => {
                *buffer = text;
                Ok(true)
            }
            Err(e) => Err(self.line_not_utf8(e)),
        }
    }

    /// The rest of the line `bytes`, longer than [`MAX_LINE_LEN`]: where it is the
    /// input's first record, in a format that reads documents, and starts one (`{` or
    /// `[`), a JSON document written on one line, read on up to [`MAX_DOCUMENT_LEN`];
    /// otherwise, or past that, an error. (Out of line: no other line pays for it.)
    #[cold]
    #[inline(never)]
    fn read_long_first_line(&mut self, bytes: &mut Vec<u8>) -> Result<(), TranscriptError> {
        let opens_document = || {
            let start = bytes.iter().find(|b| !b.is_ascii_whitespace());
            matches!(start, Some(b'{' | b'['))
        };
        if self.seen_record || !self.format.reads_documents() || !opens_document() {
            return Err(TranscriptError::at(
                self.line,
                Kind::TooLong { max: MAX_LINE_LEN },
                format!("line longer than {MAX_LINE_LEN} bytes"),
            ));
        }
        if !bytes.ends_with(b"\n") {
            let limit = (MAX_DOCUMENT_LEN + 3).saturating_sub(bytes.len());
            read_until_newline(&mut self.input, bytes, limit).map_err(|e| {
                TranscriptError::at(self.line, Kind::Io, format!("cannot read: {e}"))
            })?;
        }
        if bytes.len() - line_end(bytes) > MAX_DOCUMENT_LEN {
            return Err(TranscriptError::at(
                self.line,
                Kind::TooLong {
                    max: MAX_DOCUMENT_LEN,
                },
                format!("JSON document longer than {MAX_DOCUMENT_LEN} bytes"),
            ));
        }
        Ok(())
    }

    /// The error of the line just read, which is not UTF-8: its bytes kept, for
    /// [`State::ends_turn_not_utf8`]. (Out of line: the reading of a line pays none
    /// of it.)
    #[cold]
    #[inline(never)]
    fn line_not_utf8(&mut self, e: std::string::FromUtf8Error) -> TranscriptError {
        let mut error = not_utf8(e.utf8_error(), self.line);
        let bytes = e.into_bytes();
        if self.line == 1
            && let Some(what) = not_text(&bytes)
        {
            // Said, so that the user knows what to convert, not only where the bytes
            // went wrong.
            error.message = format!("not UTF-8: {what}");
        }
        self.not_utf8 = bytes;
        error
    }

    /// Whether `error`, of the line just read, is that it is not UTF-8 where the line
    /// is sure to be a tool's output (seen on its bytes), which ends the model turn
    /// open before it: then the turn is given first, and the error after it (as a
    /// tool output's error of any other kind is), deferred.
    fn ends_turn_not_utf8(&mut self, error: &TranscriptError) -> bool {
        let ends =
            error.kind == Kind::NotUtf8 && self.output_ends_turn(self.not_utf8.trim_ascii_start());
        self.not_utf8 = Vec::new();
        ends
    }

    /// `error` given once the messages waiting are: nothing more is read.
    fn defer(&mut self, error: TranscriptError) {
        self.deferred = Some(error);
        self.ended = true;
    }

    /// The next message, its texts borrowed from `buffer` where it is a line's
    /// message (the others own theirs).
    ///
    /// A line is read into `buffer` and its first message returned borrowing it (the
    /// others are kept owned). Once `buffer` is lent, the function must not write it
    /// again: when a line stands for no message (a Responses item joining a model
    /// turn, an AutoGen event that is not a step), the next lines are read into the
    /// reader's own scratch buffer, their messages owned.
    fn next_message<'b>(
        &mut self,
        buffer: &'b mut String,
    ) -> Result<Option<Message<'b>>, TranscriptError> {
        loop {
            if let Some(message) = self.pending.pop_front() {
                return Ok(Some(message.into_message(buffer)));
            }
            if self.carried {
                self.carried = false;
                std::mem::swap(buffer, &mut self.scratch);
                break;
            }
            if self.ended {
                // (A deferred error ends the reading: nothing is read after it.)
                return self.deferred.take().map_or(Ok(None), Err);
            }
            // The next line that is not blank, into `buffer`.
            if !self.read_line(buffer)? {
                self.end()?;
                continue;
            }
            if is_blank(buffer) {
                continue;
            }
            let first = !self.seen_record;
            self.seen_record = true;
            if first && matches!(self.format, Format::Auto | Format::LangroidTsv) {
                let text = without_line_end(buffer);
                if langroid_tsv::is_header(text.as_bytes()) {
                    let detected = self.format == Format::Auto;
                    self.tsv = Some(langroid_tsv::Log::new(text, self.line, detected)?);
                    continue;
                }
                if self.format == Format::LangroidTsv {
                    return Err(TranscriptError {
                        column: Some(1),
                        format: Some(Format::LangroidTsv),
                        ..TranscriptError::at(
                            self.line,
                            Kind::Message,
                            "not a Langroid task log's header (a log starts with \
                             \"\\tTask\\tResponder\\t...\"); format langroid-tsv (given)",
                        )
                    });
                }
            }
            if let Some(log) = &mut self.tsv {
                // A line of a Langroid task log: read here, not as JSON.
                if log.takes(without_line_end(buffer).as_bytes(), self.line)? {
                    break;
                }
                continue;
            }
            if first && self.format.reads_documents() {
                // A first line that is a whole object is a record of its own (else it
                // opens a document), of the kind its keys show: both told by one look.
                match detect::line(buffer.trim()) {
                    Some(kind) => {
                        if self.kind.is_none() {
                            self.kind = Some(self.kind_or_first(kind));
                        }
                    }
                    None => {
                        self.read_document(buffer)?;
                        continue;
                    }
                }
            }
            break;
        }
        let line = self.line;
        if let Some(log) = &mut self.tsv {
            let text: &'b str = without_line_end(buffer);
            return log.message(text, line).map(Some);
        }
        let text: &'b str = buffer;
        // A record of a kind whose messages the scanner builds itself (a chat message,
        // an OpenAI chat.completion object, an Anthropic response, an AutoGen message,
        // ...: `record::scans`), where the log is known to be of them (or the line's
        // first key says it is one): the commonest lines are scanned straight into
        // their messages (the serde path reads anything else). (A log that has shown
        // two kinds predicts the kind by the first key.)
        let trimmed = trim::trim(text);
        let (keyed, predicted) = self.predict(trimmed);
        // (Whether the line was scanned and stands for no message: an out-parameter, as
        // an `Option<Option<Message>>` returned cost every scanned line 50 instructions.)
        let mut none = false;
        if let Some(first) = self.scan(text, trimmed, keyed, predicted, &mut none) {
            return Ok(Some(first));
        }
        if none {
            // Read, and no message: the next line follows, below.
        } else if predicted.or(self.kind) == Some(record::Kind::ResponsesItem)
            && !self.cx.responses.is_open()
            && !(predicted.is_some() && self.cx.holds_agents())
            && let Some(read) = self.responses_line(trimmed, keyed, predicted)
        {
            if let Some(message) = read? {
                return Ok(Some(message));
            }
        } else {
            let mut out = record::Out::new();
            self.read_record_in(trimmed, keyed, predicted, text, line, &mut out)?;
            if out.len() == 1 {
                return Ok(out.pop());
            }
            if !out.is_empty() {
                return Ok(self.first_of(out, text));
            }
        }
        // The line was another kind of record, which stood for no message: the next
        // records are read into the scratch buffer.
        loop {
            if let Some(message) = self.pending.pop_front() {
                return Ok(Some(message.into_message(buffer)));
            }
            if self.ended {
                return Ok(None);
            }
            self.scratch_step()?;
        }
    }

    /// The first of a line's messages `out` (more than one), the others kept for the
    /// next calls as spans of `text` (the buffer), and the allocation of their list,
    /// if they had one, for the next line's ([`record::reserve`]).
    fn first_of<'t>(&mut self, mut out: record::Out<'t>, text: &'t str) -> Option<Message<'t>> {
        // (The first taken from the list's walk: a removal shifted the rest.)
        let mut rest = out.drain(..);
        let first = rest.next();
        self.pending
            .extend(rest.map(|m| pending::Pending::in_line(m, text)));
        if out.spilled() {
            self.cx.spare = record::spare(out);
        }
        first
    }

    /// The line `trimmed` (of the buffer's `text`) scanned straight into its messages
    /// ([`record::scan`]), as the kind `predicted` by its first key (where the log
    /// predicts kinds by it), else the kind read last: the first message, any others
    /// kept for the next calls as spans of `text`. `None` where the scanner does not
    /// read the line (the record reader then does), or where the line stands for no
    /// message (an AutoGen event that is no step: `none` is then set).
    fn scan<'t>(
        &mut self,
        text: &'t str,
        trimmed: &'t str,
        keyed: Option<first_key::Keyed<'t>>,
        predicted: Option<record::Kind>,
        none: &mut bool,
    ) -> Option<Message<'t>> {
        let kind = predicted
            .or(self.kind)
            .filter(|&kind| record::scans(kind, &self.cx))?;
        if predicted.is_some() && self.cx.holds_agents() {
            // A Claude Code or Codex turn waits: the record reader gives it first.
            return None;
        }
        // Filled where it is read (it is large; a move of it is a copy).
        let mut chat = fast::Chat::default();
        record::scan(kind, trimmed, &self.cx, &mut chat)?;
        // As the serde path would: the kind read last, the key's kind learnt.
        self.read_as(kind, keyed, predicted);
        let fast::Chat {
            mut results,
            message,
        } = chat;
        // (A chat message stands for one message or more.)
        match message {
            Some(message) if results.is_empty() => Some(message),
            None if results.len() == 1 => results.pop(),
            None if results.is_empty() => {
                *none = true;
                None
            }
            message => {
                results.extend(message);
                let mut rest = results.into_iter();
                let first = rest.next();
                self.pending
                    .extend(rest.map(|m| pending::Pending::in_line(m, text)));
                first
            }
        }
    }

    /// The OpenAI Responses item `trimmed` (the caller's line), where the log is read
    /// as Responses items, no model turn is open and the scanner is sure of the item:
    /// its message, or (an item of the model's) the model turn it opens, assembled
    /// from the lines that follow while the turn's first line is at hand, so that the
    /// turn borrows its texts from that line (assembled by the reader, from one call to
    /// the next, the turn must own them). `Some(Ok(None))` where the line stands for no
    /// message, or where the turn went on as the reader's own (the next messages are
    /// then in `pending`, or in the next lines); `None` where the line is not read here
    /// (the record reader then reads it, and says what is wrong, if anything).
    #[inline(never)]
    fn responses_line<'b>(
        &mut self,
        trimmed: &'b str,
        keyed: Option<first_key::Keyed<'b>>,
        predicted: Option<record::Kind>,
    ) -> Option<Result<Option<Message<'b>>, TranscriptError>> {
        let kind = record::Kind::ResponsesItem;
        let mut item = responses::Item::default();
        fast::responses_item(trimmed, &mut item)?;
        let mut turn = responses::Turn::default();
        let mut out = record::Out::new();
        responses::item_into::<responses::Borrow>(&mut item, &mut turn, &mut out).ok()?;
        self.read_as(kind, keyed, predicted);
        if !out.is_empty() {
            // An item from outside the model: its message, its only one (the turn
            // was not open).
            return Some(Ok(out.pop()));
        }
        while turn.is_open() {
            let mut scratch = std::mem::take(&mut self.scratch);
            let step = self.turn_line(&mut scratch, &mut turn);
            self.scratch = scratch;
            match step {
                Ok(true) => {}
                Ok(false) => return Some(Ok(turn.take())),
                Err(e) => return Some(Err(e)),
            }
        }
        Some(Ok(None))
    }

    /// Reads the next line into `scratch` while the model `turn` is open. `Ok(true)`:
    /// the turn goes on (the line was blank, or an item of the model's, which joined
    /// it, its texts copied: the line is gone at the next). `Ok(false)`: the turn is
    /// over as this call's. Still in `turn`, it is to be given first: the input ended,
    /// or the line is a tool's output, left for the next call (as
    /// [`State::scratch_line`] leaves one), or an item from outside the model, whose
    /// message waits in `pending`. Otherwise it went, copied, to the reader's own turn,
    /// and the line was read as the record reader reads a line with a turn open (a
    /// record of another kind, a line the scanner leaves to serde, an item that fails):
    /// the messages are in `pending`, or in the lines to come.
    fn turn_line<'b>(
        &mut self,
        scratch: &mut String,
        turn: &mut responses::Turn<'b>,
    ) -> Result<bool, TranscriptError> {
        match self.read_line(scratch) {
            Ok(true) => {}
            Ok(false) => {
                self.end()?;
                return Ok(false);
            }
            Err(error) if self.ends_turn_not_utf8(&error) => {
                self.defer(error);
                return Ok(false);
            }
            Err(error) => return Err(error),
        }
        if is_blank(scratch) {
            return Ok(true);
        }
        if self.output_ends_turn(scratch.as_bytes().trim_ascii_start()) {
            self.carried = true;
            return Ok(false);
        }
        let line = self.line;
        let text: &str = scratch;
        let trimmed = trim::trim(text);
        let (keyed, predicted) = self.predict(trimmed);
        let kind = predicted.or(self.kind);
        if kind == Some(record::Kind::ResponsesItem) {
            let mut out = record::Out::new();
            let mut item = responses::Item::default();
            if fast::responses_item(trimmed, &mut item).is_some()
                && responses::item_into::<responses::Own>(&mut item, turn, &mut out).is_ok()
            {
                self.read_as(record::Kind::ResponsesItem, keyed, predicted);
                if out.is_empty() {
                    return Ok(true);
                }
                // An item from outside the model, which ends the turn: given after it.
                self.pending
                    .extend(out.into_iter().map(pending::Pending::owned));
                return Ok(false);
            }
        }
        // Anything else is read as a line in the reader's own turn, which it becomes.
        let mut out = record::Out::new();
        self.cx
            .responses
            .reopen(turn.take().map(Message::into_owned));
        self.read_record_in(trimmed, keyed, predicted, text, line, &mut out)?;
        self.pending
            .extend(out.into_iter().map(pending::Pending::owned));
        Ok(false)
    }

    /// What the reader keeps once it has read a record as `kind`: the kind read last,
    /// and, where the log predicts kinds by first keys (`keyed`) and the record's did
    /// not predict this one, the key's kind learnt.
    #[inline(always)]
    fn read_as(
        &mut self,
        kind: record::Kind,
        keyed: Option<first_key::Keyed<'_>>,
        predicted: Option<record::Kind>,
    ) {
        self.kind = Some(kind);
        if keyed.is_some() && predicted != Some(kind) {
            self.learn(keyed, kind);
        }
    }

    /// Whether the line `bytes` (leading whitespace trimmed) is sure to be a tool's
    /// output item ([`fast::ends_turn`]), where the log is read as Responses items
    /// (the first key's kind looked up only then: most lines are not outputs).
    fn output_ends_turn(&self, bytes: &[u8]) -> bool {
        fast::ends_turn(bytes)
            && self.by_first_key.find(bytes).or(self.kind) == Some(record::Kind::ResponsesItem)
    }

    /// Reads the next line into the scratch buffer, and its messages into `pending`.
    fn scratch_step(&mut self) -> Result<(), TranscriptError> {
        let mut scratch = std::mem::take(&mut self.scratch);
        let result = self.scratch_line(&mut scratch);
        self.scratch = scratch;
        result
    }

    fn scratch_line(&mut self, scratch: &mut String) -> Result<(), TranscriptError> {
        match self.read_line(scratch) {
            Ok(true) => {}
            Ok(false) => {
                self.end()?;
                return Ok(());
            }
            Err(error) if self.cx.responses.is_open() && self.ends_turn_not_utf8(&error) => {
                self.pending
                    .extend(self.cx.responses.take().map(pending::Pending::Owned));
                self.defer(error);
                return Ok(());
            }
            Err(error) => return Err(error),
        }
        if is_blank(scratch) {
            return Ok(());
        }
        if self.cx.responses.is_open()
            && self.output_ends_turn(scratch.as_bytes().trim_ascii_start())
        {
            // A tool's output, which ends the model turn first thing: the turn is
            // given now, and the line read at the next call as its caller's line, so
            // that its message borrows it (read here, it would be copied to wait).
            self.pending
                .extend(self.cx.responses.take().map(pending::Pending::Owned));
            self.carried = true;
            return Ok(());
        }
        let line = self.line;
        let text: &str = scratch;
        let trimmed = trim::trim(text);
        let (keyed, predicted) = self.predict(trimmed);
        let mut out = record::Out::new();
        self.read_record_in(trimmed, keyed, predicted, text, line, &mut out)?;
        self.pending
            .extend(out.into_iter().map(pending::Pending::owned));
        Ok(())
    }

    /// The input is over: a model turn still open is a message. An error when the
    /// transcript as a whole is wrong (a trace whose spans gave no message), at its
    /// last line.
    fn end(&mut self) -> Result<(), TranscriptError> {
        self.ended = true;
        let mut rest = record::Out::new();
        let problem = self.cx.finish(&mut rest);
        self.pending
            .extend(rest.into_iter().map(pending::Pending::Owned));
        match problem {
            None => Ok(()),
            Some(problem) => {
                let (format, names) = self.format_named();
                let at = self.line.max(1);
                Err(TranscriptError {
                    format: Some(format),
                    ..TranscriptError::at(at, Kind::Message, format!("{problem}; {names}"))
                })
            }
        }
    }

    /// Reads the rest of the input into `buffer` (which holds the first line) as one
    /// JSON document, or as a stream of them (one after another, as `jq` writes
    /// them): their messages go to `pending`.
    fn read_document(&mut self, buffer: &mut String) -> Result<(), TranscriptError> {
        let start = self.line;
        // As for a line: a final line end is not counted, one byte more shows it is
        // over (the first line, in the buffer, may already be).
        let limit = (MAX_DOCUMENT_LEN + 2).saturating_sub(buffer.len()) as u64 + 1;
        let mut bytes = std::mem::take(buffer).into_bytes();
        (&mut self.input)
            .take(limit)
            .read_to_end(&mut bytes)
            .map_err(|e| TranscriptError::at(start, Kind::Io, format!("cannot read: {e}")))?;
        self.ended = true;
        if bytes.len() - line_end(&bytes) > MAX_DOCUMENT_LEN {
            return Err(TranscriptError::at(
                start,
                Kind::TooLong {
                    max: MAX_DOCUMENT_LEN,
                },
                format!("JSON document longer than {MAX_DOCUMENT_LEN} bytes"),
            ));
        }
        *buffer = text(bytes, start)?;
        let text: &str = buffer;
        // The document's last line, its final line end not counted.
        let body = &text.as_bytes()[..text.len() - line_end(text.as_bytes())];
        let lines = memchr::memchr_iter(b'\n', body).count();
        let trimmed = trim::trim(text);
        let mut out = record::Out::new();
        // One document, most often: read as such (no parse spent on looking for
        // more). Where it is not one, because documents follow it, they are read in
        // turn; any other error is its own.
        // (Documents one after another: found by a skim, which measures their
        // nesting in the same walk, where the text is not one.)
        let mut skimmed = None;
        let first = {
            // Its nesting checked where serde first reads it (once), or known where the
            // scanner reads it whole or a look measured it; else after the reading,
            // which then gives way to a document too deep.
            let checked = record::Checked::deferred(trimmed);
            // An object's look taken here, not by its record's reader: its kind, its
            // nesting, and whether more follows it. A text of documents one after
            // another is then not read as one (a reading sure to fail, after a walk
            // of the whole text: a sixth of reading a log indented by `jq .`).
            let followed = !trimmed.starts_with('[') && self.kind.is_none() && self.look(trimmed).1;
            let read = if followed {
                Err(None)
            } else {
                self.read_one(trimmed, text, start, &mut out).map_err(Some)
            };
            if read.is_err() {
                skimmed = skim::documents(trimmed, MAX_JSON_DEPTH);
                if skimmed.as_ref().is_some_and(|(_, shallow)| *shallow) {
                    record::known_shallow(trimmed);
                }
            }
            if let Some(at) = checked.too_deep() {
                return Err(TranscriptError::too_deep(
                    start,
                    text,
                    offset_in(trimmed, text) + at,
                ));
            }
            read
        };
        if let Err(error) = first {
            let mut shallow = false;
            let documents: Vec<serde_json::Result<&str>> = match skimmed {
                // The first document's JSON checked, as serde_json's split does: a text
                // whose first document is not JSON is that error, not documents.
                Some((documents, measured)) if is_json(documents[0]) => {
                    shallow = measured;
                    documents.into_iter().map(Ok).collect()
                }
                Some(_) => return Err(self.as_one(error, trimmed, text, start)),
                // Not documents a skim can split: serde_json's split says what is
                // wrong (its documents up to the first that is not JSON).
                None => {
                    let Some(documents) = documents(trimmed) else {
                        return Err(self.as_one(error, trimmed, text, start));
                    };
                    let mut split = Vec::new();
                    for document in documents {
                        let wrong = document.is_err();
                        split.push(document.map(serde_json::value::RawValue::get));
                        if wrong {
                            break;
                        }
                    }
                    split
                }
            };
            // What the first reading built before it failed is not kept.
            out.clear();
            for document in documents {
                let document = document
                    .map_err(|e| self.error(trimmed, text, start, record::Problem::Json(e)));
                let before = out.len();
                // A document of a text measured no deeper than the limit: not walked
                // where serde reads it.
                let _checked = match &document {
                    Ok(document) if shallow => Some(record::Checked::new(document)),
                    _ => None,
                };
                if let Err(error) = document.and_then(|d| self.read_one(d, text, start, &mut out)) {
                    // The documents before it are given, then the error.
                    out.truncate(before);
                    self.pending
                        .extend(out.into_iter().map(pending::Pending::owned));
                    self.line = start + lines;
                    self.deferred = Some(error);
                    return Ok(());
                }
            }
        }
        self.pending
            .extend(out.into_iter().map(pending::Pending::owned));
        self.line = start + lines;
        self.end()
    }

    /// The error of the document `text` (trimmed, a part of `whole`, whose first line
    /// is line `base`) read as one: `error`, where it was, else read now (a text
    /// of documents one after another is not read as one until its error is wanted:
    /// where its first document is not JSON). Should that reading give messages,
    /// which it cannot (more follows its first value), they are dropped and the
    /// error says the text is not one document.
    fn as_one(
        &mut self,
        error: Option<TranscriptError>,
        text: &str,
        whole: &str,
        base: usize,
    ) -> TranscriptError {
        error.unwrap_or_else(|| {
            let mut none = record::Out::new();
            match self.read_one(text, whole, base, &mut none) {
                Err(error) => error,
                Ok(()) => TranscriptError::at(base, Kind::Json, "not one JSON document"),
            }
        })
    }

    /// The messages of one JSON document `text` (a part of `whole`, whose first line
    /// is line `base`): an array's elements, or one record.
    fn read_one<'t>(
        &mut self,
        text: &'t str,
        whole: &'t str,
        base: usize,
        out: &mut record::Out<'t>,
    ) -> Result<(), TranscriptError> {
        if text.starts_with('[') {
            self.read_array(text, whole, base, out)
        } else {
            let (keyed, predicted) = self.predict(text);
            self.read_record_in(text, keyed, predicted, whole, base, out)
        }
    }

    /// A JSON array of records, each read as the first one is (or as its own keys
    /// say), their messages added to `out`.
    fn read_array<'t>(
        &mut self,
        text: &'t str,
        whole: &'t str,
        base: usize,
        out: &mut record::Out<'t>,
    ) -> Result<(), TranscriptError> {
        // Split by a skim, which measures the list's nesting in the same walk (the
        // elements' readers check their JSON): serde_json's split checked every
        // element before its reader checked it again, and the nesting was walked after.
        let (elements, shallow) = match skim::elements(text, MAX_JSON_DEPTH) {
            Some((elements, shallow)) => {
                if shallow {
                    record::known_shallow(text);
                }
                (elements, shallow)
            }
            // Not a list the skim can split: serde_json says what is wrong.
            None => (
                serde_json::from_str::<Vec<&serde_json::value::RawValue>>(text)
                    .map_err(|e| self.error(text, whole, base, record::Problem::Json(e)))?
                    .into_iter()
                    .map(serde_json::value::RawValue::get)
                    .collect(),
                false,
            ),
        };
        let count = elements.len();
        for (i, element) in elements.into_iter().enumerate() {
            // A value of a list measured no deeper than the limit: not walked where
            // serde reads it.
            let _checked = shallow.then(|| record::Checked::new(element));
            let (keyed, predicted) = self.predict(element);
            self.read_record_in(element, keyed, predicted, whole, base, out)
                .map_err(|mut e| {
                    if e.kind == Kind::Message || e.kind == Kind::ToolSearch {
                        e.message =
                            format!("element {} of {count} of the array: {}", i + 1, e.message);
                    }
                    e
                })?;
        }
        Ok(())
    }

    /// The look at the record `text`, the first of the log (its kind not known yet):
    /// the kind it is read as, from now on the kind read last, and whether more
    /// follows its first value (documents one after another). Where the look went
    /// over the whole text, no deeper than the limit, the document serde reads next
    /// is not walked for its nesting.
    fn look(&mut self, text: &str) -> (record::Kind, bool) {
        let looked = detect::look_at(text);
        if looked.nesting.is_some_and(|n| n <= MAX_JSON_DEPTH) {
            record::known_shallow(text);
        }
        let kind = self.kind_or_first(looked.kind);
        self.kind = Some(kind);
        (kind, looked.followed)
    }

    /// The kind a record whose keys show `kind` is read as: that kind where the format
    /// has it, else the format's first.
    fn kind_or_first(&self, kind: Option<record::Kind>) -> record::Kind {
        kind.filter(|k| record::Kind::of(self.format).contains(k))
            .unwrap_or(record::Kind::first_of(self.format))
    }

    /// The messages of the record `text`, a part of `whole` (whose first line is line
    /// `base`), added to `out`: read as the kind its first key `predicted`, else
    /// as the kind read last, else as its keys say. (Written into the caller's list:
    /// a list of messages is a large value, and each move of it a copy.)
    fn read_record_in<'t>(
        &mut self,
        text: &'t str,
        keyed: Option<first_key::Keyed<'t>>,
        predicted: Option<record::Kind>,
        whole: &'t str,
        base: usize,
        out: &mut record::Out<'t>,
    ) -> Result<(), TranscriptError> {
        let allowed = record::Kind::of(self.format);
        let kind = match predicted.or(self.kind) {
            Some(kind) => kind,
            None => self.look(text).0,
        };
        let start = out.len();
        let failure = match record::read(kind, text, &mut self.cx, out) {
            Ok(()) => {
                self.read_as(kind, keyed, predicted);
                return Ok(());
            }
            Err(failure) => failure,
        };
        if let record::Problem::TooDeep(at) = failure.problem {
            return Err(TranscriptError::too_deep(
                base,
                whole,
                offset_in(failure.within, whole) + at,
            ));
        }
        // Another kind of record of the format (a log may mix messages and response
        // objects): read as its keys say.
        if let Some(other) = detect::kind(text).filter(|k| *k != kind && allowed.contains(k)) {
            // What the first reading added, before it failed, is not this record's.
            out.truncate(start);
            match record::read(other, text, &mut self.cx, out) {
                Ok(()) => {
                    self.kind = Some(other);
                    self.learn(Some(first_key::Keyed(text)), other);
                    return Ok(());
                }
                // The record has the other kind's shape and a wrong value: that is
                // what is wrong with it, said of the kind it is.
                Err(second) if matches!(second.problem, record::Problem::Message(..)) => {
                    let expected = self.kind.replace(other);
                    let error = self.error(second.within, whole, base, second.problem);
                    self.kind = expected;
                    return Err(error);
                }
                Err(_) => {}
            }
        }
        let (within, problem) = (failure.within, failure.problem);
        Err(self.error(within, whole, base, problem))
    }

    /// The record `text`, keyed, where the log predicts kinds by first keys, and the
    /// kind of record that records with its first key were lately: a log that mixes
    /// kinds (chat messages and response objects) writes each kind's keys in its own
    /// order, so that the first key says which kind to read a record as first.
    /// (Looked at only once the log has shown two kinds: a log of one kind pays
    /// nothing.)
    #[inline(always)]
    fn predict<'t>(&self, text: &'t str) -> (Option<first_key::Keyed<'t>>, Option<record::Kind>) {
        if self.by_first_key.is_empty() {
            return (None, None);
        }
        self.predict_by_first_key(text)
    }

    /// [`State::predict`] where the log has shown two kinds. (Out of line, so that a
    /// log of one kind pays a test and no call.)
    fn predict_by_first_key<'t>(
        &self,
        text: &'t str,
    ) -> (Option<first_key::Keyed<'t>>, Option<record::Kind>) {
        let predicted = self.by_first_key.find(text.as_bytes());
        (Some(first_key::Keyed(text)), predicted)
    }

    /// Remembers that records whose first key is the `keyed` record's were of `kind`.
    fn learn(&mut self, keyed: Option<first_key::Keyed<'_>>, kind: record::Kind) {
        if let Some(key) = keyed.and_then(first_key::Keyed::key) {
            self.by_first_key.learn(key, kind);
        }
    }

    /// The format read (given, or detected from the records read so far), and its
    /// name for an error: `format otel (detected)`.
    fn format_named(&self) -> (Format, String) {
        let kind = self.kind.unwrap_or(record::Kind::first_of(self.format));
        let format = match self.format {
            Format::Auto => kind.format(),
            format => format,
        };
        let how = if self.format == Format::Auto {
            "detected"
        } else {
            "given"
        };
        (format, format!("format {format} ({how})"))
    }

    /// The error for `problem` in `within`, a part of `whole` (whose first line is
    /// line `base`), naming the kind of record expected and the format.
    fn error(
        &self,
        within: &str,
        whole: &str,
        base: usize,
        problem: record::Problem,
    ) -> TranscriptError {
        let offset = offset_in(within, whole);
        let (line, column) = position(whole, offset);
        let kind = self.kind.unwrap_or(record::Kind::first_of(self.format));
        let (format, names) = self.format_named();
        match problem {
            record::Problem::Json(e) => {
                // serde_json's message ends with " at line L column C": keep the
                // message, carry the position as fields.
                let text = e.to_string();
                let message = text
                    .rsplit_once(" at line ")
                    .map_or(text.as_str(), |(m, _)| m);
                let message = if e.classify() == serde_json::error::Category::Data {
                    format!("expected {}, {names}: {message}", kind.describe())
                } else {
                    message.to_owned()
                };
                let line_in = e.line().max(1) - 1;
                let column_in = e.column();
                TranscriptError {
                    line: base + line + line_in,
                    column: (column_in > 0).then(|| {
                        if line_in == 0 {
                            column - 1 + column_in
                        } else {
                            column_in
                        }
                    }),
                    kind: Kind::Json,
                    message,
                    format: Some(format),
                }
            }
            record::Problem::TooDeep(at) => TranscriptError::too_deep(base, whole, offset + at),
            record::Problem::Message(error_kind, message) => TranscriptError {
                line: base + line,
                column: None,
                kind: error_kind,
                message: format!("{message}; in {}, {names}", kind.describe()),
                format: Some(format),
            },
        }
    }
}

/// The JSON documents of `text` (trimmed) where it holds more than one (whitespace
/// or nothing between them): `None` where it is one document, or does not start with
/// one.
fn documents(
    text: &str,
) -> Option<impl Iterator<Item = serde_json::Result<&serde_json::value::RawValue>>> {
    let mut stream =
        serde_json::Deserializer::from_str(text).into_iter::<&serde_json::value::RawValue>();
    let first = stream.next()?.ok()?;
    if stream.byte_offset() == text.len() {
        return None;
    }
    Some(std::iter::once(Ok(first)).chain(stream))
}

/// Whether `text` is JSON (one value, nothing after it).
fn is_json(text: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

/// Whether a line is blank (all whitespace). Most lines start with `{`: one byte
/// looked at.
fn is_blank(line: &str) -> bool {
    match line.bytes().find(|b| !b.is_ascii_whitespace()) {
        None => true,
        Some(b) if b.is_ascii() => false,
        Some(_) => line.trim().is_empty(),
    }
}

/// `bytes`, line `line` of the input (or the first line of a document), as text.
fn text(bytes: Vec<u8>, line: usize) -> Result<String, TranscriptError> {
    String::from_utf8(bytes).map_err(|e| not_utf8(e.utf8_error(), line))
}

/// What an input whose first line is `first` (not UTF-8) is, where it is known by its
/// first bytes, and how to read it: UTF-16 (what Windows PowerShell 5's `>` writes),
/// a compressed file (an archived log), a zip archive, Agent Framework's MessagePack
/// history.
fn not_text(first: &[u8]) -> Option<&'static str> {
    if first.starts_with(b"\xFF\xFE") || first.starts_with(b"\xFE\xFF") {
        return Some(
            "UTF-16 (the input starts with UTF-16's byte order mark); convert it to UTF-8 \
             first (`iconv -f UTF-16 -t UTF-8`, or PowerShell's `Set-Content -Encoding utf8`)",
        );
    }
    if first.starts_with(b"\x1F\x8B") {
        return Some("gzip-compressed; decompress it first (`gunzip`, `zcat`)");
    }
    if first.starts_with(b"\x28\xB5\x2F\xFD") {
        return Some("zstd-compressed; decompress it first (`unzstd`, `zstdcat`)");
    }
    if first.starts_with(b"PK\x03\x04") {
        return Some(
            "a zip archive (an Inspect AI .eval log?); give its path to `doneseq check`, \
             which reads each of its samples as a run",
        );
    }
    // A record's length (four bytes, big-endian), then a MessagePack map whose first
    // key is `type`: Agent Framework's history written as MessagePack.
    if first.len() >= 10 && matches!(first[4], 0x80..=0x8F) && &first[5..10] == b"\xA4type" {
        return Some(
            "MessagePack (an Agent Framework FileHistoryProvider's, \
             serialization_format=\"msgpack\"?), which is not read; keep the history as \
             JSON Lines, the provider's default, which format agent-framework reads",
        );
    }
    None
}

/// The error of line `line`, which is not UTF-8.
fn not_utf8(e: std::str::Utf8Error, line: usize) -> TranscriptError {
    let message = format!("not UTF-8 (byte {})", e.valid_up_to());
    TranscriptError::at(line, Kind::NotUtf8, message)
}

/// Reads one message in the transcript schema (doneseq's fields, or an OpenAI or
/// Anthropic chat message: the fields [`Reader`] reads as [`Format::Jsonl`]) from any
/// serde deserializer, with the same checks: an unknown field, a bad role or an
/// impossible message is an error. The Python package reads its message dicts
/// through it.
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
///
/// # Errors
///
/// The deserializer's error, or the message's: an Anthropic message carrying tool
/// results (`tool_result` blocks) is several messages, and is refused here.
pub fn deserialize_message<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Message<'de>, D::Error> {
    let mut results = record::Out::new();
    let message = <wire::Line<'de>>::deserialize(deserializer)?
        .into_message(&mut results)
        .map_err(serde::de::Error::custom)?;
    match (message, results.len()) {
        (Some(message), 0) => Ok(message),
        (_, n) => Err(serde::de::Error::custom(format!(
            "a message carrying {n} tool results (tool_result blocks): give each result as a message of its own"
        ))),
    }
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
