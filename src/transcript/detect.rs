//! What a JSON record is, seen from its keys: the format `auto` reads it as.
//!
//! A record is one line of a JSONL log or a whole JSON document. Its top-level keys
//! (and a few of their values: `type`, `object`, the first message's keys) tell the
//! formats apart without reading the rest: the record is skimmed ([`Skim`]), every
//! other value stepped over by its brackets and quotes, not checked, so that the look
//! costs a fraction of a parse (the reader that reads the record after checks it all).

use std::borrow::Cow;

use serde::de::IgnoredAny;
use serde_json::value::RawValue;

use super::MAX_JSON_DEPTH;
use super::record::Kind;
use super::skim::Skim;

/// What the keys of a record (or of its first element, for an array) showed.
#[derive(Default, Debug)]
struct Keys {
    role: bool,
    messages: bool,
    /// The first element of `messages` has a `source` (AutoGen's messages do).
    first_message_source: bool,
    /// The first element of `messages` is a LangChain message.
    first_message_langchain: bool,
    /// The first element of `messages` is a Bedrock Converse message.
    first_message_converse: bool,
    /// `content` is a list whose first element is a Converse content block: an
    /// object with no `type`, its first key a block kind (`text`, `toolUse`, ...).
    converse_content: bool,
    /// `stopReason` or `ResponseMetadata` (a Bedrock Converse response's).
    converse_response: bool,
    /// `message_id` (a Strands session's saved message has it, beside `message`).
    message_id: bool,
    /// `message`.
    message: bool,
    /// `done` (an Ollama chat response's, beside `message`).
    done: bool,
    /// `schema_version` (a Strands snapshot's, beside `scope` and `data`).
    schema_version: bool,
    /// `from_history` or `stop_after_tool_call` (an Agno message's).
    agno_message: bool,
    /// `run_id` (an Agno run's, and its database row's; Pydantic AI's messages have
    /// one too).
    run_id: bool,
    /// `session_id` (an Agno session's, beside `runs` or `session_type`).
    session_id: bool,
    /// `runs` or `session_type` (an Agno session's).
    agno_session: bool,
    /// `blocks` or `additional_kwargs` (a LlamaIndex message's; LangChain's messages
    /// have `additional_kwargs` too, beside their `type`).
    llamaindex_message: bool,
    /// The value of `class_name` (LlamaIndex's serialized objects name their class:
    /// `SimpleChatStore`; a key `store` alone says nothing, OpenAI's Responses
    /// requests and objects have one too).
    class_name: Option<String>,
    /// `chat_store` (a LlamaIndex memory's).
    chat_store: bool,
    /// `tasks_output` (a CrewAI crew's output).
    tasks_output: bool,
    /// `expected_output`, `output_format` or `agent_role` (a CrewAI task's or
    /// agent's output; its `messages` are not asked for, so that a task's output
    /// without them is refused as one).
    crewai_output: bool,
    /// `agent` (a CrewAI task's output, and its output log's entries).
    agent: bool,
    /// `status` (a CrewAI output log's entry, beside `task` and `agent`).
    status: bool,
    /// `environment` (an rlm-code run's events have it, beside `run_id` and `type`).
    environment: bool,
    /// `event_type` (rlm-code's trajectory and session logs' events have it, beside
    /// `run_id` or `session_id`).
    event_type: bool,
    /// `checkpoint_id` (a locus checkpoint's, beside `state`).
    checkpoint_id: bool,
    /// `state` (a locus checkpoint's or result's).
    state: bool,
    /// `tool_executions`, `reasoning_steps` or `tool_history` (a locus state's, and
    /// a result's).
    locus_state: bool,
    /// A key of Claude Code's session records: `sessionId`, `parentUuid`,
    /// `isSidechain` (its conversation's records), `leafUuid` (a summary's),
    /// `isSnapshotUpdate` (a snapshot of files').
    claude_code: bool,
    /// `payload` (a Codex rollout's records hold theirs in it, beside `type` and
    /// `timestamp`).
    payload: bool,
    /// `agentType` (a Claude Code sub-agent's metadata, which has no `type`).
    agent_type: bool,
    /// `trajectory_format` (a mini-swe-agent trajectory's, beside `info` and
    /// `messages`).
    trajectory_format: bool,
    /// `info` holding mini-swe-agent's `model_stats` or `exit_status` (beside
    /// `messages`: a trajectory of mini-swe-agent's first releases, which wrote no
    /// format).
    info: bool,
    /// `model_stats` or `exit_status` (in a mini-swe-agent trajectory's `info`).
    run_stats: bool,
    /// `instance_id` and `model_patch` (a SWE-bench prediction's).
    instance_id: bool,
    model_patch: bool,
    /// The first member of the record, of a key no format has, holds a SWE-bench
    /// prediction (SWE-agent's and mini-swe-agent's `preds.json`, keyed by
    /// instance).
    predictions: bool,
    /// The members of the object looked at so far.
    members: usize,
    /// `history` (a SWE-agent trajectory's, beside `trajectory` and `info`), or
    /// `attempts` (a SWE-agent retry agent's, which has a history only once it chose
    /// an attempt).
    history: bool,
    /// `epoch` (an Inspect eval sample's, beside `messages`).
    epoch: bool,
    /// `eval` (an Inspect eval log's: its task and run, beside `plan`, `results`,
    /// `samples`).
    eval: bool,
    /// `results`, `samples` or `stats` (an Inspect eval log's, beside `eval`).
    eval_log: bool,
    /// `lc` (LangChain's serialization has it).
    lc: bool,
    input: bool,
    output: bool,
    choices: bool,
    resource_spans: bool,
    resource_logs: bool,
    /// `parts` (Pydantic AI's messages and Gemini's contents have them).
    parts: bool,
    /// `contents` (a Gemini request's; an Agent Framework message's, beside `role`).
    contents: bool,
    /// `candidates` or `promptFeedback` (a Gemini response's).
    candidates: bool,
    /// `author` (a Google ADK event's).
    author: bool,
    /// `events` (a Google ADK session's).
    events: bool,
    /// `appName` (a Google ADK session's).
    app_name: bool,
    /// A key of smolagents' steps: `step_number`, `model_output_message`, `task`,
    /// `plan`, `system_prompt`.
    smolagents: bool,
    source: bool,
    model: bool,
    system: bool,
    stop_reason: bool,
    kind: Option<String>,
    object: Option<String>,
    /// The value of `kind` (Pydantic AI's `request` or `response`).
    message_kind: Option<String>,
}

