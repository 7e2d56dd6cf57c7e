//! Gemini's contents and Google ADK's events.
//!
//! A `Content` (`{"role": "user" | "model", "parts": [...]}`) is what the Gemini API
//! and the google-genai SDK exchange: a chat's history, a request's `contents`, a
//! response's candidate. Google ADK records a run as events, each an author's
//! content with the actions it took (a transfer to another agent, an escalation that
//! ends the loop it runs in). Both are read with the Gemini API's names
//! (`functionCall`, camelCase) or the SDK's (`function_call`, as `model_dump()` writes
//! them).
//!
//! A model's content is one message: its texts joined by newlines (thoughts are not
//! its text), its function calls, and the calls of the code it ran and of the
//! server's tools, whose results follow it. A user's content is its text, and a
//! message for each function response in it.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;

use super::parts::join;
use super::record::{Failure, Out, each};
use super::wire::{RawArguments, RawJson, Str, failed, tool_call};
use crate::message::CallArguments;
use crate::{Message, Role, ToolCall};

/// A `Content`: its role (none is the user's) and its parts.
#[derive(Deserialize, Default)]
pub(super) struct Content<'a> {
    #[serde(default, borrow)]
    pub(super) role: Option<Str<'a>>,
    /// Required (it may be `null`): an object without it is a record of another kind.
    #[serde(borrow)]
    pub(super) parts: Parts<'a>,
}

/// A content's parts.
#[derive(Deserialize, Default)]
pub(super) struct Parts<'a>(#[serde(borrow)] pub(super) Option<Vec<Part<'a>>>);

/// A candidate's content, whose parts a response may leave out (an answer cut short).
#[derive(Deserialize)]
struct CandidateContent<'a> {
    #[serde(default, borrow)]
    role: Option<Str<'a>>,
    #[serde(default, borrow)]
    parts: Option<Vec<Part<'a>>>,
}

/// One part: the kind of data it holds (one, or none), whether its text is a
/// thought, and the keys it holds that are neither a kind read nor the metadata not
/// read ([`METADATA`]). (Small: a content's parts are read into a list.)
#[derive(Default)]
pub(super) struct Part<'a> {
    pub(super) data: Data<'a>,
    /// The text is the model's thought, not its answer.
    pub(super) thought: bool,
    /// Keys not known, for the error on a part that holds none of the kinds read.
    pub(super) unknown: Vec<Cow<'a, str>>,
}

