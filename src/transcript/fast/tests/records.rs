//! The fast path against the serde path for every kind of record it scans, through
//! the reader: a transcript read with the fast path on gives the same messages and
//! errors as with it off.

use std::borrow::Cow;

use proptest::prelude::*;

use super::super::{
    Chat, agent_framework, agent_message, agno, anthropic_response, claude_code, codex, completion,
    converse, crewai, execution_results, function_calls, gemini, inspect, langchain, llamaindex,
    mini_swe_agent, pydantic_ai, responses_item, rlm_code, smolagents, swe_agent,
};
use super::{damaged, sample_files, serde_only};
use crate::Message;
use crate::transcript::{Format, Reader, TranscriptError};

/// Every message of `text` (read as `auto` reads it), or the error that ends it.
fn read_all(text: &str) -> Vec<Result<Message<'static>, TranscriptError>> {
    let mut reader = Reader::new(text.as_bytes(), Format::Auto);
    let mut read = Vec::new();
    while let Some(next) = reader.next_borrowed() {
        let failed = next.is_err();
        read.push(next.map(Message::into_owned));
        if failed || read.len() > 1_000 {
            break;
        }
    }
    read
}

/// Whether `text` reads the same with the fast path on and off; the difference if not.
fn reads_alike(text: &str) -> Result<(), String> {
    let fast = read_all(text);
    let slow = serde_only(|| read_all(text));
    if fast == slow {
        Ok(())
    } else {
        Err(format!("{text}\nfast: {fast:#?}\nserde: {slow:#?}"))
    }
}

/// The scanner of one kind of record against the serde path: it takes every line of
/// `taken` and `refused` (whose conversion, the one both paths run, refuses them) and
/// none of `left` (`scans` says whether it takes a line); each line reads alike both
/// ways after `taken`'s first (which makes the log's kind known: the scanner reads
/// only then), and `taken` as one log.
fn scanned_as_serde_reads(
    taken: &[&str],
    refused: &[&str],
    left: &[&str],
    scans: impl Fn(&str) -> bool,
) {
    for line in taken.iter().chain(refused) {
        assert!(scans(line), "not scanned: {line}");
    }
    for line in left {
        assert!(!scans(line), "scanned: {line}");
    }
    for line in taken.iter().chain(refused).chain(left) {
        reads_alike(&format!("{}\n{line}\n", taken[0])).unwrap();
    }
    for line in refused {
        let read = read_all(&format!("{}\n{line}\n", taken[0]));
        assert!(
            read.last().is_some_and(Result::is_err),
            "not refused: {line}"
        );
    }
    reads_alike(&taken.join("\n")).unwrap();
}

/// OpenAI `chat.completion` objects.
const COMPLETIONS: &[&str] = &[
    r#"{"id": "chatcmpl-1", "object": "chat.completion", "created": 1732492800, "model": "gpt-4o", "choices": [{"index": 0, "message": {"role": "assistant", "content": "Let me compute that.", "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "calculator", "arguments": "{\"expression\": \"17 * 23 + 4\"}"}}], "refusal": null}, "logprobs": null, "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 61, "completion_tokens": 22, "total_tokens": 83}}"#,
    r#"{"id": "chatcmpl-3", "object": "chat.completion", "created": 1732492802, "model": "gpt-4o", "choices": [{"index": 0, "message": {"role": "assistant", "content": "Paris.", "refusal": null, "annotations": []}, "logprobs": {"content": [{"token": "Paris", "logprob": -0.01, "bytes": [80, 97], "top_logprobs": []}]}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 130, "completion_tokens": 12, "total_tokens": 142, "prompt_tokens_details": {"cached_tokens": 0}}, "system_fingerprint": "fp_1", "service_tier": "default"}"#,
    r#"{"choices": [{"message": {"role": "assistant", "content": null, "refusal": "I can't."}}], "usage": null}"#,
    r#"{"choices": [{"message": {"role": "assistant", "content": "own usage", "usage": {"input_tokens": 1}}}], "usage": {"prompt_tokens": 5}}"#,
    r#"{"model": "m", "choices": [{"finish_reason": "stop", "message": {"role": "assistant", "content": "caf\u00e9 \"q\""}}]}"#,
];

/// Completions the scanner leaves to the serde path (which reads or refuses them).
const COMPLETIONS_LEFT: &[&str] = &[
    r#"{"choices": [{"message": {"role": "assistant", "content": "a"}}, {"message": {"role": "assistant", "content": "b"}}]}"#,
    r#"{"choices": [], "usage": null}"#,
    r#"{"choices": [{"index": 0}]}"#,
    r#"{"choices": [{"message": {"role": "assistant", "content": "a"}, "message": {"role": "assistant"}}]}"#,
    r#"{"choices": [{"message": {"role": "assistant", "content": "a", "extra": 1}}]}"#,
    r#"{"choices": [{"message": {"role": "assistant"}}], "usage": {"prompt_tokens": 1.5}}"#,
    r#"{"choices": [{"message": {"role": "assistant"}}], "choices": []}"#,
    // A stream's chunks, refused by the serde path; an object named twice, or
    // not written as `chat.completion` is (read by the serde path).
    r#"{"object": null, "choices": [{"message": {"role": "assistant", "content": "no object"}}]}"#,
    r#"{"object": "chat.c\u006fmpletion", "choices": [{"message": {"role": "assistant", "content": "a"}}]}"#,
    r#"{"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hi"}, "finish_reason": null}]}"#,
    r#"{"object": "chat.completion.chunk", "choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 2}}"#,
    r#"{"object": "chat.completion.chunk", "choices": [{"message": {"role": "assistant", "content": "a"}}]}"#,
    r#"{"object": "chat.completion", "object": "chat.completion", "choices": [{"message": {"role": "assistant"}}]}"#,
];

/// Anthropic response messages.
const ANTHROPIC_RESPONSES: &[&str] = &[
    r#"{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": "Let me compute that."}, {"type": "tool_use", "id": "toolu_1", "name": "calculator", "input": {"expression": "17 * 23 + 4"}}], "stop_reason": "tool_use", "stop_sequence": null, "usage": {"input_tokens": 61, "output_tokens": 22}}"#,
    r#"{"id": "msg_3", "type": "message", "role": "assistant", "content": [{"type": "thinking", "thinking": "...", "signature": "s"}, {"type": "text", "text": "Paris", "citations": [{"type": "web_search_result_location", "url": "u"}]}, {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}}, {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}], "usage": {"input_tokens": 40, "cache_creation_input_tokens": 3, "cache_read_input_tokens": 2270, "output_tokens": 9, "server_tool_use": {"web_search_requests": 1}}, "container": null}"#,
    r#"{"type": "message", "role": "assistant", "content": "plain text"}"#,
    r#"{"type": "message", "role": "assistant", "content": []}"#,
    // Its type written with an escape: decoded.
    r#"{"type": "m\u0065ssage", "role": "assistant", "content": "e"}"#,
];

/// Anthropic responses left to the serde path.
const ANTHROPIC_LEFT: &[&str] = &[
    r#"{"type": "message", "role": "assistant", "content": null}"#,
    r#"{"type": "message", "role": "assistant"}"#,
    r#"{"type": "message", "role": "assistant", "content": [], "usage": {"input_tokens": -1}}"#,
    r#"{"type": "message", "type": "message", "role": "assistant", "content": []}"#,
    // A type or role serde refuses, and tool results (the serde path says why).
    r#"{"type": "message", "role": "user", "content": []}"#,
    r#"{"type": "messages", "role": "assistant", "content": []}"#,
    r#"{"type": "message", "role": "assistant", "content": [{"type": "tool_result", "tool_use_id": "x", "content": "r"}]}"#,
    // Parts the conversion refuses (the serde path says what is wrong).
    r#"{"type": "message", "role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "mystery"}]}"#,
    r#"{"type": "message", "role": "assistant", "content": [{"type": "tool_result", "tool_use_id": "x", "content": [{"type": "tool_use", "name": "f"}]}]}"#,
];

/// OpenAI Responses items.
const RESPONSES_ITEMS: &[&str] = &[
    r#"{"role": "user", "content": "What is 17 times 23, plus 4?"}"#,
    r#"{"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "think"}], "encrypted_content": null}"#,
    r#"{"id": "msg_1", "type": "message", "status": "completed", "role": "assistant", "content": [{"type": "output_text", "text": "Let me compute that.", "annotations": []}]}"#,
    r#"{"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "calculator", "arguments": "{\"expression\": \"17 * 23 + 4\"}", "status": "completed"}"#,
    r#"{"type": "function_call_output", "call_id": "call_1", "output": "395"}"#,
    r#"{"id": "ws_1", "type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "q"}}"#,
    r#"{"type": "mcp_call", "id": "mcp_1", "name": "lookup", "server_label": "s", "arguments": "{}", "output": null, "error": "denied"}"#,
    r#"{"type": "custom_tool_call", "call_id": "c", "name": "patch", "input": "*** Begin"}"#,
    r#"{"type": "function_call_output", "call_id": "call_2", "output": [{"type": "input_text", "text": "two"}, {"type": "input_text", "text": "parts"}]}"#,
    r#"{"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "be brief"}]}"#,
    r#"{"type": "item_reference", "id": "msg_0"}"#,
    r#"{"type": "code_interpreter_call", "id": "ci", "code": "print(1)", "container_id": "c"}"#,
    r#"{"type": "message", "role": "assistant", "content": [{"type": "refusal", "refusal": "no"}]}"#,
    r#"{"type": "function_call_output", "output": "no call id"}"#,
    r#"{"type": "function_call", "call_id": "c"}"#,
    r#"{"type": "mystery_item"}"#,
    // Text parts read as the text they join into; lists with other parts, or parts
    // with the keys other types carry, read as parts.
    r#"{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "a", "logprobs": []}, {"annotations": [], "text": "b", "type": "output_text"}, {"type": "text", "text": "c\nd"}]}"#,
    r#"{"type": "message", "role": "user", "content": []}"#,
    r#"{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "a"}, {"type": "refusal", "refusal": "no"}]}"#,
    r#"{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "look"}, {"type": "input_image", "image_url": "https://x/y.png"}]}"#,
    r#"{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "a", "id": "p1"}]}"#,
    r#"{"type": "message", "role": "user", "content": [{"type": "t\u0065xt", "text": "escaped type"}]}"#,
];

/// Responses items left to the serde path.
const RESPONSES_LEFT: &[&str] = &[
    r#"{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "a", "text": "b"}]}"#,
    r#"{"type": "message", "type": "message", "role": "user", "content": "x"}"#,
    r#"{"type": "function_call", "name": "f", "arguments": {"a": 1,}}"#,
    r#"{"type": 5}"#,
    r#"{"type": "message", "role": "user", "content": {"a": 1}}"#,
    // Parts the conversion refuses: the scanner converts each part as it reads it,
    // and gives up on these (the serde path says what is wrong).
    r#"{"type": "message", "role": "user", "content": [{"type": "input_text", "text": null}]}"#,
    r#"{"type": "message", "role": "user", "content": [{"text": "no type"}]}"#,
    r#"{"type": "function_call_output", "call_id": "c", "output": [{"type": "input_text", "text": "x"}, {"type": "tool_use", "name": "f"}]}"#,
];

/// Bedrock Converse messages (Strands Agents' shape and the API's).
const CONVERSE: &[&str] = &[
    r#"{"role": "user", "content": [{"text": "What is 17 times 23, plus 4?"}], "tracking_id": "0f1e"}"#,
    r#"{"role": "assistant", "content": [{"text": "Let me compute that."}, {"toolUse": {"toolUseId": "tooluse_1", "name": "calculator", "input": {"expression": "17 * 23 + 4"}}}], "metadata": {"usage": {"inputTokens": 61, "outputTokens": 22, "totalTokens": 83}, "metrics": {"latencyMs": 812}}, "tracking_id": "0f1f"}"#,
    r#"{"role": "user", "content": [{"toolResult": {"toolUseId": "tooluse_1", "status": "success", "content": [{"text": "395"}]}}]}"#,
    r#"{"role": "user", "content": [{"text": "before"}, {"toolResult": {"toolUseId": "a", "status": "error", "content": [{"json": {"x": [1, 2]}, "text": "t"}, {"image": {"format": "png"}}]}}, {"toolResult": {"content": null, "status": null, "toolUseId": null}}, {"text": "after \u00e9"}]}"#,
    r#"{"role": "assistant", "content": [{"reasoningContent": {"reasoningText": {"text": "hmm", "signature": "s"}}}, {"toolUse": {"name": "f", "input": null, "type": "server_tool_use"}}, {"toolUse": {"toolUseId": "b", "name": "g", "input": [1, {"a": null}]}}], "metadata": {"usage": {"inputTokens": 1, "outputTokens": null, "cacheReadInputTokens": 5, "cacheWriteInputTokens": 2}}}"#,
    r#"{"role": "user", "content": [{"image": {"format": "png", "source": {"bytes": "AA=="}}}, {"cachePoint": {"type": "default"}}]}"#,
    r#"{"role": "assistant", "content": [], "metadata": null, "other": [1]}"#,
    r#"{"role": "assistant", "content": [{"text": ""}], "metadata": {"usage": null}}"#,
];

