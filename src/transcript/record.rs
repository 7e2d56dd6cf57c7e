//! Records: what one line of a JSONL log, one element of a JSON array, or one whole
//! JSON document holds, in each format, and the messages each kind stands for.

use std::borrow::Cow;
use std::cell::Cell;

use serde::Deserialize;

use super::wire::{Converted, JsonLine, Listed, MessageSeed, RawArguments, StringOrList};
use super::{
    Format, TranscriptErrorKind, agent_framework, agno, anthropic, autogen, bedrock, claude_code,
    codex, completion, crewai, fast, gemini, inspect, langchain, langroid, llamaindex, locus,
    mini_swe_agent, ollama, otel, pydantic_ai, responses, rlm_code, smolagents, swe_agent,
};
use crate::{Message, ToolCall};

/// The messages of a record: one most of the time, two where a Responses item ends a
/// model turn (the turn's message, then its own), kept inline (no allocation).
pub(super) type Out<'a> = smallvec::SmallVec<[Message<'a>; 2]>;

/// Room for `room` messages in `out`, in `spare`'s allocation where `out` is empty
/// and `spare` has that room.
pub(super) fn reserve(out: &mut Out<'_>, room: usize, spare: &mut Vec<Message<'static>>) {
    if out.is_empty() && !out.spilled() && spare.capacity() >= room {
        *out = Out::from_vec(std::mem::take(spare));
    } else {
        out.reserve(room);
    }
}

/// The most messages a list kept for the next line ([`spare`]) has room for: a
/// line of thousands of messages does not leave its list allocated for the rest of
/// the reading.
const SPARE_ROOM: usize = 64;

/// `out`'s allocation, emptied, for a next line's messages ([`reserve`]); none where
/// they were in its own room, or where it has room for more than [`SPARE_ROOM`].
pub(super) fn spare(mut out: Out<'_>) -> Vec<Message<'static>> {
    if !out.spilled() || out.capacity() > SPARE_ROOM {
        return Vec::new();
    }
    out.clear();
    // (Collected in place: no message to convert, the allocation kept, its messages'
    // lifetime no longer the line's.)
    out.into_vec()
        .into_iter()
        .map(Message::into_owned)
        .collect()
}

/// The kinds of record the formats are made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// A chat message: doneseq's fields, OpenAI's or Anthropic's.
    Message,
    /// An OpenAI `chat.completion` response object.
    Completion,
    /// A request's `{"messages": [...]}` (OpenAI's).
    ChatRequest,
    /// An Ollama chat response (`{"message", "done", ...}`).
    OllamaResponse,
    /// An Anthropic request: `messages` and its `system`.
    AnthropicRequest,
    /// An Anthropic response (`"type": "message"`, with its model and stop reason).
    AnthropicResponse,
    /// An OpenAI Responses API item.
    ResponsesItem,
    /// An OpenAI Responses API response object (`"object": "response"`).
    Response,
    /// An OpenAI Responses API request (`{"input": ..., "instructions": ...}`).
    ResponsesRequest,
    /// An AutoGen AgentChat message or event (`model_dump()`).
    AutoGen,
    /// An AutoGen `TaskResult` (`{"messages": [...], "stop_reason": ...}`).
    TaskResult,
    /// An OTLP JSON export of spans (`{"resourceSpans": [...]}`).
    Otlp,
    /// An OTLP JSON export of logs (`{"resourceLogs": [...]}`).
    OtlpLogs,
    /// A Pydantic AI `ModelRequest` or `ModelResponse` (`{"kind": ..., "parts": [...]}`).
    PydanticAi,
    /// A LangChain message, bare or in `messages_to_dict()`'s or `dumpd()`'s envelope.
    LangChain,
    /// A LangGraph state: `{"messages": [...]}` of LangChain messages.
    LangGraphState,
    /// A Gemini `Content` (`{"role", "parts": [...]}`).
    GeminiContent,
    /// A Gemini `generateContent` request (`{"contents": [...]}`).
    GeminiRequest,
    /// A Gemini `generateContent` response (`{"candidates": [...]}`).
    GeminiResponse,
    /// A Google ADK event (`{"author", "content", "actions", ...}`).
    AdkEvent,
    /// A saved Google ADK session (`{"appName", "events": [...]}`).
    AdkSession,
    /// A smolagents memory step (`{"task"}`, `{"step_number", ...}`, ...).
    SmolagentsStep,
    /// An Amazon Bedrock Converse message (`{"role", "content": [blocks]}`, each
    /// block keyed by its kind).
    BedrockMessage,
    /// A Bedrock Converse request (`{"messages": [...], "system": [...]}`).
    BedrockRequest,
    /// A Converse message as Strands Agents saves it in a session (`{"message",
    /// "message_id", "redact_message", ...}`).
    StrandsSessionMessage,
    /// A Strands Agents snapshot of an agent (`{"scope": "agent", "schema_version",
    /// "data": {"messages", "system_prompt", ...}}`).
    StrandsSnapshot,
    /// A Bedrock Converse response (`{"output": {"message"}, "stopReason", ...}`).
    BedrockResponse,
    /// An Agno message (`{"role", "content", "from_history", ...}`).
    AgnoMessage,
    /// An Agno run (`{"run_id", "messages", ...}`), or a row of its database
    /// (`{"run_id", "run_data": {...}}`).
    AgnoRun,
    /// An Agno session (`{"session_id", "runs": [...]}`).
    AgnoSession,
    /// A LlamaIndex chat message (`{"role", "blocks", "additional_kwargs"}`).
    LlamaIndexMessage,
    /// A LlamaIndex `SimpleChatStore` (`{"store": {key: [messages]}}`).
    LlamaIndexStore,
    /// A LlamaIndex `ChatMemoryBuffer` (`{"chat_store", "chat_store_key"}`).
    LlamaIndexMemory,
    /// A CrewAI crew's output (`{"tasks_output": [...], "token_usage", ...}`).
    CrewAiCrew,
    /// A CrewAI task's output (`{"messages", "raw", "agent", "expected_output", ...}`)
    /// or an agent's (`{"messages", "raw", "agent_role", ...}`).
    CrewAiTask,
    /// An entry of a CrewAI crew's `output_log_file` (`{"task", "agent", "status",
    /// ...}`): refused, it holds no messages.
    CrewAiLog,
    /// An event of an rlm-code run (`{"type": "step", "run_id", "environment",
    /// "action", "observation", ...}`, a `final` or a `context` event).
    RlmCodeEvent,
    /// A locus agent state, checkpoint or result (`{"checkpoint_id", "state"}`,
    /// `{"messages", "tool_executions", ...}`, `{"state", "stop_reason", ...}`).
    LocusState,
    /// A record of a Claude Code session log (`{"type": "assistant", "message",
    /// "sessionId", "uuid", ...}`, a `user` record, or one that gives no message).
    ClaudeCodeRecord,
    /// A record of a Codex CLI rollout (`{"timestamp", "type": "response_item",
    /// "payload": {...}}`, a usage record, or one that gives no message).
    CodexRecord,
    /// A mini-swe-agent trajectory (`{"info", "messages", "trajectory_format"}`).
    MiniSweAgentTrajectory,
    /// A SWE-agent trajectory (`{"environment", "trajectory", "history", "info"}`).
    SweAgentTrajectory,
    /// SWE-bench predictions (`{"<instance id>": {"instance_id", "model_patch", ...}}`,
    /// the `preds.json` SWE-agent's and mini-swe-agent's batch runs write beside
    /// their trajectories, or a line of them): refused, they hold no messages.
    SweBenchPredictions,
    /// An Inspect AI eval sample (`{"id", "epoch", "input", "messages", "events",
    /// ...}`).
    InspectSample,
    /// An Inspect AI eval log written as JSON (`{"version", "status", "eval",
    /// "samples", ...}`).
    InspectLog,
    /// A Microsoft Agent Framework message (`{"type": "message", "role", "contents"}`).
    AgentFrameworkMessage,
    /// A Microsoft Agent Framework response (`{"type": "agent_response", "messages",
    /// "usage_details"}`, a chat client's `chat_response` too).
    AgentFrameworkResponse,
    /// A Microsoft Agent Framework session (`{"type": "session", "session_id",
    /// "state"}`).
    AgentFrameworkSession,
}

