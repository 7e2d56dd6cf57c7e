//! Every transcript format: the samples under `examples/formats/` as `auto` detects
//! them and as their own format reads them, what each format's records become, and
//! errors that name the format, the line and the field.

use std::fmt::Write as _;

use doneseq::transcript::{Format, Reader, TranscriptErrorKind, read_transcript};
use doneseq::{Message, Role};

pub(crate) fn read(
    text: &str,
    format: Format,
) -> Result<Vec<Message<'static>>, doneseq::transcript::TranscriptError> {
    read_transcript(text.as_bytes(), format)
}

/// The line at which the reader gives each message of `text` (read as it comes, the
/// way `--follow` reads a live log), the format `auto` detects checked to be `format`.
pub(crate) fn lines_given(text: &str, format: Format) -> Vec<usize> {
    let mut reader = Reader::new(text.as_bytes(), Format::Auto);
    let mut lines = Vec::new();
    while let Some(message) = reader.next_borrowed() {
        message.unwrap();
        lines.push(reader.line());
    }
    assert_eq!(reader.format(), format);
    lines
}

/// One line per message: everything a stop condition reads of it.
pub(crate) fn summary(messages: &[Message<'_>]) -> String {
    summary_with(messages, str::to_owned)
}

/// [`summary`] with each call's arguments as compact JSON with sorted keys: the same
/// for a log written compact and one written indented, or by another writer.
pub(crate) fn summary_of_values(messages: &[Message<'_>]) -> String {
    summary_with(messages, |arguments| {
        serde_json::from_str::<serde_json::Value>(arguments)
            .map_or_else(|_| arguments.to_owned(), |v| v.to_string())
    })
}

/// [`summary`], each call's arguments written by `arguments`.
fn summary_with(messages: &[Message<'_>], arguments: impl Fn(&str) -> String) -> String {
    let mut out = String::new();
    for (i, m) in messages.iter().enumerate() {
        write!(out, "{i} {}", m.role().as_str()).unwrap();
        if let Some(r) = m.responder() {
            write!(out, " @{r}").unwrap();
        }
        if !m.content().is_empty() {
            write!(out, " {:?}", m.content()).unwrap();
        }
        for c in m.tool_calls() {
            let args = arguments(&c.arguments());
            write!(out, " call {}({args}) id={:?}", c.name(), c.id()).unwrap();
        }
        if let Some(id) = m.tool_call_id() {
            write!(out, " answers={id}").unwrap();
        }
        if let Some(name) = m.tool_name() {
            write!(out, " tool={name}").unwrap();
        }
        if let Some(u) = m.usage() {
            write!(out, " tokens={}+{}", u.input_tokens, u.output_tokens).unwrap();
        }
        if let Some(e) = m.error() {
            write!(out, " error={e:?}").unwrap();
        }
        if let Some(e) = m.elapsed() {
            write!(out, " at={}ms", e.as_millis()).unwrap();
        }
        if m.is_stop() {
            out.push_str(" stop");
        }
        if let Some(h) = m.handoff() {
            write!(out, " handoff={h}").unwrap();
        }
        if m.is_no_response() {
            out.push_str(" (no response)");
        }
        out.push('\n');
    }
    out
}

/// The text of the sample `name` (under `examples/formats/`).
pub(crate) fn sample_text(name: &str) -> String {
    let path = format!("{}/examples/formats/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

/// The sample `name`, read by `auto` (which must detect `format`) and by `format`
/// itself, which must agree.
pub(crate) fn sample(name: &str, format: Format) -> String {
    let text = sample_text(name);
    let mut reader = Reader::new(text.as_bytes(), Format::Auto);
    let auto: Vec<Message<'static>> = reader.by_ref().collect::<Result<_, _>>().unwrap();
    assert_eq!(reader.format(), format, "{name}: the format auto detected");
    let given = read(&text, format).unwrap();
    assert_eq!(auto, given, "{name}: auto and {format} disagree");
    summary(&auto)
}

#[test]
fn openai_chat_messages_and_completion_objects() {
    insta::assert_snapshot!(sample("openai-chat-completions.jsonl", Format::OpenAi));
}

/// What OpenAI-compatible providers add to the chat messages they write (reasoning,
/// a call's index or signature) is read and not taken for text or calls. The log's
/// last records are chat messages, which `auto` reads as `jsonl`'s: it must read the
/// same as `openai`; `jsonl` refuses it at its `chat.completion` object (line 3),
/// which only `openai` reads.
#[test]
fn openai_compatible_providers_reasoning_and_call_extras() {
    let text = sample_text("openai-compatible.jsonl");
    let auto = read(&text, Format::Auto).unwrap();
    assert_eq!(auto, read(&text, Format::OpenAi).unwrap());
    let error = read(&text, Format::Jsonl).unwrap_err().to_string();
    assert!(
        error.contains("line 3") && error.contains("`id`"),
        "{error}"
    );
    insta::assert_snapshot!(summary(&auto));
}

#[test]
fn ollama_chat_responses_and_messages() {
    insta::assert_snapshot!(sample("ollama-chat.jsonl", Format::OpenAi));
}

#[test]
fn openai_responses_input_list_from_the_agents_sdk() {
    insta::assert_snapshot!(sample("openai-responses.json", Format::Responses));
}

#[test]
fn openai_responses_objects_and_items() {
    insta::assert_snapshot!(sample("openai-responses-objects.jsonl", Format::Responses));
}

#[test]
fn anthropic_request_with_system_tool_use_and_results() {
    insta::assert_snapshot!(sample("anthropic-request.json", Format::Anthropic));
}

#[test]
fn anthropic_responses_and_tool_results() {
    insta::assert_snapshot!(sample("anthropic-responses.jsonl", Format::Anthropic));
}

#[test]
fn autogen_task_result_from_a_real_team() {
    insta::assert_snapshot!(sample("autogen-task-result.json", Format::AutoGen));
}

#[test]
fn langroid_roles_turn_on_the_tool_search() {
    let text = sample_text("langroid.jsonl");
    let auto = read(&text, Format::Auto).unwrap();
    assert_eq!(auto, read(&text, Format::Langroid).unwrap());
    assert_eq!(auto[1].tool_calls()[0].name(), "calculator");
    // Read as doneseq's JSONL, as asked, the content is not searched.
    assert!(
        read(&text, Format::Jsonl).unwrap()[1]
            .tool_calls()
            .is_empty()
    );
}

#[test]
fn otel_genai_spans() {
    insta::assert_snapshot!(sample("otel-genai.json", Format::Otel));
}

#[test]
fn otel_openinference_spans_from_the_openai_agents_instrumentation() {
    // Written by OpenInference's OpenAI Agents instrumentation (Arize Phoenix's),
    // tracing a run of the SDK: two calls in one turn (the later call's input writes
    // them as two messages), a tool that failed, the agent's name on its spans.
    insta::assert_snapshot!(sample("otel-openinference.json", Format::Otel));
}

#[test]
fn otel_openinference_spans_from_the_langchain_instrumentation() {
    // Written by OpenInference's LangChain instrumentation tracing a LangGraph ReAct
    // agent: its chains carry the messages too (not steps); its tool spans' output is
    // LangChain's tool message as JSON, whose content is the result.
    insta::assert_snapshot!(sample("otel-openinference-langgraph.json", Format::Otel));
}

#[test]
fn otel_genai_events_one_export_per_line() {
    insta::assert_snapshot!(sample("otel-genai-events.jsonl", Format::Otel));
}

#[test]
fn otel_genai_events_in_an_export_of_logs_after_the_trace() {
    // Written by OpenTelemetry's own OpenAI instrumentation (opentelemetry-
    // instrumentation-openai-v2 2.1b0, content captured) tracing two chat completions:
    // the trace's export (each call a trace of its own, its chat span without the
    // messages) and then the export of logs, a record an event (`gen_ai.user.message`,
    // ..., `gen_ai.choice`), each call's by its span. Each call once, its usage from
    // its span.
    insta::assert_snapshot!(sample("otel-genai-logs.jsonl", Format::Otel));
}

#[test]
fn otel_langfuse_observations() {
    // Written by Langfuse's SDK (5.0.4; its spans exported by its own processor to an
    // OTLP exporter): its OpenAI integration's generations (a text and two searches in
    // a turn, then the answer), tools and an agent decorated with `@observe`.
    insta::assert_snapshot!(sample("otel-langfuse.json", Format::Otel));
}

#[test]
fn otel_genai_details_events_in_an_export_of_logs() {
    // Written by the same instrumentation's 2.4b0 with
    // OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=EVENT_ONLY: a record a call
    // (`gen_ai.client.inference.operation.details`), its messages and usage as
    // structured attributes.
    insta::assert_snapshot!(sample("otel-genai-log-details.json", Format::Otel));
}

#[test]
fn every_format_has_a_name_that_parses_back() {
    for format in Format::ALL {
        assert_eq!(format.name().parse::<Format>(), Ok(format));
    }
    assert_eq!("responses".parse::<Format>(), Ok(Format::Responses));
    let err = "csv".parse::<Format>().unwrap_err();
    assert!(
        err.contains(
            "auto, jsonl, openai, openai-responses, anthropic, autogen, langroid, langroid-tsv, otel, pydantic-ai, langchain"
        ),
        "{err}"
    );
}

#[test]
fn the_readme_and_the_reference_describe_every_format() {
    let readme = include_str!("../README.md");
    let reference = include_str!("../transcripts.md");
    for format in Format::ALL {
        if format == Format::Auto {
            continue;
        }
        let row = format!("\n| `{}` | ", format.name());
        assert!(
            readme.contains(&row),
            "the README's table of formats has no row for {format}"
        );
        let heading = format!("(`{}`)", format.name());
        assert!(
            reference
                .lines()
                .any(|line| line.starts_with("## ") && line.ends_with(&heading)),
            "transcripts.md has no section for {format}"
        );
    }
}

#[test]
fn responses_items_of_one_model_call_are_one_turn() {
    // One item a line: the reasoning, text and calls of one call are one message,
    // closed by the tool's output and, at the end, by the end of the input.
    let log = r#"{"role": "user", "content": [{"type": "input_text", "text": "go"}]}
{"type": "reasoning", "id": "rs_1", "summary": []}
{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Searching."}]}
{"type": "function_call", "call_id": "c1", "name": "search", "arguments": "{\"q\": 1}"}
{"type": "function_call", "call_id": "c2", "name": "fetch", "arguments": "{}"}
{"type": "function_call_output", "call_id": "c1", "output": [{"type": "input_text", "text": "found"}]}
{"type": "function_call_output", "call_id": "c2", "output": "fetched"}
{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]}
"#;
    let messages = read(log, Format::Auto).unwrap();
    assert_eq!(
        summary(&messages),
        "0 user \"go\"\n\
         1 llm \"Searching.\" call search({\"q\": 1}) id=Some(\"c1\") call fetch({}) id=Some(\"c2\")\n\
         2 agent \"found\" answers=c1\n\
         3 agent \"fetched\" answers=c2\n\
         4 llm \"Done.\"\n"
    );
    // A request: its instructions, then its input.
    let request = r#"{"model": "gpt-5", "instructions": "Be brief.", "input": "Hi"}"#;
    assert_eq!(
        summary(&read(request, Format::Auto).unwrap()),
        "0 system \"Be brief.\"\n1 user \"Hi\"\n"
    );
    // A response whose output is empty is a step with no response.
    let empty =
        r#"{"object": "response", "output": [], "usage": {"input_tokens": 3, "output_tokens": 0}}"#;
    assert!(read(empty, Format::Auto).unwrap()[0].is_no_response());
}

#[test]
fn anthropic_tool_results_are_the_tools_steps() {
    let log = r#"{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "calc", "input": {"x": 1}}]}
{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "is_error": true}, {"type": "text", "text": "try again"}]}
"#;
    let messages = read(log, Format::Auto).unwrap();
    assert_eq!(
        summary(&messages),
        "0 llm call calc({\"x\": 1}) id=Some(\"t1\")\n\
         1 agent answers=t1 error=\"the tool failed\"\n\
         2 user \"try again\"\n"
    );
    // One message to the Python package: tool results are messages of their own.
    let mut de = serde_json::Deserializer::from_str(
        r#"{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "1"}]}"#,
    );
    let err = doneseq::transcript::deserialize_message(&mut de).unwrap_err();
    assert!(err.to_string().contains("1 tool results"), "{err}");
}

#[test]
fn autogen_stop_handoff_and_events() {
    let log = r#"[{"type": "TextMessage", "source": "user", "content": "go"},
{"type": "ThoughtEvent", "source": "a", "content": "hmm"},
{"type": "HandoffMessage", "source": "a", "target": "b", "content": "over to b", "context": []},
{"type": "MultiModalMessage", "source": "b", "content": ["see", {"data": "..."}]},
{"type": "StructuredMessage[Answer]", "source": "b", "content": {"city": "Paris"}, "format_string": null},
{"type": "ToolCallExecutionEvent", "source": "b", "content": [{"content": "boom", "name": "calc", "call_id": "c9", "is_error": true}, {"content": "", "call_id": "c8", "is_error": true}]},
{"type": "StopMessage", "source": "b", "content": "TERMINATE", "models_usage": {"prompt_tokens": 4, "completion_tokens": 1}}]"#;
    assert_eq!(
        summary(&read(log, Format::Auto).unwrap()),
        "0 user @user \"go\"\n\
         1 llm @a \"over to b\" handoff=b\n\
         2 llm @b \"see [image]\"\n\
         3 llm @b \"{\\\"city\\\": \\\"Paris\\\"}\"\n\
         4 agent @b \"boom\" answers=c9 tool=calc error=\"boom\"\n\
         5 agent @b answers=c8 error=\"the tool failed\"\n\
         6 llm @b \"TERMINATE\" tokens=4+1 stop\n"
    );
}

/// An OTLP span of trace `trace`, starting at `start` ns and lasting 1 ms, with the
/// attributes `attrs` (JSON text).
fn otel_span(trace: &str, id: &str, start: u64, attrs: &str) -> String {
    otel_span_until(trace, id, start, start + 1_000_000, attrs)
}

/// An OTLP span of trace `trace` from `start` to `end` ns, with the attributes
/// `attrs` (JSON text).
fn otel_span_until(trace: &str, id: &str, start: u64, end: u64, attrs: &str) -> String {
    format!(
        r#"{{"traceId": "{trace}", "spanId": "{id}", "name": "s", "startTimeUnixNano": "{start}", "endTimeUnixNano": {end}, "attributes": [{attrs}]}}"#
    )
}

/// An OTLP string attribute.
fn otel_kv(key: &str, value: &str) -> String {
    format!(
        r#"{{"key": "{key}", "value": {{"stringValue": {}}}}}"#,
        serde_json::to_string(value).unwrap()
    )
}

/// A GenAI chat span's attributes: its input and output messages (JSON text).
fn otel_chat(input: &str, output: &str) -> String {
    [
        otel_kv("gen_ai.operation.name", "chat"),
        otel_kv("gen_ai.input.messages", input),
        otel_kv("gen_ai.output.messages", output),
    ]
    .join(",")
}

/// A GenAI tool span's attributes: the tool's name and its result, no call id.
fn otel_tool(name: &str, result: &str) -> String {
    [
        otel_kv("gen_ai.operation.name", "execute_tool"),
        otel_kv("gen_ai.tool.name", name),
        otel_kv("gen_ai.tool.call.result", result),
    ]
    .join(",")
}

/// An OTLP export of `spans`.
fn otel_export(spans: &[String]) -> String {
    format!(
        r#"{{"resourceSpans": [{{"scopeSpans": [{{"spans": [{}]}}]}}]}}"#,
        spans.join(",")
    )
}

#[test]
fn otel_tool_results_are_read_once_and_a_new_trace_is_a_new_conversation() {
    // The tool span records no result: the next call's input shows it. That input's
    // tool message is the tool span's step, not a second one.
    let user = r#"[{"role": "user", "parts": [{"type": "text", "content": "hi"}]}]"#;
    let call = r#"[{"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "f", "arguments": "{}"}]}]"#;
    let after = r#"[{"role": "user", "parts": [{"type": "text", "content": "hi"}]}, {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "f", "arguments": "{}"}]}, {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": {"ok": true}}]}]"#;
    let answer = r#"[{"role": "assistant", "parts": [{"type": "text", "content": "ok"}]}]"#;
    let spans = [
        otel_span(
            "t1",
            "1",
            1_000_000,
            &[
                otel_kv("gen_ai.operation.name", "chat"),
                otel_kv("gen_ai.input.messages", user),
                otel_kv("gen_ai.output.messages", call),
            ]
            .join(","),
        ),
        otel_span(
            "t1",
            "2",
            3_000_000,
            &[
                otel_kv("gen_ai.operation.name", "execute_tool"),
                otel_kv("gen_ai.tool.name", "f"),
                otel_kv("gen_ai.tool.call.id", "c1"),
            ]
            .join(","),
        ),
        otel_span(
            "t1",
            "3",
            5_000_000,
            &[
                otel_kv("gen_ai.operation.name", "chat"),
                otel_kv("gen_ai.input.messages", after),
                otel_kv("gen_ai.output.messages", answer),
            ]
            .join(","),
        ),
        otel_span(
            "t2",
            "4",
            9_000_000,
            &[
                otel_kv("gen_ai.operation.name", "chat"),
                otel_kv("gen_ai.input.messages", user),
                otel_kv("gen_ai.output.messages", answer),
            ]
            .join(","),
        ),
    ];
    let export = otel_export(&spans);
    assert_eq!(
        summary(&read(&export, Format::Otel).unwrap()),
        "0 user \"hi\" at=0ms\n\
         1 llm call f({}) id=Some(\"c1\") at=1ms\n\
         2 agent \"{\\\"ok\\\":true}\" answers=c1 tool=f at=3ms\n\
         3 llm \"ok\" at=5ms\n\
         4 user \"hi\" at=0ms\n\
         5 llm \"ok\" at=1ms\n"
    );
}

#[test]
fn otel_tools_run_at_once_are_read_in_the_order_of_their_calls() {
    // A turn of two calls whose tools ran at once, the second's started first (a
    // thread pool's order): their results are read in the order of the calls, as the
    // framework gives them to the model.
    let user = r#"[{"role": "user", "parts": [{"type": "text", "content": "hi"}]}]"#;
    let calls = r#"[{"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "f", "arguments": "{\"q\": \"a\"}"}, {"type": "tool_call", "id": "c2", "name": "f", "arguments": "{\"q\": \"b\"}"}]}]"#;
    let tool = |id: &str, result: &str| {
        [otel_tool("f", result), otel_kv("gen_ai.tool.call.id", id)].join(",")
    };
    let read_with = |second_id: &str| {
        let spans = [
            otel_span("t1", "1", 1_000_000, &otel_chat(user, calls)),
            otel_span_until("t1", "3", 3_000_000, 4_000_000, &tool(second_id, "for b")),
            otel_span_until("t1", "2", 3_100_000, 5_000_000, &tool("c1", "for a")),
        ];
        summary(&read(&otel_export(&spans), Format::Otel).unwrap())
    };
    assert_eq!(
        read_with("c2"),
        "0 user \"hi\" at=0ms\n\
         1 llm call f({\"q\": \"a\"}) id=Some(\"c1\") call f({\"q\": \"b\"}) id=Some(\"c2\") at=1ms\n\
         2 agent \"for a\" answers=c1 tool=f at=4ms\n\
         3 agent \"for b\" answers=c2 tool=f at=3ms\n"
    );
    // A span whose call is not the turn's: the spans keep the order they started in.
    assert!(
        read_with("c9").ends_with(
            "2 agent \"for b\" answers=c9 tool=f at=3ms\n3 agent \"for a\" answers=c1 tool=f at=4ms\n"
        ),
        "{}",
        read_with("c9")
    );
}

#[test]
fn otel_a_trace_whose_first_call_goes_on_from_the_conversation_or_of_no_call_continues_it() {
    // A model client's instrumentation with no framework's above it: each call a
    // trace of its own, its input the conversation so far.
    let user = r#"{"role": "user", "parts": [{"type": "text", "content": "hi"}]}"#;
    let call = r#"{"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "f", "arguments": "{}"}]}"#;
    let result = r#"{"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "ok"}]}"#;
    let answer = r#"{"role": "assistant", "parts": [{"type": "text", "content": "done"}]}"#;
    let list = |messages: &[&str]| format!("[{}]", messages.join(", "));
    let spans = [
        otel_span(
            "t1",
            "1",
            1_000_000,
            &otel_chat(&list(&[user]), &list(&[call])),
        ),
        // A tool's run, a trace of its own (no call in it): the conversation goes on.
        otel_span(
            "t1b",
            "1b",
            1_500_000,
            &[
                otel_kv("gen_ai.operation.name", "execute_tool"),
                otel_kv("gen_ai.tool.name", "f"),
                otel_kv("gen_ai.tool.call.result", "ok"),
            ]
            .join(","),
        ),
        otel_span(
            "t2",
            "2",
            3_000_000,
            &otel_chat(&list(&[user, call, result]), &list(&[answer])),
        ),
        // Another conversation: its input does not go on from this one.
        otel_span(
            "t3",
            "3",
            5_000_000,
            &otel_chat(&list(&[user]), &list(&[answer])),
        ),
    ];
    // One export, or an export a call.
    let one = otel_export(&spans);
    let each: Vec<String> = spans
        .iter()
        .map(|s| otel_export(std::slice::from_ref(s)))
        .collect();
    for text in [one, each.join("\n")] {
        assert_eq!(
            summary(&read(&text, Format::Otel).unwrap()),
            "0 user \"hi\" at=0ms\n\
             1 llm call f({}) id=Some(\"c1\") at=1ms\n\
             2 agent \"ok\" answers=c1 tool=f at=1ms\n\
             3 llm \"done\" at=3ms\n\
             4 user \"hi\" at=0ms\n\
             5 llm \"done\" at=1ms\n"
        );
    }
}

#[test]
fn otel_langfuse_observations_as_its_integrations_write_them() {
    let observation = |id: &str, parent: &str, start: u64, name: &str, attrs: &[String]| {
        let span = otel_span("t1", id, start, &attrs.join(","));
        let named = format!(r#""name": "{name}", "parentSpanId": "{parent}", "#);
        span.replacen(r#""name": "s", "#, &named, 1)
    };
    let kind = |t: &str| otel_kv("langfuse.observation.type", t);
    let spans = [
        observation("1", "", 1_000_000, "planner", &[kind("agent")]),
        // A request's messages (Anthropic's blocks); the answer a text, not JSON; the
        // usage by Langfuse's names.
        observation(
            "2",
            "1",
            2_000_000,
            "generation",
            &[
                kind("generation"),
                otel_kv(
                    "langfuse.observation.input",
                    r#"{"messages": [{"role": "user", "content": [{"type": "text", "text": "Find it"}]}], "model": "m"}"#,
                ),
                otel_kv("langfuse.observation.output", "Let me look."),
                otel_kv(
                    "langfuse.observation.usage_details",
                    r#"{"input": 7, "output": 2, "total": 9}"#,
                ),
            ],
        ),
        // Not steps.
        observation("3", "1", 3_000_000, "step", &[kind("span")]),
        observation("4", "1", 3_500_000, "note", &[kind("event")]),
        // The model's message without a role, then a tool whose output is JSON.
        observation(
            "5",
            "1",
            4_000_000,
            "generation",
            &[
                kind("generation"),
                otel_kv(
                    "langfuse.observation.input",
                    r#"["Find it", {"role": "assistant", "content": "Let me look."}]"#,
                ),
                otel_kv(
                    "langfuse.observation.output",
                    r#"{"content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "count", "arguments": "{}"}}]}"#,
                ),
            ],
        ),
        observation(
            "6",
            "1",
            5_000_000,
            "count",
            &[
                kind("tool"),
                otel_kv(
                    "langfuse.observation.input",
                    r#"{"args": [], "kwargs": {}}"#,
                ),
                otel_kv("langfuse.observation.output", r#"{"n": 3}"#),
            ],
        ),
        // As its LangChain integration writes them: a call LangChain's way, a tool's
        // output LangChain's tool message.
        observation(
            "7",
            "1",
            6_000_000,
            "generation",
            &[
                kind("generation"),
                otel_kv(
                    "langfuse.observation.output",
                    r#"{"role": "assistant", "content": "", "tool_calls": [{"name": "search", "args": {"q": "x"}, "id": "c2", "type": "tool_call"}]}"#,
                ),
            ],
        ),
        observation(
            "8",
            "1",
            7_000_000,
            "search",
            &[
                kind("tool"),
                otel_kv(
                    "langfuse.observation.output",
                    r#"{"content": "found", "type": "tool", "name": "search", "tool_call_id": "c2", "status": "success"}"#,
                ),
            ],
        ),
    ];
    assert_eq!(
        summary(&read(&otel_export(&spans), Format::Auto).unwrap()),
        "0 user \"Find it\" at=1ms\n\
         1 llm @planner \"Let me look.\" tokens=7+2 at=2ms\n\
         2 llm @planner call count({}) id=Some(\"c1\") at=4ms\n\
         3 agent @planner \"{\\\"n\\\": 3}\" answers=c1 tool=count at=5ms\n\
         4 llm @planner call search({\"q\":\"x\"}) id=Some(\"c2\") at=6ms\n\
         5 agent @planner \"found\" answers=c2 tool=search at=7ms\n"
    );
    // A function decorated with `@observe(as_type="generation")`: its arguments.
    let generation = |input: &str| {
        let span = observation(
            "1",
            "",
            1_000_000,
            "call_llm",
            &[
                kind("generation"),
                otel_kv("langfuse.observation.input", input),
                otel_kv("langfuse.observation.output", "hello"),
            ],
        );
        read(&otel_export(&[span]), Format::Otel).map(|m| summary(&m))
    };
    let user = r#"{"role": "user", "content": "Find it"}"#;
    for input in [
        format!(r#"{{"args": [[{user}]], "kwargs": {{}}}}"#),
        format!(r#"{{"args": ["gpt-4o"], "kwargs": {{"messages": [{user}], "n": 1}}}}"#),
        r#"{"args": [3, "Find it"], "kwargs": {}}"#.to_owned(),
        r#"{"args": [], "kwargs": {"prompt": "Find it"}}"#.to_owned(),
    ] {
        assert_eq!(
            generation(&input).unwrap(),
            "0 user \"Find it\" at=0ms\n1 llm \"hello\" at=1ms\n",
            "{input}"
        );
    }
    let err = generation(r#"{"args": [3], "kwargs": {"n": 1}}"#).unwrap_err();
    assert!(
        err.message.starts_with(
            "langfuse.observation.input: the decorated function's arguments (args, kwargs) hold no messages"
        ),
        "{err}"
    );
    // A list of what is not a message, or a message that does not read: where.
    for (input, expected) in [
        (
            r#"[{"role": "user", "content": "hi"}, 3]"#,
            "langfuse.observation.input[1]: not a chat message: 3",
        ),
        (r#"[{"content": "hi"}]"#, "langfuse.observation.input[0]: "),
    ] {
        let span = observation(
            "1",
            "",
            1_000_000,
            "generation",
            &[
                kind("generation"),
                otel_kv("langfuse.observation.input", input),
            ],
        );
        let err = read(&otel_export(&[span]), Format::Otel).unwrap_err();
        assert!(err.message.starts_with(expected), "{err}");
    }
}

/// An OTLP log record of span `span` at `time` ns: the event `event`, its body (the
/// value's JSON text, or none) and its attributes (JSON text).
fn otel_record(span: &str, time: u64, event: &str, body: Option<&str>, attrs: &str) -> String {
    let body = body.map_or(String::new(), |b| format!(r#""body": {b}, "#));
    format!(
        r#"{{"timeUnixNano": "{time}", "traceId": "t{span}", "spanId": "{span}", "eventName": "{event}", {body}"attributes": [{attrs}]}}"#
    )
}

/// An OTLP export of the log records `records`.
fn otel_logs(records: &[String]) -> String {
    format!(
        r#"{{"resourceLogs": [{{"scopeLogs": [{{"logRecords": [{}]}}]}}]}}"#,
        records.join(",")
    )
}

/// An OTLP map value of string fields.
fn otel_map(fields: &[(&str, &str)]) -> String {
    let fields: Vec<String> = (fields.iter())
        .map(|(k, v)| format!(r#"{{"key": "{k}", "value": {{"stringValue": "{v}"}}}}"#))
        .collect();
    format!(
        r#"{{"kvlistValue": {{"values": [{}]}}}}"#,
        fields.join(", ")
    )
}

#[test]
fn otel_a_call_a_trace_and_its_log_records_both_hold_is_read_once() {
    // The older events: the span holds the usage, the log records the messages.
    let span = otel_span(
        "t1",
        "1",
        1_000_000,
        &[
            otel_kv("gen_ai.operation.name", "chat"),
            otel_int("gen_ai.usage.input_tokens", 7),
            otel_int("gen_ai.usage.output_tokens", 2),
        ]
        .join(","),
    );
    let message = |event: &str, content: &str| {
        otel_record(
            "1",
            1_500_000,
            event,
            Some(&otel_map(&[("content", content)])),
            "",
        )
    };
    let choice = r#"{"kvlistValue": {"values": [{"key": "index", "value": {"intValue": "0"}}, {"key": "message", "value": {"kvlistValue": {"values": [{"key": "content", "value": {"stringValue": "hello"}}]}}}]}}"#;
    let records = otel_logs(&[
        message("gen_ai.user.message", "hi"),
        otel_record("1", 2_000_000, "gen_ai.choice", Some(choice), ""),
    ]);
    let trace = otel_export(&[span]);
    let read_one = |lines: &[&str]| summary(&read(&lines.join("\n"), Format::Otel).unwrap());
    assert_eq!(
        read_one(&[&trace, &records]),
        "0 user \"hi\" at=0ms\n1 llm \"hello\" tokens=7+2 at=1ms\n"
    );
    // The export of logs alone: no usage. First: the span's usage comes too late.
    let without_usage = "0 user \"hi\" at=0ms\n1 llm \"hello\" at=0ms\n";
    assert_eq!(read_one(&[&records]), without_usage);
    assert_eq!(read_one(&[&records, &trace]), without_usage);

    // The latest conventions: the details event, messages as structured values, and
    // the span that holds them too (JSON text), in either order.
    let input = r#"[{"role": "user", "parts": [{"type": "text", "content": "hi"}]}]"#;
    let output = r#"[{"role": "assistant", "parts": [{"type": "text", "content": "hello"}]}]"#;
    let structured = |key: &str, json: &str| {
        let value: serde_json::Value = serde_json::from_str(json).unwrap();
        format!(r#"{{"key": "{key}", "value": {}}}"#, any_value(&value))
    };
    let details = otel_logs(&[otel_record(
        "1",
        2_000_000,
        "gen_ai.client.inference.operation.details",
        None,
        &[
            otel_kv("gen_ai.operation.name", "chat"),
            structured("gen_ai.input.messages", input),
            structured("gen_ai.output.messages", output),
            otel_int("gen_ai.usage.input_tokens", 7),
        ]
        .join(","),
    )]);
    let span = otel_export(&[otel_span("t1", "1", 1_000_000, &otel_chat(input, output))]);
    let once = "0 user \"hi\" at=0ms\n1 llm \"hello\" tokens=7+0 at=0ms\n";
    assert_eq!(read_one(&[&details]), once);
    assert_eq!(read_one(&[&details, &span]), once);
    assert_eq!(
        read_one(&[&span, &details]),
        "0 user \"hi\" at=0ms\n1 llm \"hello\" at=1ms\n"
    );
    // Another call alike (another span: asked again) is a step of its own.
    let again = otel_export(&[otel_span("t1", "2", 3_000_000, &otel_chat(input, output))]);
    assert_eq!(
        read_one(&[&span, &again, &details]),
        "0 user \"hi\" at=0ms\n1 llm \"hello\" at=1ms\n2 llm \"hello\" at=3ms\n"
    );
}

/// A JSON value as an OTLP `AnyValue` (JSON text).
fn any_value(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::String(s) => format!(r#"{{"stringValue": {}}}"#, Value::from(s.as_str())),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(any_value).collect();
            format!(r#"{{"arrayValue": {{"values": [{}]}}}}"#, items.join(", "))
        }
        Value::Object(fields) => {
            let fields: Vec<String> = (fields.iter())
                .map(|(k, v)| format!(r#"{{"key": "{k}", "value": {}}}"#, any_value(v)))
                .collect();
            format!(
                r#"{{"kvlistValue": {{"values": [{}]}}}}"#,
                fields.join(", ")
            )
        }
        other => format!(r#"{{"stringValue": "{other}"}}"#),
    }
}

#[test]
fn otel_log_records_that_name_no_span_are_a_call_until_the_next_input() {
    let record = |time: u64, event: &str, content: &str| {
        let fields = if event == "gen_ai.choice" {
            format!(
                r#"{{"kvlistValue": {{"values": [{{"key": "message", "value": {}}}]}}}}"#,
                otel_map(&[("content", content)])
            )
        } else {
            otel_map(&[("content", content)])
        };
        format!(
            r#"{{"timeUnixNano": "{time}", "body": {fields}, "attributes": [{}]}}"#,
            otel_kv("event.name", event)
        )
    };
    let records = otel_logs(&[
        record(1_000_000, "gen_ai.user.message", "hi"),
        record(2_000_000, "gen_ai.choice", "hello"),
        // An application's own log: not a step, not an error.
        r#"{"timeUnixNano": "2500000", "body": {"stringValue": "GET /"}}"#.to_owned(),
        record(3_000_000, "gen_ai.user.message", "hi"),
        record(3_000_000, "gen_ai.assistant.message", "hello"),
        record(3_000_000, "gen_ai.user.message", "and?"),
        record(4_000_000, "gen_ai.choice", "that's all"),
    ]);
    assert_eq!(
        summary(&read(&records, Format::Auto).unwrap()),
        "0 user \"hi\" at=0ms\n\
         1 llm \"hello\" at=1ms\n\
         2 user \"and?\" at=2ms\n\
         3 llm \"that's all\" at=3ms\n"
    );
}

#[test]
fn otel_a_calls_log_records_cut_between_exports_anywhere_are_read_as_one() {
    // The sample's export of logs (two calls, 8 records), cut as a batch a line cuts
    // it: at every record, and a record a line; after the trace's export.
    let text = sample_text("otel-genai-logs.jsonl");
    let (trace, logs) = text.trim_end().split_once('\n').unwrap();
    let whole = summary(&read(&text, Format::Otel).unwrap());
    let export: serde_json::Value = serde_json::from_str(logs).unwrap();
    let records = export["resourceLogs"][0]["scopeLogs"][0]["logRecords"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(records.len(), 8);
    let lines = |parts: &[&[serde_json::Value]]| -> String {
        let mut lines = vec![trace.to_owned()];
        for part in parts {
            let mut export = export.clone();
            export["resourceLogs"][0]["scopeLogs"][0]["logRecords"] = part.to_vec().into();
            lines.push(export.to_string());
        }
        lines.join("\n")
    };
    for cut in 0..=records.len() {
        let (a, b) = records.split_at(cut);
        let cut_text = lines(&[a, b]);
        assert_eq!(
            summary(&read(&cut_text, Format::Otel).unwrap()),
            whole,
            "cut at {cut}"
        );
    }
    let each: Vec<&[serde_json::Value]> = records.chunks(1).collect();
    assert_eq!(summary(&read(&lines(&each), Format::Otel).unwrap()), whole);
}

#[test]
fn otel_a_call_of_log_records_without_its_choice_is_read_as_it_is() {
    let message = |span: &str, time: u64, event: &str, content: &str| {
        let body = otel_map(&[("content", content)]);
        otel_record(span, time, event, Some(&body), "")
    };
    let choice = |span: &str, time: u64, content: &str| {
        let body = format!(
            r#"{{"kvlistValue": {{"values": [{{"key": "message", "value": {}}}]}}}}"#,
            otel_map(&[("content", content)])
        );
        otel_record(span, time, "gen_ai.choice", Some(&body), "")
    };
    // The first call failed (no choice), the next asked again: the first is read
    // before it, in its place, not held; so is one the next export adds nothing to.
    let text = [
        otel_logs(&[
            message("1", 1_000_000, "gen_ai.user.message", "hi"),
            message("2", 2_000_000, "gen_ai.user.message", "hi"),
            choice("2", 3_000_000, "hello"),
            message("4", 3_500_000, "gen_ai.user.message", "hi"),
            message("4", 3_500_000, "gen_ai.assistant.message", "hello"),
        ]),
        // The last call failed too: read at the transcript's end.
        otel_logs(&[
            message("3", 4_000_000, "gen_ai.user.message", "hi"),
            message("3", 4_000_000, "gen_ai.assistant.message", "hello"),
            message("3", 4_000_000, "gen_ai.user.message", "and?"),
        ]),
    ]
    .join("\n");
    assert_eq!(
        summary(&read(&text, Format::Otel).unwrap()),
        "0 user \"hi\" at=0ms\n1 llm \"hello\" at=2ms\n2 user \"and?\" at=3ms\n"
    );
}

#[test]
fn otel_log_records_that_give_no_message_or_a_wrong_body_are_errors() {
    let app = r#"{"timeUnixNano": "1", "body": {"stringValue": "GET /"}}"#;
    let err = read(&otel_logs(&[app.to_owned(), app.to_owned()]), Format::Auto).unwrap_err();
    assert!(
        err.message.starts_with(
            "no message: none of the transcript's 2 log records is a GenAI span or event"
        ) && err.message.ends_with("; format otel (detected)"),
        "{err}"
    );
    for (body, expected) in [
        (r#"{"stringValue": "hi"}"#, "the body is not JSON"),
        (r#"{"intValue": "3"}"#, "the body is not a map: 3"),
    ] {
        let record = otel_record("1", 1, "gen_ai.user.message", Some(body), "");
        let err = read(&otel_logs(&[record]), Format::Otel).unwrap_err();
        let expected = format!("event gen_ai.user.message: {expected}");
        assert!(err.message.starts_with(&expected), "{err}");
    }
    let details = otel_record(
        "1",
        1,
        "gen_ai.client.inference.operation.details",
        None,
        &[
            otel_kv("gen_ai.operation.name", "chat"),
            otel_int("gen_ai.input.messages", 3),
        ]
        .join(","),
    );
    let err = read(&otel_logs(&[details]), Format::Otel).unwrap_err();
    assert!(
        err.message
            .starts_with("gen_ai.input.messages is not a list of messages: 3"),
        "{err}"
    );
}

#[test]
fn otel_a_call_written_with_another_id_later_and_a_tool_span_without_one_are_read_once() {
    // As OpenLLMetry's OpenAI Agents instrumentation writes a run: the second call's
    // input shows the first call's tool call with the item's id (`fc_1`) where its
    // output gave the call id (`c1`), and the tool span records the result but no
    // call id. The history is the conversation so far, not new steps; the tool span
    // answers the pending call of its tool.
    let user = r#"{"role": "user", "parts": [{"type": "text", "content": "Find it"}]}"#;
    let call = |id: &str| {
        format!(
            r#"{{"role": "assistant", "parts": [{{"type": "tool_call", "name": "search", "id": "{id}", "arguments": {{"query": "a"}}}}]}}"#
        )
    };
    let response = r#"{"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "results for a"}]}"#;
    let answer = r#"[{"role": "assistant", "parts": [{"type": "text", "content": "A."}], "finish_reason": "stop"}]"#;
    let spans = [
        otel_span(
            "t1",
            "1",
            1_000_000,
            &otel_chat(&format!("[{user}]"), &format!("[{}]", call("c1"))),
        ),
        otel_span("t1", "2", 3_000_000, &otel_tool("search", "results for a")),
        otel_span(
            "t1",
            "3",
            5_000_000,
            &[
                otel_kv("gen_ai.operation.name", "chat"),
                otel_kv(
                    "gen_ai.input.messages",
                    &format!("[{user}, {}, {response}]", call("fc_1")),
                ),
                otel_kv("gen_ai.output.messages", answer),
            ]
            .join(","),
        ),
    ];
    assert_eq!(
        summary(&read(&otel_export(&spans), Format::Otel).unwrap()),
        "0 user \"Find it\" at=0ms\n\
         1 llm call search({\"query\":\"a\"}) id=Some(\"c1\") at=1ms\n\
         2 agent \"results for a\" answers=c1 tool=search at=3ms\n\
         3 llm \"A.\" at=5ms\n"
    );
}

/// An OTLP integer attribute.
fn otel_int(key: &str, n: u64) -> String {
    format!(r#"{{"key": "{key}", "value": {{"intValue": "{n}"}}}}"#)
}

#[test]
fn otel_openinference_messages_flattened_into_attributes() {
    let kv = |key: &str, value: &str| otel_kv(key, value);
    let system = [
        kv("llm.input_messages.0.message.role", "system"),
        kv("llm.input_messages.0.message.content", "Be brief."),
    ];
    // The user's texts among other contents; indices need not follow each other.
    let user = [
        kv("llm.input_messages.2.message.role", "user"),
        kv(
            "llm.input_messages.2.message.contents.2.message_content.type",
            "text",
        ),
        kv(
            "llm.input_messages.2.message.contents.2.message_content.text",
            "this up",
        ),
        kv(
            "llm.input_messages.2.message.contents.0.message_content.type",
            "text",
        ),
        kv(
            "llm.input_messages.2.message.contents.0.message_content.text",
            "Look",
        ),
        kv(
            "llm.input_messages.2.message.contents.1.message_content.type",
            "image",
        ),
        kv(
            "llm.input_messages.2.message.contents.1.message_content.image.image.url",
            "https://x/y.png",
        ),
    ];
    let call = |prefix: &str| {
        [
            kv(&format!("{prefix}.message.tool_calls.0.tool_call.id"), "c1"),
            kv(
                &format!("{prefix}.message.tool_calls.0.tool_call.function.name"),
                "search",
            ),
            kv(
                &format!("{prefix}.message.tool_calls.0.tool_call.function.arguments"),
                r#"{"q": "x"}"#,
            ),
        ]
    };
    let first: Vec<String> = [kv("openinference.span.kind", "LLM")]
        .into_iter()
        .chain(system.clone())
        .chain(user.clone())
        // Gemini's name for the model's role.
        .chain([kv("llm.output_messages.0.message.role", "model")])
        .chain(call("llm.output_messages.0"))
        .chain([
            otel_int("llm.token_count.prompt", 7),
            otel_int("llm.token_count.completion", 3),
        ])
        .collect();
    let tool = [
        kv("openinference.span.kind", "TOOL"),
        kv("tool.name", "search"),
        kv("tool.id", "c1"),
        kv("input.value", r#"{"q": "x"}"#),
        kv("output.value", "found x"),
    ];
    let second: Vec<String> = [kv("openinference.span.kind", "LLM")]
        .into_iter()
        .chain(system)
        .chain(user)
        .chain([kv("llm.input_messages.3.message.role", "assistant")])
        .chain(call("llm.input_messages.3"))
        .chain([
            kv("llm.input_messages.4.message.role", "tool"),
            kv("llm.input_messages.4.message.tool_call_id", "c1"),
            kv("llm.input_messages.4.message.content", "found x"),
            // An older single call.
            kv("llm.output_messages.0.message.role", "assistant"),
            kv("llm.output_messages.0.message.function_call_name", "finish"),
            kv(
                "llm.output_messages.0.message.function_call_arguments_json",
                "{}",
            ),
        ])
        .collect();
    let spans = [
        otel_span("t1", "1", 1_000_000, &first.join(",")),
        otel_span("t1", "2", 3_000_000, &tool.join(",")),
        otel_span("t1", "3", 5_000_000, &second.join(",")),
        otel_span(
            "t1",
            "4",
            7_000_000,
            &kv("openinference.span.kind", "CHAIN"),
        ),
    ];
    assert_eq!(
        summary(&read(&otel_export(&spans), Format::Auto).unwrap()),
        "0 system \"Be brief.\" at=0ms\n\
         1 user \"Look\\nthis up\" at=0ms\n\
         2 llm call search({\"q\": \"x\"}) id=Some(\"c1\") tokens=7+3 at=1ms\n\
         3 agent \"found x\" answers=c1 tool=search at=3ms\n\
         4 llm call finish({}) id=None at=5ms\n"
    );
}

#[test]
fn otel_a_tool_span_result_shown_under_another_id_in_the_next_input_is_read_once() {
    // As OpenLLMetry's OpenAI instrumentation writes a Responses API run: the call
    // with the item's id (`fc_1`), its result in the next input with the call id
    // (`call_1`); the tool span records its result and no id.
    let user = r#"{"role": "user", "parts": [{"type": "text", "content": "Go"}]}"#;
    let call = r#"{"role": "assistant", "parts": [{"type": "tool_call", "name": "search", "id": "fc_1", "arguments": {"q": "a"}}]}"#;
    let result = r#"{"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_1", "response": "found"}]}"#;
    let answer = r#"[{"role": "assistant", "parts": [{"type": "text", "content": "Done."}]}]"#;
    let spans = [
        otel_span(
            "t1",
            "1",
            1_000_000,
            &otel_chat(&format!("[{user}]"), &format!("[{call}]")),
        ),
        otel_span("t1", "2", 3_000_000, &otel_tool("search", "found")),
        otel_span(
            "t1",
            "3",
            5_000_000,
            &otel_chat(&format!("[{user}, {call}, {result}]"), answer),
        ),
    ];
    assert_eq!(
        summary(&read(&otel_export(&spans), Format::Otel).unwrap()),
        "0 user \"Go\" at=0ms\n\
         1 llm call search({\"q\":\"a\"}) id=Some(\"fc_1\") at=1ms\n\
         2 agent \"found\" answers=fc_1 tool=search at=3ms\n\
         3 llm \"Done.\" at=5ms\n"
    );
}

#[test]
fn otel_a_call_recorded_by_two_layers_is_read_once_and_an_answers_items_are_one_turn() {
    // Instrumentations of an agent framework and of its model client both record each
    // call: the client's LLM span (with the system prompt, and the Responses API
    // output's two calls written as two messages) under the framework's (as
    // OpenInference's do), or in a trace of its own, within the framework's span's time
    // (as OpenLLMetry's do). The framework's, among its agent's spans, is read.
    let kv = |key: &str, value: &str| otel_kv(key, value);
    let llm = [kv("openinference.span.kind", "LLM")];
    let user = [
        kv("llm.input_messages.1.message.role", "user"),
        kv("llm.input_messages.1.message.content", "Go"),
    ];
    let call = |i: usize, name: &str| {
        let at = format!("llm.output_messages.{i}.message");
        [
            kv(&format!("{at}.role"), "assistant"),
            kv(&format!("{at}.tool_calls.0.tool_call.id"), &format!("c{i}")),
            kv(&format!("{at}.tool_calls.0.tool_call.function.name"), name),
        ]
    };
    let tokens = [
        otel_int("llm.token_count.prompt", 9),
        otel_int("llm.token_count.completion", 4),
    ];
    let outer: Vec<String> = (llm.iter().cloned())
        .chain(user.clone())
        .chain(call(0, "search"))
        .chain(call(1, "fetch"))
        .chain(tokens.clone())
        .collect();
    let inner: Vec<String> = (llm.iter().cloned())
        .chain([
            kv("llm.input_messages.0.message.role", "system"),
            kv("llm.input_messages.0.message.content", "Be brief."),
        ])
        .chain(user)
        .chain(call(0, "search"))
        .chain(call(1, "fetch"))
        .chain(tokens)
        .collect();
    let child = |span: String, parent: &str| {
        span.replacen(
            "\"name\"",
            &format!("\"parentSpanId\": \"{parent}\", \"name\""),
            1,
        )
    };
    let agent = otel_span_until(
        "t1",
        "1",
        1_000_000,
        9_000_000,
        &kv("agent.name", "planner"),
    );
    let framework = child(
        otel_span_until("t1", "2", 2_000_000, 6_000_000, &outer.join(",")),
        "1",
    );
    let expected = "0 user \"Go\" at=1ms\n\
         1 llm @planner call search() id=Some(\"c0\") call fetch() id=Some(\"c1\") tokens=9+4 at=5ms\n";
    for client in [
        child(otel_span("t1", "3", 3_000_000, &inner.join(",")), "2"),
        otel_span_until("t2", "3", 3_000_000, 5_000_000, &inner.join(",")),
    ] {
        let spans = [agent.clone(), framework.clone(), client];
        assert_eq!(
            summary(&read(&otel_export(&spans), Format::Otel).unwrap()),
            expected
        );
    }
    // In a trace of its own but not within the framework's call, or within it with
    // the same answer to another question (a run alongside): another call.
    let apart = otel_span_until("t2", "3", 7_000_000, 8_000_000, &inner.join(","));
    let messages = read(
        &otel_export(&[agent.clone(), framework.clone(), apart]),
        Format::Otel,
    )
    .unwrap();
    assert_eq!(messages.len(), 5, "{}", summary(&messages));
    let other = inner.join(",").replace("\"Go\"", "\"Other\"");
    let alongside = otel_span_until("t2", "3", 3_000_000, 5_000_000, &other);
    let messages = read(&otel_export(&[agent, framework, alongside]), Format::Otel).unwrap();
    assert_eq!(messages.len(), 5, "{}", summary(&messages));
    assert_eq!(messages[3].content(), "Other");
    // Asked for two choices, the two outputs are alternatives: refused.
    let choices: Vec<String> = (llm.iter().cloned())
        .chain(call(0, "search"))
        .chain(call(1, "fetch"))
        .chain([kv("llm.invocation_parameters", r#"{"model": "m", "n": 2}"#)])
        .collect();
    let spans = [otel_span("t1", "1", 1_000_000, &choices.join(","))];
    let err = read(&otel_export(&spans), Format::Otel).unwrap_err();
    assert!(
        err.message
            .starts_with("a chat span with 2 output messages (choices)"),
        "{err}"
    );
    // The same in the GenAI conventions: one turn, unless two choices were asked for.
    let two = r#"[{"role": "assistant", "parts": [{"type": "text", "content": "a"}]}, {"role": "assistant", "parts": [{"type": "tool_call", "name": "f", "arguments": {}}]}]"#;
    let genai = |count: u64| {
        let attrs = [
            kv("gen_ai.operation.name", "chat"),
            kv("gen_ai.output.messages", two),
            otel_int("gen_ai.request.choice.count", count),
        ];
        read(
            &otel_export(&[otel_span("t1", "1", 1_000_000, &attrs.join(","))]),
            Format::Otel,
        )
    };
    assert_eq!(
        summary(&genai(1).unwrap()),
        "0 llm \"a\" call f({}) id=None at=1ms\n"
    );
    let err = genai(2).unwrap_err();
    assert!(
        err.message
            .starts_with("a chat span with 2 output messages (choices)"),
        "{err}"
    );
}

#[test]
fn otel_an_openinference_tool_output_is_read_as_its_framework_wrote_it() {
    let kv = |key: &str, value: &str| otel_kv(key, value);
    let llm = [
        kv("openinference.span.kind", "LLM"),
        kv("llm.output_messages.0.message.role", "assistant"),
        kv(
            "llm.output_messages.0.message.tool_calls.0.tool_call.id",
            "c1",
        ),
        kv(
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.name",
            "search",
        ),
    ];
    let tool = |output: &str| {
        [
            kv("openinference.span.kind", "TOOL"),
            kv("tool.name", "search"),
            kv("output.value", output),
        ]
        .join(",")
    };
    let read_tool = |output: &str| {
        let spans = [
            otel_span("t1", "1", 1_000_000, &llm.join(",")),
            otel_span("t1", "2", 3_000_000, &tool(output)),
        ];
        let messages = read(&otel_export(&spans), Format::Otel).unwrap();
        summary(&messages[1..])
    };
    // LangChain's tool message: its content, and the call it names.
    assert_eq!(
        read_tool(
            r#"{"type": "tool", "data": {"content": "found", "type": "tool", "name": "search", "tool_call_id": "c1", "status": "success"}}"#
        ),
        "0 agent \"found\" answers=c1 tool=search at=3ms\n"
    );
    // Any other output: as it is (no later call shows the result).
    assert_eq!(
        read_tool(r#"{"hits": 3}"#),
        "0 agent \"{\\\"hits\\\": 3}\" answers=c1 tool=search at=3ms\n"
    );
}

#[test]
fn otel_spans_that_give_no_message_or_wrong_attributes_are_errors() {
    let error = |spans: &[String]| read(&otel_export(spans), Format::Auto).unwrap_err();
    let span = |attrs: &[String]| otel_span("t1", "1", 1_000_000, &attrs.join(","));
    // No span of either convention: said, not read as an empty run.
    let err = error(&[
        span(&[otel_kv("http.method", "GET")]),
        otel_span("t1", "2", 2_000_000, ""),
    ]);
    assert_eq!(
        (err.line, err.kind, err.format),
        (1, TranscriptErrorKind::Message, Some(Format::Otel))
    );
    assert!(
        err.message
            .starts_with("no message: none of the transcript's 2 spans is a GenAI span")
            && err.message.ends_with("; format otel (detected)"),
        "{err}"
    );
    // Chat spans recorded without their messages (the tool spans alone are not the
    // run).
    let err = error(&[
        span(&[
            otel_kv("gen_ai.operation.name", "chat"),
            otel_int("gen_ai.usage.input_tokens", 5),
        ]),
        otel_span(
            "t1",
            "2",
            2_000_000,
            &[
                otel_kv("gen_ai.operation.name", "execute_tool"),
                otel_kv("gen_ai.tool.name", "f"),
            ]
            .join(","),
        ),
    ]);
    assert!(
        err.message
            .starts_with("none of the transcript's 1 chat spans carries its messages"),
        "{err}"
    );
    // What to set, and where the content went otherwise.
    assert!(
        err.message
            .contains("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY")
            && err.message.contains("in log records with EVENT_ONLY")
            && err.message.contains("the export of logs"),
        "{err}"
    );
    // OpenInference's flattened messages, wrong: the attribute and the field named.
    let llm = |attrs: &[(&str, &str)]| {
        let mut list = vec![otel_kv("openinference.span.kind", "LLM")];
        list.extend(attrs.iter().map(|(k, v)| otel_kv(k, v)));
        error(&[span(&list)]).message
    };
    for (attrs, expected) in [
        (
            &[("llm.input_messages.x.message.role", "user")][..],
            "attribute llm.input_messages.x.message.role is not llm.input_messages.<index>.message.<field>",
        ),
        (
            &[("llm.output_messages.0.message.content", "hi")][..],
            "llm.output_messages.0 has no message.role",
        ),
        (
            &[("llm.output_messages.1.message.role", "wizard")][..],
            "llm.output_messages.1.message.role: ",
        ),
        (
            &[
                ("llm.output_messages.0.message.role", "assistant"),
                (
                    "llm.output_messages.0.message.tool_calls.0.tool_call.id",
                    "c1",
                ),
            ][..],
            "llm.output_messages.0.message.tool_calls.0 has no tool_call.function.name",
        ),
    ] {
        let message = llm(attrs);
        assert!(message.starts_with(expected), "{message}");
        assert!(message.contains("format otel (detected)"), "{message}");
    }
    let err = error(&[span(&[
        otel_kv("openinference.span.kind", "LLM"),
        otel_kv("llm.input_messages.0.message.role", "user"),
        otel_int("llm.input_messages.0.message.content", 3),
    ])]);
    assert!(
        err.message
            .starts_with("llm.input_messages.0.message.content is not a string"),
        "{err}"
    );
}

#[test]
fn alternatives_are_refused_not_guessed() {
    let two = r#"{"object": "chat.completion", "choices": [{"message": {"role": "assistant", "content": "a"}}, {"message": {"role": "assistant", "content": "b"}}]}"#;
    let err = read(two, Format::Auto).unwrap_err();
    assert_eq!(err.kind, TranscriptErrorKind::Message);
    assert!(err.message.contains("2 choices"), "{err}");
}

#[test]
fn errors_name_the_format_the_line_and_the_field() {
    // A Responses log whose third line has an unknown item type.
    let log = "{\"role\": \"user\", \"content\": \"go\"}\n{\"type\": \"function_call\", \"call_id\": \"c\", \"name\": \"f\", \"arguments\": \"{}\"}\n{\"type\": \"telepathy_call_result\"}\n";
    let err = read(log, Format::Auto).unwrap_err();
    assert_eq!(
        (err.line, err.format),
        (3, Some(Format::Responses)),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("unknown type \"telepathy_call_result\""),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("format openai-responses (detected)"),
        "{err}"
    );
    // A format given that the log is not in: what was expected, and the field.
    let err = read(
        "{\"role\": \"user\", \"content\": \"go\"}\n",
        Format::AutoGen,
    )
    .unwrap_err();
    assert_eq!((err.line, err.kind), (1, TranscriptErrorKind::Json));
    let text = err.to_string();
    assert!(
        text.starts_with("line 1, column 33: expected an AutoGen message (model_dump()), format autogen (given): missing field `type`"),
        "{text}"
    );
    // An error in an element of a document: the element's own line, counted from 1.
    let doc = "{\n  \"system\": \"s\",\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"a\"},\n    {\"role\": \"assistant\", \"content\": [{\"type\": \"tool_use\", \"input\": {}}]}\n  ]\n}\n";
    let err = read(doc, Format::Auto).unwrap_err();
    assert_eq!(err.line, 5, "{err}");
    assert!(
        err.message
            .contains("element 2 of 2: content part 0 of type \"tool_use\" has no \"name\""),
        "{err}"
    );
    // A JSON error inside an element: its line and column in the document.
    let doc = "[\n {\"role\": \"user\"},\n {\"role\": \"user\", \"contnt\": 1}\n]\n";
    let err = read(doc, Format::Auto).unwrap_err();
    assert_eq!((err.line, err.column), (3, Some(26)), "{err}");
    assert!(err.message.contains("unknown field `contnt`"), "{err}");
}

#[test]
fn a_record_wrong_past_its_keys_is_refused_where_it_is_wrong_as_its_format() {
    // `auto` tells a record by its keys, not by whether the rest of it is JSON: a
    // trajectory mini-swe-agent was writing when it was stopped, or a log with one
    // bad value, is refused by its own format's reader, where it is wrong (not as a
    // chat message with an unknown first key).
    let trajectory = sample_text("mini-swe-agent.traj.json");
    let log = sample_text("inspect-log.json");
    let responses = "{\"id\": \"resp_1\", \"object\": \"response\", \"model\": \"m\", \"output\": [], \"usage\": {\"input_tokens\": 01}}\n";
    let request = "{\n  \"system\": \"s\",\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"a\"},\n";
    let cases = [
        (
            trajectory[..trajectory.len() / 2].to_owned(),
            Format::MiniSweAgent,
            "EOF while parsing",
        ),
        (
            trajectory.replacen("\"returncode\": 0", "\"returncode\": 01", 1),
            Format::MiniSweAgent,
            "invalid number",
        ),
        (
            log.replacen("true", "tru", 1),
            Format::Inspect,
            "expected ident",
        ),
        (responses.to_owned(), Format::Responses, "invalid number"),
        (request.to_owned(), Format::Anthropic, "EOF while parsing"),
    ];
    for (text, format, problem) in cases {
        let auto = read(&text, Format::Auto).unwrap_err();
        let given = read(&text, format).unwrap_err();
        assert_eq!(auto.kind, TranscriptErrorKind::Json, "{auto}");
        assert!(auto.message.starts_with(problem), "{auto}");
        assert_eq!(
            (auto.line, auto.column, &auto.message),
            (given.line, given.column, &given.message),
            "{format:?}"
        );
        assert_eq!(auto.format, Some(format), "{auto}");
    }
}

#[test]
fn a_first_line_whose_json_is_wrong_is_refused_where_serde_json_refuses_it() {
    // A first line whose brackets close on it is a record of its own (a line of
    // JSONL, a sample of an `.eval` log), read as one whatever is wrong inside it;
    // the error is serde_json's, at its place.
    let second = "\n{\"role\": \"assistant\", \"content\": \"a\"}\n";
    for line in [
        r#"{"role": "user", "content": 01}"#,
        r#"{"role": "user", "content": "x\q"}"#,
        r#"{"role": "user", "content": tru}"#,
        r#"{"role": "user" "content": "x"}"#,
        r#"{"id": "r", "object": "response", "output": [], "usage": {"input_tokens": 1,}}"#,
        r#"{"role": "user", "content": "x"}}"#,
    ] {
        let serde = serde_json::from_str::<serde::de::IgnoredAny>(line).unwrap_err();
        let err = read(&format!("{line}{second}"), Format::Auto).unwrap_err();
        at_serde_jsons_place(&err, &serde, line);
        // A syntax error, said as such (not a field the kind did not expect).
        assert!(!err.message.contains("format "), "{line}: {err}");
    }
    // A first line that goes on, holds more than one object, or an array, opens a
    // document.
    let joined =
        "{\"role\": \"user\", \"content\": \"a\"}{\"role\": \"assistant\", \"content\": \"b\"}\n";
    assert_eq!(read(joined, Format::Auto).unwrap().len(), 2);
    let document = "{\"role\": \"user\",\n \"content\": \"a\"}\n";
    assert_eq!(read(document, Format::Auto).unwrap().len(), 1);
    let array = "[{\"role\": \"user\", \"content\": \"a\"},\n {\"role\": \"assistant\", \"content\": \"b\"}]\n";
    assert_eq!(read(array, Format::Auto).unwrap().len(), 2);
}

/// That `err`, reading `text`, is a JSON syntax error at the place serde_json's
/// `serde` gives.
fn at_serde_jsons_place(
    err: &doneseq::transcript::TranscriptError,
    serde: &serde_json::Error,
    text: &str,
) {
    assert_eq!(
        (err.kind, err.line, err.column),
        (
            TranscriptErrorKind::Json,
            serde.line(),
            Some(serde.column())
        ),
        "{text}: {err}"
    );
}

#[test]
fn an_arrays_json_errors_are_serde_jsons_at_their_place() {
    // An array is split by a skim of its brackets, its elements' JSON checked by
    // their readers: a syntax error is still serde_json's, at its place in the
    // document, whether inside an element or between them.
    for doc in [
        "[\n {\"role\": \"user\", \"content\": \"a\"},\n {\"role\": \"user\", \"content\": 01}\n]\n",
        "[\n {\"role\": \"user\", \"content\": \"a\\q\"}\n]\n",
        "[\n {\"role\": \"user\", \"content\": \"a\"}\n {\"role\": \"user\", \"content\": \"b\"}\n]\n",
        "[\n {\"role\": \"user\", \"content\": \"a\"},\n]\n",
        "[\n {\"role\": \"user\", \"content\": \"a\"},\n {\"role\": \"user\"",
        "[\n {\"role\": \"user\", \"content\": [1}]\n",
    ] {
        let serde = serde_json::from_str::<Vec<serde::de::IgnoredAny>>(doc).unwrap_err();
        let err = read(doc, Format::Auto).unwrap_err();
        at_serde_jsons_place(&err, &serde, doc);
    }
    // Its first wrong element is the error, in the document's order: a field the
    // kind does not have before a number that is not one.
    let doc =
        "[\n {\"role\": \"user\", \"contnt\": 1},\n {\"role\": \"user\", \"content\": 01}\n]\n";
    let err = read(doc, Format::Auto).unwrap_err();
    assert_eq!((err.line, err.column), (2, Some(26)), "{err}");
    assert!(err.message.contains("unknown field `contnt`"), "{err}");
}

#[test]
fn documents_one_after_another_are_refused_where_serde_json_refuses_them() {
    // Documents one after another are split by a skim, each document's JSON checked
    // by its reader: a syntax error is serde_json's, at its place, after the
    // messages of the documents before it.
    let one = "{\"role\": \"user\",\n \"content\": \"a\"}\n";
    for (doc, before) in [
        (
            format!("{one}{{\"role\": \"user\",\n \"content\": 01}}\n"),
            1,
        ),
        (
            format!("{one}{one}{{\"role\": \"user\",\n \"content\": \"\\q\"}}\n"),
            2,
        ),
        (format!("{one},\n{one}"), 1),
        (
            format!("{{\"role\": \"user\",\n \"content\": tru}}\n{one}"),
            0,
        ),
    ] {
        let serde = serde_json::Deserializer::from_str(&doc)
            .into_iter::<serde::de::IgnoredAny>()
            .find_map(Result::err)
            .expect("a document that is not JSON");
        let mut reader = Reader::new(doc.as_bytes(), Format::Auto);
        let read: Vec<_> = reader.by_ref().collect();
        let (messages, errors): (Vec<_>, Vec<_>) = read.into_iter().partition(Result::is_ok);
        assert_eq!(messages.len(), before, "{doc}");
        let err = errors.into_iter().next().expect("an error").unwrap_err();
        at_serde_jsons_place(&err, &serde, &doc);
    }
    // A document cut short: the first given, then the end of the text, at its last
    // line's end.
    let cut = format!("{one}{{\"role\": \"user\",\n \"content\": \"b\"\n");
    let read: Vec<_> = Reader::new(cut.as_bytes(), Format::Auto).collect();
    assert_eq!(read.len(), 2);
    let err = read[1].as_ref().unwrap_err();
    assert_eq!((err.line, err.column), (4, Some(15)), "{err}");
    assert!(err.message.starts_with("EOF while parsing"), "{err}");
}

#[test]
fn provider_extras_are_read_once_and_streamed_chunks_are_refused() {
    // A key read and ignored is still a field: twice is serde's error, with its place.
    let twice = "{\"role\": \"user\", \"content\": \"go\"}\n{\"role\": \"assistant\", \"content\": \"a\", \"reasoning\": \"x\", \"reasoning\": \"y\"}\n";
    let err = read(twice, Format::Auto).unwrap_err();
    assert_eq!((err.line, err.column), (2, Some(67)), "{err}");
    assert!(err.message.contains("duplicate field `reasoning`"), "{err}");
    let call_index_twice = r#"{"role": "assistant", "tool_calls": [{"function": {"name": "f", "index": 0, "index": 1}}]}"#;
    let err = read(call_index_twice, Format::OpenAi).unwrap_err();
    assert!(err.message.contains("duplicate field `index`"), "{err}");
    // A misspelt key is still an error, and the error lists the keys read.
    let err = read(
        r#"{"role": "assistant", "reasoning_contents": "x"}"#,
        Format::Auto,
    )
    .unwrap_err();
    assert!(
        err.message.contains("unknown field `reasoning_contents`")
            && err.message.contains("`reasoning_content`, `reasoning`, `reasoning_details`, `thinking`, `thinking_blocks`, `provider_specific_fields`, `images`, `prefix`"),
        "{err}"
    );
    // Ollama's images are media, Mistral's prefix a flag: neither is text.
    let media =
        r#"{"role": "user", "content": "What is this?", "images": ["aGk="], "prefix": false}"#;
    assert_eq!(
        summary(&read(media, Format::Auto).unwrap()),
        "0 user \"What is this?\"\n"
    );
    // A chunk of a streamed Ollama answer is a piece of a step, not one.
    let chunk = r#"{"model": "qwen3:8b", "created_at": "2025-07-01T12:00:00Z", "message": {"role": "assistant", "content": "It"}, "done": false}"#;
    let err = read(chunk, Format::Auto).unwrap_err();
    assert_eq!((err.line, err.format), (1, Some(Format::OpenAi)), "{err}");
    assert!(
        err.to_string()
            .contains("a chunk of a streamed Ollama answer (\"done\": false)")
            && err.to_string().contains("in an Ollama chat response"),
        "{err}"
    );
    // OpenAI's chunks: a choice's delta, and the last chunk's usage without choices.
    for chunk in [
        r#"{"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "It"}, "finish_reason": null}]}"#,
        r#"{"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 2}}"#,
    ] {
        let err = read(chunk, Format::Auto).unwrap_err();
        assert_eq!((err.line, err.format), (1, Some(Format::OpenAi)), "{err}");
        assert!(
            err.message.contains(
                "a chunk of a streamed chat completion (\"object\": \"chat.completion.chunk\""
            ),
            "{err}"
        );
    }
    // The events of a streamed Responses API answer, and of Anthropic's (whose events
    // have a `type`, as Responses items do): each said to be one, not an unknown item.
    for (event, says) in [
        (
            r#"{"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "Hi", "sequence_number": 3}"#,
            "an event of a streamed OpenAI response (\"type\": \"response.output_text.delta\")",
        ),
        (
            r#"{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}}"#,
            "an event of a streamed Anthropic message (\"type\": \"content_block_delta\")",
        ),
        (
            r#"{"type": "telepathy"}"#,
            "an item of unknown type \"telepathy\"",
        ),
    ] {
        let err = read(event, Format::Auto).unwrap_err();
        assert!(err.message.contains(says), "{err}");
    }
    // A choice without its message is still serde's error, with its place.
    let err = read(
        r#"{"object": "chat.completion", "choices": [{"index": 0}]}"#,
        Format::Auto,
    )
    .unwrap_err();
    assert!(
        err.message.contains("missing field `message`") && err.column.is_some(),
        "{err}"
    );
    // A wrong message inside a response: the response's kind and the field.
    let bad = r#"{"model": "m", "message": {"role": "assistant", "contnt": "x"}, "done": true}"#;
    let err = read(bad, Format::Auto).unwrap_err();
    assert!(
        err.to_string().contains("unknown field `contnt`")
            && err.to_string().contains("expected an Ollama chat response"),
        "{err}"
    );
    // The last record of a stream holds the call's counts but no text: read alone,
    // it is an empty answer (no response, as any empty answer is), with them.
    let last = r#"{"model": "m", "message": {"role": "assistant", "content": ""}, "done": true, "done_reason": "stop", "prompt_eval_count": 26, "eval_count": 298}"#;
    assert_eq!(
        summary(&read(last, Format::OpenAi).unwrap()),
        "0 llm tokens=26+298 (no response)\n"
    );
}

#[test]
fn a_record_on_many_lines_is_one_document() {
    let pretty = "{\n  \"id\": \"msg_1\",\n  \"type\": \"message\",\n  \"role\": \"assistant\",\n  \"model\": \"claude\",\n  \"content\": [{\"type\": \"text\", \"text\": \"hi\"}],\n  \"stop_reason\": \"end_turn\",\n  \"usage\": {\"input_tokens\": 1, \"output_tokens\": 2, \"cache_read_input_tokens\": 10}\n}\n";
    let mut reader = Reader::new(pretty.as_bytes(), Format::Auto);
    let messages: Vec<_> = reader.by_ref().collect::<Result<_, _>>().unwrap();
    assert_eq!(summary(&messages), "0 llm \"hi\" tokens=11+2\n");
    assert_eq!((reader.format(), reader.line()), (Format::Anthropic, 9));
    assert_eq!(messages[0].role(), Role::Llm);
}

#[test]
fn documents_one_after_another_are_read_in_turn() {
    // As `jq .` writes records, or `cat` joins files of one record each: indented
    // documents, objects or arrays, with or without whitespace between them.
    let stream = "{\n  \"role\": \"user\",\n  \"content\": \"6*7?\"\n}\n[\n  {\"role\": \"assistant\", \"content\": \"42\"},\n  {\"role\": \"user\", \"content\": \"thanks\"}\n]{\n  \"role\": \"assistant\",\n  \"content\": \"FINAL(42)\"\n}\n";
    let mut reader = Reader::new(stream.as_bytes(), Format::Auto);
    let messages: Vec<_> = reader.by_ref().collect::<Result<_, _>>().unwrap();
    assert_eq!(
        summary(&messages),
        "0 user \"6*7?\"\n1 llm \"42\"\n2 user \"thanks\"\n3 llm \"FINAL(42)\"\n"
    );
    assert_eq!((reader.format(), reader.line()), (Format::Jsonl, 11));
    // A wrong document comes after the messages of those before it, as a wrong line
    // does: its error at its own line (and column, for JSON).
    for (tail, line, column, message) in [
        (
            "{\n  \"role\": \"user\",\n  \"contnt\": 1\n}\n",
            14,
            Some(10),
            "unknown field `contnt`",
        ),
        (
            "{\n  \"role\": \"user\"\n  \"content\": \"x\"\n}\n",
            14,
            Some(3),
            "expected `,` or `}`",
        ),
        (
            "{\"role\": \"user\", \"content\": \"x\"} 12\n",
            12,
            Some(35),
            "invalid type: integer `12`",
        ),
    ] {
        let text = format!("{stream}{tail}");
        let mut reader = Reader::new(text.as_bytes(), Format::Auto);
        let read: Vec<_> = reader.by_ref().collect();
        let (last, before) = read.split_last().unwrap();
        let before: Vec<_> = before.iter().cloned().collect::<Result<_, _>>().unwrap();
        let expected = if tail.ends_with("12\n") { 5 } else { 4 };
        assert_eq!(before.len(), expected, "{tail}");
        let err = last.clone().unwrap_err();
        assert_eq!((err.line, err.column), (line, column), "{err}");
        assert!(err.message.contains(message), "{err}");
    }
}

#[test]
fn a_tool_output_holding_tool_uses_is_refused_not_dropped() {
    let log = r#"{"type": "function_call_output", "call_id": "c", "output": [{"type": "tool_use", "name": "f", "input": {}}]}"#;
    let err = read(log, Format::Responses).unwrap_err();
    assert_eq!(err.kind, TranscriptErrorKind::Message);
    assert!(
        err.message
            .contains("the output of a function_call_output item holds tool uses or results"),
        "{err}"
    );
}

#[test]
fn an_array_that_changes_kind_keeps_the_messages_before_the_change() {
    // The second element is read first as the kind of the first (a chat message),
    // fails, and is read again as its keys say: the first element's message stays.
    let doc = r#"[{"role": "user", "content": "hi"}, {"id": "c1", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": "hello"}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 3, "completion_tokens": 1}}, {"role": "user", "content": "bye"}]"#;
    let messages = read(doc, Format::Auto).unwrap();
    assert_eq!(
        summary(&messages),
        "0 user \"hi\"\n1 llm \"hello\" tokens=3+1\n2 user \"bye\"\n"
    );
}

#[test]
fn a_tool_output_after_a_model_turn_is_read_in_order_to_the_end() {
    // The output that ends a turn is given after the turn, once, borrowed or not,
    // and also when it is the last line.
    let log = r#"{"role": "user", "content": "go"}
{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Calling."}]}
{"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{\"n\": 1}"}
{"type": "function_call_output", "call_id": "c1", "output": "one"}
{"type": "function_call", "call_id": "c2", "name": "f", "arguments": "{}"}
{"type": "function_call_output", "call_id": "c2", "output": "two\nlines"}"#;
    let expected = "0 user \"go\"\n\
         1 llm \"Calling.\" call f({\"n\": 1}) id=Some(\"c1\")\n\
         2 agent \"one\" answers=c1\n\
         3 llm call f({}) id=Some(\"c2\")\n\
         4 agent \"two\\nlines\" answers=c2\n";
    assert_eq!(summary(&read(log, Format::Auto).unwrap()), expected);
    let mut reader = Reader::new(log.as_bytes(), Format::Responses);
    let mut borrowed = Vec::new();
    let mut lines = Vec::new();
    while let Some(message) = reader.next_borrowed() {
        borrowed.push(message.unwrap().into_owned());
        lines.push(reader.line());
    }
    assert_eq!(summary(&borrowed), expected);
    // Each message is given once its line is read: a turn once the line after it is.
    assert_eq!(lines, [1, 4, 4, 6, 6]);
}

/// Reads `log` (a user's message, a model turn with one call `f`, then a bad tool
/// output on line 3): the message and the turn, then the error of `kind` on line 3,
/// then nothing. The error, for more checks.
fn turn_then_error(log: &[u8], kind: TranscriptErrorKind) -> doneseq::transcript::TranscriptError {
    let mut reader = Reader::new(log, Format::Auto);
    let first = reader.next_borrowed().unwrap().unwrap().into_owned();
    let turn = reader.next_borrowed().unwrap().unwrap().into_owned();
    assert_eq!(
        summary(&[first, turn]),
        "0 user \"go\"\n1 llm call f({}) id=Some(\"c\")\n"
    );
    let err = reader.next_borrowed().unwrap().unwrap_err();
    assert_eq!((err.line, err.kind), (3, kind), "{err}");
    assert!(reader.next_borrowed().is_none());
    err
}

#[test]
fn a_bad_tool_output_after_a_model_turn_gives_the_turn_then_the_error() {
    let log = "{\"role\": \"user\", \"content\": \"go\"}\n{\"type\": \"function_call\", \"call_id\": \"c\", \"name\": \"f\", \"arguments\": \"{}\"}\n{\"type\": \"function_call_output\", \"output\": \"x\"}\n";
    let err = turn_then_error(log.as_bytes(), TranscriptErrorKind::Message);
    assert!(
        err.message
            .contains("a function_call_output item has no \"call_id\""),
        "{err}"
    );
}

#[test]
fn an_autogen_call_with_an_empty_name_is_an_error_not_a_nameless_call() {
    let log = r#"{"type": "TextMessage", "source": "user", "content": "go"}
{"type": "ToolCallRequestEvent", "source": "a", "content": [{"id": "1", "name": "f", "arguments": "{}"}, {"id": "2", "name": "", "arguments": "{}"}]}
"#;
    let err = read(log, Format::Auto).unwrap_err();
    assert_eq!(
        (err.line, err.kind),
        (2, TranscriptErrorKind::Message),
        "{err}"
    );
    assert!(
        err.message.contains("a tool call has an empty name"),
        "{err}"
    );
}

#[test]
fn a_record_read_again_as_another_kind_keeps_the_model_turn_before_it() {
    // The last line's first key was last a chat message's, so it is read first as
    // one, which ends the open model turn; it fails (a chat message has no `type`),
    // and is read again as a Responses item. The turn ("B") is still given, once,
    // before it.
    let log = r#"{"role": "user", "content": "q"}
{"id": "msg_1", "type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "A"}]}
{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "r"}]}
{"id": "msg_2", "type": "message", "role": "assistant", "content": "B"}
{"role": "user", "content": "x", "type": "message"}
"#;
    let expected =
        "0 user \"q\"\n1 llm \"A\"\n2 agent \"r\" answers=t1\n3 llm \"B\"\n4 user \"x\"\n";
    assert_eq!(summary(&read(log, Format::Auto).unwrap()), expected);
    let mut reader = Reader::new(log.as_bytes(), Format::Auto);
    let mut borrowed = Vec::new();
    while let Some(message) = reader.next_borrowed() {
        borrowed.push(message.unwrap().into_owned());
    }
    assert_eq!(summary(&borrowed), expected);
}

#[test]
fn a_tool_output_that_is_not_utf8_after_a_model_turn_gives_the_turn_then_the_error() {
    let mut log = b"{\"role\": \"user\", \"content\": \"go\"}\n{\"type\": \"function_call\", \"call_id\": \"c\", \"name\": \"f\", \"arguments\": \"{}\"}\n".to_vec();
    log.extend_from_slice(
        b"{\"type\": \"function_call_output\", \"call_id\": \"c\", \"output\": \"\xff\"}\n",
    );
    turn_then_error(&log, TranscriptErrorKind::NotUtf8);
}
