//! OpenTelemetry traces: OTLP JSON exports of spans (what Langfuse, Phoenix, Logfire
//! and the OpenTelemetry Collector's file exporter write), read by the GenAI semantic
//! conventions, or by OpenInference's for a span that has no GenAI operation; and
//! exports of logs, whose GenAI events record chat calls as spans do (read as those
//! spans).
//!
//! A chat span (operation `chat`, `text_completion` or `generate_content`) carries the
//! model's input (`gen_ai.system_instructions`, `gen_ai.input.messages`) and output
//! (`gen_ai.output.messages`) as JSON, or, in the older conventions, as span events
//! (`gen_ai.system.message`, `gen_ai.user.message`, `gen_ai.assistant.message`,
//! `gen_ai.tool.message`, `gen_ai.choice`), and its token usage
//! (`gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens`). An `execute_tool` span
//! is a tool's run: `gen_ai.tool.name`, `gen_ai.tool.call.id`, its result
//! (`gen_ai.tool.call.result`) and its status. An `invoke_agent` span names the agent
//! (`gen_ai.agent.name`) of the spans under it.
//!
//! An OpenInference span is the same by its kind (`openinference.span.kind`): an `LLM`
//! span a chat call, its messages flattened into attributes
//! (`llm.input_messages.<i>.message.role`, ...), its usage `llm.token_count.*`; a
//! `TOOL` span a tool's run (`tool.name`, `tool.id`, `output.value`); an `AGENT` span
//! names the agent (`agent.name`).
//!
//! Each chat call's input repeats the conversation so far: the transcript is the
//! messages each call adds to what the previous ones showed, then its output, in the
//! order the spans started (traces one after another; a trace whose first call goes
//! on from the conversation continues it).

mod attributes;
mod genai;
mod langfuse;
mod logs;
mod openinference;
mod spans;

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use self::attributes::{Attributes, attributes, with_details};
use self::genai::{events, messages, system_messages};
use self::openinference::{flat_messages, langchain_tool_message};
use self::spans::{AnyValue, Nanos, Span};
pub(super) use self::spans::{Export, LogsExport};
use super::bedrock;
use super::record::{Context, Failure, Out};
use crate::{Message, Role, Usage};

/// What the spans read so far showed: the conversation (as [`signatures`]) and the
/// tool calls whose results are in.
#[derive(Debug, Default)]
pub(super) struct History {
    /// The trace read last: a new trace is a new conversation, unless its first call
    /// continues this one.
    trace: Option<String>,
    /// When the conversation's first trace's first span (in the first export that
    /// showed it) started.
    origin: u64,
    conversation: Vec<u64>,
    results: HashSet<String>,
    /// The texts of the results tool spans gave since the last chat call: the next
    /// call's input shows them, perhaps answering other ids than the spans took (an
    /// instrumentation may write a call's item id on the call and its call id on the
    /// result).
    fresh: Vec<String>,
    /// The calls the model's outputs made that no tool span has answered yet (name,
    /// id): a tool span that records no call id answers its tool's first one.
    pending: Vec<(String, Option<String>)>,
    /// The whole transcript's spans so far (kept from trace to trace): to say why a
    /// transcript of spans gave no message.
    totals: Totals,
    /// The token usage of the latest chat spans recorded without their messages, by
    /// span id (kept from trace to trace): the log records of the same call, read
    /// later, hold the messages.
    usage: Vec<(String, Usage)>,
    /// The span ids of the latest chat calls read (kept from trace to trace): a call a
    /// trace and its log records both hold has one.
    calls_read: Vec<String>,
    /// The calls of an export of logs whose records go on in the next export.
    held: Vec<Span<'static>>,
}

/// How many spans a transcript's exports held, how many of them this reader knows
/// (GenAI or OpenInference spans), how many were chat calls and how many of those
/// carried messages, and how many messages they all gave.
#[derive(Clone, Copy, Debug, Default)]
struct Totals {
    spans: usize,
    records: usize,
    known: usize,
    chats: usize,
    chats_read: usize,
    messages: usize,
}