impl Kind {
    /// What the record is, for errors: "expected {this}".
    pub(super) const fn describe(self) -> &'static str {
        match self {
            Kind::Message => "a chat message (doneseq's fields, OpenAI's or Anthropic's)",
            Kind::Completion => "an OpenAI chat.completion object",
            Kind::ChatRequest => "a request's {\"messages\": [...]}",
            Kind::OllamaResponse => "an Ollama chat response ({\"message\", \"done\", ...})",
            Kind::AnthropicRequest => "an Anthropic request ({\"system\", \"messages\"})",
            Kind::AnthropicResponse => "an Anthropic response message",
            Kind::ResponsesItem => "an OpenAI Responses item",
            Kind::Response => "an OpenAI Responses response object",
            Kind::ResponsesRequest => "an OpenAI Responses request ({\"input\": ...})",
            Kind::AutoGen => "an AutoGen message (model_dump())",
            Kind::TaskResult => "an AutoGen TaskResult",
            Kind::Otlp => "an OTLP JSON export of spans ({\"resourceSpans\": [...]})",
            Kind::OtlpLogs => "an OTLP JSON export of logs ({\"resourceLogs\": [...]})",
            Kind::PydanticAi => "a Pydantic AI message ({\"kind\", \"parts\"})",
            Kind::LangChain => "a LangChain message ({\"type\", ...})",
            Kind::LangGraphState => "a LangGraph state ({\"messages\": [...]})",
            Kind::GeminiContent => "a Gemini content ({\"role\", \"parts\"})",
            Kind::GeminiRequest => "a Gemini request ({\"contents\": [...]})",
            Kind::GeminiResponse => "a Gemini response ({\"candidates\": [...]})",
            Kind::AdkEvent => "a Google ADK event ({\"author\", \"content\", ...})",
            Kind::AdkSession => "a Google ADK session ({\"events\": [...]})",
            Kind::SmolagentsStep => "a smolagents step ({\"task\"}, {\"step_number\", ...})",
            Kind::BedrockMessage => {
                "a Bedrock Converse message ({\"role\", \"content\": [{\"text\"}, ...]})"
            }
            Kind::BedrockRequest => "a Bedrock Converse request ({\"messages\", \"system\"})",
            Kind::StrandsSessionMessage => {
                "a Strands session's message ({\"message\", \"message_id\", ...})"
            }
            Kind::StrandsSnapshot => {
                "a Strands snapshot ({\"scope\", \"schema_version\", \"data\": {\"messages\"}})"
            }
            Kind::BedrockResponse => "a Bedrock Converse response ({\"output\": {\"message\"}})",
            Kind::AgnoMessage => "an Agno message ({\"role\", \"content\", \"from_history\", ...})",
            Kind::AgnoRun => {
                "an Agno run ({\"run_id\", \"messages\"} or {\"run_id\", \"run_data\"})"
            }
            Kind::AgnoSession => "an Agno session ({\"session_id\", \"runs\"})",
            Kind::LlamaIndexMessage => {
                "a LlamaIndex message ({\"role\", \"blocks\", \"additional_kwargs\"})"
            }
            Kind::LlamaIndexStore => "a LlamaIndex chat store ({\"store\": {key: [...]}})",
            Kind::LlamaIndexMemory => "a LlamaIndex memory ({\"chat_store\", \"chat_store_key\"})",
            Kind::CrewAiCrew => "a CrewAI crew's output ({\"tasks_output\": [...]})",
            Kind::CrewAiTask => {
                "a CrewAI task's or agent's output ({\"messages\", \"raw\", \"agent\", ...})"
            }
            Kind::CrewAiLog => "a CrewAI output log's entry ({\"task\", \"agent\", \"status\"})",
            Kind::RlmCodeEvent => {
                "an rlm-code run's event ({\"type\", \"run_id\", \"environment\", ...})"
            }
            Kind::LocusState => {
                "a locus state, checkpoint or result ({\"messages\", \"tool_executions\"}, {\"state\", ...})"
            }
            Kind::ClaudeCodeRecord => {
                "a Claude Code session log's record ({\"type\", \"sessionId\", \"message\", ...})"
            }
            Kind::CodexRecord => {
                "a Codex rollout's record ({\"timestamp\", \"type\", \"payload\"})"
            }
            Kind::MiniSweAgentTrajectory => {
                "a mini-swe-agent trajectory ({\"info\", \"messages\", \"trajectory_format\"})"
            }
            Kind::SweAgentTrajectory => {
                "a SWE-agent trajectory ({\"trajectory\", \"history\", \"info\", ...})"
            }
            Kind::SweBenchPredictions => {
                "SWE-bench predictions ({\"<instance id>\": {\"instance_id\", \"model_patch\"}})"
            }
            Kind::InspectSample => {
                "an Inspect eval sample ({\"id\", \"epoch\", \"messages\", \"events\", ...})"
            }
            Kind::InspectLog => "an Inspect eval log ({\"version\", \"eval\", \"samples\", ...})",
            Kind::AgentFrameworkMessage => {
                "an Agent Framework message ({\"type\": \"message\", \"role\", \"contents\"})"
            }
            Kind::AgentFrameworkResponse => {
                "an Agent Framework response ({\"type\": \"agent_response\", \"messages\", ...})"
            }
            Kind::AgentFrameworkSession => {
                "an Agent Framework session ({\"type\": \"session\", \"session_id\", \"state\"})"
            }
        }
    }

    /// The format this kind of record belongs to (what `auto` detected).
    pub(super) const fn format(self) -> Format {
        match self {
            Kind::Message => Format::Jsonl,
            Kind::Completion | Kind::ChatRequest | Kind::OllamaResponse => Format::OpenAi,
            Kind::AnthropicRequest | Kind::AnthropicResponse => Format::Anthropic,
            Kind::ResponsesItem | Kind::Response | Kind::ResponsesRequest => Format::Responses,
            Kind::AutoGen | Kind::TaskResult => Format::AutoGen,
            Kind::Otlp | Kind::OtlpLogs => Format::Otel,
            Kind::PydanticAi => Format::PydanticAi,
            Kind::LangChain | Kind::LangGraphState => Format::LangChain,
            Kind::GeminiContent
            | Kind::GeminiRequest
            | Kind::GeminiResponse
            | Kind::AdkEvent
            | Kind::AdkSession => Format::Gemini,
            Kind::SmolagentsStep => Format::Smolagents,
            Kind::BedrockMessage
            | Kind::BedrockRequest
            | Kind::BedrockResponse
            | Kind::StrandsSessionMessage
            | Kind::StrandsSnapshot => Format::Bedrock,
            Kind::AgnoMessage | Kind::AgnoRun | Kind::AgnoSession => Format::Agno,
            Kind::LlamaIndexMessage | Kind::LlamaIndexStore | Kind::LlamaIndexMemory => {
                Format::LlamaIndex
            }
            Kind::CrewAiCrew | Kind::CrewAiTask | Kind::CrewAiLog => Format::CrewAi,
            Kind::RlmCodeEvent => Format::RlmCode,
            Kind::LocusState => Format::Locus,
            Kind::ClaudeCodeRecord => Format::ClaudeCode,
            Kind::CodexRecord => Format::Codex,
            Kind::MiniSweAgentTrajectory => Format::MiniSweAgent,
            Kind::SweAgentTrajectory | Kind::SweBenchPredictions => Format::SweAgent,
            Kind::InspectSample | Kind::InspectLog => Format::Inspect,
            Kind::AgentFrameworkMessage
            | Kind::AgentFrameworkResponse
            | Kind::AgentFrameworkSession => Format::AgentFramework,
        }
    }

    /// The kind of record a format expects first (a message for one whose records
    /// are not JSON, which never reaches the JSON reader).
    pub(super) fn first_of(format: Format) -> Kind {
        Kind::of(format).first().copied().unwrap_or(Kind::Message)
    }

    /// The kinds of record a format reads, the first the one it expects first.
    pub(super) const fn of(format: Format) -> &'static [Kind] {
        match format {
            Format::Auto => &[
                Kind::Message,
                Kind::Completion,
                Kind::ChatRequest,
                Kind::OllamaResponse,
                Kind::AnthropicRequest,
                Kind::AnthropicResponse,
                Kind::ResponsesItem,
                Kind::Response,
                Kind::ResponsesRequest,
                Kind::AutoGen,
                Kind::TaskResult,
                Kind::Otlp,
                Kind::OtlpLogs,
                Kind::PydanticAi,
                Kind::LangChain,
                Kind::LangGraphState,
                Kind::GeminiContent,
                Kind::GeminiRequest,
                Kind::GeminiResponse,
                Kind::AdkEvent,
                Kind::AdkSession,
                Kind::SmolagentsStep,
                Kind::BedrockMessage,
                Kind::BedrockRequest,
                Kind::BedrockResponse,
                Kind::StrandsSessionMessage,
                Kind::StrandsSnapshot,
                Kind::AgnoMessage,
                Kind::AgnoRun,
                Kind::AgnoSession,
                Kind::LlamaIndexMessage,
                Kind::LlamaIndexStore,
                Kind::LlamaIndexMemory,
                Kind::CrewAiCrew,
                Kind::CrewAiTask,
                Kind::CrewAiLog,
                Kind::RlmCodeEvent,
                Kind::LocusState,
                Kind::ClaudeCodeRecord,
                Kind::CodexRecord,
                Kind::MiniSweAgentTrajectory,
                Kind::SweAgentTrajectory,
                Kind::SweBenchPredictions,
                Kind::InspectSample,
                Kind::InspectLog,
                Kind::AgentFrameworkMessage,
                Kind::AgentFrameworkResponse,
                Kind::AgentFrameworkSession,
            ],
            Format::Jsonl | Format::Langroid => &[Kind::Message],
            Format::OpenAi => &[
                Kind::Message,
                Kind::Completion,
                Kind::ChatRequest,
                Kind::OllamaResponse,
            ],
            Format::Anthropic => &[
                Kind::Message,
                Kind::AnthropicRequest,
                Kind::ChatRequest,
                Kind::AnthropicResponse,
            ],
            Format::Responses => &[Kind::ResponsesItem, Kind::Response, Kind::ResponsesRequest],
            Format::AutoGen => &[Kind::AutoGen, Kind::TaskResult],
            Format::Otel => &[Kind::Otlp, Kind::OtlpLogs],
            Format::PydanticAi => &[Kind::PydanticAi],
            Format::LangChain => &[Kind::LangChain, Kind::LangGraphState],
            Format::Gemini => &[
                Kind::GeminiContent,
                Kind::AdkEvent,
                Kind::GeminiRequest,
                Kind::GeminiResponse,
                Kind::AdkSession,
            ],
            Format::Smolagents => &[Kind::SmolagentsStep],
            Format::Bedrock => &[
                Kind::BedrockMessage,
                Kind::BedrockRequest,
                Kind::BedrockResponse,
                Kind::StrandsSessionMessage,
                Kind::StrandsSnapshot,
            ],
            Format::Agno => &[Kind::AgnoMessage, Kind::AgnoRun, Kind::AgnoSession],
            Format::LlamaIndex => &[
                Kind::LlamaIndexMessage,
                Kind::LlamaIndexStore,
                Kind::LlamaIndexMemory,
            ],
            Format::CrewAi => &[Kind::CrewAiCrew, Kind::CrewAiTask, Kind::CrewAiLog],
            Format::RlmCode => &[Kind::RlmCodeEvent],
            Format::Locus => &[Kind::LocusState],
            Format::ClaudeCode => &[Kind::ClaudeCodeRecord],
            Format::Codex => &[Kind::CodexRecord],
            Format::MiniSweAgent => &[Kind::MiniSweAgentTrajectory, Kind::SweBenchPredictions],
            Format::SweAgent => &[Kind::SweAgentTrajectory, Kind::SweBenchPredictions],
            Format::Inspect => &[Kind::InspectSample, Kind::InspectLog],
            Format::AgentFramework => &[
                Kind::AgentFrameworkMessage,
                Kind::AgentFrameworkResponse,
                Kind::AgentFrameworkSession,
            ],
            // Not JSON: its lines go to its own reader.
            Format::LangroidTsv => &[],
        }
    }
}