/// A part's data.
#[derive(Default)]
pub(super) enum Data<'a> {
    #[default]
    None,
    Text(Str<'a>),
    FunctionCall(FunctionCall<'a>),
    FunctionResponse(FunctionResponse<'a>),
    /// Code the model ran with the code execution tool.
    ExecutableCode(&'a RawValue),
    CodeExecutionResult(CodeResult<'a>),
    /// A server-side tool's call and response (`tool_type` names the tool).
    ToolCall(ServerTool<'a>),
    ToolResponse(ServerTool<'a>),
    AudioTranscription(Transcription<'a>),
    /// `inline_data` or `file_data`.
    Media,
}

impl Data<'_> {
    /// The kind's name (the SDK's), if the part holds one.
    fn name(&self) -> Option<&'static str> {
        Some(match self {
            Data::None => return None,
            Data::Text(_) => "text",
            Data::FunctionCall(_) => "function_call",
            Data::FunctionResponse(_) => "function_response",
            Data::ExecutableCode(_) => "executable_code",
            Data::CodeExecutionResult(_) => "code_execution_result",
            Data::ToolCall(_) => "tool_call",
            Data::ToolResponse(_) => "tool_response",
            Data::AudioTranscription(_) => "audio_transcription",
            Data::Media => "media",
        })
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Part<'a> {
    /// Read in one pass by its keys, in the API's names or the SDK's (serde's derive
    /// would drop the keys not known, which name a part of a kind not read).
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Part<'a>, D::Error> {
        struct PartVisitor;
        impl<'de> serde::de::Visitor<'de> for PartVisitor {
            type Value = Part<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a part (an object)")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<Part<'de>, M::Error> {
                /// The data of kind `name` (`null`: none), made by `make`; a part
                /// that holds two kinds is an error.
                fn data<'de, T: Deserialize<'de>, M: serde::de::MapAccess<'de>>(
                    map: &mut M,
                    part: &mut Part<'de>,
                    name: &'static str,
                    make: fn(T) -> Data<'de>,
                ) -> Result<(), M::Error> {
                    let Some(value) = map.next_value::<Option<T>>()? else {
                        return Ok(());
                    };
                    if let Some(held) = part.data.name() {
                        return Err(serde::de::Error::custom(format!(
                            "a part holds both {held} and {name} (a part holds one kind, once)"
                        )));
                    }
                    part.data = make(value);
                    Ok(())
                }
                let mut part = Part::default();
                while let Some(key) = map.next_key::<Str<'de>>()? {
                    let p = &mut part;
                    match &*key.0 {
                        "text" => data(&mut map, p, "text", Data::Text)?,
                        "thought" => {
                            part.thought = map.next_value::<Option<bool>>()? == Some(true);
                        }
                        "functionCall" | "function_call" => {
                            data(&mut map, p, "function_call", Data::FunctionCall)?;
                        }
                        "functionResponse" | "function_response" => {
                            data(&mut map, p, "function_response", Data::FunctionResponse)?;
                        }
                        "executableCode" | "executable_code" => {
                            data(&mut map, p, "executable_code", Data::ExecutableCode)?;
                        }
                        "codeExecutionResult" | "code_execution_result" => {
                            let name = "code_execution_result";
                            data(&mut map, p, name, Data::CodeExecutionResult)?;
                        }
                        "toolCall" | "tool_call" => data(&mut map, p, "tool_call", Data::ToolCall)?,
                        "toolResponse" | "tool_response" => {
                            data(&mut map, p, "tool_response", Data::ToolResponse)?;
                        }
                        "audioTranscription" | "audio_transcription" => {
                            let name = "audio_transcription";
                            data(&mut map, p, name, Data::AudioTranscription)?;
                        }
                        "inlineData" | "inline_data" | "fileData" | "file_data" => {
                            data(&mut map, p, "media", |_: IgnoredAny| Data::Media)?;
                        }
                        known if METADATA.contains(&known) => {
                            map.next_value::<IgnoredAny>()?;
                        }
                        _ => {
                            part.unknown.push(key.0);
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(part)
            }
        }
        deserializer.deserialize_map(PartVisitor)
    }
}

#[derive(Deserialize, Default)]
pub(super) struct FunctionCall<'a> {
    #[serde(default, borrow)]
    pub(super) id: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) name: Option<Str<'a>>,
    #[serde(default)]
    pub(super) args: Option<RawArguments<'a>>,
}

#[derive(Deserialize, Default)]
pub(super) struct FunctionResponse<'a> {
    #[serde(default, borrow)]
    pub(super) id: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) name: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) response: Option<RawJson<'a>>,
}

/// The code execution tool's result: `OUTCOME_OK` or how it failed, and its output.
#[derive(Deserialize)]
pub(super) struct CodeResult<'a> {
    #[serde(default, borrow)]
    outcome: Option<Str<'a>>,
    #[serde(default, borrow)]
    output: Option<Str<'a>>,
}

/// A server-side tool's call (`args`) or response (`response`).
#[derive(Deserialize)]
pub(super) struct ServerTool<'a> {
    #[serde(default, borrow)]
    id: Option<Str<'a>>,
    #[serde(default, borrow, alias = "toolType")]
    tool_type: Option<Str<'a>>,
    #[serde(default)]
    args: Option<RawArguments<'a>>,
    #[serde(default, borrow)]
    response: Option<RawJson<'a>>,
}

