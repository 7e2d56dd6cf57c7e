//! awaken's phase data as doneseq messages: the run's input, a model call, a tool
//! result.

use awaken_runtime::PhaseContext;
use awaken_runtime_contract::contract::inference::{LLMResponse, StreamResult};
use awaken_runtime_contract::contract::message::Role as AwakenRole;
use awaken_runtime_contract::contract::tool::{ToolResult, ToolStatus};
use doneseq::{Message, ToolCall, Usage};

/// The run's input at `RunStart`: the text of its last user message, if the run's
/// messages end with one (a run resumed from a thread carries its history before
/// it; only the new input is this run's).
pub(crate) fn run_input(ctx: &PhaseContext) -> Option<Message<'static>> {
    let last = ctx.messages.last()?;
    (last.role == AwakenRole::User).then(|| Message::user(last.text()))
}

/// A model call at `AfterInference`: its text, its tool calls (name, JSON arguments,
/// call id) and its token usage; a failed call is an LLM message with the error.
pub(crate) fn model_call(response: &LLMResponse) -> Message<'static> {
    match &response.outcome {
        Ok(result) => model_turn(result),
        Err(error) => Message::llm(String::new())
            .with_error(format!("{}: {}", error.error_type, error.message)),
    }
}

fn model_turn(result: &StreamResult) -> Message<'static> {
    let message = result
        .tool_calls
        .iter()
        .map(|call| {
            ToolCall::new(call.name.clone(), call.arguments.to_string()).with_id(call.id.clone())
        })
        .fold(Message::llm(result.text()), Message::with_tool_call);
    match &result.usage {
        Some(usage) if usage.prompt_tokens.is_some() || usage.completion_tokens.is_some() => {
            message.with_usage(Usage {
                input_tokens: token_count(usage.prompt_tokens),
                output_tokens: token_count(usage.completion_tokens),
            })
        }
        _ => message,
    }
}

/// A token count as awaken reports it (`i32`, as providers do); none, or a negative
/// count, is 0.
pub(crate) fn token_count(n: Option<i32>) -> u64 {
    n.and_then(|n| u64::try_from(n).ok()).unwrap_or(0)
}

/// A tool result at `AfterToolExecute`: an agent message with the text the model
/// will read (the result's message, else its data as JSON, as awaken writes the
/// tool message), its call id and tool name, and the error when the tool failed.
/// `None` when the phase carries no result, or a pending one (a suspended call has
/// not answered yet: its result arrives when the run resumes).
pub(crate) fn tool_result(ctx: &PhaseContext) -> Option<Message<'static>> {
    let result: &ToolResult = ctx.tool_result.as_ref()?;
    if result.status == ToolStatus::Pending {
        return None;
    }
    let text = match &result.message {
        Some(text) => text.clone(),
        None => serde_json::to_string(&result.data).unwrap_or_default(),
    };
    let mut message = Message::agent(text.clone());
    if result.status == ToolStatus::Error {
        message = message.with_error(text);
    }
    let name = ctx
        .tool_name
        .clone()
        .unwrap_or_else(|| result.tool_name.clone());
    message = message.with_tool_name(name);
    if let Some(id) = &ctx.tool_call_id {
        message = message.with_tool_call_id(id.clone());
    }
    Some(message)
}