/// What the reader carries from one record to the next.
#[derive(Debug, Default)]
pub(super) struct Context {
    /// Search message content for Langroid's tool JSON (`--format langroid`, or a
    /// log whose roles are Langroid's entity names).
    pub(super) langroid: bool,
    /// Turn `langroid` on at the first Langroid role (`auto`).
    pub(super) detect_langroid: bool,
    /// The model turn being assembled from OpenAI Responses items.
    pub(super) responses: responses::Turn<'static>,
    /// The conversation an OTLP export's spans have shown so far.
    pub(super) otel: otel::History,
    /// The instructions of Pydantic AI's requests read last.
    pub(super) pydantic_ai: pydantic_ai::Instructions,
    /// The session of the Agno runs read so far.
    pub(super) agno: agno::Sessions,
    /// The rlm-code run whose task was given last.
    pub(super) rlm_code: rlm_code::Runs,
    /// The Claude Code model turn being read from its records.
    pub(super) claude_code: claude_code::Session,
    /// A Codex model turn waiting for its usage.
    pub(super) codex: codex::Rollout,
    /// The allocation of the last list of a line's messages that outgrew [`Out`]'s
    /// own room, emptied ([`spare`]), for the next line's ([`reserve`]): a CrewAI
    /// task's six messages allocated a list a line (33 instructions a message).
    pub(super) spare: Vec<Message<'static>>,
}

