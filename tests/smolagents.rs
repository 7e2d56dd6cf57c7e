//! smolagents' memory (`--format smolagents`): a tool-calling agent's and a code
//! agent's steps as smolagents writes them, the full steps and one a line, what each
//! step becomes, and errors.

use doneseq::transcript::{Format, TranscriptErrorKind};

use crate::formats::{read, sample, sample_text, summary, summary_of_values};

#[test]
fn a_tool_calling_agents_steps() {
    // Written by smolagents 1.26 (`agent.memory.get_succinct_steps()`) for a
    // ToolCallingAgent that plans, calls a tool twice in a step, calls a tool that
    // raises (the step's error; smolagents then leaves the call out of the step's
    // `tool_calls`: the model's message holds it), and gives its final answer.
    insta::assert_snapshot!(sample("smolagents-steps.json", Format::Smolagents));
}

#[test]
fn a_code_agents_steps() {
    // Written by smolagents 1.26 for a CodeAgent: each action is a call of
    // `python_interpreter` (its code the arguments), its logs the observations; the
    // second raises; the third calls `final_answer` with a dict (the answer, its
    // `action_output`, as compact JSON).
    insta::assert_snapshot!(sample("smolagents-code-steps.jsonl", Format::Smolagents));
}

#[test]
fn the_full_steps_and_lines_read_as_the_succinct_ones() {
    let text = sample_text("smolagents-steps.json");
    let expected = summary_of_values(&read(&text, Format::Auto).unwrap());
    let steps: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    // `get_full_steps()` adds each step's `model_input_messages` (the history it was
    // given: not read).
    let full: Vec<serde_json::Value> = (steps.iter().cloned())
        .map(|mut step| {
            if step.get("model_output_message").is_some() {
                step["model_input_messages"] = serde_json::json!([
                    {"role": "system", "content": [{"type": "text", "text": "You are an expert assistant."}]},
                    {"role": "user", "content": [{"type": "text", "text": "New task:\n..."}]},
                ]);
            }
            step
        })
        .collect();
    let lines: String = full.iter().map(|s| format!("{s}\n")).collect();
    for shape in [serde_json::Value::from(full).to_string(), lines] {
        for format in [Format::Auto, Format::Smolagents] {
            let messages = read(&shape, format).unwrap();
            assert_eq!(summary_of_values(&messages), expected, "{shape}");
        }
    }
}

/// The summary of the smolagents steps `lines`.
fn messages(lines: &[&str]) -> String {
    summary(&read(&lines.join("\n"), Format::Smolagents).unwrap())
}

#[test]
fn each_kind_of_step() {
    assert_eq!(
        messages(&[
            r#"{"system_prompt": "You are an expert assistant."}"#,
            r#"{"task": "Go.", "task_images": null}"#,
            r#"{"model_input_messages": [], "model_output_message": {"role": "assistant", "content": "1. Look."}, "plan": "1. Look.", "timing": {}, "token_usage": {"input_tokens": 9, "output_tokens": 3, "total_tokens": 12}}"#,
            // The model's output as content blocks; the step's own calls.
            r#"{"step_number": 1, "model_output": [{"type": "text", "text": "Looking."}, {"type": "image"}], "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "look", "arguments": "{\"at\": \"x\"}"}}], "observations": "seen", "token_usage": {"input_tokens": 20, "output_tokens": 4}}"#,
            // A generation error: no turn of the model's, the error its own message.
            r#"{"step_number": 2, "model_output_message": null, "tool_calls": [], "error": {"type": "AgentGenerationError", "message": "the model is down"}, "token_usage": null}"#,
            // A parsing error, the output kept: the turn, then the error.
            r#"{"step_number": 3, "model_output": "Thought: oops", "error": {"type": "AgentParsingError", "message": ""}, "token_usage": {"input_tokens": 30, "output_tokens": 2}}"#,
            // Observations and an error: one message, failed.
            r#"{"step_number": 4, "model_output": null, "model_output_message": {"content": null, "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "f", "arguments": {}, "description": null}}]}, "observations": "partial", "error": {"type": "AgentExecutionError", "message": "half failed"}}"#,
            r#"{"step_number": 5, "model_output": "Done.", "observations": "Last output: 7", "action_output": "7", "is_final_answer": true}"#,
            r#"{"output": "7"}"#,
            r#"{"output": null}"#,
        ]),
        "0 system \"You are an expert assistant.\"\n\
         1 user \"Go.\"\n\
         2 llm \"1. Look.\" tokens=9+3\n\
         3 llm \"Looking.\" call look({\"at\": \"x\"}) id=Some(\"c1\") tokens=20+4\n\
         4 agent \"seen\" answers=c1 tool=look\n\
         5 agent \"the model is down\" error=\"the model is down\"\n\
         6 llm \"Thought: oops\" tokens=30+2\n\
         7 agent \"AgentParsingError\" error=\"AgentParsingError\"\n\
         8 llm call f({}) id=Some(\"c2\")\n\
         9 agent \"partial\" answers=c2 tool=f error=\"half failed\"\n\
         10 llm \"Done.\"\n\
         11 agent \"7\" stop\n"
    );
}

#[test]
fn errors_name_the_step() {
    let cases = [
        (
            r#"{"timing": {}, "token_usage": null}"#,
            "a smolagents step has a \"task\", \"system_prompt\", \"plan\"",
        ),
        (
            r#"{"step_number": 1, "tool_calls": [{"id": "c", "function": {"name": "", "arguments": {}}}]}"#,
            "tool call 1 has an empty name",
        ),
        (
            r#"{"step_number": 1, "model_output": 7}"#,
            "the model's output is neither a text nor a list of content blocks",
        ),
    ];
    for (line, expected) in cases {
        let err = read(line, Format::Smolagents).unwrap_err();
        assert_eq!(
            (err.line, err.kind, err.format),
            (1, TranscriptErrorKind::Message, Some(Format::Smolagents)),
            "{err}"
        );
        assert!(err.message.contains(expected), "{line}: {err}");
        assert!(err.message.contains("format smolagents (given)"), "{err}");
    }
    // A field of the wrong type: serde's error, with its column.
    let err = read(r#"{"step_number": "one"}"#, Format::Smolagents).unwrap_err();
    assert_eq!(
        (err.kind, err.column),
        (TranscriptErrorKind::Json, Some(21)),
        "{err}"
    );
    // Detected: the line and the format.
    let err = read(
        "{\"task\": \"Go.\"}\n{\"step_number\": 1, \"model_output\": 7}\n",
        Format::Auto,
    )
    .unwrap_err();
    assert_eq!(err.line, 2, "{err}");
    assert!(
        err.message.contains("format smolagents (detected)"),
        "{err}"
    );
}

#[test]
fn a_final_answer_step_of_nothing_marks_no_earlier_message() {
    // A final answer's step that recorded nothing (no output, calls, usage or
    // observations) gives no message, and leaves the messages before it as they are.
    let steps = [
        r#"{"task": "Go."}"#,
        r#"{"step_number": 1, "is_final_answer": true}"#,
    ];
    for log in [steps.join("\n"), format!("[{}]", steps.join(",\n"))] {
        let messages = read(&log, Format::Smolagents).unwrap();
        assert_eq!(summary(&messages), "0 user \"Go.\"\n", "{log}");
    }
}