#[derive(Deserialize)]
pub(super) struct Transcription<'a> {
    #[serde(default, borrow)]
    text: Option<Str<'a>>,
}

/// A function response's `error` (the SDK's convention: `output` holds a result,
/// `error` what went wrong).
#[derive(Deserialize)]
struct ErrorKey<'a> {
    #[serde(default, borrow)]
    error: Option<&'a RawValue>,
}

/// The token usage of a call (`usageMetadata`). The input is the prompt's tokens
/// and the tool-use prompt's; the output the candidates' and the thoughts' (which
/// the candidates' count leaves out): together, the call's total.
#[derive(Deserialize, Default)]
pub(super) struct Usage {
    #[serde(default, alias = "promptTokenCount")]
    pub(super) prompt_token_count: Option<u64>,
    #[serde(default, alias = "toolUsePromptTokenCount")]
    pub(super) tool_use_prompt_token_count: Option<u64>,
    #[serde(default, alias = "candidatesTokenCount")]
    pub(super) candidates_token_count: Option<u64>,
    #[serde(default, alias = "thoughtsTokenCount")]
    pub(super) thoughts_token_count: Option<u64>,
}

impl Usage {
    fn into_usage(self) -> crate::Usage {
        let count = |n: Option<u64>| n.unwrap_or(0);
        crate::Usage {
            input_tokens: count(self.prompt_token_count)
                .saturating_add(count(self.tool_use_prompt_token_count)),
            output_tokens: count(self.candidates_token_count)
                .saturating_add(count(self.thoughts_token_count)),
        }
    }
}

/// The metadata a part may hold beside its kind (or alone: Gemini writes parts that
/// carry only a thought signature), not read.
pub(super) const METADATA: &[&str] = &[
    "thoughtSignature",
    "thought_signature",
    "videoMetadata",
    "video_metadata",
    "mediaResolution",
    "media_resolution",
    "partMetadata",
    "part_metadata",
    "mediaProcessing",
    "media_processing",
    "speechMetadata",
    "speech_metadata",
    "documentMetadata",
    "document_metadata",
];

/// The kinds of part read, for the error on a part of another.
const KINDS: &str = "text, inline_data, file_data, function_call, function_response, \
    executable_code, code_execution_result, tool_call, tool_response, audio_transcription";

/// The name given the code execution tool's calls and results.
const CODE_EXECUTION: &str = "code_execution";

/// The finish reasons of an answer that is whole (or cut at its length): any other
/// (`SAFETY`, `MALFORMED_FUNCTION_CALL`, ...) is a failed model turn.
const FINISHED: &[&str] = &["STOP", "MAX_TOKENS", "FINISH_REASON_UNSPECIFIED"];

/// Whose a content is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Model,
    User,
}