impl Context {
    /// Whether messages wait for the next record of their format (a model turn open,
    /// a Codex turn waiting for its usage): a record of another kind comes after them
    /// (the record reader gives them first).
    #[inline(always)]
    pub(super) fn holds(&self) -> bool {
        self.responses.is_open() || self.holds_agents()
    }

    /// [`Context::holds`] for the coding agents' logs (a Claude Code turn open, a
    /// Codex turn waiting). The scanner reads neither format, and once a record of
    /// another kind is read they wait no more: only a record the log's first keys
    /// predict (a log that mixes kinds) may be scanned while they wait, and the
    /// reader asks then (the commonest logs pay nothing: 19 instructions a `jsonl`
    /// message when every scanned line asked).
    pub(super) fn holds_agents(&self) -> bool {
        self.claude_code.is_open() || self.codex.is_waiting()
    }

    /// Ends the transcript: a model turn still open is a message, so is a call of
    /// log records still waiting for its choice. What is wrong with the transcript
    /// as a whole, if anything (a trace's spans that gave no message).
    pub(super) fn finish(&mut self, out: &mut Out<'static>) -> Option<String> {
        self.codex.release(out);
        self.responses.close(out);
        self.claude_code.close(out);
        if let Err(problem) = otel::finish(self, out) {
            return Some(problem);
        }
        self.otel.nothing_read()
    }
}

/// What went wrong in a record, and the text its position is relative to (a line,
/// a document, or an element of one).
pub(super) struct Failure<'a> {
    pub(super) within: &'a str,
    pub(super) problem: Problem,
}

pub(super) enum Problem {
    /// JSON that does not have the record's shape (or a JSON string inside that does
    /// not parse): serde_json's error.
    Json(serde_json::Error),
    /// Values that are wrong, at the start of `within`.
    Message(TranscriptErrorKind, String),
    /// JSON nested deeper than [`super::MAX_JSON_DEPTH`]: the bracket one level too
    /// deep is at this byte of `within`.
    TooDeep(usize),
}

impl Problem {
    /// What went wrong, as a message without its position (for a problem inside a
    /// value the caller names, or found after the record's text is gone).
    pub(super) fn into_message(self) -> String {
        match self {
            Problem::Json(e) => e.to_string(),
            Problem::Message(_, message) => message,
            Problem::TooDeep(_) => format!("JSON nested deeper than {}", super::MAX_JSON_DEPTH),
        }
    }
}