impl History {
    /// A new conversation, whose first span started at `origin`: what the last one
    /// showed is forgotten; what the transcript as a whole holds is not.
    fn restart(&mut self, origin: u64) {
        self.origin = origin;
        self.conversation.clear();
        self.results.clear();
        self.fresh.clear();
        self.pending.clear();
    }

    /// Whether the call `span` records (of input `input` and output `output`) was
    /// read already: recorded twice, by a trace and by its log records. Its span was
    /// read as a call (when it names one), and the conversation holds its input and
    /// output (a new call's input is the conversation so far, and its output goes
    /// beyond it).
    fn read_already(&self, span: &Span<'_>, input: &[Message<'_>], output: &[Message<'_>]) -> bool {
        let id = span.span_id.as_ref().map_or("", |id| &*id.0);
        if !id.is_empty() && !self.calls_read.iter().any(|read| read == id) {
            return false;
        }
        let mut signed = signed(input);
        for message in output {
            signatures(message, &mut signed);
        }
        !signed.is_empty() && self.conversation.starts_with(&signed)
    }

    /// Why a transcript of spans cannot be read, when it cannot: its spans are not
    /// GenAI spans, or not one of its chat spans was recorded with its messages (its
    /// tool spans alone are not the run), or it gave no message. `None` when it gave
    /// messages, some from chat calls, or held no span.
    pub(super) fn nothing_read(&self) -> Option<String> {
        let Totals {
            spans,
            records,
            known,
            chats,
            chats_read,
            messages,
        } = self.totals;
        if spans + records == 0 || (messages > 0 && (chats == 0 || chats_read > 0)) {
            return None;
        }
        Some(if known == 0 {
            let held = match (spans, records) {
                (_, 0) => format!("{spans} spans"),
                (0, _) => format!("{records} log records"),
                _ => format!("{spans} spans and {records} log records"),
            };
            format!(
                "no message: none of the transcript's {held} is a GenAI span or event (an \
                 attribute gen_ai.operation.name or a GenAI event name, OpenTelemetry's GenAI \
                 semantic conventions) or an OpenInference span (an attribute \
                 openinference.span.kind)"
            )
        } else if chats > 0 {
            let what = if records == 0 { "spans" } else { "calls" };
            format!(
                "none of the transcript's {chats} chat {what} carries its messages (recorded \
                 without their content: OpenTelemetry's own GenAI instrumentations record it \
                 on spans with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY \
                 (older versions also need \
                 OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental), or in log records \
                 with EVENT_ONLY (older versions: true): read those from the export of logs \
                 ({{\"resourceLogs\": ...}}), alone or after the trace)"
            )
        } else {
            format!(
                "no message: the transcript's {known} GenAI spans hold no chat call and no \
                 tool run"
            )
        })
    }
}

/// How many of each thing the reading keeps from span to span (unanswered calls,
/// results given, usage left by spans, calls read): the latest, as what comes next
/// answers a recent one, and a transcript's memory must not grow with its length.
const MAX_KEPT: usize = 256;

/// Adds `items` to `list`, which keeps its latest [`MAX_KEPT`].
fn keep<T>(list: &mut Vec<T>, items: impl IntoIterator<Item = T>) {
    list.extend(items);
    if list.len() > MAX_KEPT {
        list.drain(..list.len() - MAX_KEPT);
    }
}

/// The messages of an export's GenAI spans; other spans are not steps.
pub(super) fn read<'a>(
    export: Export<'a>,
    within: &'a str,
    cx: &mut Context,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let spans: Vec<Span<'a>> = (export.resource_spans.into_iter())
        .flat_map(|r| r.scope_spans)
        .flat_map(|s| s.spans)
        .collect();
    cx.otel.totals.spans += spans.len();
    read_spans(spans, within, cx, out)
}