/// The messages of `content`, said by `responder` where one is named; the model's
/// turn carries `usage`. On an error, what was added is dropped by the reader with
/// the record.
fn read_content<'a>(
    content: Content<'a>,
    responder: Option<&Str<'a>>,
    usage: Option<Usage>,
    out: &mut Out<'a>,
) -> Result<(), String> {
    let side = match content.role.as_ref().map(|r| &*r.0) {
        Some("model") => Side::Model,
        None | Some("user" | "function" | "tool") => Side::User,
        Some(other) => {
            return Err(format!(
                "a content of role \"{other}\" (expected \"user\" or \"model\")"
            ));
        }
    };
    let parts = content.parts.0.unwrap_or_default();
    let count = parts.len();
    let mut text: Option<Cow<'a, str>> = None;
    let mut calls: Vec<ToolCall<'a>> = Vec::new();
    // The tools' results: after the model's message, or in their place among the
    // user's texts.
    let mut results: Out<'a> = Out::new();
    let start = out.len();
    for (i, part) in parts.into_iter().enumerate() {
        let at = || format!("part {} of {count}", i + 1);
        match part.data {
            Data::Text(_) if part.thought => {}
            Data::Text(piece) => text = Some(join(text, piece.into_cow())),
            Data::FunctionCall(call) => {
                if side == Side::User {
                    return Err(format!("{}: a function_call in the user's content", at()));
                }
                let name = (call.name)
                    .filter(|n| !n.is_empty())
                    .ok_or_else(|| format!("{}: a function_call with no \"name\"", at()))?;
                calls.push(tool_call(name.into_cow(), call.args, call.id));
            }
            Data::FunctionResponse(response) => {
                if side == Side::Model {
                    return Err(format!(
                        "{}: a function_response in the model's content",
                        at()
                    ));
                }
                if let Some(said) = text.take() {
                    out.push(Message::new(Role::User, said));
                }
                let name = (response.name)
                    .filter(|n| !n.is_empty())
                    .ok_or_else(|| format!("{}: a function_response with no \"name\"", at()))?;
                out.push(function_result(name, response.id, response.response)?);
            }
            Data::ExecutableCode(code) => {
                if side == Side::User {
                    return Err(format!("{}: executable_code in the user's content", at()));
                }
                let arguments = RawArguments(CallArguments::Borrowed(code.get()));
                calls.push(tool_call(
                    Cow::Borrowed(CODE_EXECUTION),
                    Some(arguments),
                    None,
                ));
            }
            Data::CodeExecutionResult(result) => results.push(code_result(result)),
            Data::ToolCall(call) => {
                if side == Side::User {
                    return Err(format!("{}: a tool_call in the user's content", at()));
                }
                let name = server_tool_name(call.tool_type, &at)?;
                calls.push(tool_call(name, call.args, call.id));
            }
            Data::ToolResponse(response) => {
                let name = server_tool_name(response.tool_type, &at)?;
                results.push(function_result(Str(name), response.id, response.response)?);
            }
            Data::AudioTranscription(transcription) => {
                if let Some(piece) = transcription.text {
                    text = Some(join(text, piece.into_cow()));
                }
            }
            Data::Media => {}
            Data::None if part.unknown.is_empty() => {}
            Data::None => {
                return Err(format!(
                    "{}: a part of a kind not known ({}; expected one of {KINDS})",
                    at(),
                    part.unknown.join(", ")
                ));
            }
        }
    }
    match side {
        Side::Model => {
            let mut reply = Message::new(Role::Llm, text.unwrap_or_default());
            reply.tool_calls = calls;
            reply.usage = usage.map(Usage::into_usage);
            out.push(reply);
        }
        // A user's content is a turn even when it holds no text (an image alone);
        // not when it holds only the tools' results.
        Side::User if text.is_some() || (out.len() == start && results.is_empty()) => {
            out.push(Message::new(Role::User, text.unwrap_or_default()));
        }
        Side::User => {}
    }
    out.extend(results);
    if let Some(responder) = responder {
        for message in &mut out[start..] {
            message.responder = Some(responder.0.clone());
        }
    }
    Ok(())
}

/// A server-side tool's name: its `tool_type`.
fn server_tool_name<'a>(
    kind: Option<Str<'a>>,
    at: &dyn Fn() -> String,
) -> Result<Cow<'a, str>, String> {
    kind.filter(|k| !k.is_empty())
        .map(Str::into_cow)
        .ok_or_else(|| {
            format!(
                "{}: a server tool's call or response with no \"tool_type\"",
                at()
            )
        })
}