/// The kind of record `text` holds (for an array, its first element's), if its keys
/// say; `None` for JSON that is not an object (or a list of them). Text that stops
/// being JSON is told by the keys read before it stopped (a trajectory cut short,
/// a log with one bad number): its reader then says where it is wrong, where a
/// reader of another kind would have said what it did not expect first.
///
/// ```text
/// {"object": "chat.completion", ...}          OpenAI chat.completion
/// {"type": "function_call", ...}              OpenAI Responses item
/// {"type": "TextMessage", "source": ...}      AutoGen message
/// {"system": ..., "messages": [...]}          Anthropic request
/// {"parts": [...], "kind": "request"}         Pydantic AI message
/// {"type": "ai", "data": {...}}               LangChain message
/// {"role": "model", "parts": [...]}           Gemini content
/// {"author": "agent", "content": {...}}       Google ADK event
/// {"step_number": 1, "model_output": ...}     smolagents step
/// {"role": ..., "content": [{"text": ...}]}   Bedrock Converse message
/// {"message": {...}, "message_id": 3}         Strands session's message
/// {"message": {...}, "done": true, ...}       Ollama chat response
/// {"scope": "agent", "schema_version", ...}   Strands snapshot
/// {"role", "content", "from_history", ...}    Agno message
/// {"run_id", "messages"}, {"run_id", "run_data"}  Agno run, database row (a run
///                                             without messages is one too: `run_id`)
/// {"session_id", "runs"}                      Agno session
/// {"role", "blocks", "additional_kwargs"}     LlamaIndex message
/// {"store": {...}, "class_name": "SimpleChatStore"}, {"chat_store", ...}
///                                             LlamaIndex chat store, memory
/// {"tasks_output": [...], "token_usage"}      CrewAI crew's output
/// {"messages", "raw", "expected_output"}      CrewAI task's output (an agent's:
///                                             `agent_role` for `expected_output`)
/// {"task", "agent", "status", "timestamp"}    CrewAI output log's entry (refused)
/// {"type": "step", "run_id", "environment", ...}  rlm-code run's event
/// {"checkpoint_id", "state": {...}}, {"messages", "tool_executions", ...}
///                                             locus checkpoint, state (a result:
///                                             `state` beside them)
/// {"type": "assistant", "sessionId", "message", ...}  Claude Code session's record
///                                             (a summary's: `leafUuid`)
/// {"timestamp", "type": "response_item", "payload"}  Codex rollout's record
/// {"info", "messages", "trajectory_format"}   mini-swe-agent trajectory (without a
///                                             format: `info` with `model_stats`)
/// {"trajectory", "history", "info", ...}      SWE-agent trajectory (a retry agent's:
///                                             `attempts`)
/// {"<id>": {"instance_id", "model_patch"}}    SWE-bench predictions (refused; a line
///                                             of them: `instance_id`, `model_patch`)
/// {"id", "epoch", "messages", "events", ...}  Inspect eval sample
/// {"version", "eval", "plan", "samples", ...} Inspect eval log
/// {"type": "message", "role", "contents"}     Agent Framework message
/// {"type": "agent_response", "messages"}      Agent Framework response
/// {"type": "session", "session_id", "state"}  Agent Framework session
/// ```
pub(super) fn kind(text: &str) -> Option<Kind> {
    look_at(text).kind
}