impl<'a> Failure<'a> {
    pub(super) fn json(within: &'a str, e: serde_json::Error) -> Failure<'a> {
        Failure {
            within,
            problem: Problem::Json(e),
        }
    }

    pub(super) fn message(within: &'a str, text: impl Into<String>) -> Failure<'a> {
        Failure {
            within,
            problem: Problem::Message(TranscriptErrorKind::Message, text.into()),
        }
    }

    /// `within` nests too deep: the bracket one level too deep is at offset `at`.
    fn too_deep(within: &'a str, at: usize) -> Failure<'a> {
        Failure {
            within,
            problem: Problem::TooDeep(at),
        }
    }
}

/// The messages the record `text` of kind `kind` stands for, added to `out`.
///
/// A record that is not a Responses item ends a model turn assembled from them: the
/// turn's message comes first (but a Codex record, whose payload may be an item that
/// joins the turn, or the turn's usage: its reader says). So does a record of another
/// format than a Claude Code turn's or a waiting Codex turn's. A record that fails to
/// read leaves them as it found them: the caller may read the record again as
/// another kind, which may be a Responses item that joins the turn (or ends it).
pub(super) fn read<'a>(
    kind: Kind,
    text: &'a str,
    cx: &mut Context,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    if cx.holds() {
        return read_after_turn(kind, text, cx, out);
    }
    read_kind(kind, text, cx, out)
}

/// [`read`] where messages wait: those the record's kind ends come first. (Out of
/// line: most records are read with nothing waiting.)
#[inline(never)]
fn read_after_turn<'a>(
    kind: Kind,
    text: &'a str,
    cx: &mut Context,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let codex = if kind == Kind::CodexRecord {
        Vec::new()
    } else {
        cx.codex.take()
    };
    let ends_turn = !matches!(kind, Kind::ResponsesItem | Kind::CodexRecord);
    let turn = if ends_turn { cx.responses.take() } else { None };
    let claude = if kind == Kind::ClaudeCodeRecord {
        None
    } else {
        cx.claude_code.take()
    };
    let start = out.len();
    let read = read_kind(kind, text, cx, out);
    if read.is_ok() {
        let mut before = Out::new();
        before.extend(codex);
        before.extend(turn);
        if let Some(claude) = claude {
            claude.give(&mut before);
        }
        out.insert_many(start, before);
    } else {
        cx.codex.put_back(codex);
        if ends_turn {
            cx.responses.reopen(turn);
        }
        cx.claude_code.put_back(claude);
    }
    read
}

/// [`read`] once any open model turn is dealt with.
fn read_kind<'a>(
    kind: Kind,
    text: &'a str,
    cx: &mut Context,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    match kind {
        Kind::Message => {
            shallow(text)?;
            // Converted where it is read (the line is never moved).
            let mut de = serde_json::Deserializer::from_str(text);
            let seed = MessageSeed::<RawArguments<'a>> {
                results: out,
                arguments: std::marker::PhantomData,
            };
            let converted = serde::de::DeserializeSeed::deserialize(seed, &mut de)
                .and_then(|converted| de.end().map(|()| converted))
                .map_err(|e| Failure::json(text, e))?;
            push_message(converted, text, cx, out)
        }
        Kind::Completion => {
            if scanned_into(kind, text, cx, out) {
                return Ok(());
            }
            match parse(text) {
                Ok(parsed) => completion::read(parsed, text, cx, out),
                Err(_) if completion::is_chunk(text) => Err(completion::chunk(text)),
                Err(e) => Err(e),
            }
        }
        Kind::ChatRequest | Kind::AnthropicRequest => {
            anthropic::read_request(parse(text)?, text, cx, out)
        }
        Kind::OllamaResponse => ollama::read(parse(text)?, text, cx, out),
        Kind::AnthropicResponse => {
            if !scanned_into(kind, text, cx, out) {
                out.push(anthropic::read_response(parse(text)?, text)?);
            }
            Ok(())
        }
        Kind::ResponsesItem => {
            let mut item = responses::Item::default();
            if fast::responses_item(text, &mut item).is_none() {
                item = parse(text)?;
            }
            responses::read_item(&mut item, text, cx, out)
        }
        Kind::Response => responses::read_response(parse(text)?, text, cx, out),
        Kind::ResponsesRequest => responses::read_request(parse(text)?, cx, out),
        Kind::AutoGen => {
            if scanned_into(kind, text, cx, out) {
                return Ok(());
            }
            autogen::read(parse(text)?, text, out)
        }
        Kind::TaskResult => autogen::read_result(parse(text)?, out),
        Kind::Otlp => otel::read(parse(text)?, text, cx, out),
        Kind::OtlpLogs => otel::read_logs(parse(text)?, text, cx, out),
        Kind::PydanticAi => {
            // Filled where it is read (it is large; a move of it is a copy).
            let mut message = pydantic_ai::ModelMessage::default();
            if fast::pydantic_ai::message(text, &mut message).is_none() {
                message = parse(text)?;
            }
            pydantic_ai::read(message, text, cx, out)
        }
        Kind::LangChain => langchain::read(parse(text)?, text, out),
        Kind::LangGraphState => langchain::read_state(parse(text)?, out),
        Kind::GeminiContent => {
            let mut content = gemini::Content::default();
            if fast::gemini::content(text, &mut content).is_none() {
                content = parse(text)?;
            }
            gemini::read(content, text, out)
        }
        Kind::GeminiRequest => gemini::read_request(parse(text)?, text, out),
        Kind::GeminiResponse => gemini::read_response(parse(text)?, text, out),
        Kind::AdkEvent => {
            // Filled where it is read (it is large; a move of it is a copy).
            let mut event = gemini::Event::default();
            if fast::gemini::event(text, &mut event).is_none() {
                event = parse(text)?;
            }
            gemini::read_event(event, text, out)
        }
        Kind::AdkSession => gemini::read_session(parse(text)?, out),
        Kind::SmolagentsStep => {
            // Filled where it is read (it is large; a move of it is a copy).
            let mut step = smolagents::Step::default();
            if fast::smolagents::step(text, &mut step).is_none() {
                step = parse(text)?;
            }
            smolagents::read(step, text, out)
        }
        Kind::BedrockMessage => bedrock::read(parse(text)?, text, out),
        Kind::BedrockRequest => bedrock::read_request(parse(text)?, out),
        Kind::BedrockResponse => bedrock::read_response(parse(text)?, text, out),
        Kind::StrandsSessionMessage => bedrock::read_saved(parse(text)?, text, out),
        Kind::StrandsSnapshot => bedrock::read_snapshot(parse(text)?, text, out),
        Kind::AgnoMessage => agno::read_message(parse(text)?, text, out),
        Kind::AgnoRun => agno::read_run(parse(text)?, text, &mut cx.agno, out),
        Kind::AgnoSession => agno::read_session(parse(text)?, text, &mut cx.agno, out),
        Kind::LlamaIndexMessage => llamaindex::read_message(parse(text)?, text, out),
        Kind::LlamaIndexStore => llamaindex::read_store(parse(text)?, text, out),
        Kind::LlamaIndexMemory => llamaindex::read_memory(parse(text)?, text, out),
        Kind::CrewAiCrew => crewai::read_crew(parse(text)?, out, |text, out| {
            crewai_task(text, &mut cx.spare, out)
        }),
        Kind::CrewAiTask => crewai_task(text, &mut cx.spare, out),
        Kind::RlmCodeEvent => {
            // Filled where it is read (it is large; a move of it is a copy).
            let mut event = rlm_code::Event::default();
            if fast::rlm_code::event(text, &mut event).is_none() {
                event = parse(text)?;
            }
            rlm_code::read(event, text, &mut cx.rlm_code, out)
        }
        Kind::LocusState => locus::read(parse(text)?, text, out),
        Kind::ClaudeCodeRecord => {
            let mut record = claude_code::Record::default();
            if fast::claude_code::record(text, &mut record).is_none() {
                record = parse(text)?;
            }
            claude_code::read(record, text, &mut cx.claude_code, out)
        }
        Kind::CodexRecord => {
            // Filled where it is read (it is large; a move of it is a copy).
            let mut item = responses::Item::default();
            let (kind, payload) = match fast::codex::record(text, &mut item) {
                Some(read) => read,
                None => {
                    item = responses::Item::default();
                    parse::<codex::Record>(text)?.into_parts()
                }
            };
            codex::read(kind, payload, &mut item, text, cx, out)
        }
        Kind::MiniSweAgentTrajectory => mini_swe_agent::read(text, out),
        Kind::SweAgentTrajectory => swe_agent::read(text, out),
        Kind::InspectSample => inspect::read_sample(text, out),
        Kind::InspectLog => inspect::read_log(text, out),
        Kind::AgentFrameworkMessage => agent_framework::read_message(parse(text)?, text, out),
        Kind::AgentFrameworkResponse => agent_framework::read_response(parse(text)?, text, out),
        Kind::AgentFrameworkSession => agent_framework::read_session(parse(text)?, text, out),
        Kind::SweBenchPredictions => Err(Failure::message(
            text,
            "SWE-bench predictions (each instance's model_patch, as SWE-agent's and \
             mini-swe-agent's batch runs write them beside their trajectories) hold no \
             messages: read the trajectories (<instance>.traj, <instance>.traj.json)",
        )),
        Kind::CrewAiLog => Err(Failure::message(
            text,
            "a CrewAI output log (output_log_file) holds each task's status and output, not \
             the messages of its run: read the crew's output instead (crew.kickoff()'s \
             model_dump_json(), its tasks' messages in it)",
        )),
    }
}

/// A CrewAI task's output: scanned where the scanner is sure of it, else read by
/// serde.
fn crewai_task<'a>(
    text: &'a str,
    spare: &mut Vec<Message<'static>>,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let mut task = crewai::Scanned::default();
    let start = out.len();
    if fast::crewai::task(text, &mut task, spare, out).is_some() {
        return crewai::read_scanned(task, start, text, out);
    }
    // What the scanner added before it gave up.
    out.truncate(start);
    crewai::read_task(parse(text)?, text, out)
}