/// A function's response (or a server tool's): its JSON as the model is given it,
/// failed where it holds an `error`, the error's text (a string as it is, any other
/// value its JSON).
fn function_result<'a>(
    name: Str<'a>,
    id: Option<Str<'a>>,
    response: Option<RawJson<'a>>,
) -> Result<Message<'a>, String> {
    let json = response.map(|r| r.0).filter(|r| *r != "null");
    let text = json.map(super::compact).unwrap_or_default();
    let mut result = Message::new(Role::Agent, text).with_tool_name(name.into_cow());
    if let Some(id) = id {
        result = result.with_tool_call_id(id.into_cow());
    }
    let error = match json {
        // Parsed again only where the key may be (most responses hold no error).
        Some(json) if json.starts_with('{') && json.contains("\"error\"") => {
            serde_json::from_str::<ErrorKey<'a>>(json)
                .map_err(|e| format!("a function response's \"response\": {e}"))?
                .error
                .filter(|e| e.get() != "null")
        }
        _ => None,
    };
    Ok(match error {
        None => result,
        Some(error) => result.with_error(
            super::value_text(error.get())
                .map_err(|e| format!("a function response's \"error\": {e}"))?,
        ),
    })
}

/// The code execution tool's result: its output, failed unless its outcome is
/// `OUTCOME_OK`.
fn code_result(result: CodeResult<'_>) -> Message<'_> {
    let output = result.output.map(Str::into_cow).unwrap_or_default();
    let message = Message::new(Role::Agent, output).with_tool_name(CODE_EXECUTION);
    match result.outcome.as_ref().map(|o| &*o.0) {
        None | Some("OUTCOME_OK") => message,
        Some(outcome) => {
            let error = format!("the code's outcome was {outcome}");
            failed(message, error)
        }
    }
}

/// A content as a record of its own (a line, or an element of a history).
pub(super) fn read<'a>(
    content: Content<'a>,
    within: &'a str,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    read_content(content, None, None, out).map_err(|m| Failure::message(within, m))
}

/// A `generateContent` request: `contents`, and the system instruction (the Gemini
/// API's `systemInstruction`, or the SDK's `config.system_instruction`) before them.
/// Its tools, settings and model are not messages.
#[derive(Deserialize)]
pub(super) struct Request<'a> {
    #[serde(borrow)]
    contents: Vec<&'a RawValue>,
    #[serde(default, borrow, alias = "systemInstruction")]
    system_instruction: Option<&'a RawValue>,
    #[serde(default, borrow)]
    config: Option<Config<'a>>,
}

#[derive(Deserialize)]
struct Config<'a> {
    #[serde(default, borrow, alias = "systemInstruction")]
    system_instruction: Option<&'a RawValue>,
}

/// The messages of a request: its system instruction, then each content.
pub(super) fn read_request<'a>(
    request: Request<'a>,
    within: &'a str,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let config = request.config.and_then(|c| c.system_instruction);
    if let Some(system) = request.system_instruction.or(config) {
        let text = system_text(system)
            .map_err(|m| Failure::message(within, format!("the system instruction: {m}")))?;
        out.push(Message::new(Role::System, text));
    }
    each::<Content<'a>>(
        request.contents,
        |content, text, out| read(content, text, out),
        out,
    )
}

/// A system instruction's text: a string, or a content's texts.
fn system_text(raw: &RawValue) -> Result<Cow<'_, str>, String> {
    if raw.get().starts_with('"') {
        return serde_json::from_str::<Str<'_>>(raw.get())
            .map(Str::into_cow)
            .map_err(|e| e.to_string());
    }
    let content = serde_json::from_str::<Content<'_>>(raw.get()).map_err(|e| e.to_string())?;
    let mut text = None;
    for (i, part) in content.parts.0.unwrap_or_default().into_iter().enumerate() {
        match part.data {
            Data::Text(piece) => text = Some(join(text, piece.into_cow())),
            _ => return Err(format!("part {} is not text", i + 1)),
        }
    }
    Ok(text.unwrap_or_default())
}