/// The messages of the chat calls an export of logs records (GenAI events); other
/// records are not steps.
pub(super) fn read_logs<'a>(
    export: LogsExport<'a>,
    within: &'a str,
    cx: &mut Context,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let (calls, records) = logs::calls(export, &mut cx.otel.held);
    cx.otel.totals.records += records;
    read_spans(calls, within, cx, out)
}

/// Reads the calls still waiting for records at the transcript's end (a call whose
/// choice never came: it failed, or the export was cut). What is wrong, if anything.
pub(super) fn finish(cx: &mut Context, out: &mut Out<'static>) -> Result<(), String> {
    let held = std::mem::take(&mut cx.otel.held);
    if held.is_empty() {
        return Ok(());
    }
    read_spans(held, "", cx, out).map_err(|failure| failure.problem.into_message())
}

/// The messages of `spans` (an export's, or the calls of an export of logs).
fn read_spans<'a>(
    spans: Vec<Span<'a>>,
    within: &'a str,
    cx: &mut Context,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let attrs: Vec<Attributes<'_>> = (spans.iter())
        .map(|s| {
            let mut a = attributes(&s.attributes, s.name.as_ref().map(|n| &*n.0));
            with_details(&mut a, &s.events);
            a
        })
        .collect();
    // Each span's agent: its own name, or the nearest invoke_agent span's above it.
    let mut parents: HashMap<&str, (Option<&str>, Option<&str>)> = HashMap::new();
    for (span, a) in spans.iter().zip(&attrs) {
        if let Some(id) = &span.span_id {
            parents.insert(
                &id.0,
                (span.parent_span_id.as_ref().map(|p| &*p.0), a.agent),
            );
        }
    }
    let agent_of = |span: &Span<'_>| -> Option<String> {
        let mut next = span.span_id.as_ref().map(|s| &*s.0);
        for _ in 0..64 {
            let (parent, agent) = parents.get(next?)?;
            if let Some(agent) = agent {
                return Some((*agent).to_owned());
            }
            next = *parent;
        }
        None
    };
    // Traces in the order they started, spans by start within each.
    let mut first_start: HashMap<&str, u64> = HashMap::new();
    for span in &spans {
        let trace = span.trace_id.as_ref().map_or("", |t| &*t.0);
        let start = span.start.map_or(0, |n| n.0);
        let entry = first_start.entry(trace).or_insert(start);
        *entry = (*entry).min(start);
    }
    let mut order: Vec<usize> = (0..spans.len()).collect();
    order.sort_by_key(|&i| {
        let span = &spans[i];
        let trace = span.trace_id.as_ref().map_or("", |t| &*t.0);
        (
            first_start[trace],
            trace,
            span.start.map_or(0, |n| n.0),
            span.end.map_or(0, |n| n.0),
        )
    });
    // Each chat span's input and output; and each tool's result as the calls after
    // it show it, for an execute_tool span that does not record its result.
    let mut chats = Vec::with_capacity(spans.len());
    let mut responses: HashMap<String, String> = HashMap::new();
    for (span, a) in spans.iter().zip(&attrs) {
        let chat = chat_messages(span, a, cx).map_err(|m| Failure::message(within, m))?;
        if let Some((input, _)) = &chat {
            for m in input.iter().filter(|m| m.role() == Role::Agent) {
                if let Some(id) = m.tool_call_id() {
                    responses.insert(id.to_owned(), m.content().to_owned());
                }
            }
        }
        let totals = &mut cx.otel.totals;
        let is_chat = chat.is_some()
            || matches!(
                a.operation,
                Some("chat" | "text_completion" | "generate_content")
            );
        totals.known += usize::from(is_chat || a.operation.is_some());
        totals.chats += usize::from(is_chat);
        totals.chats_read += usize::from(chat.is_some());
        chats.push(chat);
    }
    let inner = inner_calls(&spans, &chats);
    // A tool span's output that is LangChain's tool message: its content and call
    // (read once, for the order and for the result).
    let mut tool_messages: Vec<Option<(String, Option<String>)>> = (attrs.iter())
        .map(|a| match a.operation {
            Some("execute_tool") => a.tool_output.and_then(langchain_tool_message),
            _ => None,
        })
        .collect();
    in_call_order(&mut order, &spans, &attrs, &chats, &tool_messages);
    let trace_of = |i: usize| spans[i].trace_id.as_ref().map_or("", |t| &*t.0);
    let before = out.len();
    for (at, &i) in order.iter().enumerate() {
        let span = &spans[i];
        let trace = trace_of(i);
        if cx.otel.trace.as_deref() != Some(trace) {
            // A model client's instrumentation with no framework's above it writes each
            // call (and a tool's run) as a trace of its own: a trace whose first call's
            // input goes on from the conversation (or which records a call read
            // already), or that holds no call (a tool's run), continues it.
            let first = (order[at..].iter())
                .take_while(|&&j| trace_of(j) == trace)
                .find_map(|&j| Some((j, chats[j].as_ref().filter(|_| !inner.contains(&j))?)));
            let history = &mut cx.otel;
            let continues = history.trace.is_some()
                && first.is_none_or(|(j, (input, output))| {
                    let conversation = &history.conversation;
                    !conversation.is_empty()
                        && (signed(input).starts_with(conversation)
                            || history.read_already(&spans[j], input, output))
                });
            history.trace = Some(trace.to_owned());
            if !continues {
                history.restart(first_start[trace]);
            }
        }
        let origin = cx.otel.origin;
        let elapsed = |n: Option<Nanos>| {
            n.map(|n| std::time::Duration::from_nanos(n.0.saturating_sub(origin)))
        };
        let a = &attrs[i];
        let agent = agent_of(span);
        let problem = |m: String| Failure::message(within, m);
        match a.operation {
            Some("execute_tool") => {
                // An OpenInference tool span's output: LangChain's message, its
                // content and call; else the result as the next call's input shows it
                // (the output is the tool's return as its framework wrote it).
                let (from_message, message_id) = tool_messages[i].take().unzip();
                let message_id = message_id.flatten();
                let id = a.tool_call_id.or(message_id.as_deref());
                let call_id = answered(&mut cx.otel.pending, a.tool_name, id);
                let shown = || call_id.as_ref().and_then(|id| responses.get(id)).cloned();
                let output = || a.tool_output.map(AnyValue::to_text);
                // Strands Agents' own record of the result (its choice event), where
                // no later call shows it (the run's last tool).
                let choice = || tool_choice(&span.events);
                let content = match a.tool_result {
                    Some(v) => result_blocks(v).unwrap_or_else(|| v.to_text()),
                    None => (from_message.or_else(shown).or_else(choice).or_else(output))
                        .unwrap_or_default(),
                };
                if cx.otel.fresh.len() < MAX_KEPT {
                    cx.otel.fresh.push(content.clone());
                }
                let mut result = Message::new(Role::Agent, content);
                if let Some(name) = a.tool_name.filter(|n| !n.is_empty()) {
                    result = result.with_tool_name(name.to_owned());
                }
                if let Some(id) = call_id {
                    cx.otel.results.insert(id.clone());
                    result = result.with_tool_call_id(id);
                }
                if let Some(status) = &span.status {
                    let error = matches!(&status.code, Some(Value::Number(n)) if n.as_u64() == Some(2))
                        || matches!(&status.code, Some(Value::String(s)) if s == "STATUS_CODE_ERROR");
                    if error {
                        let text = status.message.as_ref().map_or("the tool failed", |m| &*m.0);
                        result = result.with_error(text.to_owned());
                    }
                }
                if let Some(agent) = agent {
                    result = result.with_responder(agent);
                }
                if let Some(e) = elapsed(span.end) {
                    result = result.with_elapsed(e);
                }
                out.push(result);
            }
            Some("chat" | "text_completion" | "generate_content") | None => {
                let Some((input, output)) = chats[i].take() else {
                    // Not a GenAI span, or one recorded without content: its log
                    // records may hold the messages, read later, not the usage.
                    let id = span.span_id.as_ref().map(|id| id.0.to_string());
                    if let (Some(id), Some(usage)) = (id, a.usage()) {
                        keep(&mut cx.otel.usage, [(id, usage)]);
                    }
                    continue;
                };
                if inner.contains(&i) {
                    continue;
                }
                if output.len() > 1 {
                    return Err(problem(format!(
                        "a chat span with {} output messages (choices): a transcript step is one answer",
                        output.len()
                    )));
                }
                // A call both a trace and its log records record, read from the
                // first.
                if cx.otel.read_already(span, &input, &output) {
                    continue;
                }
                if let Some(id) = span.span_id.as_ref().filter(|id| !id.0.is_empty()) {
                    keep(&mut cx.otel.calls_read, [id.0.to_string()]);
                }
                // What this call adds to the conversation the earlier calls showed.
                // A message is known when all of its signatures are.
                let mut signed = Vec::with_capacity(input.len() + 1);
                let mut ends = Vec::with_capacity(input.len());
                for message in &input {
                    signatures(message, &mut signed);
                    ends.push(signed.len());
                }
                let usage = a.usage().or_else(|| {
                    let id = &*span.span_id.as_ref()?.0;
                    let usage_of = &mut cx.otel.usage;
                    let at = usage_of.iter().position(|(of, _)| of == id)?;
                    Some(usage_of.remove(at).1)
                });
                let known = (cx.otel.conversation.iter().zip(&signed))
                    .take_while(|(a, b)| a == b)
                    .count();
                let mut fresh = std::mem::take(&mut cx.otel.fresh);
                for (message, _) in input.iter().zip(ends).filter(|&(_, end)| end > known) {
                    // A tool's result read from its execute_tool span already: the
                    // call it answers is, or a span gave its text since the last call
                    // (each such text answers one result).
                    let seen = message.role == Role::Agent && {
                        let text = fresh.iter().position(|t| t == message.content());
                        let by_text = text.map(|at| fresh.swap_remove(at)).is_some();
                        let id = message.tool_call_id();
                        by_text || id.is_some_and(|id| cx.otel.results.contains(id))
                    };
                    if !seen {
                        let mut message = message.clone();
                        if let Some(e) = elapsed(span.start) {
                            message = message.with_elapsed(e);
                        }
                        out.push(message);
                    }
                }
                cx.otel.conversation = signed;
                for mut message in output {
                    signatures(&message, &mut cx.otel.conversation);
                    let calls = message.tool_calls().iter();
                    let calls = calls.map(|c| (c.name().to_owned(), c.id().map(str::to_owned)));
                    // The latest calls only: a trace of calls never answered must not
                    // make each span's search longer.
                    keep(&mut cx.otel.pending, calls);
                    if usage.is_some() {
                        message.usage = usage;
                    }
                    if let Some(agent) = &agent {
                        message = message.with_responder(agent.clone());
                    }
                    if let Some(e) = elapsed(span.end) {
                        message = message.with_elapsed(e);
                    }
                    out.push(message);
                }
            }
            // Agent, embedding, retrieval and other spans are not steps.
            Some(_) => {}
        }
    }
    cx.otel.totals.messages += out.len() - before;
    Ok(())
}