/// The messages of the record `text` of kind `kind` scanned straight from its bytes
/// into `chat` (an empty one), where the kind is one whose messages the scanner
/// builds itself ([`scans`]: a chat message, an OpenAI `chat.completion` object, an
/// Anthropic response, an AutoGen message or event, ...), nothing is left to do
/// between records (no model turn of Responses items open), Langroid's tool JSON is
/// not searched for, and the scanner is sure of the record. `None` otherwise (what is
/// in `chat` then is not to be read): [`read`] reads it (and says what is wrong, if
/// anything).
pub(super) fn scan<'a>(
    kind: Kind,
    text: &'a str,
    cx: &Context,
    chat: &mut fast::Chat<'a>,
) -> Option<()> {
    if !scans(kind, cx) {
        return None;
    }
    match kind {
        Kind::Message if cx.langroid => {
            // A Langroid log: the roles are known to be Langroid's, and the content
            // is searched for tools, as `push_message` does on the serde path (a
            // search that would go too far gives up: that path then says so).
            fast::message(text, false, chat)?;
            if let Some(message) = chat.message.as_mut().filter(|m| m.tool_calls.is_empty()) {
                let calls: Vec<ToolCall<'a>> = langroid::tool_calls(&message.content)
                    .ok()?
                    .into_iter()
                    .map(ToolCall::into_owned)
                    .collect();
                message.tool_calls = calls;
            }
            Some(())
        }
        Kind::Message => fast::message(text, cx.detect_langroid, chat),
        Kind::Completion => fast::completion(text, cx.detect_langroid, chat),
        Kind::AnthropicResponse => fast::anthropic_response(text, chat),
        Kind::AutoGen => fast::agent_message(text, chat),
        Kind::BedrockMessage => fast::converse::message(text, chat),
        Kind::AgnoMessage => fast::agno::message(text, chat),
        Kind::LlamaIndexMessage => fast::llamaindex::message(text, chat),
        Kind::AgentFrameworkMessage => fast::agent_framework::message(text, chat),
        Kind::LangChain => fast::langchain::message(text, chat),
        _ => None,
    }
}

/// [`scan`] on the record reader's path: the messages added to `out`, and whether
/// the scanner read the record (else the serde path reads it).
fn scanned_into<'a>(kind: Kind, text: &'a str, cx: &Context, out: &mut Out<'a>) -> bool {
    let mut chat = fast::Chat::default();
    if scan(kind, text, cx, &mut chat).is_none() {
        return false;
    }
    out.extend(chat.results);
    out.extend(chat.message);
    true
}

/// Whether [`scan`] may read a record of kind `kind` now (asked first, so that no
/// `Chat` is made and dropped for the records it does not read).
pub(super) fn scans(kind: Kind, cx: &Context) -> bool {
    let langroid_too = kind == Kind::Message;
    matches!(
        kind,
        Kind::Message
            | Kind::Completion
            | Kind::AnthropicResponse
            | Kind::AutoGen
            | Kind::BedrockMessage
            | Kind::AgnoMessage
            | Kind::LlamaIndexMessage
            | Kind::AgentFrameworkMessage
            | Kind::LangChain
    ) && (langroid_too || !cx.langroid)
        && !cx.responses.is_open()
}

/// `text` as a `T`.
pub(super) fn parse<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, Failure<'a>> {
    shallow(text)?;
    parse_within(text)
}

/// `text`, a value inside a record [`parse`] read (its nesting checked with it), as
/// a `T`: its errors at their place in the record's line.
pub(super) fn parse_within<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, Failure<'a>> {
    serde_json::from_str(text).map_err(|e| Failure::json(text, e))
}

/// Refuses `text` if it nests deeper than [`super::MAX_JSON_DEPTH`], before serde
/// reads it. (Checked here, not for every line: the fast path follows no deeper
/// nesting than its own, lower, limit, and most lines never reach serde.) Not walked
/// again where it is a text the reader checked ([`Checked`]); walked once where it is
/// the document the reader deferred the check of.
fn shallow(text: &str) -> Result<(), Failure<'_>> {
    let (key, nesting) = CHECKED.get();
    let held = key == Checked::key(text);
    if held && nesting == Nesting::Shallow {
        return Ok(());
    }
    match super::too_deep(text) {
        Some(at) => Err(Failure::too_deep(text, at)),
        None => {
            if held {
                // The deferred document, walked: known from now on.
                CHECKED.set((key, Nesting::Shallow));
            }
            Ok(())
        }
    }
}

/// What is known of the nesting of the text [`Checked`] holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Nesting {
    /// No deeper than [`super::MAX_JSON_DEPTH`]: walked, or read whole by the scanner
    /// (which follows no deeper nesting than its own, lower, limit).
    Shallow,
    /// Not yet known: the text is walked where serde is first asked to read it.
    Unknown,
}

thread_local! {
    /// The text (its address and length) whose nesting the reader checked or defers,
    /// while its record is read, and what is known of it; `(0, 0)` for none.
    static CHECKED: Cell<((usize, usize), Nesting)> =
        const { Cell::new(((0, 0), Nesting::Shallow)) };
}

/// While it lives, the text it was made of is not walked again by [`parse`]: a text
/// whose nesting the reader checked as it read it as a document, or a value of a
/// text checked so (a value nests no deeper than the text around it). A document of
/// one record (a trajectory, a sample, a session) is its record's text, and the walk
/// over the whole of it cost as much as a third of its reading. The record readers
/// call [`parse`] from deep in each format's code, with no context to carry the
/// fact, so it is kept beside them for the time of one record's reading (this
/// thread's, put back as it was when the guard drops). Only that very text (its
/// address and length) is spared, not its parts: a part may be a string's text, not
/// a value the walk measured. The borrow keeps the text alive and unchanged
/// meanwhile, so no other text can be at its address.
///
/// The reader may also defer a document's check ([`Checked::deferred`]): the walk is
/// then made where serde first reads the document, or not at all where its nesting
/// is known otherwise ([`known_shallow`]: the scanner read it whole, or a skim
/// measured it), and after the reading ([`Checked::too_deep`]) where neither
/// happened.
pub(super) struct Checked<'t> {
    before: ((usize, usize), Nesting),
    text: &'t str,
}