/// What a look at a record found.
pub(super) struct Looked {
    /// The kind its keys show, as [`kind`] tells it.
    pub(super) kind: Option<Kind>,
    /// How deep its objects and lists nest, where the look went over the whole
    /// text (one JSON value, nothing after it): the look's walk measures it, so that
    /// a document serde reads next need not be walked for it.
    pub(super) nesting: Option<usize>,
    /// Whether more follows the text's first value, which the look went over whole
    /// (documents one after another).
    pub(super) followed: bool,
}

/// The look at the record `text`: its kind, and its nesting.
pub(super) fn look_at(text: &str) -> Looked {
    #[cfg(test)]
    LOOKS.set(LOOKS.get() + 1);
    let mut keys = Keys::default();
    let mut skim = Skim::new(text);
    // Where the look gives up, what it saw decides.
    let first = look(&mut skim, &mut keys, 0).is_some();
    let followed = first && skim.peek().is_some();
    Looked {
        kind: decide(&keys),
        nesting: (first && !followed).then(|| skim.deepest()),
        followed,
    }
}

#[cfg(test)]
thread_local! {
    /// The looks at a record ([`look_at`], [`line`]) taken on this thread (what a
    /// reading costs in them is tested).
    static LOOKS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Whether the first line of a log, `text` (trimmed), is a record of its own: a whole
/// JSON object, its brackets closed on the line (an array, or an object that goes on
/// past the line, opens a document); if so, the kind its keys show, as [`kind`]
/// tells it. (Skimmed, not parsed: its record's reader checks it. A line whose
/// brackets close but whose JSON is wrong is an error either way, at the same
/// place: as a line, or as a document that would have ended with it. A parse was a
/// third of reading an Inspect sample, a line of 25 to 65 KB, and the look after it
/// another skim of it.)
pub(super) fn line(text: &str) -> Option<Option<Kind>> {
    if !text.starts_with('{') {
        return None;
    }
    #[cfg(test)]
    LOOKS.set(LOOKS.get() + 1);
    let mut keys = Keys::default();
    let mut skim = Skim::new(text);
    look(&mut skim, &mut keys, 0)?;
    skim.peek().is_none().then(|| decide(&keys))
}

/// The kind of record the keys show.
fn decide(k: &Keys) -> Option<Kind> {
    let kind = k.kind.as_deref();
    let typed = kind.is_some();
    Some(if k.resource_spans {
        Kind::Otlp
    } else if k.resource_logs {
        Kind::OtlpLogs
    } else if k.epoch && k.messages && !k.role && !typed {
        Kind::InspectSample
    } else if k.eval && k.eval_log && !k.role && !typed {
        Kind::InspectLog
    } else if k.role && k.contents && matches!(kind, None | Some("message")) {
        Kind::AgentFrameworkMessage
    } else if matches!(kind, Some("agent_response" | "chat_response")) && k.messages && !k.role {
        Kind::AgentFrameworkResponse
    } else if kind == Some("session") && k.session_id && k.state && !k.role {
        Kind::AgentFrameworkSession
    } else if (typed && k.claude_code || k.agent_type && !typed) && !k.role {
        Kind::ClaudeCodeRecord
    } else if typed && k.payload && !k.role {
        Kind::CodexRecord
    } else if (k.trajectory_format || k.info && k.messages) && !k.role && !typed {
        Kind::MiniSweAgentTrajectory
    } else if k.history && !k.messages && !k.role && !typed {
        Kind::SweAgentTrajectory
    } else if (k.predictions || is_prediction(k)) && !k.role && !typed {
        Kind::SweBenchPredictions
    } else if (typed && k.run_id && k.environment || k.event_type && !typed) && !k.role {
        // (An `event_type` is rlm-code's other logs', which its reader refuses.)
        Kind::RlmCodeEvent
    } else if (k.checkpoint_id && k.state || k.locus_state && (k.messages || k.state))
        && !k.role
        && !typed
    {
        Kind::LocusState
    } else if k.tasks_output && !k.role && !typed {
        Kind::CrewAiCrew
    } else if k.crewai_output && !k.role && !typed {
        Kind::CrewAiTask
    } else if k.status && k.agent && k.smolagents && !k.role && !typed {
        // Not a smolagents task (`task`): an entry of CrewAI's output log.
        Kind::CrewAiLog
    } else if k.role && k.converse_content && !typed {
        Kind::BedrockMessage
    } else if k.messages && k.first_message_converse {
        Kind::BedrockRequest
    } else if k.output && k.converse_response && !k.role && !typed {
        Kind::BedrockResponse
    } else if k.message && k.message_id && !k.role && !typed {
        Kind::StrandsSessionMessage
    } else if k.message && k.done && !k.role && !typed {
        Kind::OllamaResponse
    } else if k.schema_version && !k.role && !typed {
        Kind::StrandsSnapshot
    } else if k.role && k.agno_message && !typed {
        Kind::AgnoMessage
    } else if k.run_id && !k.parts && !k.role && !typed {
        Kind::AgnoRun
    } else if k.session_id && k.agno_session && !k.role && !typed && !k.messages {
        Kind::AgnoSession
    } else if k.role && k.llamaindex_message && !typed {
        Kind::LlamaIndexMessage
    } else if k.class_name.as_deref() == Some("SimpleChatStore") && !k.role && !typed {
        Kind::LlamaIndexStore
    } else if k.chat_store && !k.role && !typed {
        Kind::LlamaIndexMemory
    } else if k.parts && matches!(k.message_kind.as_deref(), Some("request" | "response")) {
        Kind::PydanticAi
    } else if k.parts && k.message_kind.is_none() && !typed {
        Kind::GeminiContent
    } else if k.candidates {
        Kind::GeminiResponse
    } else if k.contents {
        Kind::GeminiRequest
    } else if k.events && k.app_name {
        Kind::AdkSession
    } else if k.author && !typed && !k.role {
        Kind::AdkEvent
    } else if k.smolagents && !typed && !k.role && !k.messages {
        Kind::SmolagentsStep
    } else if k.object.as_deref() == Some("chat.completion") || k.choices {
        Kind::Completion
    } else if k.object.as_deref() == Some("response") || (k.output && !k.role && !typed) {
        Kind::Response
    } else if k.messages && k.first_message_langchain {
        Kind::LangGraphState
    } else if k.messages {
        // AutoGen's TaskResult: `messages` and `stop_reason`, messages with a `source`.
        if k.first_message_source || (k.stop_reason && !k.model) {
            Kind::TaskResult
        } else if k.system {
            Kind::AnthropicRequest
        } else {
            Kind::ChatRequest
        }
    } else if k.input && !k.role && !typed {
        Kind::ResponsesRequest
    } else if kind == Some("message") {
        // Anthropic's response is a `"type": "message"` with its model and stop
        // reason; a Responses item of that type has neither.
        if k.model || k.stop_reason {
            Kind::AnthropicResponse
        } else {
            Kind::ResponsesItem
        }
    } else if is_langchain(k) {
        Kind::LangChain
    } else if k.source && typed {
        Kind::AutoGen
    } else if typed {
        Kind::ResponsesItem
    } else if k.role {
        Kind::Message
    } else {
        return None;
    })
}

/// Whether the keys are a LangChain message's: a type of its messages, or its
/// serialization's constructor.
fn is_langchain(k: &Keys) -> bool {
    match k.kind.as_deref() {
        Some("constructor") => k.lc,
        Some(kind) => super::langchain::is_type(kind),
        None => false,
    }
}

/// Looks at the value at the cursor, `depth` looks deep: an object's keys (and the
/// values that tell formats apart) go to the `Keys`; of a list, only the first
/// element is looked at; anything else is stepped over. The first element of
/// `messages` is looked at the same way, into keys of its own. (Past
/// [`MAX_JSON_DEPTH`] looks, values are stepped over: a record that deep is refused
/// by its reader whatever its kind, and the look's recursion is bounded.)
fn look(s: &mut Skim<'_>, k: &mut Keys, depth: usize) -> Option<()> {
    if depth > MAX_JSON_DEPTH {
        return s.value().map(drop);
    }
    match s.peek()? {
        b'{' => s.object(|s, key| member(s, k, &key, depth)),
        b'[' => s.first_element(|s| look(s, k, depth + 1)),
        _ => s.value().map(drop),
    }
}

/// Looks at the value of the member `key` of an object at `depth` looks, the cursor
/// at the value.
fn member(s: &mut Skim<'_>, k: &mut Keys, key: &str, depth: usize) -> Option<()> {
    k.members += 1;
    match key {
        "type" => k.kind = s.string_value()?.map(Cow::into_owned),
        "object" => k.object = s.string_value()?.map(Cow::into_owned),
        "class_name" => k.class_name = s.string_value()?.map(Cow::into_owned),
        "kind" => k.message_kind = s.string_value()?.map(Cow::into_owned),
        "info" => {
            let mut info = Keys::default();
            let seen = look(s, &mut info, depth + 1);
            k.info = info.run_stats;
            return seen;
        }
        "messages" => {
            k.messages = true;
            let mut first = Keys::default();
            let seen = look(s, &mut first, depth + 1);
            k.first_message_source = first.source;
            k.first_message_langchain = is_langchain(&first);
            k.first_message_converse = first.role && first.converse_content;
            return seen;
        }
        "content" => k.converse_content = converse_content(s.value()?),
        other => {
            if !flag(k, other) && keyed_by_ids(k, depth) && s.peek()? == b'{' {
                let mut first = Keys::default();
                let seen = look(s, &mut first, depth + 1);
                k.predictions = is_prediction(&first);
                return seen;
            }
            s.value()?;
        }
    }
    Some(())
}

/// Whether the member looked at, of a key no format has, may be the first of an
/// object keyed by ids (a record's first member, at the top): its value, an object,
/// is looked at (SWE-bench's predictions are keyed by instance).
fn keyed_by_ids(k: &Keys, depth: usize) -> bool {
    depth == 0 && k.members == 1
}

/// Whether the keys are a SWE-bench prediction's (`instance_id`, `model_patch`).
fn is_prediction(k: &Keys) -> bool {
    k.instance_id && k.model_patch
}

/// Sets the flag of `Keys` that the key `key` (one whose value is not looked at)
/// raises, if any: whether it is a key a format has.
fn flag(k: &mut Keys, key: &str) -> bool {
    match key {
        "stopReason" | "ResponseMetadata" => k.converse_response = true,
        "message_id" => k.message_id = true,
        "message" => k.message = true,
        "done" => k.done = true,
        "schema_version" => k.schema_version = true,
        "from_history" | "stop_after_tool_call" => k.agno_message = true,
        "run_id" => k.run_id = true,
        "session_id" => k.session_id = true,
        "runs" | "session_type" => k.agno_session = true,
        "blocks" | "additional_kwargs" => k.llamaindex_message = true,
        "chat_store" => k.chat_store = true,
        "tasks_output" => k.tasks_output = true,
        "agent" => k.agent = true,
        "status" => k.status = true,
        "expected_output" | "output_format" | "agent_role" => k.crewai_output = true,
        "role" => k.role = true,
        "input" => k.input = true,
        "output" => k.output = true,
        "choices" => k.choices = true,
        "resourceSpans" | "resource_spans" => k.resource_spans = true,
        "resourceLogs" | "resource_logs" => k.resource_logs = true,
        "parts" => k.parts = true,
        "contents" => k.contents = true,
        "candidates" | "promptFeedback" | "prompt_feedback" => k.candidates = true,
        "author" => k.author = true,
        "events" => k.events = true,
        "appName" | "app_name" => k.app_name = true,
        "step_number" | "model_output_message" | "task" | "plan" | "system_prompt" => {
            k.smolagents = true;
        }
        "environment" => k.environment = true,
        "event_type" => k.event_type = true,
        "checkpoint_id" => k.checkpoint_id = true,
        "state" => k.state = true,
        "tool_executions" | "reasoning_steps" | "tool_history" => k.locus_state = true,
        "sessionId" | "parentUuid" | "isSidechain" | "leafUuid" | "isSnapshotUpdate" => {
            k.claude_code = true;
        }
        "payload" => k.payload = true,
        "agentType" => k.agent_type = true,
        "trajectory_format" => k.trajectory_format = true,
        "history" | "attempts" => k.history = true,
        "model_stats" | "exit_status" => k.run_stats = true,
        "epoch" => k.epoch = true,
        "eval" => k.eval = true,
        "results" | "samples" | "stats" => k.eval_log = true,
        "lc" => k.lc = true,
        "source" => k.source = true,
        "model" => k.model = true,
        "system" => k.system = true,
        "stop_reason" => k.stop_reason = true,
        "instance_id" => k.instance_id = true,
        "model_patch" => k.model_patch = true,
        _ => return false,
    }
    true
}

/// Whether the JSON text `content` is a list whose first element is a Bedrock
/// Converse content block: an object whose first key is one of the block kinds
/// (`text`, `toolUse`, ...), with no `type` (an OpenAI or Anthropic part has one).
/// (Parsed again here: only a record whose kind is not known yet is looked at.)
pub(super) fn converse_content(content: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Typed {
        #[serde(rename = "type", default)]
        kind: Option<IgnoredAny>,
    }
    let Ok(blocks) = serde_json::from_str::<Vec<&RawValue>>(content) else {
        return false;
    };
    blocks.first().is_some_and(|block| {
        let block = block.get();
        let keyed = super::first_key::first_key(block);
        keyed.is_some_and(|key| super::bedrock::KINDS.contains(&key))
            && serde_json::from_str::<Typed>(block).is_ok_and(|t| t.kind.is_none())
    })
}

#[cfg(test)]
mod tests;