/// Converse messages the scanner leaves to the serde path (which reads or refuses
/// them).
const CONVERSE_LEFT: &[&str] = &[
    // Its role after its content; the rarer kinds of block.
    r#"{"content": [{"text": "a"}], "role": "user"}"#,
    r#"{"role": "assistant", "content": [{"citationsContent": {"content": [{"text": "a"}]}}]}"#,
    r#"{"role": "user", "content": [{"guardContent": {"text": {"text": "a"}}}]}"#,
    // Wrong: serde refuses these, with the position or the block.
    r#"{"role": "user", "content": [{"text": "a", "image": {}}]}"#,
    r#"{"role": "user", "content": [{"image": null}]}"#,
    r#"{"role": "user", "content": [{"text": null}]}"#,
    r#"{"role": "user", "content": [{}]}"#,
    r#"{"role": "user", "content": [{"mystery": 1}]}"#,
    r#"{"role": "user", "content": [{"toolUse": {"name": "f"}}]}"#,
    r#"{"role": "assistant", "content": [{"toolUse": {"toolUseId": "t"}}]}"#,
    r#"{"role": "assistant", "content": [{"toolUse": {"name": "f", "name": "g"}}]}"#,
    r#"{"role": "assistant", "content": [{"toolResult": {"toolUseId": "t"}}]}"#,
    r#"{"role": "user", "content": [{"toolResult": {"status": "ok"}}]}"#,
    r#"{"role": "user", "content": [{"toolResult": {"content": [{"html": "x"}]}}]}"#,
    r#"{"role": "user", "content": [{"toolResult": {"content": [{"text": "a", "text": "b"}]}}]}"#,
    r#"{"role": "system", "content": [{"text": "a"}]}"#,
    r#"{"role": "user", "content": null}"#,
    r#"{"role": "user"}"#,
    r#"{"role": "assistant", "content": [], "metadata": {"usage": {"inputTokens": 1.5}}}"#,
    r#"{"role": "user", "role": "user", "content": []}"#,
];

/// Agno's messages (`Message.to_dict()`).
const AGNO: &[&str] = &[
    r#"{"id": "u1", "content": "What is 17 times 23, plus 4?", "from_history": false, "stop_after_tool_call": false, "role": "user", "created_at": 1795836531}"#,
    r#"{"id": "a1", "content": "Let me compute that.", "from_history": false, "stop_after_tool_call": false, "role": "assistant", "tool_calls": [{"id": "call_1", "function": {"arguments": "{\"expression\": \"17 * 23 + 4\"}", "name": "calculator"}, "type": "function"}], "metrics": {"input_tokens": 61, "output_tokens": 22, "total_tokens": 83, "duration": 0.84, "time_to_first_token": 0.51}, "created_at": 1795836531}"#,
    r#"{"id": "t1", "content": "395", "from_history": false, "stop_after_tool_call": false, "role": "tool", "tool_call_id": "call_1", "tool_name": "calculator", "tool_args": {"expression": "17 * 23 + 4"}, "tool_call_error": false, "created_at": 1795836531}"#,
    r#"{"content": "boom \u00e9", "role": "tool", "tool_call_id": "c", "tool_name": null, "tool_call_error": true, "stop_after_tool_call": true, "from_history": null}"#,
    r#"{"role": "assistant", "content": null, "tool_calls": null, "name": "ann", "metrics": {"input_tokens": 1, "cache_read_tokens": 2, "details": {"x": [1]}}, "reasoning_content": "hm", "provider_data": {"id": "x"}}"#,
    r#"{"role": "developer", "content": [{"type": "text", "text": "Be brief."}], "from_history": false}"#,
    r#"{"role": "user", "content": "hi", "name": "", "tool_call_error": null, "metrics": null, "images": [{"url": "u"}]}"#,
];

/// Agno's messages the scanner leaves to the serde path (which reads or refuses
/// them).
const AGNO_LEFT: &[&str] = &[
    r#"{"role": "assistant", "content": "old", "from_history": true}"#,
    r#"{"role": "robot", "content": "x", "from_history": false}"#,
    r#"{"role": "user", "content": "x", "tool_calls": [], "from_history": false}"#,
    r#"{"role": "tool", "content": [{"type": "tool_use", "id": "u", "name": "f", "input": {}}], "from_history": false}"#,
    r#"{"role": "assistant", "tool_calls": [{"id": "c"}], "from_history": false}"#,
    r#"{"role": "assistant", "metrics": {"input_tokens": 1.5}, "from_history": false}"#,
    r#"{"role": "assistant", "metrics": {"input_tokens": 1, "input_tokens": 2}, "from_history": false}"#,
    r#"{"role": "user", "role": "user", "from_history": false}"#,
    r#"{"content": "x", "from_history": false}"#,
    r#"{"role": "user", "stop_after_tool_call": "yes"}"#,
];

#[test]
fn agno_messages_are_scanned_as_serde_reads_them() {
    scanned_as_serde_reads(AGNO, &[], AGNO_LEFT, |line| {
        agno::message(line, &mut Chat::default()).is_some()
    });
}

/// LlamaIndex's messages (`ChatMessage.model_dump()`).
const LLAMA: &[&str] = &[
    r#"{"role": "user", "additional_kwargs": {}, "blocks": [{"block_type": "text", "text": "What is 17 times 23, plus 4?"}]}"#,
    r#"{"role": "assistant", "additional_kwargs": {"tool_calls": [{"id": "call_1", "function": {"arguments": "{\"expression\": \"17 * 23 + 4\"}", "name": "calculator"}, "type": "function"}]}, "blocks": [{"block_type": "text", "text": "Let me compute that."}, {"block_type": "tool_call", "tool_call_id": "call_1", "tool_name": "calculator", "tool_kwargs": "{\"expression\": \"17 * 23 + 4\"}"}]}"#,
    r#"{"role": "tool", "additional_kwargs": {"tool_call_id": "call_1", "name": "calculator", "other": [1]}, "blocks": [{"block_type": "text", "text": "395 \u00e9"}]}"#,
    r#"{"role": "assistant", "additional_kwargs": {"tool_calls": [{"id": "c2", "function": {"name": "g", "arguments": "{}"}, "type": "function"}]}, "blocks": []}"#,
    r#"{"role": "assistant", "additional_kwargs": null, "blocks": [{"block_type": "thinking", "content": "hm", "num_tokens": null}, {"block_type": "tool_call", "tool_name": "f", "tool_kwargs": {"x": [1, 2]}}, {"block_type": "image", "url": "u", "detail": null}]}"#,
    r#"{"blocks": [{"text": "a", "block_type": "text"}, {"block_type": "text", "text": "b"}], "role": "developer", "extra": {}}"#,
    r#"{"role": "user", "blocks": null, "additional_kwargs": {"tool_calls": null}}"#,
];

/// LlamaIndex's messages the scanner leaves to the serde path (which reads or
/// refuses them).
const LLAMA_LEFT: &[&str] = &[
    r#"{"role": "user", "content": "old", "additional_kwargs": {}}"#,
    r#"{"role": "user", "blocks": [{"block_type": "citable", "content": [{"block_type": "text", "text": "c"}]}]}"#,
    r#"{"role": "robot", "blocks": []}"#,
    r#"{"role": "user", "blocks": [{"block_type": "hologram"}]}"#,
    r#"{"role": "user", "blocks": [{"block_type": "text"}]}"#,
    r#"{"role": "user", "blocks": [{"text": "a"}]}"#,
    r#"{"role": "user", "blocks": [{"block_type": "tool_call", "tool_name": "f"}]}"#,
    r#"{"role": "assistant", "blocks": [{"block_type": "text", "text": "a", "text": "b"}]}"#,
    r#"{"role": "assistant", "additional_kwargs": {"tool_calls": [{"id": "c"}]}, "blocks": []}"#,
    r#"{"role": "assistant", "additional_kwargs": {"name": "a", "name": "b"}, "blocks": []}"#,
    r#"{"blocks": []}"#,
];

#[test]
fn llamaindex_messages_are_scanned_as_serde_reads_them() {
    scanned_as_serde_reads(LLAMA, &[], LLAMA_LEFT, |line| {
        llamaindex::message(line, &mut Chat::default()).is_some()
    });
}

/// Microsoft Agent Framework's messages (`Message.to_dict()`, as its history file
/// keeps them).
const AGENT_FRAMEWORK: &[&str] = &[
    r#"{"type":"message","role":"user","contents":[{"type":"text","text":"What is 17 times 23, plus 4?","additional_properties":{}}],"additional_properties":{}}"#,
    r#"{"type":"message","role":"assistant","contents":[{"type":"text","text":"Let me compute that.","additional_properties":{}},{"type":"function_call","call_id":"call_1","name":"calculator","arguments":{"expression":"17 * 23 + 4"},"hosted":false,"id":"af-call-1","additional_properties":{}}],"author_name":"calc","additional_properties":{}}"#,
    r#"{"type":"message","role":"tool","contents":[{"type":"function_result","call_id":"call_1","result":"395","items":[{"type":"text","text":"395","additional_properties":{}}],"id":"af-call-1","additional_properties":{}}],"author_name":"calc","additional_properties":{}}"#,
    r#"{"type":"message","role":"tool","contents":[{"type":"function_result","call_id":"c2","exception":"FunctionInvocationError","result":"Error: Function failed.","items":[]},{"type":"function_result","call_id":"c3","result":null,"items":[{"type":"text","text":"a"},{"type":"text","text":"caf\u00e9"}]},{"type":"function_result","call_id":"c4","result":{"ok":[1,2]}}]}"#,
    r#"{"type":"message","role":"tool","contents":[{"type":"text","text":"before"},{"type":"function_result","call_id":"c5","result":"r"},{"type":"text","text":"after"}]}"#,
    r#"{"type":"message","role":"assistant","contents":[{"type":"text_reasoning","text":"hm"},{"type":"function_call","call_id":"c6","name":"f","arguments":"{\"x\": \"\\u00e9\"}"},{"type":"mcp_server_tool_call","call_id":"m1","tool_name":"t","server_name":"s","arguments":null},{"type":"shell_tool_call","call_id":"s1"},{"type":"error","message":"m","error_code":null}],"author_name":null}"#,
    r#"{"role":"system","contents":[{"text":"Be brief.","type":"text"}],"message_id":"m1","type":"message"}"#,
    r#"{"role":"user","contents":[{"type":"data","uri":"data:image/png;base64,AA=="}]}"#,
    r#"{"role":"assistant"}"#,
    r#"{"role":"tool","contents":[{"type":"function_result","call_id":"c","result":"\u00e9","items":5}]}"#,
];

/// Agent Framework's messages the scanner leaves to the serde path (which reads or
/// refuses them).
const AGENT_FRAMEWORK_LEFT: &[&str] = &[
    r#"{"contents":[{"type":"text","text":"a"}],"role":"user"}"#,
    r#"{"role":"assistant","contents":[{"type":"usage","usage_details":{"input_token_count":1}}]}"#,
    r#"{"role":"robot","contents":[]}"#,
    r#"{"role":"user","contents":[{"type":"hologram"}]}"#,
    r#"{"role":"user","contents":[{"type":"text"}]}"#,
    r#"{"role":"user","contents":[{"text":"a"}]}"#,
    r#"{"role":"user","contents":[{"type":"function_call","name":"f"}]}"#,
    r#"{"role":"assistant","contents":[{"type":"function_result","call_id":"c"}]}"#,
    r#"{"role":"assistant","contents":[{"type":"text","text":"a","text":"b"}]}"#,
    r#"{"role":"assistant","contents":null}"#,
    r#"{"role":"assistant","contents":[],"contents":[]}"#,
];

#[test]
fn agent_framework_messages_are_scanned_as_serde_reads_them() {
    scanned_as_serde_reads(AGENT_FRAMEWORK, &[], AGENT_FRAMEWORK_LEFT, |line| {
        agent_framework::message(line, &mut Chat::default()).is_some()
    });
}

/// Claude Code's session records: the conversation's (a prompt, a model turn of two
/// records, tools' results, one failed), Claude Code's own (a command's output, a
/// compaction's summary, a sub-agent's record, an API error), those that describe the
/// session, a sub-agent's metadata.
const CLAUDE: &[&str] = &[
    r#"{"parentUuid":null,"isSidechain":false,"promptId":"p1","type":"user","message":{"role":"user","content":"What is 17 times 23, plus 4?"},"uuid":"u1","timestamp":"2026-11-29T04:20:38.834Z","permissionMode":"default","turnPosition":{"promptIndex":0,"turnIndex":1},"userType":"external","cwd":"/home/dev","sessionId":"s1","version":"2.1.332","gitBranch":"HEAD"}"#,
    r#"{"parentUuid":"u1","isSidechain":false,"message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"thinking","thinking":"t","signature":"x"},{"type":"text","text":"Let me compute that."}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":61,"cache_creation_input_tokens":3,"cache_read_input_tokens":5,"output_tokens":22,"output_tokens_details":{"thinking_tokens":0},"server_tool_use":{"web_search_requests":0},"service_tier":"standard","cache_creation":{"ephemeral_1h_input_tokens":0,"ephemeral_5m_input_tokens":0},"inference_geo":"","iterations":[],"speed":"standard","fallback_credit":null},"stop_details":null},"requestId":"req_1","type":"assistant","uuid":"u2","timestamp":"t","sessionId":"s1"}"#,
    r#"{"parentUuid":"u2","isSidechain":false,"message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_01","name":"calculator","input":{"expression":"17 * 23 + 4"}}],"stop_reason":"tool_use","usage":{"input_tokens":61,"output_tokens":30}},"type":"assistant","uuid":"u3","sessionId":"s1"}"#,
    r#"{"parentUuid":"u3","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01","type":"tool_result","content":"395"}]},"uuid":"u4","toolUseResult":{"stdout":"395","stderr":"","interrupted":false},"sourceToolAssistantUUID":"u3","sessionId":"s1"}"#,
    r#"{"isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_02","is_error":true,"content":[{"type":"text","text":"caf\u00e9 \"failed\""}]}]},"sessionId":"s1","toolUseResult":"Error: no"}"#,
    r#"{"isSidechain":false,"type":"assistant","message":{"id":"msg_02","type":"message","role":"assistant","content":[{"type":"text","text":"395."}],"usage":null},"sessionId":"s1"}"#,
    r#"{"type":"last-prompt","lastPrompt":"What is 17 times 23?","sessionId":"s1"}"#,
    r#"{"isSidechain":false,"isMeta":true,"type":"user","message":{"role":"user","content":"<local-command-stdout>ok</local-command-stdout>"},"sessionId":"s1"}"#,
    r#"{"isSidechain":false,"isCompactSummary":true,"type":"user","message":{"role":"user","content":"This session is being continued."},"sessionId":"s1"}"#,
    r#"{"isSidechain":true,"type":"assistant","message":{"id":"msg_s","type":"message","role":"assistant","content":[{"type":"text","text":"a sub-agent's"}]},"sessionId":"s1"}"#,
    r#"{"isSidechain":false,"isApiErrorMessage":true,"type":"assistant","message":{"id":"e1","type":"message","role":"assistant","content":[{"type":"text","text":"API Error: 529 overloaded"}],"usage":{"input_tokens":0,"output_tokens":0}},"sessionId":"s1"}"#,
    r#"{"type":"queue-operation","operation":"enqueue","timestamp":"t","sessionId":"s1","content":"next"}"#,
    r#"{"type":"summary","summary":"Calculator","leafUuid":"u4"}"#,
    r#"{"type":"file-history-snapshot","messageId":"m","snapshot":{"trackedFileBackups":{}},"isSnapshotUpdate":false}"#,
    r#"{"agentType":"general-purpose","isBuiltIn":true,"description":"Find","toolUseId":"toolu_21"}"#,
    r#"{"isSidechain":null,"sessionId":"s1","type":"user","message":{"role":"user","content":null,"extra":[1,{"a":null}]}}"#,
    r#"{"isSidechain":false,"sessionId":"s1","type":"user","message":{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","source":{"type":"base64","data":"AA=="}},{"type":"text","text":"b"}]}}"#,
];

