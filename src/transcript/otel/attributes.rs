//! A span's attributes, read once: the GenAI conventions' and, where a span has no
//! GenAI operation, OpenInference's or else Langfuse's mapped onto them.

use serde_json::Value;

use super::langfuse::usage;
use super::logs::DETAILS;
use super::spans::{AnyValue, Event, KeyValue};

/// The span's attributes this reader uses.
#[derive(Default)]
pub(super) struct Attributes<'s> {
    pub(super) operation: Option<&'s str>,
    pub(super) input: Option<&'s AnyValue>,
    pub(super) output: Option<&'s AnyValue>,
    pub(super) system: Option<&'s AnyValue>,
    pub(super) tool_name: Option<&'s str>,
    pub(super) tool_call_id: Option<&'s str>,
    pub(super) tool_result: Option<&'s AnyValue>,
    /// An OpenInference tool span's `output.value`, or a Langfuse tool's output: the
    /// tool's return as its framework wrote it (LangChain's, a message as JSON), where
    /// the GenAI conventions record the result.
    pub(super) tool_output: Option<&'s AnyValue>,
    pub(super) agent: Option<&'s str>,
    pub(super) input_tokens: Option<u64>,
    pub(super) output_tokens: Option<u64>,
    /// OpenInference's messages, flattened into attributes: each
    /// `llm.input_messages.<rest>` (or `llm.output_messages.<rest>`) as its rest and
    /// value.
    pub(super) flat_input: Vec<(&'s str, &'s AnyValue)>,
    pub(super) flat_output: Vec<(&'s str, &'s AnyValue)>,
    /// How many choices the call asked for: `gen_ai.request.choice.count`, or the
    /// `n` of OpenInference's `llm.invocation_parameters` (JSON).
    pub(super) choice_count: Option<u64>,
    pub(super) invocation: Option<&'s str>,
    /// A Langfuse generation's input and output (`langfuse.observation.input`,
    /// `.output`: JSON of its client's messages, or a text).
    pub(super) langfuse_input: Option<&'s AnyValue>,
    pub(super) langfuse_output: Option<&'s AnyValue>,
}

impl Attributes<'_> {
    /// The call's token usage, if it records any.
    pub(super) fn usage(&self) -> Option<crate::Usage> {
        (self.input_tokens.is_some() || self.output_tokens.is_some()).then(|| crate::Usage {
            input_tokens: self.input_tokens.unwrap_or(0),
            output_tokens: self.output_tokens.unwrap_or(0),
        })
    }

    /// Whether the call asked for several choices: then its several output messages
    /// are alternatives; otherwise they are the items of one answer (OpenLLMetry's
    /// OpenAI Agents instrumentation and OpenInference's OpenAI instrumentation write
    /// each item of a Responses API output as a message).
    pub(super) fn choices(&self) -> bool {
        let n = self.choice_count.or_else(|| {
            let parameters = serde_json::from_str::<Value>(self.invocation?).ok()?;
            parameters.get("n")?.as_u64()
        });
        n.is_some_and(|n| n > 1)
    }
}

