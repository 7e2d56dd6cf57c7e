//! CrewAI's outputs (`--format crewai`): a crew's output as CrewAI 1.15 writes it,
//! with the model's native calls and with the calls it wrote as text (CrewAI's ReAct
//! prompt); a task's and an agent's outputs read alike; what the calls written as
//! text become; tool failures marked on their results; detection and errors.

use doneseq::transcript::{Format, Reader};

use crate::formats::{read, sample, sample_text, summary};

#[test]
fn a_crews_output_with_native_calls() {
    // Written by CrewAI 1.15.30 (`CrewOutput.model_dump_json(indent=2)`) for a crew of
    // two agents of its OpenAI LLM, answered offline: the first calls two tools at
    // once (the second raising), then answers; the second calls one, then answers.
    insta::assert_snapshot!(sample("crewai-crew.json", Format::CrewAi));
}

#[test]
fn a_crews_output_with_calls_written_as_text() {
    // The same crew, its LLM taken for one without native calls: CrewAI's ReAct
    // prompt, the model writing `Action:` and `Action Input:`, CrewAI appending
    // `Observation:`; the final answers are not among the messages (`raw` is).
    insta::assert_snapshot!(sample("crewai-react.json", Format::CrewAi));
}

/// The crew sample's tasks' outputs.
fn tasks(name: &str) -> Vec<serde_json::Value> {
    let crew: serde_json::Value = serde_json::from_str(&sample_text(name)).unwrap();
    crew["tasks_output"].as_array().unwrap().clone()
}

#[test]
fn tasks_and_agents_outputs_read_as_the_crews() {
    for name in ["crewai-crew.json", "crewai-react.json"] {
        let expected = summary(&read(&sample_text(name), Format::Auto).unwrap());
        let tasks = tasks(name);
        let lines: String = tasks.iter().map(|t| format!("{t}\n")).collect();
        // An agent's own output (`Agent.kickoff()`) names its agent `agent_role`.
        let agents: String = tasks
            .iter()
            .map(|t| {
                let mut agent = serde_json::json!({
                    "raw": t["raw"], "agent_role": t["agent"], "messages": t["messages"],
                    "tool_failures": t["tool_failures"], "usage_metrics": null,
                });
                agent["plan"] = serde_json::Value::Null;
                format!("{agent}\n")
            })
            .collect();
        for text in [lines, serde_json::Value::Array(tasks).to_string(), agents] {
            for format in [Format::Auto, Format::CrewAi] {
                assert_eq!(summary(&read(&text, format).unwrap()), expected, "{text}");
            }
        }
    }
}