/// Claude Code records the scanner reads and the conversion refuses.
const CLAUDE_REFUSED: &[&str] = &[
    r#"{"type":"assistant","sessionId":"s","message":{"id":"m","type":"message","role":"assistant"}}"#,
    r#"{"type":"assistant","sessionId":"s","message":{"id":"m","type":"message","role":"assistant","content":null}}"#,
    r#"{"type":"assistant","sessionId":"s","message":{"id":"m","type":"text","role":"assistant","content":"x"}}"#,
    r#"{"type":"assistant","sessionId":"s","message":{"role":"assistant","content":"no type"}}"#,
    r#"{"type":"assistant","sessionId":"s","message":{"type":"message","role":"assistant","content":[{"type":"tool_result","tool_use_id":"t","content":"r"}]}}"#,
    r#"{"type":"user","sessionId":"s","message":{"role":"assistant","content":"x"}}"#,
    r#"{"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]}}"#,
    r#"{"type":"user","sessionId":"s"}"#,
    r#"{"type":"user","sessionId":null,"isSidechain":null,"message":{"role":"user","content":"not Claude Code's"}}"#,
    r#"{"sessionId":"s","message":{"role":"user","content":"no type"}}"#,
];

/// Claude Code records the scanner leaves to the serde path (which reads or refuses
/// them).
const CLAUDE_LEFT: &[&str] = &[
    r#"{"type":"user","type":"user","sessionId":"s","message":{"role":"user","content":"x"}}"#,
    r#"{"type":"user","sessionId":"s","message":{"role":null,"content":"x"}}"#,
    r#"{"type":"user","sessionId":"s","message":{"content":"x"}}"#,
    r#"{"type":"user","sessionId":"s","message":{"role":"user","content":5}}"#,
    r#"{"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"telepathy"}]}}"#,
    r#"{"type":"assistant","isSidechain":true,"sessionId":"s","message":{"role":"assistant","content":[{"type":"telepathy"}]}}"#,
    r#"{"type":"user","sessionId":"s","isMeta":"yes","message":{"role":"user","content":"x"}}"#,
    r#"{"typ\u0065":"user","sessionId":"s","message":{"role":"user","content":"x"}}"#,
    r#"{"type":"user","sessionId":"s","message":[]}"#,
    r#"{"type":"user","sessionId":"s","message":{"role":"user","content":"x","usage":{"input_tokens":1.5}}}"#,
    r#"{"type":"user","sessionId":"s","sessionId":"t","message":{"role":"user","content":"x"}}"#,
    r#"{"type":"user","sessionId":"s","toolUseResult":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],"message":{"role":"user","content":"deep"}}"#,
];

#[test]
fn claude_code_records_are_scanned_as_serde_reads_them() {
    let scans = |line: &str| claude_code::record(line, &mut Default::default()).is_some();
    scanned_as_serde_reads(CLAUDE, CLAUDE_REFUSED, CLAUDE_LEFT, scans);
}

/// Codex CLI's rollout records: the conversation's Responses items, usage records,
/// the events (a `token_count` with and without its counts, the turn's end, the
/// others), the records that describe the session.
const CODEX: &[&str] = &[
    r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s","cwd":"/w","cli_version":"0.163.0","instructions":null,"git":{"branch":"main"}}}"#,
    r#"{"timestamp":"t","ordinal":7,"type":"response_item","payload":{"type":"message","id":"msg_1","role":"user","content":[{"type":"input_text","text":"What is 17 times 23?"}],"internal_chat_message_metadata_passthrough":{"turn_id":"t1","create_time":1795927454.566381}},"metadata":{"client_authored":true}}"#,
    r#"{"timestamp":"t","type":"response_item","payload":{"type":"reasoning","id":"rs_1","summary":[],"content":null,"encrypted_content":"gAAA"}}"#,
    r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Let me compute \"that\".","annotations":[]}]}}"#,
    r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","id":"fc_1","name":"exec_command","arguments":"{\"cmd\": \"false\"}","call_id":"call_1"},"metadata":{"user_input_order":2}}"#,
    r#"{"timestamp":"t","type":"token_usage_record","payload":{"thread_id":"a","turn_id":"b","session_id":"c","root_turn_id":"d","response_id":"resp_0","usage":{"input_tokens":61,"cached_input_tokens":5,"output_tokens":22,"reasoning_output_tokens":0,"total_tokens":83}}}"#,
    r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 1\nOutput:\n"}}"#,
    r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_0","output":"{\"output\":\"x\",\"metadata\":{\"exit_code\":2,\"duration_seconds\":0.1}}"}}"#,
    r#"{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":61},"last_token_usage":{"input_tokens":61,"output_tokens":22},"model_context_window":258400},"rate_limits":null}}"#,
    r#"{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":null}}"#,
    r#"{"timestamp":"t","type":"event_msg","payload":{"type":"agent_message","message":"395."}}"#,
    r#"{"timestamp":"t","type":"event_msg","payload":{"type":"task_complete","last_agent_message":"395."}}"#,
    r#"{"timestamp":"t","type":"turn_context","payload":{"cwd":"/w","approval_policy":"never","model":"gpt-5"}}"#,
    r#"{"timestamp":"t","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"payload first"}]},"type":"response_item"}"#,
    r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"caf\u00e9"}]}}"#,
];

/// Codex records the scanner reads and the conversion refuses.
const CODEX_REFUSED: &[&str] = &[
    r#"{"timestamp":"t","type":"response_item"}"#,
    r#"{"timestamp":"t","type":"response_item","payload":null}"#,
    r#"{"timestamp":"t","type":"event_msg","payload":null}"#,
    r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","call_id":"c","arguments":"{}"}}"#,
    r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"wizard","content":"x"}}"#,
];

/// Codex records the scanner leaves to the serde path (which reads or refuses them).
const CODEX_LEFT: &[&str] = &[
    r#"{"timestamp":"t","type":"response_item","type":"response_item","payload":{"type":"message","role":"user","content":"x"}}"#,
    r#"{"timestamp":"t","type":"response_item","payload":"x"}"#,
    r#"{"timestamp":"t","type":"token_usage_record","payload":{"usage":null}}"#,
    r#"{"timestamp":"t","type":"token_usage_record","payload":{"response_id":"r"}}"#,
    r#"{"timestamp":"t","type":"token_usage_record","payload":{"usage":{"input_tokens":1},"usage":{"input_tokens":2}}}"#,
    r#"{"timestamp":"t","type":"token_usage_record","payload":{"usage":{"input_tokens":1.5}}}"#,
    r#"{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":"none"}}"#,
    r#"{"timestamp":"t","type":"event_msg","payload":{"type":5}}"#,
    r#"{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":1},"last_token_usage":null}}}"#,
    r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":"x"},"payload":{}}"#,
    r#"{"timestamp":"t","type":"session_meta","payload":{"git":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}"#,
    r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":"x","extra":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}"#,
];

#[test]
fn codex_records_are_scanned_as_serde_reads_them() {
    let scans = |line: &str| codex::record(line, &mut Default::default()).is_some();
    scanned_as_serde_reads(CODEX, CODEX_REFUSED, CODEX_LEFT, scans);
    // A log of Codex before its usage records: a turn closed by its outputs waits for
    // the `token_count` event's usage.
    let older = [CODEX[1], CODEX[4], CODEX[6], CODEX[8], CODEX[3]].join("\n");
    reads_alike(&older).unwrap();
    assert!(read_all(&older)[1].as_ref().unwrap().usage.is_some());
    // Indented, an array of records: an error's line is its payload's (the type
    // first, as Codex writes it: the payload scanned with its record).
    let indented = format!(
        "[\n  {},\n  {{\n    \"timestamp\": \"t\",\n    \"type\": \"response_item\",\n    \
         \"payload\": {{\n      \"type\": \"message\",\n      \"role\": \"wizard\"\n    }}\n  }}\n]",
        CODEX[1]
    );
    reads_alike(&indented).unwrap();
    let error = read_all(&indented).pop().unwrap().unwrap_err();
    assert_eq!(error.line, 6, "{error}");
}

/// mini-swe-agent's trajectories, a line each: a tool-calling model's run (its
/// commands, the API response's usage, each output's return code, the submission);
/// a text-based model's (its commands parsed, a response saved as its `repr`, a
/// failed command, a reply it could not parse, a command that did not run, a limit);
/// a reply of a tool-calling model it could not parse (the response's message read);
/// mini-swe-agent 1's (its own regex, the submission; no format at all, content as
/// text parts, several commands); nulls, escapes and keys no reader reads.
const MINI: &[&str] = &[
    r#"{"info":{"model_stats":{"instance_cost":0.1,"api_calls":1},"mini_version":"2.4.6","exit_status":"Submitted","submission":"done\n"},"messages":[{"role":"system","content":"You are a helpful assistant."},{"role":"user","content":"List the files."},{"content":"Let me look.","role":"assistant","tool_calls":[{"function":{"arguments":"{\"command\": \"ls\"}","name":"bash"},"id":"call_1","type":"function"}],"function_call":null,"provider_specific_fields":null,"extra":{"actions":[{"command":"ls","tool_call_id":"call_1"}],"response":{"id":"chatcmpl-1","created":1,"model":"gpt-4o","object":"chat.completion","choices":[{"finish_reason":"tool_calls","index":0,"message":{"content":"Let me look.","role":"assistant"},"provider_specific_fields":{}}],"usage":{"completion_tokens":22,"prompt_tokens":61,"total_tokens":83,"completion_tokens_details":null,"prompt_tokens_details":null}},"cost":0.0003,"timestamp":1.5}},{"content":"<returncode>0</returncode>\n<output>\na.txt\n</output>","extra":{"raw_output":"a.txt\n","returncode":0,"timestamp":1.6,"exception_info":""},"tool_call_id":"call_1","role":"tool"},{"role":"exit","content":"done\n","extra":{"exit_status":"Submitted","submission":"done\n"}}],"trajectory_format":"mini-swe-agent-1.1"}"#,
    r#"{"messages":[{"role":"user","content":"task"},{"role":"assistant","content":"```bash\nls\n```","extra":{"actions":[{"command":"ls"}],"response":"ModelResponse(id='r')"}},{"role":"user","content":"<returncode>1</returncode>","extra":{"returncode":1,"exception_info":""}},{"role":"user","content":"Please always provide EXACTLY ONE action.","extra":{"interrupt_type":"FormatError","model_response":"no command here"}},{"role":"user","content":"timed out","extra":{"returncode":0,"exception_info":"TimeoutExpired"}},{"role":"exit","content":"","extra":{"exit_status":"LimitsExceeded"}}],"trajectory_format":"mini-swe-agent-1.1","info":null}"#,
    r#"{"trajectory_format":"mini-swe-agent-1.1","messages":[{"role":"user","content":"t"},{"role":"user","content":"No tool calls found.","extra":{"interrupt_type":"FormatError","response":{"choices":[{"message":{"role":"assistant","content":"I think \"so\"","tool_calls":null}}],"usage":{"prompt_tokens":3,"completion_tokens":1}}}}]}"#,
    r#"{"info":{"exit_status":"Submitted","config":{"agent":{"action_regex":"```sh\\s*\\n(.*?)\\n```","step_limit":0},"model":{"model_name":"x"}}},"messages":[{"role":"system","content":"s"},{"role":"user","content":"t"},{"role":"assistant","content":"```sh\nls\n```"},{"role":"user","content":"<returncode>2</returncode>\nno"},{"role":"assistant","content":"```sh\necho done\n```"},{"role":"user","content":"done"}],"trajectory_format":"mini-swe-agent-1"}"#,
    r#"{"messages":[{"role":"user","content":[{"type":"text","text":"t"}]},{"role":"assistant","content":"```bash\nls\n```\n```bash\npwd\n```"},{"role":"user","content":"Please provide one."}]}"#,
    r#"{"messages":[{"role":"user","content":"caf\u00e9 \"q\"","name":null,"extra":null,"tool_calls":null,"tool_call_id":null},{"role":"assistant","content":null,"tool_calls":[],"extra":{"actions":null,"response":null,"returncode":null}}],"trajectory_format":"mini-swe-agent-1.1","other":{"a":[1,2]}}"#,
    r#"{"messages":[{"role":"tool","content":"","extra":{"returncode":-1,"exception_info":""}},{"role":"tool","content":"","extra":{"returncode":-9223372036854775808}},{"role":"tool","content":"","extra":{"returncode":9223372036854775807}}],"trajectory_format":"mini-swe-agent-1.1"}"#,
    r#"{"info":{"exit_status":"Submitted"},"messages":[{"role":"system","content":"s"},{"role":"user","content":"t"},{"id":"resp_1","created_at":1.0,"error":null,"incomplete_details":null,"instructions":null,"metadata":{},"model":"gpt-5","object":"response","output":[{"id":"rs_1","summary":[],"type":"reasoning","encrypted_content":null,"status":null},{"id":"msg_1","content":[{"annotations":[],"text":"Let me look.","type":"output_text","logprobs":[]}],"role":"assistant","status":"completed","type":"message"},{"arguments":"{\"command\":\"ls\"}","call_id":"call_1","name":"bash","type":"function_call","id":"fc_1","status":"completed"}],"parallel_tool_calls":true,"temperature":1.0,"tool_choice":"auto","tools":[{"name":"bash","parameters":{"type":"object"},"strict":true,"type":"function"}],"top_p":1.0,"max_output_tokens":null,"previous_response_id":null,"reasoning":{"effort":"low"},"status":"completed","text":{"format":{"type":"text"}},"truncation":"disabled","usage":{"input_tokens":61,"input_tokens_details":{"cached_tokens":0},"output_tokens":22,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":83},"user":null,"store":true,"extra":{"actions":[{"command":"ls","tool_call_id":"call_1"}],"cost":0.1,"timestamp":1.5}},{"extra":{"raw_output":"a\n","returncode":0,"exception_info":""},"type":"function_call_output","call_id":"call_1","output":"<returncode>0</returncode>"},{"type":"message","role":"user","content":"Please go on.","extra":{"interrupt_type":"FormatError","response":{"object":"response","output":[{"type":"message","content":[{"type":"output_text","text":"no call"}]}],"usage":{"input_tokens":3,"output_tokens":1}}}},{"object":"response","output":[{"type":"function_call","name":"bash","arguments":"{\"command\":\"echo done\"}","call_id":"call_2"}],"usage":null},{"type":"function_call_output","call_id":"call_2","output":null,"extra":{"returncode":2}},{"role":"exit","content":"done","extra":{"exit_status":"Submitted"}}],"trajectory_format":"mini-swe-agent-1.1"}"#,
    r#"{"messages":[{"object":"response","output":[],"usage":null},{"type":"function_call_output","call_id":"c","output":"x"},{"role":"user","content":"x","extra":{"response":{"output":null,"choices":null}}}],"trajectory_format":"mini-swe-agent-1.1"}"#,
];