/// A `generateContent` response. `modelVersion`, `responseId`, `createTime` and a
/// candidate's safety ratings, citations, grounding and log probabilities are not
/// read.
#[derive(Deserialize)]
pub(super) struct Response<'a> {
    #[serde(default, borrow)]
    candidates: Option<Vec<Candidate<'a>>>,
    #[serde(default, alias = "usageMetadata")]
    usage_metadata: Option<Usage>,
    #[serde(default, borrow, alias = "promptFeedback")]
    prompt_feedback: Option<PromptFeedback<'a>>,
    /// The SDK's record of the calls it made for the model before this answer
    /// (automatic function calling): the contents before the candidate's.
    #[serde(default, borrow, alias = "automaticFunctionCallingHistory")]
    automatic_function_calling_history: Option<Vec<&'a RawValue>>,
}

#[derive(Deserialize)]
struct Candidate<'a> {
    #[serde(default, borrow)]
    content: Option<CandidateContent<'a>>,
    #[serde(default, borrow, alias = "finishReason")]
    finish_reason: Option<Str<'a>>,
    #[serde(default, borrow, alias = "finishMessage")]
    finish_message: Option<Str<'a>>,
}

#[derive(Deserialize)]
struct PromptFeedback<'a> {
    #[serde(default, borrow, alias = "blockReason")]
    block_reason: Option<Str<'a>>,
    #[serde(default, borrow, alias = "blockReasonMessage")]
    block_reason_message: Option<Str<'a>>,
}

/// The messages of a response: the calls the SDK made before it, then its one
/// candidate, the model's turn (failed where it did not finish, or where the prompt
/// was blocked and there is none), with the call's usage.
pub(super) fn read_response<'a>(
    response: Response<'a>,
    within: &'a str,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    if response.candidates.is_none() && response.prompt_feedback.is_none() {
        return Err(Failure::message(
            within,
            "a response has \"candidates\" or a \"promptFeedback\"",
        ));
    }
    if let Some(history) = response.automatic_function_calling_history {
        each::<Content<'a>>(history, |content, text, out| read(content, text, out), out)?;
    }
    let mut candidates = response.candidates.unwrap_or_default();
    let usage = response.usage_metadata;
    let Some(candidate) = candidates.pop().filter(|_| candidates.is_empty()) else {
        return match candidates.len() {
            // None: the prompt was blocked (or the model said nothing).
            0 => {
                let feedback = response.prompt_feedback;
                let reason = feedback.as_ref().and_then(|f| f.block_reason.as_ref());
                let mut turn = Message::new(Role::Llm, "");
                turn.usage = usage.map(Usage::into_usage);
                out.push(match reason {
                    Some(reason) => {
                        let detail = feedback
                            .as_ref()
                            .and_then(|f| f.block_reason_message.as_ref())
                            .map(|m| format!(": {}", m.0))
                            .unwrap_or_default();
                        turn.with_error(format!("the prompt was blocked ({}){detail}", reason.0))
                    }
                    None => turn.with_error("the response has no candidate"),
                });
                Ok(())
            }
            // Several are alternatives, not steps: the log does not say which one
            // the loop went on with.
            more => Err(Failure::message(
                within,
                format!(
                    "a response with {} candidates: a transcript step is one answer \
                     (log the candidate the loop went on with as a content)",
                    more + 1
                ),
            )),
        };
    };
    let start = out.len();
    let (role, parts) = candidate
        .content
        .map_or((None, None), |c| (c.role, c.parts));
    let content = Content {
        role: Some(role.unwrap_or(Str(Cow::Borrowed("model")))),
        parts: Parts(parts),
    };
    read_content(content, None, usage, out).map_err(|m| Failure::message(within, m))?;
    let reason = candidate
        .finish_reason
        .filter(|r| !FINISHED.contains(&&*r.0));
    if let (Some(reason), Some(turn)) = (reason, out[start..].first_mut()) {
        let detail = candidate
            .finish_message
            .map(|m| format!(": {}", m.0))
            .unwrap_or_default();
        turn.rare().error = Some(Cow::Owned(format!(
            "the answer stopped ({}){detail}",
            reason.0
        )));
    }
    Ok(())
}

