//! LlamaIndex's chat messages (`--format llamaindex`): an agent's memory as LlamaIndex
//! 0.14 writes it, the same in a list, a chat store and a memory buffer, what each
//! block becomes, and errors.

use doneseq::transcript::Format;

use crate::formats::{read, sample, sample_text, summary, summary_of_values};

#[test]
fn a_function_agents_memory() {
    // Written by LlamaIndex 0.14.25 (`ChatMessage.model_dump()` of a FunctionAgent's
    // memory, one a line) for an agent of its OpenAI LLM, answered offline, run twice
    // in one context: two tools at once (the second raising), an answer; a tool, an
    // answer.
    insta::assert_snapshot!(sample("llamaindex-memory.jsonl", Format::LlamaIndex));
}

#[test]
fn a_list_a_chat_store_and_a_memory_buffer_read_as_the_lines() {
    let text = sample_text("llamaindex-memory.jsonl");
    let expected = summary_of_values(&read(&text, Format::Auto).unwrap());
    let messages: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let store = serde_json::json!({"store": {"s1": messages}, "class_name": "SimpleChatStore"});
    let buffer = serde_json::json!({
        "chat_store": store, "chat_store_key": "s1", "token_limit": 3000,
        "class_name": "ChatMemoryBuffer",
    });
    for text in [
        serde_json::Value::Array(messages).to_string(),
        store.to_string(),
        buffer.to_string(),
    ] {
        for format in [Format::Auto, Format::LlamaIndex] {
            assert_eq!(
                summary_of_values(&read(&text, format).unwrap()),
                expected,
                "{text}"
            );
        }
    }
}

/// The summary of the LlamaIndex records `lines`.
fn messages(lines: &[&str]) -> String {
    summary(&read(&lines.join("\n"), Format::LlamaIndex).unwrap())
}

#[test]
fn each_kind_of_block() {
    assert_eq!(
        messages(&[
            r#"{"role": "developer", "additional_kwargs": {}, "blocks": [{"block_type": "text", "text": "Be brief."}, {"block_type": "cache", "cache_control": {"type": "ephemeral"}}]}"#,
            r#"{"role": "user", "additional_kwargs": {}, "blocks": [{"block_type": "text", "text": "Look"}, {"block_type": "image", "url": "u"}, {"block_type": "citable", "title": "t", "source": "s", "content": [{"block_type": "text", "text": "cited"}]}]}"#,
            r#"{"role": "assistant", "additional_kwargs": {"tool_calls": [{"id": "other", "function": {"name": "g", "arguments": "{}"}, "type": "function"}]}, "blocks": [{"block_type": "thinking", "content": "hm"}, {"block_type": "citation", "cited_content": {"block_type": "text", "text": "src"}, "source": "s", "title": "t"}, {"block_type": "text", "text": "a"}, {"block_type": "tool_call", "tool_call_id": "c1", "tool_name": "f", "tool_kwargs": {"x": 1}}]}"#,
            r#"{"role": "tool", "additional_kwargs": {"tool_call_id": "c1", "name": "f"}, "blocks": [{"block_type": "text", "text": "1"}]}"#,
            r#"{"role": "assistant", "additional_kwargs": {"tool_calls": [{"id": "c2", "function": {"name": "g", "arguments": "{\"y\": 2}"}, "type": "function"}]}, "blocks": []}"#,
            r#"{"role": "chatbot", "content": "old", "additional_kwargs": {}}"#,
        ]),
        "0 system \"Be brief.\"\n1 user \"Look\\ncited\"\n2 llm \"a\" call f({\"x\": 1}) id=Some(\"c1\")\n3 agent \"1\" answers=c1 tool=f\n4 llm call g({\"y\": 2}) id=Some(\"c2\")\n5 llm \"old\"\n"
    );
}

#[test]
fn detection_tells_llamaindex_from_langchain() {
    // LangChain's messages have `additional_kwargs` too, beside their `type`.
    for (text, format) in [
        (
            r#"{"content": "hi", "additional_kwargs": {}, "response_metadata": {}, "type": "human", "name": null, "id": null}"#,
            Format::LangChain,
        ),
        (
            r#"{"role": "user", "additional_kwargs": {}, "blocks": []}"#,
            Format::LlamaIndex,
        ),
        (
            r#"{"store": {"k": []}, "class_name": "SimpleChatStore"}"#,
            Format::LlamaIndex,
        ),
        // OpenAI's Responses requests have a `store` too.
        (
            r#"{"model": "gpt-4o", "store": true, "input": [{"role": "user", "content": "hi"}]}"#,
            Format::Responses,
        ),
    ] {
        let mut reader = doneseq::transcript::Reader::new(text.as_bytes(), Format::Auto);
        reader.by_ref().for_each(|m| drop(m.unwrap()));
        assert_eq!(reader.format(), format, "{text}");
    }
}

#[test]
fn errors_name_the_block_and_the_format() {
    for (text, expected) in [
        (
            r#"{"role": "robot", "blocks": []}"#,
            "line 1: a LlamaIndex message of role \"robot\" (expected system, developer, user, assistant, chatbot, model, tool or function); in a LlamaIndex message",
        ),
        (
            r#"{"role": "user", "blocks": [{"block_type": "text", "text": "a"}, {"block_type": "hologram"}]}"#,
            "block 1 has an unknown type \"hologram\" (known: text, tool_call, citable, image, audio, video, document, cache, thinking, citation)",
        ),
        (
            r#"{"role": "assistant", "blocks": [{"block_type": "tool_call", "tool_kwargs": {}}]}"#,
            "block 0 of type \"tool_call\" has no \"tool_name\"",
        ),
        (
            r#"{"role": "user", "blocks": [{"block_type": "tool_call", "tool_name": "f"}]}"#,
            "a LlamaIndex message of role \"user\" holds tool calls",
        ),
        (
            r#"{"role": "user", "blocks": [{"block_type": "text"}]}"#,
            "block 0 of type \"text\" has no \"text\"",
        ),
        (
            r#"{"role": "user", "blocks": [{"block_type": "citable", "content": [{"block_type": "tool_call", "tool_name": "f"}]}]}"#,
            "block 0 of type \"citable\" holds a block of type \"tool_call\"",
        ),
        (
            r#"{"store": {"a": [], "b": []}, "class_name": "SimpleChatStore"}"#,
            "a LlamaIndex chat store of 2 conversations (\"a\", ...): a transcript is one",
        ),
        (
            r#"{"store": {}, "class_name": "SimpleChatStore"}"#,
            "a LlamaIndex chat store of no conversation",
        ),
        (
            r#"{"chat_store": {"store": {"a": []}}, "chat_store_key": "b"}"#,
            "a LlamaIndex memory whose store holds no conversation \"b\"",
        ),
        (
            r#"{"store": {"a": [{"role": "user", "blocks": [{"block_type": "x"}]}]}, "class_name": "SimpleChatStore"}"#,
            "element 1 of 1: block 0 has an unknown type \"x\"",
        ),
    ] {
        let err = read(text, Format::Auto).unwrap_err();
        assert!(err.to_string().contains(expected), "{err}");
        assert!(
            err.to_string().contains("format llamaindex (detected)"),
            "{err}"
        );
    }
}