/// mini-swe-agent trajectories the scanner reads and the conversion refuses.
const MINI_REFUSED: &[&str] = &[
    r#"{"messages":[{"role":"wizard","content":"x"}],"trajectory_format":"mini-swe-agent-1.1"}"#,
    r#"{"messages":[],"trajectory_format":"mini-swe-agent-9"}"#,
    r#"{"info":{"config":{"agent":{"action_regex":"(unclosed"}}},"messages":[],"trajectory_format":"mini-swe-agent-1"}"#,
    r#"{"messages":[{"object":"response","output":[{"type":"web_search_call","id":"w"}]}],"trajectory_format":"mini-swe-agent-1.1"}"#,
    r#"{"messages":[{"object":"response","output":[{"type":"function_call","arguments":"{}"}]}],"trajectory_format":"mini-swe-agent-1.1"}"#,
    r#"{"messages":[{"type":"function_call_output","call_id":"c","output":[{"type":"function_call","name":"f"}]}],"trajectory_format":"mini-swe-agent-1.1"}"#,
    r#"{"messages":[{"object":"response","output":"text"}],"trajectory_format":"mini-swe-agent-1.1"}"#,
    r#"{"messages":[{"type":"reasoning"}],"trajectory_format":"mini-swe-agent-1.1"}"#,
];

/// mini-swe-agent trajectories the scanner leaves to the serde path (which reads or
/// refuses them).
const MINI_LEFT: &[&str] = &[
    r#"{"messages":[{"role":"tool","content":"","extra":{"returncode":0.0}}],"trajectory_format":"mini-swe-agent-1.1"}"#,
    r#"{"messages":[{"role":"tool","content":"","extra":{"returncode":- 1}}],"trajectory_format":"mini-swe-agent-1.1"}"#,
    r#"{"messages":[{"role":"tool","content":"","extra":{"returncode":-0}}],"trajectory_format":"mini-swe-agent-1.1"}"#,
    r#"{"messages":[{"role":"tool","content":"","extra":{"returncode":-9223372036854775809}}],"trajectory_format":"mini-swe-agent-1.1"}"#,
    r#"{"messages":[{"role":"tool","content":"","extra":{"returncode":9223372036854775808}}],"trajectory_format":"mini-swe-agent-1.1"}"#,
    r#"{"messages":[{"role":"tool","content":"","extra":{"returncode":-}}],"trajectory_format":"mini-swe-agent-1.1"}"#,
    r#"{"messages":[{"role":"tool","content":"","extra":{"returncode":-01}}],"trajectory_format":"mini-swe-agent-1.1"}"#,
    r#"{"messages":[],"messages":[],"trajectory_format":"mini-swe-agent-1.1"}"#,
    r#"{"trajectory_format":"mini-swe-agent-1.1"}"#,
    r#"{"messages":[{"role":"user","role":"user","content":"x"}]}"#,
    r#"{"messages":[{"role":"user","content":"x","extra":{"response":5}}]}"#,
    r#"{"messages":[{"role":"user","content":"x","extra":{"response":{"choices":[{"index":0}]}}}]}"#,
    r#"{"messages":[{"role":"assistant","content":"x","extra":{"actions":[{"tool_call_id":"c"}]}}]}"#,
    r#"{"messages":[{"role":"assistant","content":"x","tool_calls":[{"id":"c","function":{"name":"","arguments":"{}"}}]}]}"#,
    r#"{"messages":[{"role":"user","content":"x","extra":{"raw_output":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}]}"#,
    r#"{"messages":[{"role":"user","content":"x"}],"trajectory_format":5}"#,
    r#"{"messages":[{"object":"response","output":[{"content":[]}]}],"trajectory_format":"mini-swe-agent-1.1"}"#,
    r#"{"messages":[{"object":"response","object":"response","output":[]}],"trajectory_format":"mini-swe-agent-1.1"}"#,
    r#"{"messages":[{"object":"response","output":5}],"trajectory_format":"mini-swe-agent-1.1"}"#,
    r#"{"messages":[{"object":"response","output":[{"type":"function_call","name":"f","arguments":"{}","arguments":"{}"}]}],"trajectory_format":"mini-swe-agent-1.1"}"#,
    r#"{"messages":[{"object":"response","output":[],"usage":{"input_tokens":-1}}],"trajectory_format":"mini-swe-agent-1.1"}"#,
    r#"{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}],"trajectory_format":"mini-swe-agent-1.1"}"#,
];

#[test]
fn mini_swe_agent_trajectories_are_scanned_as_serde_reads_them() {
    let scans = |line: &str| mini_swe_agent::trajectory(line, &mut Default::default()).is_some();
    scanned_as_serde_reads(MINI, MINI_REFUSED, MINI_LEFT, scans);
    // Alone, each trajectory too (the first of a log makes its kind known).
    for line in MINI.iter().chain(MINI_REFUSED).chain(MINI_LEFT) {
        reads_alike(line).unwrap();
    }
    // A Responses API model's entries are scanned as what they are. (A scan that the
    // conversion refused would not show in the messages: the reader reads the
    // trajectory again by serde, each entry in turn, to say where it is wrong.)
    let mut scanned = Default::default();
    let responses = MINI.iter().find(|t| t.contains("resp_1")).unwrap();
    assert!(mini_swe_agent::trajectory(responses, &mut scanned).is_some());
    let shapes: Vec<_> = scanned
        .messages
        .iter()
        .map(|entry| {
            let text =
                |s: &Option<crate::transcript::wire::Str<'_>>| s.as_ref().map(|s| s.0.to_string());
            (
                text(&entry.role),
                text(&entry.kind),
                text(&entry.object),
                text(&entry.call_id),
            )
        })
        .collect();
    let some = |s: &str| Some(s.to_owned());
    assert_eq!(
        shapes,
        [
            (some("system"), None, None, None),
            (some("user"), None, None, None),
            (None, None, some("response"), None),
            (None, some("function_call_output"), None, some("call_1")),
            (some("user"), some("message"), None, None),
            (None, None, some("response"), None),
            (None, some("function_call_output"), None, some("call_2")),
            (some("exit"), None, None, None),
        ]
    );
}

/// SWE-agent's trajectories, a trajectory a line: a function-calling model's run that
/// submitted (its steps, their queries and the configuration skipped); a text-based
/// model's that SWE-agent ended, with demonstrations; escapes, `null`s where serde
/// reads them as absent, keys in another order.
const SWE: &[&str] = &[
    r#"{"trajectory":[{"action":"ls","observation":"a.py","response":"Look.","thought":"Look.","execution_time":0.1,"state":{"working_dir":"/t"},"query":[{"role":"system","content":"s","agent":"main","message_type":"system_prompt"}],"extra_info":{}}],"history":[{"role":"system","content":"s","agent":"main","message_type":"system_prompt"},{"role":"user","content":[{"type":"text","text":"Fix it."}],"agent":"main","message_type":"observation"},{"role":"assistant","content":"Look.","thought":"Look.","action":"ls","agent":"main","tool_calls":[{"function":{"arguments":"{\"command\": \"ls\"}","name":"bash"},"id":"call_1","type":"function"}],"message_type":"action","thinking_blocks":[]},{"role":"tool","content":[{"type":"text","text":"OBSERVATION:\na.py"}],"agent":"main","message_type":"observation","tool_call_ids":["call_1"],"cache_control":{"type":"ephemeral"}},{"role":"assistant","content":"Done.","action":"submit","agent":"main","tool_calls":[{"function":{"arguments":"{}","name":"submit"},"id":"call_2","type":"function"}],"message_type":"action"},{"role":"tool","content":"diff","agent":"main","message_type":"observation","tool_call_ids":["call_2"]}],"info":{"swe_agent_hash":"h","submission":"diff\n","exit_status":"submitted","model_stats":{"instance_cost":0,"api_calls":2}},"replay_config":"{\"agent\": {}}","environment":"main"}"#,
    r#"{"environment":"swe_main","history":[{"role":"system","content":"s","agent":"primary"},{"agent":"primary","content":"a demo","is_demo":true,"role":"user"},{"role":"assistant","content":"demo call","action":null,"is_demo":true,"tool_calls":[{"function":{"arguments":"{}","name":"submit"},"id":"d1","type":"function"}]},{"role":"user","content":"Fix \"it\" \u00e9.","agent":"primary","is_demo":null},{"role":"assistant","content":"```\nopen a.py\n```","thought":"","action":"open a.py\n","agent":"primary","tool_calls":null},{"role":"user","content":"[File: a.py]","agent":"primary"},{"role":"assistant","content":"Exit due to cost limit","thought":"Exit due to cost limit","action":"","agent":"primary","tool_calls":null,"thinking_blocks":null},{"role":"user","content":"Exited (autosubmitted)","agent":"primary","tool_call_ids":null}],"info":{"exit_status":"submitted (exit_cost)","submission":null},"trajectory":[]}"#,
    r#"{"history":[{"role":"us\u0065r","content":null},{"role":"assistant","content":"x","action":"submit"}],"info":{"exit_status":"submitted","submission":"p"},"attempts":null}"#,
    r#"{"history":[],"info":null}"#,
];

/// Trajectories the scanner takes and the conversion refuses.
const SWE_REFUSED: &[&str] = &[
    r#"{"history":[{"role":"critic","content":"x"}]}"#,
    r#"{"history":[{"role":"tool","content":"x","tool_call_ids":["a","b"]}]}"#,
    r#"{"attempts":[{"history":[],"info":{}}]}"#,
    r#"{"trajectory":[],"info":{}}"#,
];

/// Trajectories the scanner leaves to the serde path (which reads or refuses them).
const SWE_LEFT: &[&str] = &[
    r#"{"history":[{"content":"x"}]}"#,
    r#"{"history":[{"role":null,"content":"x"}]}"#,
    r#"{"history":[{"role":"user","role":"user","content":"x"}]}"#,
    r#"{"history":[],"history":[]}"#,
    r#"{"history":[{"role":"user","content":"x","is_demo":1}]}"#,
    r#"{"history":[{"role":"tool","content":"x","tool_call_ids":[1]}]}"#,
    r#"{"history":[{"role":"user","content":5}]}"#,
    r#"{"history":[{"role":"assistant","content":"x","tool_calls":[{"id":"c","function":{"name":"","arguments":"{}"}}]}]}"#,
    r#"{"history":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}]}"#,
    r#"{"history":[{"role":"tool","content":"x","tool_call_ids":["a"],"tool_call_ids":["a"]}]}"#,
    r#"{"history":[],"info":{"exit_status":5}}"#,
    r#"{"history":[],"trajectory":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}"#,
];