/// A Google ADK event. Its ids, timestamp, branch, state and artifact changes, the
/// run's node and a streamed answer's metadata are not read.
#[derive(Deserialize, Default)]
pub(super) struct Event<'a> {
    #[serde(borrow)]
    pub(super) author: Str<'a>,
    #[serde(default, borrow)]
    pub(super) content: Option<Content<'a>>,
    #[serde(default, borrow)]
    pub(super) actions: Option<Actions<'a>>,
    #[serde(default, alias = "usageMetadata")]
    pub(super) usage_metadata: Option<Usage>,
    #[serde(default, borrow, alias = "errorCode")]
    pub(super) error_code: Option<Str<'a>>,
    #[serde(default, borrow, alias = "errorMessage")]
    pub(super) error_message: Option<Str<'a>>,
    /// A chunk of a streamed answer, which the whole answer's event follows.
    #[serde(default)]
    pub(super) partial: Option<bool>,
}

/// What an event did beyond its content: a transfer to another agent, an
/// escalation (the loop the agent runs in ends).
#[derive(Deserialize, Default)]
pub(super) struct Actions<'a> {
    #[serde(default, borrow, alias = "transferToAgent")]
    pub(super) transfer_to_agent: Option<Str<'a>>,
    #[serde(default)]
    pub(super) escalate: Option<bool>,
}

/// The author ADK gives the user's messages.
const USER: &str = "user";

/// The messages of an event: its content's, said by its author (the user's, by no
/// one); its error fails its last (or is a message of its own, the agent's); a
/// transfer or an escalation is its last message's (or one of its own). A partial
/// event is skipped: the whole answer's event holds what it does.
pub(super) fn read_event<'a>(
    event: Event<'a>,
    within: &'a str,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    if event.partial == Some(true) {
        return Ok(());
    }
    let start = out.len();
    let responder = Some(&event.author).filter(|a| a.0 != USER);
    if let Some(content) = event.content {
        read_content(content, responder, event.usage_metadata, out)
            .map_err(|m| Failure::message(within, format!("\"content\": {m}")))?;
    }
    let error = match (event.error_code, event.error_message) {
        (None, None) => None,
        (Some(code), None) => Some(code.into_cow()),
        (None, Some(message)) => Some(message.into_cow()),
        (Some(code), Some(message)) => Some(Cow::Owned(format!("{}: {}", code.0, message.0))),
    };
    let actions = event.actions.unwrap_or(Actions {
        transfer_to_agent: None,
        escalate: None,
    });
    let transfer = actions.transfer_to_agent.filter(|t| !t.is_empty());
    let escalate = actions.escalate == Some(true);
    let marked = error.is_some() || transfer.is_some() || escalate;
    if out.len() == start && marked {
        let mut own = Message::new(Role::Agent, "");
        if let Some(author) = responder {
            own = own.with_responder(author.0.clone());
        }
        out.push(own);
    }
    if let Some(last) = out[start..].last_mut().filter(|_| marked) {
        // (Boxed only for a message that has one of these: `Rare`'s rule.)
        let rare = last.rare();
        if let Some(error) = error {
            rare.error = Some(error);
        }
        if let Some(target) = transfer {
            rare.handoff = Some(target.into_cow());
        }
        rare.stop |= escalate;
    }
    Ok(())
}

/// A saved ADK session: `{"id", "appName", "userId", "state", "events": [...]}`.
#[derive(Deserialize)]
pub(super) struct Session<'a> {
    #[serde(borrow)]
    events: Vec<&'a RawValue>,
}

/// The messages of a session's events.
pub(super) fn read_session<'a>(session: Session<'a>, out: &mut Out<'a>) -> Result<(), Failure<'a>> {
    each::<Event<'a>>(session.events, read_event, out)
}