impl<'t> Checked<'t> {
    /// `text`, whose nesting was just checked, spared until the guard drops.
    pub(super) fn new(text: &'t str) -> Checked<'t> {
        Checked::holding(text, Nesting::Shallow)
    }

    /// `text`, the document the reader is about to read, its nesting not yet checked:
    /// walked where serde is first asked to read it, not where the scanner reads it
    /// whole.
    pub(super) fn deferred(text: &'t str) -> Checked<'t> {
        Checked::holding(text, Nesting::Unknown)
    }

    fn holding(text: &'t str, nesting: Nesting) -> Checked<'t> {
        Checked {
            before: CHECKED.replace((Checked::key(text), nesting)),
            text,
        }
    }

    /// Where the text nests deeper than [`super::MAX_JSON_DEPTH`] (the offset of the
    /// bracket one level too deep), where its reading did not find it no deeper: the
    /// text walked now. (A reading that failed may have read a part of it only, or
    /// none, or found a part of it too deep, one level too deep from the part's
    /// start: the document's own place is the error's.)
    pub(super) fn too_deep(&self) -> Option<usize> {
        match CHECKED.get() {
            (key, Nesting::Shallow) if key == Checked::key(self.text) => None,
            _ => super::too_deep(self.text),
        }
    }

    fn key(text: &str) -> (usize, usize) {
        (text.as_ptr() as usize, text.len())
    }
}

/// `text` as a `T`: scanned by the fast path's `scan` (into a default `T`) where it is
/// sure of it, the whole text read (so that its nesting is known: [`known_shallow`]),
/// else parsed by serde.
pub(super) fn scan_or_parse<'a, T: Deserialize<'a> + Default>(
    text: &'a str,
    scan: impl FnOnce(&'a str, &mut T) -> Option<()>,
) -> Result<T, Failure<'a>> {
    let mut scanned = T::default();
    if scan(text, &mut scanned).is_some() {
        known_shallow(text);
        return Ok(scanned);
    }
    parse(text)
}

/// The nesting of `text` is known to be no deeper than [`super::MAX_JSON_DEPTH`]:
/// where it is the document whose check is deferred, it is not walked. Known where
/// the scanner read it whole (it follows no deeper nesting than its own, lower,
/// limit), or where the skim that split it into its elements measured it.
pub(super) fn known_shallow(text: &str) {
    let (key, _) = CHECKED.get();
    if key == Checked::key(text) {
        CHECKED.set((key, Nesting::Shallow));
    }
}

impl Drop for Checked<'_> {
    fn drop(&mut self) {
        CHECKED.set(self.before);
    }
}

/// The messages of one chat message (several when Anthropic tool results ride in it),
/// with Langroid's tools found in the content where the log is Langroid-shaped.
pub(super) fn message<'a>(
    line: JsonLine<'a>,
    within: &'a str,
    cx: &mut Context,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let langroid_role = line.langroid_role();
    let message = line.into_message(out);
    push_message(
        Converted {
            langroid_role,
            message,
        },
        within,
        cx,
        out,
    )
}

/// Adds a converted chat message to `out`, with Langroid's tools found in the
/// content where the log is Langroid-shaped.
fn push_message<'a>(
    converted: Converted<'a>,
    within: &'a str,
    cx: &mut Context,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    cx.langroid |= cx.detect_langroid && converted.langroid_role;
    let message = converted.message.map_err(|m| Failure::message(within, m))?;
    let Some(message) = message else {
        return Ok(());
    };
    if !cx.langroid || !message.tool_calls().is_empty() {
        out.push(message);
        return Ok(());
    }
    let calls: Vec<_> = langroid::tool_calls(message.content())
        .map_err(|m| Failure {
            within,
            problem: Problem::Message(TranscriptErrorKind::ToolSearch, m),
        })?
        .into_iter()
        .map(ToolCall::into_owned)
        .collect();
    out.push(calls.into_iter().fold(message, Message::with_tool_call));
    Ok(())
}

/// Each element of the JSON array `elements`, read as `read_one` reads it, its
/// errors naming the element (counted from 1) and placed at it.
pub(super) fn each<'a, T: Deserialize<'a>>(
    elements: Vec<&'a serde_json::value::RawValue>,
    mut read_one: impl FnMut(T, &'a str, &mut Out<'a>) -> Result<(), Failure<'a>>,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let count = elements.len();
    for (i, element) in elements.into_iter().enumerate() {
        let text = element.get();
        let value = parse::<T>(text)?;
        read_one(value, text, out).map_err(|mut f| {
            if let Problem::Message(_, m) = &mut f.problem {
                *m = format!("element {} of {count}: {m}", i + 1);
            }
            f
        })?;
    }
    Ok(())
}

/// A text given as a string or a list of text blocks (`{"type": "text", "text": ...}`,
/// as Anthropic's `system`), joined by newlines.
pub(super) type Texts<'a> = StringOrList<'a, TextBlock<'a>>;

#[derive(Deserialize)]
pub(super) struct TextBlock<'a> {
    #[serde(rename = "type", borrow)]
    kind: super::wire::Str<'a>,
    #[serde(default, borrow)]
    text: Option<super::wire::Str<'a>>,
}

impl Listed for TextBlock<'_> {
    const EXPECTING: &'static str = "a string or a list of text blocks";
}