#[test]
fn swe_agent_trajectories_are_scanned_as_serde_reads_them() {
    let scans = |line: &str| swe_agent::trajectory(line, &mut Default::default()).is_some();
    scanned_as_serde_reads(SWE, SWE_REFUSED, SWE_LEFT, scans);
    // Alone, each trajectory too (the first of a log makes its kind known).
    for line in SWE.iter().chain(SWE_REFUSED).chain(SWE_LEFT) {
        reads_alike(line).unwrap();
    }
    // What the scanner read: each entry's role, its calls, its ids, the run's end.
    let mut scanned = Default::default();
    assert!(swe_agent::trajectory(SWE[1], &mut scanned).is_some());
    let history = scanned.history.unwrap();
    let roles: Vec<_> = history.iter().map(|e| (&*e.role.0, e.is_demo)).collect();
    assert_eq!(
        roles,
        [
            ("system", None),
            ("user", Some(true)),
            ("assistant", Some(true)),
            ("user", None),
            ("assistant", None),
            ("user", None),
            ("assistant", None),
            ("user", None),
        ]
    );
    assert_eq!(history[3].role.0, "user");
    assert_eq!(
        history[4].action.as_ref().map(|a| &*a.0),
        Some("open a.py\n")
    );
    let info = scanned.info.unwrap();
    assert_eq!(
        (info.exit_status.map(|s| s.0), info.submission.is_none()),
        (Some(Cow::Borrowed("submitted (exit_cost)")), true)
    );
    // A retry agent's attempts are seen, as serde sees them (the reading of a
    // trajectory without a history, refused, is serde's: it says why).
    let mut retry = Default::default();
    assert!(swe_agent::trajectory(SWE_REFUSED[2], &mut retry).is_some());
    assert!(retry.history.is_none() && retry.attempts.is_some());
}

/// Inspect AI's samples, a line each: a sample as Inspect logs it (reasoning and text
/// parts, a call, its output, a model event with its usage and the message it added,
/// a tool event, the sample's other keys); attachments (one written twice), a
/// `tool_use` part, a tool's error, the sample's error, escapes, a user message's
/// list of call ids; no message; model events without an id, an output or a usage.
const INSPECT: &[&str] = &[
    r#"{"id":"s1","epoch":1,"input":"q","target":"t","messages":[{"id":"m1","content":"You are","source":null,"role":"system"},{"id":"m2","content":"What?","source":"input","role":"user","tool_call_id":null},{"id":"m3","content":[{"type":"reasoning","reasoning":"think","signature":null,"redacted":false},{"type":"text","text":"Let me use it.","refusal":null,"citations":null}],"source":"generate","role":"assistant","tool_calls":[{"id":"c1","function":"python","arguments":{"code":"print(1)"},"parse_error":null,"view":null,"type":"function"}],"model":"mockllm/model"},{"id":"m4","content":"1\n","role":"tool","tool_call_id":"c1","function":"python","error":null},{"id":"m5","content":"done","role":"assistant","tool_calls":null,"model":"m"}],"output":{"model":"m","choices":[]},"scores":{},"metadata":{},"store":{},"events":[{"span_id":"x","timestamp":"t","working_start":0.1,"pending":false,"event":"sample_init","sample":{"input":"q"},"state":{}},{"event":"model","model":"m","role":null,"input":[{"role":"user","content":"What?"}],"tools":[{"name":"python","description":"d","parameters":{"type":"object"}}],"tool_choice":"auto","config":{},"output":{"model":"m","choices":[{"message":{"id":"m3","content":"x","role":"assistant","tool_calls":[]},"stop_reason":"tool_calls","logprobs":null}],"usage":{"input_tokens":10,"output_tokens":5,"total_tokens":20,"input_tokens_cache_write":null,"input_tokens_cache_read":5,"reasoning_tokens":null},"time":0.5,"metadata":null,"error":null},"retries":0,"error":null,"cache":null,"call":null,"completed":"t","working_time":0.5},{"event":"tool","type":"function","id":"c1","function":"python","arguments":{"code":"print(1)"},"result":"1\n","events":[],"error":null}],"model_usage":{},"total_time":1.0,"working_time":1.0,"uuid":"u","error_retries":[],"attachments":{},"limit":null}"#,
    r#"{"id":"x","epoch":1,"messages":[{"role":"user","content":"attachment://abc","tool_call_id":["c1","c2"]},{"role":"assistant","content":[{"type":"text","text":"caf\u00e9 \"q\""},{"type":"tool_use","id":"t1","name":"web_search","arguments":{"q":"x"}}],"id":"m9"},{"role":"tool","content":"","tool_call_id":"c1","function":"bash","error":{"type":"timeout","message":""}}],"attachments":{"abc":"the long text","abc":"the last","def":"other"},"error":{"message":"boom","traceback":"tb"},"events":null}"#,
    r#"{"id":"x","epoch":1,"messages":[]}"#,
    r#"{"id":"x","epoch":1,"messages":[{"role":"assistant","content":"x","id":"m1"},{"role":"assistant","content":null,"id":"m2"}],"events":[{"event":"model","output":{"choices":[{"message":{"role":"assistant"}}],"usage":{"input_tokens":3,"output_tokens":1,"total_tokens":null}}},{"event":"model","output":null},{"event":"model","output":{"choices":[],"usage":null}},{"event":"model","output":{"choices":[{"message":{"id":"m1"}}],"usage":{"input_tokens":7,"output_tokens":2}}},{"event":"model","output":{"choices":[{"message":{"id":"m2"}}],"usage":{"output_tokens":2,"total_tokens":1}}}]}"#,
];

/// Inspect samples the scanner reads and the conversion refuses.
const INSPECT_REFUSED: &[&str] = &[
    r#"{"id":"x","epoch":1,"messages":[{"role":"wizard","content":"x"}]}"#,
    r#"{"id":"x","epoch":1,"messages":[{"role":"user","content":[{"type":"bogus"}]}]}"#,
    r#"{"id":"x","epoch":1,"messages":[{"role":"tool","content":"x","tool_call_id":5}]}"#,
    r#"{"id":"x","epoch":1,"messages":[{"role":"assistant","content":"x","tool_calls":[{"id":"c","function":"","arguments":{}}]}]}"#,
    r#"{"id":"x","epoch":1,"messages":[{"role":"user","content":[{"type":"tool_use","id":"t","name":"f"}]}]}"#,
    r#"{"id":"x","epoch":1,"messages":[{"role":"user","content":[{"type":"text"}]}]}"#,
];

/// Inspect samples the scanner leaves to the serde path (which reads or refuses
/// them).
const INSPECT_LEFT: &[&str] = &[
    r#"{"id":"x","epoch":1,"messages":[{"role":"user","role":"user","content":"x"}]}"#,
    r#"{"id":"x","epoch":1,"events":[]}"#,
    r#"{"id":"x","epoch":1,"messages":[],"events":[{"event":"model","output":{"choices":null}}]}"#,
    r#"{"id":"x","epoch":1,"messages":[],"events":[{"event":"model","output":{"choices":[],"usage":{"input_tokens":null}}}]}"#,
    r#"{"id":"x","epoch":1,"messages":[],"events":[{"event":"model","output":{"choices":[],"usage":{"input_tokens":1.5}}}]}"#,
    r#"{"id":"x","epoch":1,"messages":[],"attachments":{"a":null}}"#,
    r#"{"id":"x","epoch":1,"messages":[],"attachments":{"a\u0062":"x"}}"#,
    r#"{"id":"x","epoch":1,"messages":[{"role":"user","content":5}]}"#,
    r#"{"id":"x","epoch":1,"messages":[],"events":[{"output":null}]}"#,
    r#"{"id":"x","epoch":1,"messages":[],"store":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}"#,
    r#"{"id":"x","epoch":1,"messages":[{"role":null,"content":"x"}]}"#,
    r#"{"id":"x","epoch":1,"messages":[],"events":[{"event":"model","output":{"choices":[{"stop_reason":"stop"}]}}]}"#,
    r#"{"id":"x","epoch":1,"messages":[],"error":{"traceback":"tb"}}"#,
    r#"{"id":"x","epoch":1,"messages":[],"events":[{"event":"subtask","output":"text"}]}"#,
    r#"{"id":"x","epoch":1,"messages":[{"role":"assistant","content":"x","tool_calls":[{"id":"c","arguments":{}}]}]}"#,
    r#"{"id":"x","epoch":1,"messages":[],"messages":[]}"#,
];

#[test]
fn inspect_samples_are_scanned_as_serde_reads_them() {
    let scans = |line: &str| inspect::sample(line, &mut Default::default()).is_some();
    scanned_as_serde_reads(INSPECT, INSPECT_REFUSED, INSPECT_LEFT, scans);
    for line in INSPECT.iter().chain(INSPECT_REFUSED).chain(INSPECT_LEFT) {
        reads_alike(line).unwrap();
    }
    // Each event and message scanned as what it is (a scan the conversion refused
    // would not show in the messages: the reader reads the sample again by serde).
    let mut scanned = Default::default();
    assert!(inspect::sample(INSPECT[0], &mut scanned).is_some());
    let roles: Vec<&str> = scanned.messages.iter().map(|m| &*m.role.0).collect();
    assert_eq!(roles, ["system", "user", "assistant", "tool", "assistant"]);
    let events: Vec<(&str, bool)> = scanned
        .events
        .iter()
        .flatten()
        .map(|e| (&*e.event.0, e.output.is_some()))
        .collect();
    assert_eq!(
        events,
        [("sample_init", false), ("model", true), ("tool", false)]
    );
}

/// An Inspect eval log's samples are found by the scanner as serde finds them (each
/// one's JSON text), or left to serde; a log reads alike both ways.
#[test]
fn inspect_logs_samples_are_found_as_serde_finds_them() {
    use crate::transcript::inspect::Log;
    let two = include_str!("../../../../tests/data/inspect-log-two.json");
    let one = include_str!("../../../../examples/formats/inspect-log.json");
    fn by_serde(text: &str) -> Option<Option<Vec<&str>>> {
        serde_json::from_str::<Log<'_>>(text).ok().map(|log| {
            log.samples
                .map(|samples| samples.into_iter().map(|s| s.get()).collect::<Vec<_>>())
        })
    }
    let found = [
        two,
        one,
        r#"{"version": 2, "eval": {"task": "t"}}"#,
        r#"{"version": 2, "samples": null}"#,
        r#"{"samples": [{"id": 1}, {"id": 2}], "results": {"scores": [1, 2]}}"#,
    ];
    for text in found {
        let scanned = inspect::log_samples(text);
        assert!(scanned.is_some(), "{text}");
        assert_eq!(scanned, by_serde(text), "{text}");
    }
    assert_eq!(
        inspect::log_samples(two).flatten().map(|s| s.len()),
        Some(2)
    );
    let left = [
        r#"{"samples": [], "samples": []}"#,
        r#"{"samples": {}}"#,
        r#"{"samples": [1,]}"#,
        r#"{"samples": [], "plan": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}"#,
    ];
    for text in left {
        assert_eq!(inspect::log_samples(text), None, "{text}");
    }
    for text in [two, one] {
        reads_alike(text).unwrap();
    }
    // A corpus's search for a log's samples: as serde finds them, where there are
    // two or more (a log of fewer is one transcript).
    let more = [
        r#"{"samples": [{"id": 1}], "x": tru}"#,
        r#"{"samples": [{"id": 1}, {"id": 2}], "x": tru}"#,
        r#"{"samples": [{"id": 1}], "samples": [{"id": 1}, {"id": 2}]}"#,
        r#"{"samples": [{"id": 1}, {"id": 2}]} {}"#,
        r#"{"samples": [{"id": 1}, "#,
        r#"{"samples": 7}"#,
        r#"[{"samples": [{"id": 1}, {"id": 2}]}]"#,
    ];
    for text in found.iter().chain(&left).chain(&more) {
        let found = crate::transcript::inspect::json_log_samples(text).map(|s| s.len());
        let by_serde = by_serde(text)
            .flatten()
            .map(|s| s.len())
            .filter(|&n| n >= 2);
        assert_eq!(found, by_serde, "{text}");
    }
}

/// CrewAI's task outputs (`TaskOutput.model_dump()`, an agent's `LiteAgentOutput`).
const CREWAI: &[&str] = &[
    r#"{"description": "Add.", "name": "Add.", "expected_output": "a number", "summary": "Add....", "raw": "5", "pydantic": null, "json_dict": null, "agent": "Analyst", "output_format": "raw", "messages": [{"role": "system", "content": "You are Analyst."}, {"role": "user", "content": "Add 2 and 3."}, {"role": "assistant", "content": "", "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "add", "arguments": "{\"a\": 2, \"b\": 3}"}}]}, {"role": "tool", "content": "5", "tool_call_id": "call_1", "name": "add"}, {"role": "assistant", "content": "5"}], "tool_failures": []}"#,
    r#"{"raw": "42", "agent_role": "Analyst", "usage_metrics": null, "messages": [{"role": "user", "content": "6*7?"}, {"role": "assistant", "content": "Thought: t\nAction: calculator\nAction Input: {\"x\": \"6*7\"}\nObservation: 42"}, {"role": "user", "content": "Analyze the tool result."}], "tool_failures": null, "plan": null}"#,
    r#"{"agent": "A", "expected_output": "x", "messages": [], "raw": ""}"#,
    r#"{"agent": null, "expected_output": "x", "messages": [{"role": "assistant", "content": [{"type": "text", "text": "caf\u00e9"}]}], "raw": null}"#,
    r#"{"agent": "A", "expected_output": "x", "messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "add", "input": {"a": 1}}]}, {"role": "user", "name": "add", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "2"}, {"type": "text", "text": "Go on."}]}]}"#,
    // A task's files (media) and the calls as Gemini's SDK gave them: skipped.
    r#"{"agent": "A", "expected_output": "x", "messages": [{"role": "user", "content": "a", "files": {}}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}], "raw_tool_call_parts": [{"function_call": {"name": "f", "args": {}}}]}]}"#,
];