/// Puts each run of tool spans (next to each other in `order`, in one trace) that
/// answer calls of the model turn before them in the order of those calls. A
/// framework that runs a turn's tools at once (LangGraph's tool node, in threads)
/// starts them in whatever order its threads do, and gives their results to the
/// model, and to its own state, in the order of the calls: so is the transcript read
/// (read by their start, a run of the same script was read in one order or the other,
/// one time in twenty). A run with a span whose call is not among the turn's keeps its
/// order.
fn in_call_order(
    order: &mut [usize],
    spans: &[Span<'_>],
    attrs: &[Attributes<'_>],
    chats: &[Chat],
    tool_messages: &[Option<(String, Option<String>)>],
) {
    let trace_of = |i: usize| spans[i].trace_id.as_ref().map_or("", |t| &*t.0);
    let is_tool = |i: usize| attrs[i].operation == Some("execute_tool");
    // The call ids of the latest model turn read in `order`.
    let mut calls: Vec<String> = Vec::new();
    let mut at = 0;
    while at < order.len() {
        let i = order[at];
        if !is_tool(i) {
            if let Some((_, output)) = &chats[i] {
                calls = (output.iter())
                    .flat_map(Message::tool_calls)
                    .filter_map(|c| c.id().map(str::to_owned))
                    .collect();
            }
            at += 1;
            continue;
        }
        let run = (order[at..].iter())
            .take_while(|&&j| is_tool(j) && trace_of(j) == trace_of(i))
            .count();
        let place = |j: usize| {
            let from_message = || tool_messages[j].as_ref()?.1.as_deref();
            let id = attrs[j].tool_call_id.or_else(from_message)?;
            calls.iter().position(|c| c == id)
        };
        let places: Option<Vec<usize>> = order[at..at + run].iter().map(|&j| place(j)).collect();
        if let Some(places) = places {
            let mut run_of: Vec<(usize, usize)> = places
                .into_iter()
                .zip(order[at..at + run].iter().copied())
                .collect();
            run_of.sort_by_key(|&(place, _)| place);
            for (slot, (_, j)) in order[at..at + run].iter_mut().zip(run_of) {
                *slot = j;
            }
        }
        at += run;
    }
}

/// The chat spans (indices into `spans`) that are a call another chat span records
/// too, by another layer (an agent framework's instrumentation and its model
/// client's): below it (a descendant), or, as layers that write separate traces do,
/// within its time with the same messages (its input's but the system prompt, which
/// only one layer may show, and its output). The outer span, placed among the
/// framework's agent and tool spans, is read; the inner one is not a step.
fn inner_calls(spans: &[Span<'_>], chats: &[Chat]) -> HashSet<usize> {
    let mut inner = HashSet::new();
    let index: HashMap<&str, usize> = (spans.iter().enumerate())
        .filter_map(|(i, s)| Some((&*s.span_id.as_ref()?.0, i)))
        .collect();
    let parent_of = |i: usize| spans[i].parent_span_id.as_ref().map(|p| &*p.0);
    for i in (0..spans.len()).filter(|&i| chats[i].is_some()) {
        let mut parent = parent_of(i);
        for _ in 0..64 {
            let Some(&j) = parent.and_then(|p| index.get(p)) else {
                break;
            };
            if chats[j].is_some() {
                inner.insert(i);
                break;
            }
            parent = parent_of(j);
        }
    }
    // The same messages within another's time (ties: the first span is the outer).
    let mut by_messages: HashMap<Vec<u64>, Vec<usize>> = HashMap::new();
    for (i, chat) in chats.iter().enumerate() {
        if let Some((input, output)) = chat {
            let mut signed = Vec::new();
            for message in input.iter().filter(|m| m.role() != Role::System) {
                signatures(message, &mut signed);
            }
            // Where the input ends: an input message is not an output one.
            signed.push(0);
            for message in output {
                signatures(message, &mut signed);
            }
            by_messages.entry(signed).or_default().push(i);
        }
    }
    // In one sweep (a hostile export of many alike spans must not cost their square):
    // by start, the longer first (then the first span), each span is within one
    // before it if one of those ends no earlier.
    for same in by_messages.values().filter(|same| same.len() > 1) {
        let mut timed: Vec<(u64, std::cmp::Reverse<u64>, usize)> = (same.iter())
            .filter_map(|&i| Some((spans[i].start?.0, std::cmp::Reverse(spans[i].end?.0), i)))
            .collect();
        timed.sort_unstable();
        let mut latest_end = None;
        for (_, std::cmp::Reverse(end), i) in timed {
            if latest_end.is_some_and(|latest| latest >= end) {
                inner.insert(i);
            }
            latest_end = latest_end.max(Some(end));
        }
    }
    inner
}

/// The input and output messages of a chat span; `None` for another span, or one
/// recorded without content.
type Chat = Option<(Vec<Message<'static>>, Vec<Message<'static>>)>;

fn chat_messages(span: &Span<'_>, a: &Attributes<'_>, cx: &mut Context) -> Result<Chat, String> {
    if !matches!(
        a.operation,
        Some("chat" | "text_completion" | "generate_content") | None
    ) {
        return Ok(None);
    }
    let (input, output) = match (a.input, a.output) {
        (None, None) if !a.flat_input.is_empty() || !a.flat_output.is_empty() => (
            flat_messages(&a.flat_input, "llm.input_messages")?,
            one_turn(flat_messages(&a.flat_output, "llm.output_messages")?, a),
        ),
        (None, None) if a.langfuse_input.is_some() || a.langfuse_output.is_some() => {
            let read = |value, attribute, role, cx: &mut Context| match value {
                Some(value) => langfuse::messages(value, attribute, role, cx),
                None => Ok(Vec::new()),
            };
            let input = read(
                a.langfuse_input,
                "langfuse.observation.input",
                Role::User,
                cx,
            )?;
            let output = read(
                a.langfuse_output,
                "langfuse.observation.output",
                Role::Llm,
                cx,
            )?;
            (input, one_turn(output, a))
        }
        // Each `gen_ai.choice` event is a choice.
        (None, None) => events(&span.events)?,
        _ => {
            let mut input = Vec::new();
            if let Some(system) = a.system {
                input.extend(system_messages(system)?);
            }
            if let Some(text) = a.input {
                input.extend(messages(text, "gen_ai.input.messages")?);
            }
            let output = match a.output {
                Some(text) => one_turn(messages(text, "gen_ai.output.messages")?, a),
                None => Vec::new(),
            };
            (input, output)
        }
    };
    Ok((!input.is_empty() || !output.is_empty()).then_some((input, output)))
}

/// A tool's result given as Converse result blocks (Strands Agents records
/// `gen_ai.tool.call.result` so: JSON text of `[{"text": ...}, {"json": ...}]`), as
/// the text the model is given: the blocks' texts and JSON joined.
fn result_blocks(value: &AnyValue) -> Option<String> {
    let blocks = match value.text() {
        Some(text) if text.trim_start().starts_with('[') => {
            return bedrock::result_blocks_text(text);
        }
        Some(_) => return None,
        None => value.json(),
    };
    bedrock::result_blocks_text(&blocks.to_string())
}

/// A tool span's result as Strands Agents records it by default: its `gen_ai.choice`
/// event's `message`, JSON text of Converse result blocks.
fn tool_choice(events: &[spans::Event<'_>]) -> Option<String> {
    let choice = events.iter().find(|e| e.name.0 == "gen_ai.choice")?;
    let message = choice.attributes.iter().find(|kv| kv.key.0 == "message")?;
    result_blocks(message.value.as_ref()?)
}

/// The [`signatures`] of `messages`, in order.
fn signed(messages: &[Message<'_>]) -> Vec<u64> {
    let mut out = Vec::with_capacity(messages.len() + 1);
    for message in messages {
        signatures(message, &mut out);
    }
    out
}

/// What identifies a message across calls, at its place in the conversation, added
/// to `out`: its role and text (unless it has calls and no text), then each call's
/// name and arguments. Calls one by one, as a later call's input may write the calls
/// of one output message as as many messages (OpenInference's OpenAI Agents
/// instrumentation does, from the SDK's items). Not the ids of its calls or of the
/// call it answers: an instrumentation may write another id for the same call in a
/// later call's input than in the output that made it (OpenLLMetry's OpenAI Agents
/// instrumentation writes the item's `id` there, the `call_id` here), and the place
/// already tells the messages apart.
fn signatures(message: &Message<'_>, out: &mut Vec<u64>) {
    fn hash(value: impl std::hash::Hash) -> u64 {
        use std::hash::Hasher;
        let mut h = std::collections::hash_map::DefaultHasher::new();
        value.hash(&mut h);
        h.finish()
    }
    if message.tool_calls().is_empty() || !message.content().is_empty() {
        out.push(hash((message.role().as_str(), message.content())));
    }
    for call in message.tool_calls() {
        out.push(hash(("call", call.name(), &*call.arguments())));
    }
}

/// The id of the call a tool span answers: its `gen_ai.tool.call.id`, else the id of
/// the first call of its tool that the model made and no tool span answered yet (an
/// instrumentation may not record the id); that call is no longer pending.
fn answered(
    pending: &mut Vec<(String, Option<String>)>,
    name: Option<&str>,
    id: Option<&str>,
) -> Option<String> {
    let id = id.filter(|id| !id.is_empty());
    let at = match id {
        Some(id) => pending.iter().position(|(_, p)| p.as_deref() == Some(id)),
        None => pending.iter().position(|(n, _)| Some(n.as_str()) == name),
    };
    let inferred = at.and_then(|at| pending.remove(at).1);
    id.map(str::to_owned).or(inferred)
}

/// The output messages of one call as the one model turn they are: their texts
/// joined by newlines, their calls in order. Left as they are when the call asked for
/// several choices or their roles differ (then several outputs, an error).
fn one_turn(output: Vec<Message<'static>>, a: &Attributes<'_>) -> Vec<Message<'static>> {
    let roles_differ = || output.iter().any(|m| m.role() != output[0].role());
    if output.len() < 2 || a.choices() || roles_differ() {
        return output;
    }
    let mut messages = output.into_iter();
    let Some(mut turn) = messages.next() else {
        return Vec::new();
    };
    for message in messages {
        if turn.content.is_empty() {
            turn.content = message.content;
        } else if !message.content.is_empty() {
            turn.content = format!("{}\n{}", turn.content, message.content).into();
        }
        turn.tool_calls.extend(message.tool_calls);
    }
    vec![turn]
}

#[cfg(test)]
mod tests {
    use super::answered;

    #[test]
    fn a_tool_span_answers_its_own_call_or_its_tools_first_pending_one() {
        let call = |name: &str, id: &str| (name.to_owned(), Some(id.to_owned()));
        let mut pending = vec![
            call("search", "c1"),
            call("fetch", "c2"),
            call("search", "c3"),
        ];
        // No id: the first pending call of its tool, which is then answered.
        assert_eq!(
            answered(&mut pending, Some("search"), None).as_deref(),
            Some("c1")
        );
        assert_eq!(pending, vec![call("fetch", "c2"), call("search", "c3")]);
        // Its own id, pending or not (an empty id is none).
        assert_eq!(
            answered(&mut pending, Some("fetch"), Some("c2")).as_deref(),
            Some("c2")
        );
        assert_eq!(
            answered(&mut pending, Some("search"), Some("zz")).as_deref(),
            Some("zz")
        );
        assert_eq!(pending, vec![call("search", "c3")]);
        assert_eq!(
            answered(&mut pending, Some("search"), Some("")).as_deref(),
            Some("c3")
        );
        // Nothing pending of its tool, or no tool named: no id.
        assert_eq!(answered(&mut pending, Some("search"), None), None);
        assert_eq!(answered(&mut vec![call("f", "c9")], None, None), None);
    }
}