impl<'a> StringOrList<'a, TextBlock<'a>> {
    /// The text, or what is wrong with a block.
    pub(super) fn into_text(self) -> Result<Cow<'a, str>, String> {
        match self {
            StringOrList::Text(text) => Ok(text),
            StringOrList::List(blocks) => {
                let mut texts = Vec::with_capacity(blocks.len());
                for (i, block) in blocks.into_iter().enumerate() {
                    if block.kind.0 != "text" {
                        return Err(format!(
                            "block {i} has type \"{}\" where a text block was expected",
                            block.kind.0
                        ));
                    }
                    match block.text {
                        Some(t) => texts.push(t.into_cow()),
                        None => return Err(format!("text block {i} has no \"text\"")),
                    }
                }
                Ok(match texts.len() {
                    1 => texts.pop().unwrap_or_default(),
                    _ => Cow::Owned(texts.join("\n")),
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Checked, Failure, Out, Problem, SPARE_ROOM, reserve, shallow, spare};
    use crate::Message;

    /// A list of `room`, its messages borrowing `text`, after `messages` were added.
    fn list(text: &str, room: usize, messages: usize) -> Out<'_> {
        let mut out = Out::new();
        out.reserve_exact(room);
        out.extend((0..messages).map(|_| Message::llm(text)));
        out
    }

    #[test]
    fn a_list_that_grew_is_kept_for_the_next_line_within_bounds() {
        let line = String::from("a line's text");
        // Grown for a line's messages: kept, emptied, and taken by the next line
        // that asks for no more room than it has.
        let kept = spare(list(&line, 8, 6));
        assert!(kept.is_empty() && kept.capacity() >= 8);
        let mut spare_list = kept;
        let next = String::from("the next line");
        let mut out = Out::new();
        reserve(&mut out, 8, &mut spare_list);
        assert!(out.spilled() && out.capacity() >= 8);
        assert_eq!(spare_list.capacity(), 0, "taken, not copied");
        out.push(Message::llm(next.as_str()));
        // A list that holds messages already grows on its own, the spare untouched.
        let mut spare_list = spare(list(&line, 8, 0));
        let mut out = list(&line, 2, 1);
        reserve(&mut out, 8, &mut spare_list);
        assert!(spare_list.capacity() >= 8);
        assert_eq!(out.len(), 1);
        // Asking for more room than the spare has: a list of its own.
        let mut out = Out::new();
        reserve(&mut out, 16, &mut spare_list);
        assert!(out.capacity() >= 16 && spare_list.capacity() >= 8);
        // Not kept: a list in its own room, one of more than the bound's room.
        assert_eq!(spare(list(&line, 2, 2)).capacity(), 0);
        assert_eq!(spare(list(&line, SPARE_ROOM + 1, 3)).capacity(), 0);
        assert!(spare(list(&line, SPARE_ROOM, 3)).capacity() >= SPARE_ROOM);
    }

    /// A text the reader checked is not walked again while its guard lives, and only
    /// that text: a part of it, or the text once the guard is gone, is walked.
    #[test]
    fn only_the_checked_text_is_spared_and_only_meanwhile() {
        let depth = crate::transcript::MAX_JSON_DEPTH + 1;
        let text = format!("{{\"a\": {}{}}}", "[".repeat(depth), "]".repeat(depth));
        let part = &text[1..];
        let refused = |t: &str| {
            matches!(
                shallow(t),
                Err(Failure {
                    problem: Problem::TooDeep(_),
                    ..
                })
            )
        };
        assert!(refused(&text) && refused(part));
        {
            let _checked = Checked::new(&text);
            assert!(!refused(&text));
            assert!(refused(part));
            assert!(refused(&text.clone()));
            {
                let _inner = Checked::new(part);
                assert!(!refused(part) && refused(&text));
            }
            assert!(!refused(&text) && refused(part));
        }
        assert!(refused(&text));
    }

    /// A document whose check is deferred is walked where serde first reads it, once,
    /// and not after; known shallow where the scanner read that very text whole (not
    /// a part of it), and not walked; walked after the reading where neither
    /// happened, and found there where it is too deep.
    #[test]
    fn a_deferred_document_is_walked_once_or_known() {
        use super::known_shallow;
        use crate::transcript::WALKS;
        // More brackets than the limit (the walk is made), nested two deep.
        let wide = format!("[{}]", vec!["[]"; 70].join(","));
        let depth = crate::transcript::MAX_JSON_DEPTH + 1;
        let deep = format!("{{\"a\": {}{}}}", "[".repeat(depth), "]".repeat(depth));
        let walked = |read: &dyn Fn(&Checked<'_>), text: &str| {
            let before = WALKS.get();
            let checked = Checked::deferred(text);
            read(&checked);
            let found = checked.too_deep();
            (WALKS.get() - before, found)
        };
        let by_serde = |_: &Checked<'_>| {
            assert!(shallow(&wide).is_ok() && shallow(&wide).is_ok());
        };
        assert_eq!(walked(&by_serde, &wide), (1, None));
        let by_scanner = |_: &Checked<'_>| known_shallow(&wide);
        assert_eq!(walked(&by_scanner, &wide), (0, None));
        let a_part = |_: &Checked<'_>| known_shallow(&wide[1..]);
        assert_eq!(walked(&a_part, &wide), (1, None));
        assert_eq!(walked(&|_| {}, &wide), (1, None));
        // The object is a level: its 64th array is the 65th.
        let at = deep.find('[').unwrap() + depth - 2;
        let refused = |_: &Checked<'_>| {
            assert!(matches!(
                shallow(&deep),
                Err(Failure {
                    problem: Problem::TooDeep(_),
                    ..
                })
            ));
            known_shallow(&deep[1..]);
        };
        assert_eq!(walked(&refused, &deep).1, Some(at));
        assert_eq!(walked(&|_| {}, &deep).1, Some(at));
        // Gone with its guard: the text is walked as any other.
        assert!(shallow(&deep).is_err());
    }

    /// A document of one record is not walked where the look that told its kind
    /// measured it (where it is too deep, where serde reads it, to say where), and not
    /// at all where the scanner reads it whole; an array's nesting, and documents'
    /// one after another, is measured by the skim that splits them, their records
    /// not walked where serde reads them (an array too deep is walked after its
    /// reading, to say where).
    #[test]
    fn a_document_of_one_record_is_walked_once() {
        use crate::transcript::{Format, Reader, WALKS};
        let walks = |text: &str| {
            let before = WALKS.get();
            let read = Reader::new(text.as_bytes(), Format::Auto).count();
            assert!(read > 0);
            WALKS.get() - before
        };
        let trajectory = include_str!("../../examples/formats/mini-swe-agent.traj.json");
        assert_eq!(walks(trajectory), 0);
        // Nested deeper than the scanner follows (in a key no reader reads): read by
        // serde, its nesting measured by the look that told its kind, not walked;
        // too deep, walked where serde reads it, to say where.
        let deeper = trajectory.replacen(
            '{',
            &format!("{{\"deep\": {}{},", "[".repeat(40), "]".repeat(40)),
            1,
        );
        assert_eq!(walks(&deeper), 0);
        let depth = crate::transcript::MAX_JSON_DEPTH;
        let too_deep = trajectory.replacen(
            '{',
            &format!("{{\"deep\": {}{},", "[".repeat(depth), "]".repeat(depth)),
            1,
        );
        assert!(walks(&too_deep) >= 1);
        // An Inspect JSON log, read whole by the scanner, and its sample: not walked.
        let log = include_str!("../../examples/formats/inspect-log.json");
        assert_eq!(walks(log), 0);
        // Where serde reads the log and its sample (the sample nested deeper than the
        // scanner follows), the log is measured by the look, its sample (a value of
        // the log) not walked either.
        let list = log.find("\"samples\": [").unwrap();
        let brace = list + log[list..].find('{').unwrap();
        let deep_log = format!(
            "{}{{\"deep\": {}{},{}",
            &log[..brace],
            "[".repeat(40),
            "]".repeat(40),
            &log[brace + 1..]
        );
        assert_eq!(walks(&deep_log), 0);
        // Its sample alone (indented: a document, not a line), which the scanner reads
        // whole: not walked.
        let value: serde_json::Value = serde_json::from_str(log).unwrap();
        let sample = serde_json::to_string_pretty(&value["samples"][0]).unwrap();
        assert_eq!(walks(&sample), 0);
        // In a list: its nesting measured by the skim that splits it, not walked,
        // nor its elements where serde reads them.
        assert_eq!(walks(&format!("[{deeper}]")), 0);
        assert_eq!(walks(&format!("[{trajectory}]")), 0);
        // Documents one after another: not read as one (the look sees more after
        // the first), their text measured by the skim that finds them, not walked,
        // nor each where serde reads it.
        assert_eq!(walks(&format!("{deeper}\n{deeper}")), 0);
        assert_eq!(walks(&format!("{trajectory}\n{trajectory}")), 0);
        // A list nested too deep is walked, after its reading, to say where.
        let too_deep = format!("[{}{}]", "[".repeat(depth), "]".repeat(depth));
        assert_eq!(walks(&too_deep), 1);
        let at_limit = format!("[{}{}]", "[".repeat(depth - 1), "]".repeat(depth - 1));
        assert_eq!(walks(&at_limit), 0);
    }
}