/// CrewAI's task outputs the scanner leaves to the serde path (which reads or
/// refuses them).
const CREWAI_LEFT: &[&str] = &[
    r#"{"agent": "A", "expected_output": "x", "messages": [{"role": "tool", "content": "Error", "tool_call_id": "c", "name": "f"}], "tool_failures": [{"tool_name": "f", "failure": {"message": "boom"}, "tool_args": null}]}"#,
    r#"{"agent": "A", "expected_output": "x", "messages": [{"role": "user", "content": "a", "files": {}, "files": {}}]}"#,
    r#"{"agent": "A", "expected_output": "x", "messages": [{"role": "robot", "content": "a"}]}"#,
    r#"{"agent": "A", "expected_output": "x", "messages": [], "messages": []}"#,
    r#"{"agent": "A", "expected_output": "x", "raw": 5, "messages": []}"#,
    r#"{"agent": "A", "expected_output": "x"}"#,
    r#"{"agent": "A", "expected_output": "x", "messages": null}"#,
];

#[test]
fn crewai_tasks_are_scanned_as_serde_reads_them() {
    scanned_as_serde_reads(CREWAI, &[], CREWAI_LEFT, |line| {
        let (mut spare, mut out) = (Vec::new(), Default::default());
        crewai::task(line, &mut Default::default(), &mut spare, &mut out).is_some()
    });
}

/// A crew's tasks after a task's line, whose list of messages the reader keeps for
/// the next line's: the crew's first task left to serde (a tool's failure, before
/// its messages: the scanner gives up before it asks for room), its messages in the
/// list (not in the kept one), then a task the scanner reads into the same list.
/// Every task's messages are read, as serde reads them.
#[test]
fn a_crews_tasks_after_a_task_line_keep_every_message() {
    let failed = r#"{"agent": "A", "tool_failures": [{"tool_name": "f", "failure": {"message": "boom"}, "tool_args": null}], "messages": [{"role": "tool", "content": "Error", "tool_call_id": "c", "name": "f"}]}"#;
    let crew = format!(
        r#"{{"raw": "5", "tasks_output": [{failed}, {}]}}"#,
        CREWAI[0]
    );
    let text = format!("{}\n{crew}\n", CREWAI[0]);
    reads_alike(&text).unwrap();
    let read: Vec<_> = read_all(&text).into_iter().map(Result::unwrap).collect();
    // Each task's messages: five, the failed tool's one, five.
    assert_eq!(read.len(), 11, "{read:#?}");
    assert_eq!(read[5].content(), "Error");
}

/// LangChain's messages: `messages_to_dict()`'s envelope and a message's own
/// `model_dump()`.
const LANGCHAIN: &[&str] = &[
    r#"{"type": "human", "data": {"content": "What is 17 times 23, plus 4?", "additional_kwargs": {}, "response_metadata": {}, "type": "human", "name": null, "id": "f2"}}"#,
    r#"{"type": "ai", "data": {"content": "Let me compute that.", "additional_kwargs": {}, "response_metadata": {"model_name": "gpt-4o"}, "type": "ai", "name": "Planner", "id": "lc_run--01", "tool_calls": [{"name": "calculator", "args": {"expression": "17 * 23 + 4"}, "id": "call_1", "type": "tool_call"}], "invalid_tool_calls": [], "usage_metadata": {"input_tokens": 61, "output_tokens": 22, "total_tokens": 83, "input_token_details": {"cache_read": 0}}}}"#,
    r#"{"type": "tool", "data": {"content": "395 \u00e9", "type": "tool", "name": "calculator", "id": "9e", "tool_call_id": "call_1", "artifact": null, "status": "success"}}"#,
    r#"{"type": "tool", "data": {"content": "boom", "type": "tool", "name": "f", "tool_call_id": "c", "status": "error"}}"#,
    r#"{"type": "ai", "data": {"content": "", "tool_calls": [{"name": "g", "args": "{\"x\": 1}", "id": null}], "invalid_tool_calls": [{"name": "h", "args": "{oops", "id": "c3", "error": "bad JSON", "type": "invalid_tool_call"}, {"name": null, "args": null, "error": null}], "usage_metadata": null}}"#,
    r#"{"data": {"content": "no type inside", "type": ""}, "type": "system"}"#,
    r#"{"type": "chat", "data": {"content": "as the user", "role": "user"}}"#,
    r#"{"type": "AIMessageChunk", "data": {"content": "a chunk", "type": "AIMessageChunk", "tool_call_chunks": []}}"#,
    r#"{"content": "bare", "additional_kwargs": {}, "response_metadata": {}, "type": "ai", "name": null, "id": "run-1", "tool_calls": [], "invalid_tool_calls": [], "usage_metadata": {"input_tokens": 1, "output_tokens": 2}}"#,
    r#"{"type": "function", "content": null, "name": "legacy", "extra": [1, {"a": null}]}"#,
    // Content as a list of blocks (Anthropic's, OpenAI's Responses', LangChain's own).
    r#"{"type": "ai", "data": {"content": [{"type": "text", "text": "blocks"}], "type": "ai"}}"#,
    r#"{"type": "ai", "data": {"content": [{"text": "Searching.", "type": "text", "cache_control": null}, {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"query": "q é"}}], "tool_calls": [{"name": "search", "args": {"query": "q é"}, "id": "toolu_1", "type": "tool_call"}], "usage_metadata": {"input_tokens": 9, "output_tokens": 4}}}"#,
    r#"{"type": "ai", "data": {"content": ["plain", {"type": "reasoning", "summary": []}, {"type": "output_text", "text": "b", "annotations": []}, {"type": "tool_call", "name": "f", "args": {"x": 1}, "id": "c1"}, {"type": "tool_use", "name": "g", "input": null}], "tool_calls": []}}"#,
    r#"{"type": "human", "data": {"content": [], "type": "human"}}"#,
    r#"{"type": "tool", "data": {"content": [{"type": "text", "text": "395"}, {"type": "image", "url": "u"}], "tool_call_id": "c", "name": "f"}}"#,
];

/// LangChain's messages the scanner leaves to the serde path (which reads or refuses
/// them).
const LANGCHAIN_LEFT: &[&str] = &[
    r#"{"type": "ai", "data": {"content": [{"type": "hologram"}], "type": "ai"}}"#,
    r#"{"type": "ai", "data": {"content": [{"type": "text"}]}}"#,
    r#"{"type": "ai", "data": {"content": [{"text": "no type"}]}}"#,
    r#"{"type": "ai", "data": {"content": [5]}}"#,
    r#"{"type": "human", "data": {"content": [{"type": "tool_use", "name": "f", "input": {}}]}}"#,
    r#"{"type": "ai", "data": {"content": [{"type": "tool_use", "input": {}}]}}"#,
    r#"{"type": "ai", "data": {"content": [{"type": "text", "text": "a", "text": "b"}]}}"#,
    r#"{"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"], "kwargs": {"content": "dumpd", "type": "ai"}}"#,
    r#"{"type": "ai", "content": "beside", "data": {"content": "inside", "type": "ai"}}"#,
    r#"{"type": "ai", "data": {"content": "a", "content": "b"}}"#,
    r#"{"type": "ai", "data": {"content": "a", "data": {"content": "b"}}}"#,
    r#"{"type": "ai", "data": null}"#,
    r#"{"type": "robot", "data": {"content": "a"}}"#,
    r#"{"type": "remove", "data": {"id": "m1"}}"#,
    r#"{"type": "ai", "data": {"content": "a", "tool_calls": [{"args": {}}]}}"#,
    r#"{"type": "human", "data": {"content": "a", "usage_metadata": {"input_tokens": 1.5}}}"#,
    r#"{"type": "chat", "data": {"content": "a"}}"#,
    r#"{"data": {"content": "a"}}"#,
];

#[test]
fn langchain_messages_are_scanned_as_serde_reads_them() {
    scanned_as_serde_reads(LANGCHAIN, &[], LANGCHAIN_LEFT, |line| {
        langchain::message(line, &mut Chat::default()).is_some()
    });
}

/// Pydantic AI's messages (`ModelRequest`, `ModelResponse`), as
/// `ModelMessagesTypeAdapter` writes each.
const PYDANTIC: &[&str] = &[
    r#"{"parts":[{"content":"You are terse.","timestamp":"t","dynamic_ref":null,"part_kind":"system-prompt"},{"content":"What is 17 times 23, plus 4?","timestamp":"2026-11-27T15:36:10.859617Z","part_kind":"user-prompt"}],"timestamp":"t","instructions":"Be brief.","kind":"request","run_id":"r","conversation_id":"c","metadata":null,"state":"complete"}"#,
    r#"{"parts":[{"content":"Let me compute that.","id":null,"provider_name":null,"provider_details":null,"citations":null,"part_kind":"text"},{"tool_name":"calculator","args":{"expression":"17 * 23 + 4"},"tool_call_id":"call_1","tool_kind":null,"id":null,"provider_name":null,"provider_details":null,"part_kind":"tool-call"}],"usage":{"input_tokens":61,"cache_write_tokens":0,"cache_read_tokens":0,"output_tokens":22,"audio_seconds":0.0,"details":{},"cost":null},"model_name":"m","timestamp":"t","kind":"response","provider_name":null,"finish_reason":null,"run_id":"r","metadata":null,"state":"complete"}"#,
    r#"{"parts":[{"tool_name":"calculator","content":"395 \u00e9","tool_call_id":"call_1","tool_kind":null,"metadata":null,"timestamp":"t","outcome":"success","retry":null,"part_kind":"tool-return"}],"instructions":"Be brief.","kind":"request"}"#,
    r#"{"parts":[{"tool_name":"f","content":{"error": [1, 2.5, null]},"tool_call_id":"c2","outcome":"failed","part_kind":"tool-return"},{"tool_name":"g","content":null,"part_kind":"retry-prompt"},{"content":[{"loc": ["x"]}],"part_kind":"retry-prompt"}],"kind":"request"}"#,
    r#"{"parts":[{"content":["look at", {"kind":"image-url","url":"u"}, {"kind":"text-content","content":"this"}],"part_kind":"user-prompt"}],"kind":"request"}"#,
    r#"{"parts":[{"tool_name":"g","args":"{\"x\": 1}","tool_call_id":null,"part_kind":"tool-call"},{"content":"hm","part_kind":"thinking","signature":"s"},{"tool_name":"web","args":null,"tool_call_id":"b1","part_kind":"builtin-tool-call"},{"tool_name":"web","content":"found","tool_call_id":"b1","part_kind":"builtin-tool-return"}],"usage":{"request_tokens":5,"response_tokens":null},"kind":"response"}"#,
    r#"{"kind":"response","parts":[],"usage":null}"#,
    r#"{"parts":[{"transcript":null,"part_kind":"speech"},{"content":"now","part_kind":"retry-feedback"}],"kind":"request","instructions":null}"#,
];

/// Pydantic AI's messages the scanner leaves to the serde path (which reads or
/// refuses them).
const PYDANTIC_LEFT: &[&str] = &[
    r#"{"parts":[{"content":"a"}],"kind":"request"}"#,
    r#"{"parts":[{"content":"a","part_kind":"user-prompt","part_kind":"text"}],"kind":"request"}"#,
    r#"{"parts":[],"kind":"response","usage":{"input_tokens":1,"request_tokens":2}}"#,
    r#"{"parts":[],"kind":"response","usage":{"input_tokens":1.5}}"#,
    r#"{"parts":[{"content":"a","part_kind":null}],"kind":"request"}"#,
    r#"{"parts":null,"kind":"request"}"#,
    r#"{"kind":"request"}"#,
    r#"{"parts":[]}"#,
    r#"{"parts":[{"content":"a","part_kind":"user-prompt"}],"kind":"request","kind":"response"}"#,
    // A string neither path decodes (a lone surrogate), in a part whose content is
    // not read: read, not refused.
    r#"{"parts":[{"content":"\ud800","part_kind":"thinking"},{"content":"ok","part_kind":"text"}],"kind":"response"}"#,
];

/// Pydantic AI's messages the scanner reads whose conversion refuses them (as the
/// serde path's does: the same struct).
const PYDANTIC_REFUSED: &[&str] = &[
    r#"{"parts":[{"content":"a","part_kind":"hologram"}],"kind":"request"}"#,
    r#"{"parts":[{"content":5,"part_kind":"system-prompt"}],"kind":"request"}"#,
    r#"{"parts":[{"part_kind":"tool-call"}],"kind":"response"}"#,
    r#"{"parts":[],"kind":"nonsense"}"#,
];

#[test]
fn pydantic_ai_messages_are_scanned_as_serde_reads_them() {
    let scans = |line: &str| pydantic_ai::message(line, &mut Default::default()).is_some();
    scanned_as_serde_reads(PYDANTIC, PYDANTIC_REFUSED, PYDANTIC_LEFT, scans);
    let unread = PYDANTIC_LEFT.last().expect("a line");
    let read = read_all(unread);
    assert!(
        matches!(&read[..], [Ok(m)] if m.content() == "ok"),
        "{read:?}"
    );
}