/// The summary of a task's output holding `messages` (and `more`, its other keys).
fn task(messages: &str, more: &str) -> String {
    let text =
        format!(r#"{{"agent": "A", "expected_output": "x", "messages": [{messages}]{more}}}"#);
    summary(&read(&text, Format::CrewAi).unwrap())
}

/// A model's message of `text` (JSON-escaped by the caller where needed).
fn said(text: &str) -> String {
    format!(
        r#"{{"role": "assistant", "content": {}}}"#,
        serde_json::json!(text)
    )
}

#[test]
fn calls_written_as_text_are_read_as_crewais_parser_reads_them() {
    // A call and the result CrewAI appended.
    assert_eq!(
        task(
            &said("Thought: t\nAction: add\nAction Input: {\"a\": 1}\nObservation: 2"),
            r#", "raw": "2""#
        ),
        "0 llm @A \"Thought: t\\nAction: add\\nAction Input: {\\\"a\\\": 1}\" call add({\"a\": 1}) id=None\n1 agent @add \"2\" tool=add\n2 llm @A \"2\"\n"
    );
    // A numbered action, its name in bold, its input quoted; a call the tool never
    // answered (no observation).
    assert_eq!(
        task(
            &said("Action 1: **search**\nAction 1 Input: \"{\\\"q\\\": 1}\""),
            ""
        ),
        "0 llm @A \"Action 1: **search**\\nAction 1 Input: \\\"{\\\\\\\"q\\\\\\\": 1}\\\"\" call search({\\\"q\\\": 1}) id=None\n"
    );
    // A final answer is not a call, even with an action before it; a result that
    // tells how to write a final answer does not make its call one.
    assert_eq!(
        task(
            &said("Action: add\nAction Input: {}\nFinal Answer: 3"),
            r#", "raw": "3""#
        ),
        "0 llm @A \"Action: add\\nAction Input: {}\\nFinal Answer: 3\"\n"
    );
    assert_eq!(
        task(
            &said(
                "Action: f\nAction Input: {}\nObservation: failed. To answer, use\nFinal Answer: [answer]"
            ),
            ""
        ),
        "0 llm @A \"Action: f\\nAction Input: {}\" call f({}) id=None\n1 agent @f \"failed. To answer, use\\nFinal Answer: [answer]\" tool=f\n"
    );
    // Text that is neither: the model's text.
    assert_eq!(
        task(&said("Action: nothing to do"), ""),
        "0 llm @A \"Action: nothing to do\"\n"
    );
    // A message with native calls is not searched for written ones.
    assert_eq!(
        task(
            r#"{"role": "assistant", "content": "Action: x\nAction Input: {}", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}"#,
            ""
        ),
        "0 llm @A \"Action: x\\nAction Input: {}\" call f({}) id=Some(\"c\")\n"
    );
}

#[test]
fn the_final_answer_is_raw_where_the_messages_do_not_end_with_it() {
    let user = r#"{"role": "user", "content": "Go."}"#;
    assert_eq!(
        task(user, r#", "raw": "Done.""#),
        "0 user \"Go.\"\n1 llm @A \"Done.\"\n"
    );
    // Where they end with the model's answer, `raw` is that answer.
    assert_eq!(
        task(&format!("{user}, {}", said("Done.")), r#", "raw": "Done.""#),
        "0 user \"Go.\"\n1 llm @A \"Done.\"\n"
    );
    // An empty `raw` (a task that failed before answering) is no answer.
    assert_eq!(task(user, r#", "raw": """#), "0 user \"Go.\"\n");
    // `raw` is the answer as CrewAI parsed it: text that reads as an action is its
    // text, not a call.
    assert_eq!(
        task(user, r#", "raw": "Action: f\nAction Input: {}""#),
        "0 user \"Go.\"\n1 llm @A \"Action: f\\nAction Input: {}\"\n"
    );
}

/// A native call of `name` with `arguments` (JSON text) and its result.
fn call_and_result(id: &str, name: &str, arguments: &str, result: &str) -> String {
    format!(
        r#"{{"role": "assistant", "content": "", "tool_calls": [{{"id": "{id}", "type": "function", "function": {{"name": "{name}", "arguments": {}}}}}]}}, {{"role": "tool", "content": "{result}", "tool_call_id": "{id}", "name": "{name}"}}"#,
        serde_json::json!(arguments)
    )
}

/// A `tool_failures` record of `name` with `arguments` (JSON).
fn failure(name: &str, arguments: &str) -> String {
    format!(
        r#"{{"tool_name": "{name}", "failure": {{"message": "boom", "reason": "exception", "code": null, "retryable": false, "details": {{}}}}, "tool_args": {arguments}, "agent_role": "A", "task_name": "t", "task_id": "1"}}"#
    )
}

#[test]
fn a_tools_failure_is_marked_on_the_result_of_its_call() {
    let calls = [
        call_and_result("c1", "div", r#"{"a": 1, "b": 1}"#, "1"),
        call_and_result(
            "c2",
            "div",
            r#"{"a": 1, "b": 0}"#,
            "Error executing tool: boom",
        ),
        call_and_result(
            "c3",
            "div",
            r#"{"a": 1, "b": 0}"#,
            "Error executing tool: boom",
        ),
    ]
    .join(", ");
    let errors = |failures: &[String]| {
        let text = task(
            &calls,
            &format!(r#", "tool_failures": [{}]"#, failures.join(", ")),
        );
        text.lines()
            .filter(|l| l.contains("error="))
            .map(|l| l.split(' ').next().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    // By its arguments: the second call's, then the third's.
    assert_eq!(errors(&[failure("div", r#"{"b": 0, "a": 1}"#)]), ["3"]);
    assert_eq!(
        errors(&[
            failure("div", r#"{"a": 1, "b": 0}"#),
            failure("div", r#"{"a": 1, "b": 0}"#)
        ]),
        ["3", "5"]
    );
    // Arguments that no call had, or none kept: the first result of the tool.
    assert_eq!(errors(&[failure("div", r#"{"a": 9}"#)]), ["1"]);
    assert_eq!(errors(&[failure("div", "null")]), ["1"]);
    // Arguments kept as text (where CrewAI could not parse them) compare as text.
    assert_eq!(
        errors(&[failure("div", r#""{\"a\": 1, \"b\": 0}""#)]),
        ["3"]
    );
    // The error is the result's text.
    assert!(
        task(
            &calls,
            &format!(r#", "tool_failures": [{}]"#, failure("div", "null"))
        )
        .contains("1 agent @div \"1\" answers=c1 tool=div error=\"1\"")
    );
    // A failure of a tool with no result left is an error naming the record.
    let text = format!(
        r#"{{"agent": "A", "expected_output": "x", "messages": [{}], "tool_failures": [{}, {}]}}"#,
        call_and_result("c1", "div", "{}", "x"),
        failure("div", "{}"),
        failure("div", "{}"),
    );
    let error = read(&text, Format::Auto).unwrap_err().to_string();
    assert!(
        error.starts_with(
            "line 1: tool failure 2: the tool \"div\" failed (\"boom\"), but no result of it that has not failed is in the task's messages"
        ) && error.contains("format crewai (detected)"),
        "{error}"
    );
}

#[test]
fn detection_tells_crewai_from_the_formats_it_resembles() {
    for (text, format) in [
        (
            r#"{"tasks_output": [], "raw": "", "token_usage": {}}"#,
            Format::CrewAi,
        ),
        (
            r#"{"messages": [{"role": "user", "content": "Hi"}], "expected_output": "x", "agent": "A", "raw": ""}"#,
            Format::CrewAi,
        ),
        (
            r#"{"messages": [{"role": "user", "content": "Hi"}], "agent_role": "A", "raw": ""}"#,
            Format::CrewAi,
        ),
        // A request's messages alone are OpenAI's.
        (
            r#"{"messages": [{"role": "user", "content": "Hi"}], "model": "gpt-4o"}"#,
            Format::OpenAi,
        ),
    ] {
        let mut reader = Reader::new(text.as_bytes(), Format::Auto);
        reader.by_ref().for_each(|m| drop(m.unwrap()));
        assert_eq!(reader.format(), format, "{text}");
    }
}

#[test]
fn errors_name_the_task_the_message_and_the_format() {
    for (text, expected) in [
        (
            r#"{"tasks_output": [{"agent": "A", "expected_output": "x", "messages": [{"role": "user", "content": "a"}, {"role": "robot", "content": "b"}]}]}"#,
            "line 1: element 1 of 1: element 2 of 2: unknown role 'robot'",
        ),
        (
            r#"{"agent": "A", "expected_output": "x"}"#,
            "line 1, column 38: expected a CrewAI task's or agent's output ({\"messages\", \"raw\", \"agent\", ...}), format crewai (given): missing field `messages`",
        ),
        (
            r#"{"agent": "A", "expected_output": "x", "messages": [], "tool_failures": [{"tool_name": "f"}]}"#,
            "missing field `failure`",
        ),
    ] {
        let error = read(text, Format::CrewAi).unwrap_err().to_string();
        assert!(error.contains(expected), "{error}\nexpected: {expected}");
        assert!(error.contains("CrewAI"), "{error}");
    }
}

#[test]
fn crewais_copies_of_calls_and_its_files_are_not_text() {
    // Where Gemini's SDK gave the calls, CrewAI keeps them again beside `tool_calls`;
    // files given with a task ride on its user message.
    assert_eq!(
        task(
            r#"{"role": "user", "content": "Read it.", "files": {"report": {"path": "r.pdf"}}}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}], "raw_tool_call_parts": [{"function_call": {"name": "f", "args": {}}}]}"#,
            ""
        ),
        "0 user \"Read it.\"\n1 llm @A call f({}) id=Some(\"c\")\n"
    );
}

#[test]
fn crewais_output_log_is_refused_not_taken_for_smolagents_tasks() {
    // `Crew(output_log_file="log.json")` writes each task's status and output: no
    // messages. Its `task` is a smolagents task step's key too.
    let log = r#"[
    {"timestamp": "2026-11-28 06:19:18", "task_name": null, "task": "What is 6*7?", "agent": "Math", "status": "started"},
    {"timestamp": "2026-11-28 06:19:19", "task_name": null, "task": "What is 6*7?", "agent": "Math", "status": "completed", "output": "42"}
]"#;
    for format in [Format::Auto, Format::CrewAi] {
        let error = read(log, format).unwrap_err().to_string();
        assert!(
            error.starts_with("line 2: element 1 of 2 of the array: a CrewAI output log (output_log_file) holds each task's status and output, not the messages of its run")
                && error.contains("format crewai"),
            "{error}"
        );
    }
    let mut reader = Reader::new(
        r#"{"task": "What is 6*7?", "task_images": null}"#.as_bytes(),
        Format::Auto,
    );
    reader.by_ref().for_each(|m| drop(m.unwrap()));
    assert_eq!(reader.format(), Format::Smolagents);
}