/// The attributes of a span named `name` (Langfuse names a tool's or an agent's
/// observation by its span's name).
pub(super) fn attributes<'s>(list: &'s [KeyValue<'_>], name: Option<&'s str>) -> Attributes<'s> {
    let mut a = Attributes::default();
    // OpenInference's attributes where the GenAI conventions have others, read where
    // a span has no GenAI one; its span kind, and its `output.value`.
    let mut oi = Attributes::default();
    let (mut kind, mut output_value) = (None, None);
    // Langfuse's, read where a span is of neither convention.
    let (mut observation, mut lf_input, mut lf_output, mut lf_usage) = (None, None, None, None);
    for kv in list {
        let Some(value) = &kv.value else { continue };
        let key = &*kv.key.0;
        if let Some(rest) = key.strip_prefix("llm.input_messages.") {
            a.flat_input.push((rest, value));
            continue;
        }
        if let Some(rest) = key.strip_prefix("llm.output_messages.") {
            a.flat_output.push((rest, value));
            continue;
        }
        match key {
            "openinference.span.kind" => kind = value.text(),
            "tool.name" => oi.tool_name = value.text(),
            "tool.id" => oi.tool_call_id = value.text(),
            "output.value" => output_value = Some(value),
            "agent.name" => oi.agent = value.text(),
            "llm.token_count.prompt" => oi.input_tokens = value.number(),
            "llm.token_count.completion" => oi.output_tokens = value.number(),
            "llm.invocation_parameters" => a.invocation = value.text(),
            "langfuse.observation.type" => observation = value.text(),
            "langfuse.observation.input" => lf_input = Some(value),
            "langfuse.observation.output" => lf_output = Some(value),
            "langfuse.observation.usage_details" => lf_usage = value.text(),
            "gen_ai.operation.name" => a.operation = value.text(),
            "gen_ai.input.messages" => a.input = Some(value),
            "gen_ai.output.messages" => a.output = Some(value),
            "gen_ai.system_instructions" => a.system = Some(value),
            "gen_ai.tool.name" => a.tool_name = value.text(),
            "gen_ai.tool.call.id" => a.tool_call_id = value.text(),
            "gen_ai.tool.call.result" => a.tool_result = Some(value),
            "gen_ai.agent.name" => a.agent = value.text(),
            "gen_ai.request.choice.count" => a.choice_count = value.number(),
            "gen_ai.usage.input_tokens" | "gen_ai.usage.prompt_tokens" => {
                a.input_tokens = value.number();
            }
            "gen_ai.usage.output_tokens" | "gen_ai.usage.completion_tokens" => {
                a.output_tokens = value.number();
            }
            _ => {}
        }
    }
    // An OpenInference span (a span the GenAI conventions do not name): an `LLM` span
    // is a chat call, a `TOOL` span a tool's run (its `output.value` the result), any
    // other kind (`AGENT`, `CHAIN`, `RETRIEVER`, ...) not a step.
    if a.operation.is_none() {
        a.operation = kind.map(|kind| match kind {
            "LLM" => "chat",
            "TOOL" => "execute_tool",
            other => other,
        });
        if kind == Some("TOOL") {
            a.tool_output = output_value;
        }
    }
    // A Langfuse observation (a span of neither convention): a `generation` is a
    // chat call, a `tool` a tool's run (named by its span, its output the tool's
    // return as its framework wrote it, as OpenInference's `output.value`), an
    // `agent` names the agent (by its span's name); any other type (`span`, `chain`,
    // `retriever`, ...) not a step.
    if a.operation.is_none() {
        a.operation = observation.map(|observation| match observation {
            "generation" => "chat",
            "tool" => "execute_tool",
            "agent" => "invoke_agent",
            other => other,
        });
        match observation {
            Some("generation") => {
                (a.langfuse_input, a.langfuse_output) = (lf_input, lf_output);
                (oi.input_tokens, oi.output_tokens) = lf_usage.map_or((None, None), usage);
            }
            Some("tool") => {
                oi.tool_name = name;
                a.tool_output = lf_output;
            }
            Some("agent") => oi.agent = name,
            _ => {}
        }
    }
    a.tool_name = a.tool_name.or(oi.tool_name);
    a.tool_call_id = a.tool_call_id.or(oi.tool_call_id);
    a.agent = a.agent.or(oi.agent);
    a.input_tokens = a.input_tokens.or(oi.input_tokens);
    a.output_tokens = a.output_tokens.or(oi.output_tokens);
    a
}

/// A span's messages recorded in its events of the latest conventions
/// (`gen_ai.client.inference.operation.details`, whose attributes are a chat span's:
/// Strands Agents writes one such event for each of `gen_ai.system_instructions`,
/// `gen_ai.input.messages` and `gen_ai.output.messages`), where its attributes hold
/// none.
pub(super) fn with_details<'s>(a: &mut Attributes<'s>, events: &'s [Event<'_>]) {
    for event in events.iter().filter(|e| e.name.0 == DETAILS) {
        for kv in &event.attributes {
            let Some(value) = &kv.value else { continue };
            let slot = match &*kv.key.0 {
                "gen_ai.input.messages" => &mut a.input,
                "gen_ai.output.messages" => &mut a.output,
                "gen_ai.system_instructions" => &mut a.system,
                _ => continue,
            };
            slot.get_or_insert(value);
        }
    }
}