/// Google ADK's events (`model_dump_json()`, the SDK's names or the API's).
const ADK: &[&str] = &[
    r#"{"content":{"parts":[{"text":"What is 17 times 23, plus 4?"}],"role":"user"},"invocation_id":"e-1","author":"user","actions":{"state_delta":{},"artifact_delta":{},"requested_auth_configs":{},"requested_tool_confirmations":{}},"node_info":{"path":""},"id":"a1","timestamp":1795805292.8953989}"#,
    r#"{"content":{"parts":[{"text":"Let me compute that."},{"function_call":{"id":"adk-1","args":{"expression":"17 * 23 + 4"},"name":"calculator"},"thought_signature":"c2ln"}],"role":"model"},"usage_metadata":{"candidates_token_count":22,"prompt_token_count":61,"total_token_count":83,"thoughts_token_count":5},"invocation_id":"e-1","author":"assistant","actions":{"state_delta":{"k":[1]}},"long_running_tool_ids":[],"id":"a2","timestamp":1.5}"#,
    r#"{"content":{"parts":[{"function_response":{"id":"adk-1","name":"calculator","response":{"result":"395 \u00e9"}}}],"role":"user"},"author":"assistant","actions":{"transfer_to_agent":"Reviewer"}}"#,
    r#"{"content":{"parts":[{"function_response":{"name":"f","response":{"error":"boom"},"will_continue":null}},{"text":"and go on"}],"role":"user"},"author":"assistant","error_code":"TOOL_ERROR","error_message":"it failed"}"#,
    r#"{"author":"assistant","content":{"role":"model","parts":[{"text":"hm","thought":true},{"text":"done"},{"functionCall":{"name":"g","args":null}}]},"usageMetadata":{"promptTokenCount":3},"actions":{"escalate":true}}"#,
    r#"{"author":"assistant","content":{"role":"model","parts":[{"text":"par"}]},"partial":true}"#,
    r#"{"author":"assistant","content":null,"actions":null,"errorCode":"SAFETY"}"#,
    r#"{"author":"user","content":{"parts":null}}"#,
    r#"{"author":"assistant","content":{"role":"model","parts":[{"thoughtSignature":"x"},{"text":null,"function_call":{"name":"h","args":"{\"q\": 1}"}}]}}"#,
    "{\"author\": \"assistant\", \"content\": {\"role\": \"model\", \"parts\": [{\"text\": \"a\",\n      \"thought_signature\": \"x\"}]}}",
];

/// Gemini's contents (`{"role", "parts"}`).
const GEMINI: &[&str] = &[
    r#"{"role":"user","parts":[{"text":"What is 6 times 7?"}]}"#,
    r#"{"role":"model","parts":[{"functionCall":{"name":"calc","args":{"x":"6*7"}}}]}"#,
    r#"{"parts":[{"functionResponse":{"name":"calc","response":{"output":42}}}],"role":"function"}"#,
];

/// ADK's events and Gemini's contents the scanner leaves to the serde path (which
/// reads or refuses them).
const ADK_LEFT: &[&str] = &[
    r#"{"author":"assistant","content":{"role":"model","parts":[{"executable_code":{"code":"1+1","language":"PYTHON"}}]}}"#,
    r#"{"author":"assistant","content":{"role":"model","parts":[{"inline_data":{"mime_type":"image/png","data":"AA=="}}]}}"#,
    r#"{"author":"assistant","content":{"role":"model","parts":[{"hologram":{}}]}}"#,
    r#"{"author":"assistant","content":{"role":"model","parts":[{"text":"a","function_call":{"name":"f"}}]}}"#,
    r#"{"author":"assistant","content":{"role":"model","parts":[{"text":"a","text":"b"}]}}"#,
    r#"{"author":"assistant","content":{"role":"model","parts":[{"function_call":{"name":"f"},"functionCall":{"name":"g"}}]}}"#,
    r#"{"author":"assistant","usage_metadata":{"prompt_token_count":1,"promptTokenCount":2}}"#,
    r#"{"author":"assistant","usage_metadata":{"prompt_token_count":1.0}}"#,
    r#"{"author":null,"content":{"parts":[]}}"#,
    r#"{"content":{"role":"user","parts":[{"text":"no author"}]}}"#,
    r#"{"author":"user","content":{"role":"user"}}"#,
    r#"{"role":"user"}"#,
];

/// ADK's events and Gemini's contents the scanner reads whose conversion refuses
/// them (as the serde path's does: the same structs).
const ADK_REFUSED: &[&str] = &[
    r#"{"author":"assistant","content":{"role":"robot","parts":[]}}"#,
    r#"{"author":"user","content":{"role":"user","parts":[{"function_call":{"name":"f"}}]}}"#,
    r#"{"author":"assistant","content":{"role":"model","parts":[{"function_response":{"name":"f","response":{}}}]}}"#,
    r#"{"author":"assistant","content":{"role":"model","parts":[{"function_call":{"args":{}}}]}}"#,
];

#[test]
fn adk_events_and_gemini_contents_are_scanned_as_serde_reads_them() {
    let event = |line: &str| gemini::event(line, &mut Default::default()).is_some();
    let content = |line: &str| gemini::content(line, &mut Default::default()).is_some();
    scanned_as_serde_reads(ADK, ADK_REFUSED, ADK_LEFT, event);
    scanned_as_serde_reads(GEMINI, &[], ADK_LEFT, content);
    // A content after an event, an event after a content.
    for line in ADK.iter().chain(ADK_REFUSED) {
        reads_alike(&format!("{}\n{line}\n", GEMINI[0])).unwrap();
    }
    for line in GEMINI {
        reads_alike(&format!("{}\n{line}\n", ADK[0])).unwrap();
    }
}

/// The part metadata the scanner skips is the metadata the serde path skips: a part
/// of each key alone is scanned and read alike; a key that is not metadata (nor a
/// kind the scanner reads), even one that begins or ends as metadata does, gives up,
/// and the serde path names it in its error.
#[test]
fn the_scanner_skips_the_part_metadata_serde_skips() {
    let part = |key: &str| {
        format!(r#"{{"author":"a","content":{{"role":"model","parts":[{{"{key}":"x"}}]}}}}"#)
    };
    for key in crate::transcript::gemini::METADATA {
        let line = part(key);
        assert!(
            gemini::event(&line, &mut Default::default()).is_some(),
            "{key}"
        );
        reads_alike(&format!("{}\n{line}\n", ADK[0])).unwrap();
    }
    for key in [
        "thought_signatur",
        "thoughtSignatures",
        "xthoughtSignature",
        "videometadata",
    ] {
        let line = part(key);
        assert!(
            gemini::event(&line, &mut Default::default()).is_none(),
            "{key}"
        );
        reads_alike(&format!("{}\n{line}\n", ADK[0])).unwrap();
    }
}

/// smolagents' steps (`get_full_steps()`'s dicts).
const SMOL: &[&str] = &[
    r#"{"task": "What is 17 times 23, plus 4?", "task_images": null}"#,
    r#"{"step_number": 1, "timing": {"start_time": 1.5, "end_time": 2.5, "duration": 1.0}, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "calculator", "arguments": {"expression": "17 * 23 + 4"}}}], "error": null, "model_output_message": {"role": "assistant", "content": "Let me compute that.", "tool_calls": [{"function": {"arguments": {"expression": "17 * 23 + 4"}, "name": "calculator", "description": null}, "id": "call_1", "type": "function"}], "raw": null, "token_usage": {"input_tokens": 61, "output_tokens": 22, "total_tokens": 83}}, "model_output": "Let me compute that.", "code_action": null, "observations": "395 \u00e9", "observations_images": null, "action_output": null, "token_usage": {"input_tokens": 61, "output_tokens": 22, "total_tokens": 83}, "is_final_answer": false}"#,
    r#"{"step_number": 2, "tool_calls": [{"id": "call_2", "type": "function", "function": {"name": "python_interpreter", "arguments": "print(divide(1, 0))"}}], "error": {"type": "AgentExecutionError", "message": "division by zero"}, "model_output_message": {"role": "assistant", "content": [{"type": "text", "text": "Thought: divide."}], "tool_calls": null}, "model_output": null, "observations": null, "token_usage": null}"#,
    r#"{"step_number": 3, "tool_calls": [{"id": "call_3", "function": {"name": "final_answer", "arguments": {"answer": 395}}}], "error": null, "model_output": "Final.", "observations": "Last output: 395", "action_output": {"answer": [395, "x"]}, "token_usage": {"input_tokens": 5, "output_tokens": 1}, "is_final_answer": true}"#,
    r#"{"step_number": 4, "tool_calls": [], "error": {"type": "AgentParsingError", "message": ""}, "model_output_message": {"content": "no call", "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": null}}]}}"#,
    r#"{"model_output_message": {"content": "calls after", "tool_calls": [{"id": "m", "function": {"name": "g"}}]}, "step_number": 5, "tool_calls": [{"id": "s", "function": {"name": "h"}}]}"#,
    r#"{"output": null}"#,
    r#"{"output": "done", "extra": [1, {"a": 2}]}"#,
    r#"{"plan": "First add, then search.", "token_usage": {"input_tokens": 3, "output_tokens": 4}, "timing": {}}"#,
    r#"{"system_prompt": "You are an agent."}"#,
];

/// smolagents' steps the scanner leaves to the serde path (which reads or refuses
/// them).
const SMOL_LEFT: &[&str] = &[
    r#"{"step_number": 1.0, "tool_calls": []}"#,
    r#"{"step_number": 1, "tool_calls": [{"id": "c"}]}"#,
    r#"{"step_number": 1, "tool_calls": [{"function": {"arguments": {}}}]}"#,
    r#"{"step_number": 1, "tool_calls": [{"function": {"name": null}}]}"#,
    r#"{"step_number": 1, "step_number": 2}"#,
    r#"{"task": 5}"#,
    r#"{"step_number": 1, "token_usage": {"input_tokens": null}}"#,
    // The message's calls, not kept where the step's came first, are checked.
    r#"{"step_number": 1, "tool_calls": [{"id": "a", "function": {"name": "f"}}], "model_output_message": {"tool_calls": [{"id": "c"}]}}"#,
];

/// smolagents' steps the scanner reads whose conversion refuses them (as the serde
/// path's does: the same struct).
const SMOL_REFUSED: &[&str] = &[
    r#"{"timing": {}}"#,
    r#"{"step_number": 1, "model_output": 5}"#,
    r#"{"step_number": 1, "tool_calls": [{"function": {"name": ""}}]}"#,
];

#[test]
fn smolagents_steps_are_scanned_as_serde_reads_them() {
    let scans = |line: &str| smolagents::step(line, &mut Default::default()).is_some();
    scanned_as_serde_reads(SMOL, SMOL_REFUSED, SMOL_LEFT, scans);
}

/// rlm-code's run events, as its runner writes them and in every shape the serde
/// path reads.
const RLM: &[&str] = &[
    r#"{"type": "step", "run_id": "run_1", "environment": "generic", "framework": "native", "task": "What is 17 times 23, plus 4?", "timestamp": "2026-11-29T02:32:23.554236+00:00", "step": 1, "action": {"action": "run_python", "code": "print(17 * 23 + 4)", "path": null, "content": null, "command": null, "rationale": "Let me compute that.", "done": false, "final_response": null}, "planner_raw": "{\"action\": \"run_python\", \"code\": \"print(17 * 23 + 4)\"}", "depth": 0, "parent_run_id": null, "root_prompt_chars": 161, "root_prompt_sha256": "9f82ff4c", "observation": {"success": true, "stdout": "395\n", "stderr": "", "execution_time": 0.021488428115844727}, "reward": 0.7999999999999999, "usage": {"total_calls": 1, "prompt_tokens": 61, "completion_tokens": 22}, "role_usage": {"root": {"total_calls": 1, "prompt_tokens": 61, "completion_tokens": 22}, "sub": {"total_calls": 0, "prompt_tokens": 0, "completion_tokens": 0}}}"#,
    r#"{"type": "step", "run_id": "run_1", "environment": "generic", "task": "What is 17 times 23, plus 4?", "action": {"action": "run_python", "code": "raise ValueError('no')"}, "planner_raw": "caf\u00e9", "observation": {"success": false, "stdout": "", "stderr": "Traceback\nValueError: no\n"}, "reward": -0.3, "usage": {"prompt_tokens": 97, "completion_tokens": 20}}"#,
    r#"{"type": "step", "run_id": "run_1", "environment": "dspy", "task": "What is 17 times 23, plus 4?", "action":  {"action": "write_file", "path": ""},  "observation":  {"error": "write_file requires 'path'."}, "reward": -1, "usage": null}"#,
    r#"{"type": "step", "run_id": "run_1", "environment": "dspy", "action": {"action": "framework_step"}, "observation": {"success": true, "path": "a.py", "nested": {"a": [1, 2.5e3]}}, "reward": 0}"#,
    r#"{"type": "step", "run_id": "run_1", "environment": "x", "action": {"action": "a"}, "observation": {"stdout": null, "error": null, "success": null}, "reward": -0, "completed": null}"#,
    r#"{"type": "step", "run_id": "run_1", "environment": "x", "action": {"action": "a"}, "observation": {}, "reward": 1e-3}"#,
    r#"{"type": "final", "run_id": "run_1", "environment": "generic", "task": "What is 17 times 23, plus 4?", "completed": true, "steps": 3, "total_reward": 1.5, "final_response": "395", "usage": {"total_calls": 3, "prompt_tokens": 288, "completion_tokens": 54, "roles": {}}, "depth": 0, "parent_run_id": null, "cancelled": false, "harness": {}}"#,
    r#"{"type": "context", "run_id": "run_2", "environment": "pure_rlm", "timestamp": "t", "context_files": ["context"], "context_chars": 7}"#,
    r#"{"type": "final", "run_id": "run_2", "environment": "generic", "task": "Again.", "completed": false, "final_response": "Stopped due to time budget."}"#,
    r#"{"run_id": null, "environment": "generic", "task": "Late type.", "type": "final", "completed": true, "final_response": null, "action": null, "observation": null, "reward": null}"#,
];

/// rlm-code's events the scanner leaves to the serde path (which reads or refuses
/// them).
const RLM_LEFT: &[&str] = &[
    r#"{"run_id": "r", "environment": "generic"}"#,
    r#"{"type": null, "run_id": "r", "environment": "generic"}"#,
    r#"{"type": "step", "type": "step", "run_id": "r", "environment": "generic"}"#,
    r#"{"type": "step", "run_id": "r", "environment": "generic", "action": {"action": "a", "action": "b"}, "observation": {}}"#,
    r#"{"type": "step", "run_id": "r", "environment": "generic", "action": "run_python", "observation": {}}"#,
    r#"{"type": "step", "run_id": "r", "environment": "generic", "action": {"action": 7}, "observation": {}}"#,
    r#"{"type": "step", "run_id": "r", "environment": "generic", "action": {"action": "a"}, "observation": {"stdout": 7}}"#,
    r#"{"type": "step", "run_id": "r", "environment": "generic", "action": {"action": "a"}, "observation": {"success": "yes"}}"#,
    r#"{"type": "step", "run_id": "r", "environment": "generic", "action": {"action": "a"}, "observation": {}, "reward": "high"}"#,
    r#"{"type": "step", "run_id": "r", "environment": "generic", "action": {"action": "a"}, "observation": {}, "reward": 1e400}"#,
    r#"{"type": "step", "run_id": "r", "environment": "generic", "action": {"action": "a"}, "observation": {}, "reward": 123456789012345678901234}"#,
    r#"{"type": "step", "run_id": "r", "environment": "generic", "action": {"action": "a"}, "observation": {}, "usage": {"prompt_tokens": 1.5}}"#,
    r#"{"type": "final", "run_id": "r", "environment": "generic", "completed": 1}"#,
    // A key read twice is serde's "duplicate field", at every level.
    r#"{"type": "step", "run_id": "r", "environment": "generic", "action": {"action": "a"}, "observation": {"success": true, "success": false}}"#,
    r#"{"type": "step", "run_id": "r", "environment": "generic", "action": {"action": "a"}, "observation": {"stdout": "", "stdout": ""}}"#,
    r#"{"type": "step", "run_id": "r", "environment": "generic", "action": {"action": "a"}, "observation": {}, "reward": 1, "reward": 2}"#,
    r#"{"type": "final", "run_id": "r", "run_id": "s", "environment": "generic"}"#,
];

/// rlm-code's events the scanner reads whose conversion refuses them (as the serde
/// path's does: the same struct).
const RLM_REFUSED: &[&str] = &[
    r#"{"type": "iteration", "run_id": "r", "environment": "generic"}"#,
    r#"{"type": "step", "run_id": "r", "environment": "generic", "observation": {}}"#,
    r#"{"type": "step", "run_id": "r", "environment": "generic", "action": {"action": "a"}}"#,
    r#"{"type": "step", "run_id": "r", "environment": "generic", "action": {"code": "1"}, "observation": {}}"#,
    r#"{"type": "step", "run_id": "r", "environment": "generic", "action": {"action": ""}, "observation": {}}"#,
];

#[test]
fn rlm_code_events_are_scanned_as_serde_reads_them() {
    let scans = |line: &str| rlm_code::event(line, &mut Default::default()).is_some();
    scanned_as_serde_reads(RLM, RLM_REFUSED, RLM_LEFT, scans);
}

/// AutoGen's messages and events through the reader (an event that is no step read
/// by the scanner as no message, the next line read after it).
#[test]
fn autogen_logs_are_scanned_as_serde_reads_them() {
    scanned_as_serde_reads(super::AUTOGEN, &[], super::AUTOGEN_LEFT, |line| {
        agent_message(line, &mut Chat::default()).is_some()
    });
}

#[test]
fn converse_messages_are_scanned_as_serde_reads_them() {
    scanned_as_serde_reads(CONVERSE, &[], CONVERSE_LEFT, |line| {
        converse::message(line, &mut Chat::default()).is_some()
    });
}

#[test]
fn every_kind_is_scanned_as_serde_reads_it() {
    for line in COMPLETIONS {
        assert!(
            completion(line, false, &mut Chat::default()).is_some(),
            "{line}"
        );
    }
    for line in COMPLETIONS_LEFT {
        assert!(
            completion(line, false, &mut Chat::default()).is_none(),
            "{line}"
        );
    }
    for line in ANTHROPIC_RESPONSES {
        assert!(
            anthropic_response(line, &mut Default::default()).is_some(),
            "{line}"
        );
    }
    for line in ANTHROPIC_LEFT {
        assert!(
            anthropic_response(line, &mut Default::default()).is_none(),
            "{line}"
        );
    }
    for line in RESPONSES_ITEMS {
        assert!(
            responses_item(line, &mut Default::default()).is_some(),
            "{line}"
        );
    }
    for line in RESPONSES_LEFT {
        assert!(
            responses_item(line, &mut Default::default()).is_none(),
            "{line}"
        );
    }
    let lists = [
        COMPLETIONS,
        COMPLETIONS_LEFT,
        ANTHROPIC_RESPONSES,
        ANTHROPIC_LEFT,
    ];
    for line in lists
        .concat()
        .into_iter()
        .chain(RESPONSES_ITEMS.iter().copied())
    {
        // Alone, and after a chat message (a log that mixes kinds).
        reads_alike(line).unwrap();
        reads_alike(&format!(
            "{{\"role\": \"user\", \"content\": \"hi\"}}\n{line}\n"
        ))
        .unwrap();
    }
    // Whole logs of each kind, mixed with chat messages.
    for kind in [COMPLETIONS, ANTHROPIC_RESPONSES, RESPONSES_ITEMS] {
        let mut log = String::new();
        for line in kind {
            log.push_str(line);
            log.push_str("\n{\"role\": \"user\", \"content\": [{\"type\": \"tool_result\", \"tool_use_id\": \"t\", \"content\": \"r\"}]}\n");
        }
        reads_alike(&log).unwrap();
    }
}

#[test]
fn autogen_contents_are_scanned_as_serde_reads_them() {
    let calls = r#"[{"id": "call_1", "arguments": "{\"expression\": \"17 * 23\"}", "name": "calculator"}, {"name": "f", "arguments": null, "extra": [1]}]"#;
    let results = r#"[{"content": "395", "name": "calculator", "call_id": "call_1", "is_error": false}, {"content": "", "is_error": true, "name": null}]"#;
    assert_eq!(function_calls(calls).map(|c| c.len()), Some(2));
    assert_eq!(execution_results(results).map(|r| r.len()), Some(2));
    for (content, left) in [
        (r#"[{"id": "c"}]"#, true),
        (r#"[{"name": "f", "name": "g"}]"#, true),
        // An empty name: the serde path says what is wrong.
        (r#"[{"name": ""}]"#, true),
        (r#"[{"content": null}]"#, false),
        (r#"[{"content": "x", "is_error": null}]"#, false),
    ] {
        if left {
            assert!(function_calls(content).is_none(), "{content}");
        } else {
            assert!(execution_results(content).is_none(), "{content}");
        }
    }
    for (kind, content) in [
        ("ToolCallRequestEvent", calls),
        ("ToolCallExecutionEvent", results),
        ("ToolCallRequestEvent", r#"[{"name": ""}]"#),
        (
            "ToolCallExecutionEvent",
            r#"[{"content": "x", "is_error": null}]"#,
        ),
        (
            "ToolCallRequestEvent",
            r#"[{"name": "f", "arguments": {"a": [1, {"b": null}]}}]"#,
        ),
    ] {
        let line = format!(r#"{{"source": "assistant", "type": "{kind}", "content": {content}}}"#);
        reads_alike(&line).unwrap();
    }
}

/// Every sample file reads the same both ways.
#[test]
fn every_sample_file_reads_alike() {
    let files = sample_files(&["jsonl", "json", "traj"]);
    for (path, text) in &files {
        if let Err(e) = reads_alike(text) {
            panic!("{}: {e}", path.display());
        }
    }
    assert!(files.len() > 10, "{} files", files.len());
}

/// The records of every kind, for damage.
const ALL: &[&str] = &[
    COMPLETIONS[0],
    COMPLETIONS[1],
    COMPLETIONS[2],
    ANTHROPIC_RESPONSES[0],
    ANTHROPIC_RESPONSES[1],
    RESPONSES_ITEMS[2],
    RESPONSES_ITEMS[3],
    RESPONSES_ITEMS[4],
    RESPONSES_ITEMS[5],
    RESPONSES_ITEMS[8],
    RESPONSES_ITEMS[16],
    r#"{"id": "2", "source": "assistant", "models_usage": {"prompt_tokens": 61, "completion_tokens": 22}, "metadata": {}, "content": [{"id": "call_1", "arguments": "{\"expression\": \"17 * 23 + 4\"}", "name": "calculator"}], "type": "ToolCallRequestEvent"}"#,
    r#"{"id": "3", "source": "assistant", "models_usage": null, "content": [{"content": "395", "name": "calculator", "call_id": "call_1", "is_error": false}], "type": "ToolCallExecutionEvent"}"#,
    CONVERSE[1],
    CONVERSE[3],
    CONVERSE[4],
    AGNO[1],
    AGNO[2],
    AGNO[3],
    LLAMA[1],
    LLAMA[2],
    LLAMA[4],
    CREWAI[0],
    CREWAI[1],
    LANGCHAIN[1],
    LANGCHAIN[2],
    LANGCHAIN[4],
    LANGCHAIN[8],
    LANGCHAIN[11],
    LANGCHAIN[12],
    PYDANTIC[1],
    PYDANTIC[3],
    PYDANTIC[4],
    PYDANTIC[5],
    ADK[1],
    ADK[2],
    ADK[3],
    ADK[4],
    GEMINI[2],
    SMOL[1],
    SMOL[2],
    SMOL[3],
    SMOL[4],
    RLM[0],
    RLM[1],
    RLM[2],
    RLM[6],
    CLAUDE[1],
    CLAUDE[3],
    CLAUDE[4],
    CLAUDE[7],
    CODEX[1],
    CODEX[4],
    CODEX[5],
    CODEX[6],
    CODEX[8],
    MINI[0],
    MINI[1],
    SWE[0],
    SWE[1],
    MINI[2],
    MINI[3],
    MINI[6],
    MINI[7],
    INSPECT[0],
    INSPECT[1],
    INSPECT[3],
];

/// The lines of Responses logs: items of every kind, items left to the serde path
/// (one of the model's, whose key has an escape; wrong ones), records of other kinds,
/// a blank line.
fn log_lines() -> Vec<&'static str> {
    let mut lines: Vec<&str> = RESPONSES_ITEMS
        .iter()
        .chain(RESPONSES_LEFT)
        .copied()
        .collect();
    lines.extend([
        "",
        r#"{"typ\u0065": "function_call", "call_id": "c9", "name": "escaped_key", "arguments": "{}"}"#,
        r#"{"type": "message", "role": "assistant", "content": "two\nlines"}"#,
        r#"{"call_id": "call_1", "type": "function_call_output", "output": "not first"}"#,
        r#"{"type": "message", "role": "wizard", "content": "x"}"#,
        r#"{"id": "resp_1", "object": "response", "output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "from a response"}]}], "usage": {"input_tokens": 3, "output_tokens": 4}}"#,
        COMPLETIONS[2],
        ANTHROPIC_RESPONSES[2],
    ]);
    lines
}

/// A model turn borrows the texts of the line that opens it (its calls' name and id,
/// its text), where the lines after it are copied into it; the reader's own turn,
/// assembled from one call to the next, owns them all. (Else the turn's reading would
/// be the slower one, and the property below would compare a path with itself.)
#[test]
fn a_model_turn_borrows_the_line_that_opens_it() {
    let log = [
        RESPONSES_ITEMS[4],
        RESPONSES_ITEMS[3],
        RESPONSES_ITEMS[2],
        RESPONSES_ITEMS[4],
        RESPONSES_ITEMS[2],
        RESPONSES_ITEMS[3],
        RESPONSES_ITEMS[0],
    ]
    .join("\n");
    let mut reader = Reader::new(log.as_bytes(), Format::Auto);
    // (The first record is read as its keys say: the log's kind is then known.)
    let output = reader.next_borrowed().unwrap().unwrap();
    assert_eq!(output.content(), "395");
    let turn = reader.next_borrowed().unwrap().unwrap();
    let call = &turn.tool_calls[0];
    assert!(call.borrows() && call.id() == Some("call_1"), "{call:?}");
    // The text of the line after it, copied.
    assert!(
        matches!(turn.content, Cow::Owned(ref t) if t == "Let me compute that."),
        "{turn:?}"
    );
    let output = reader.next_borrowed().unwrap().unwrap();
    assert!(matches!(output.content, Cow::Borrowed("395")), "{output:?}");
    let turn = reader.next_borrowed().unwrap().unwrap();
    assert!(
        matches!(turn.content, Cow::Borrowed("Let me compute that.")),
        "{turn:?}"
    );
    let call = &turn.tool_calls[0];
    assert!(!call.borrows() && call.name() == "calculator", "{call:?}");
    let user = reader.next_borrowed().unwrap().unwrap();
    assert_eq!(user.role, crate::Role::User);
    assert!(reader.next_borrowed().is_none());
    assert!(
        reads_alike(&log).is_ok(),
        "{}",
        reads_alike(&log).unwrap_err()
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Responses logs of any lines in any order (model turns of one line or several,
    /// ended by a tool's output, an item from outside the model, a record of another
    /// kind, a line the scanner leaves to serde, an error, or the end of the input):
    /// the same messages, in the same turns, or the same error, both ways.
    #[test]
    fn responses_logs_read_alike(picks in proptest::collection::vec(any::<prop::sample::Index>(), 0..10), end_newline in any::<bool>()) {
        let lines = log_lines();
        let mut log = picks.iter().map(|i| lines[i.index(lines.len())]).collect::<Vec<_>>().join("\n");
        if end_newline {
            log.push('\n');
        }
        prop_assert!(reads_alike(&log).is_ok(), "{}", reads_alike(&log).unwrap_err());
    }

    /// Each kind's records damaged anywhere: alone (the kind detected from it), and
    /// after the same record undamaged (the kind known).
    #[test]
    fn damaged_records_read_alike(line in damaged(ALL), which in 0..ALL.len()) {
        prop_assert!(reads_alike(&line).is_ok(), "{}", reads_alike(&line).unwrap_err());
        let log = format!("{}\n{line}\n", ALL[which]);
        prop_assert!(reads_alike(&log).is_ok(), "{}", reads_alike(&log).unwrap_err());
    }
}
