//! Agno's runs (`--format agno`): the rows of Agno's JSON database as Agno 3.1
//! writes them, a run's messages, runs and sessions read alike, what each message
//! becomes, and errors.

use doneseq::transcript::Format;

use crate::formats::{read, sample, sample_text, summary};

#[test]
fn an_agno_sessions_runs_as_its_database_keeps_them() {
    // Written by Agno 3.1.10's JsonDb (`agno_runs.json`) for an agent of Agno's OpenAI
    // model, answered offline, run twice in one session: two tools at once (the
    // second raising), an answer; then, with the first run as history, a tool, and a
    // tool after which Agno stops the run.
    insta::assert_snapshot!(sample("agno-runs.json", Format::Agno));
}

/// The database's rows of the sample.
fn rows() -> Vec<serde_json::Value> {
    serde_json::from_str(&sample_text("agno-runs.json")).unwrap()
}

/// `values` one a line.
fn lines(values: impl IntoIterator<Item = serde_json::Value>) -> String {
    values.into_iter().map(|v| format!("{v}\n")).collect()
}

#[test]
fn messages_runs_and_sessions_read_as_the_rows() {
    let expected = summary(&read(&sample_text("agno-runs.json"), Format::Auto).unwrap());
    let runs: Vec<serde_json::Value> = rows().into_iter().map(|r| r["run_data"].clone()).collect();
    // Each run's messages, one a line, as a run holds them in memory: the second
    // run's repeat the first's after its system prompt (marked `from_history`; the
    // database keeps them out), read once.
    let first = runs[0]["messages"].as_array().unwrap();
    let second = runs[1]["messages"].as_array().unwrap();
    let repeated = first[1..].iter().map(|m| {
        let mut m = m.clone();
        m["from_history"] = true.into();
        m
    });
    let in_memory: Vec<serde_json::Value> = (first.iter().cloned())
        .chain(second[..1].iter().cloned())
        .chain(repeated)
        .chain(second[1..].iter().cloned())
        .collect();
    let messages = lines(in_memory);
    let session = serde_json::json!({
        "session_id": "s1", "agent_id": "a", "session_type": "agent", "runs": runs,
    });
    for text in [
        messages,
        lines(runs.clone()),
        serde_json::Value::Array(runs).to_string(),
        session.to_string(),
    ] {
        for format in [Format::Auto, Format::Agno] {
            assert_eq!(summary(&read(&text, format).unwrap()), expected, "{text}");
        }
    }
}

/// The summary of the Agno records `lines`.
fn messages(lines: &[&str]) -> String {
    summary(&read(&lines.join("\n"), Format::Agno).unwrap())
}

#[test]
fn each_field_of_a_message() {
    let h = r#""from_history": false, "stop_after_tool_call": false"#;
    assert_eq!(
        messages(&[
            &format!(r#"{{"role": "developer", "content": "Be brief.", {h}}}"#),
            &format!(
                r#"{{"role": "user", "content": [{{"type": "text", "text": "Hi"}}, {{"type": "image_url", "image_url": {{"url": "u"}}}}], "name": "ann", {h}}}"#
            ),
            &format!(
                r#"{{"role": "assistant", "content": null, "reasoning_content": "hm", "tool_calls": [{{"id": "c1", "type": "function", "function": {{"name": "f", "arguments": "{{}}"}}}}], "metrics": {{"input_tokens": 5, "output_tokens": 2, "total_tokens": 7, "cache_read_tokens": 1, "duration": 0.1}}, {h}}}"#
            ),
            r#"{"role": "tool", "content": "boom", "tool_call_id": "c1", "tool_name": "f", "tool_args": {}, "tool_call_error": true, "from_history": false, "stop_after_tool_call": true}"#,
            r#"{"role": "assistant", "content": "old", "from_history": true, "stop_after_tool_call": false}"#,
        ]),
        "0 system \"Be brief.\"\n1 user @ann \"Hi\"\n2 llm call f({}) id=Some(\"c1\") tokens=5+2\n3 agent \"boom\" answers=c1 tool=f error=\"boom\" stop\n"
    );
}

#[test]
fn a_teams_member_runs_are_its_delegations() {
    // A team's run and its member's run (its `parent_run_id` the team's), as the
    // database keeps them: the session is the team's run; the member's run, read
    // alone, is its own.
    let h = r#""from_history": false, "stop_after_tool_call": false"#;
    let member = format!(
        r#"{{"run_id": "m", "session_id": "s", "parent_run_id": "t", "messages": [{{"role": "user", "content": "Add 2 and 3.", {h}}}, {{"role": "assistant", "content": "5", {h}}}]}}"#
    );
    let team = format!(
        r#"{{"run_id": "t", "session_id": "s", "team_id": "tm", "messages": [{{"role": "user", "content": "Add.", {h}}}, {{"role": "assistant", "tool_calls": [{{"id": "d", "type": "function", "function": {{"name": "delegate_task_to_member", "arguments": "{{}}"}}}}], {h}}}, {{"role": "tool", "content": "5", "tool_call_id": "d", {h}}}, {{"role": "assistant", "content": "It is 5.", {h}}}], "member_responses": [{member}]}}"#
    );
    let rows = format!(
        r#"[{{"run_id": "m", "session_id": "s", "parent_run_id": "t", "run_data": {member}}}, {{"run_id": "t", "session_id": "s", "parent_run_id": null, "run_data": {team}}}]"#
    );
    let session =
        format!(r#"{{"session_id": "s", "session_type": "team", "runs": [{member}, {team}]}}"#);
    let expected = "0 user \"Add.\"\n1 llm call delegate_task_to_member({}) id=Some(\"d\")\n2 agent \"5\" answers=d\n3 llm \"It is 5.\"\n";
    for text in [&rows, &session, &team] {
        assert_eq!(summary(&read(text, Format::Auto).unwrap()), expected);
    }
    assert_eq!(
        summary(&read(&member, Format::Auto).unwrap()),
        "0 user \"Add 2 and 3.\"\n1 llm \"5\"\n"
    );
}

#[test]
fn detection_tells_agno_from_the_formats_it_resembles() {
    // Pydantic AI's messages carry a `run_id` too; an OpenAI message has no
    // `from_history`.
    let pydantic = r#"{"parts": [{"content": "Hi", "part_kind": "user-prompt"}], "kind": "request", "run_id": "r"}"#;
    let mut reader = doneseq::transcript::Reader::new(pydantic.as_bytes(), Format::Auto);
    reader.by_ref().for_each(|m| drop(m.unwrap()));
    assert_eq!(reader.format(), Format::PydanticAi);
    for (text, format) in [
        (
            r#"{"role": "user", "content": "Hi", "from_history": false}"#,
            Format::Agno,
        ),
        (r#"{"role": "user", "content": "Hi"}"#, Format::Jsonl),
        (r#"{"run_id": "r", "messages": []}"#, Format::Agno),
        (
            r#"{"run_id": "r", "input": {"input_content": "hi"}, "messages": []}"#,
            Format::Agno,
        ),
        (r#"{"session_id": "s", "runs": []}"#, Format::Agno),
    ] {
        let mut reader = doneseq::transcript::Reader::new(text.as_bytes(), Format::Auto);
        reader.by_ref().for_each(|m| drop(m.unwrap()));
        assert_eq!(reader.format(), format, "{text}");
    }
}

#[test]
fn errors_name_the_run_and_the_format() {
    let h = r#""from_history": false, "stop_after_tool_call": false"#;
    for (text, expected) in [
        (
            format!(r#"{{"role": "robot", "content": "x", {h}}}"#),
            "line 1: an Agno message of role \"robot\" (expected system, developer, user, assistant or tool); in an Agno message",
        ),
        (
            format!(r#"{{"role": "user", "content": "x", "tool_calls": [], {h}}}"#),
            "an Agno message of role \"user\" holds tool calls",
        ),
        (
            format!(r#"{{"role": "assistant", "tool_calls": [{{"id": "c"}}], {h}}}"#),
            "tool call 0 has no name",
        ),
        (
            r#"{"run_id": "w", "session_id": "s", "run_data": {"run_id": "w", "workflow_id": "f", "step_results": []}}"#.to_owned(),
            "an Agno run without messages (a workflow's run",
        ),
        (
            r#"{"run_id": "p", "input": {"input_content": "hi"}, "status": "PAUSED"}"#.to_owned(),
            "line 1: an Agno run without messages",
        ),
        (
            r#"[{"session_id": "s", "session_type": "agent", "session_data": {}}]"#.to_owned(),
            "element 1 of 1 of the array: an Agno session without its runs",
        ),
        (
            r#"[{"run_id": "a", "session_id": "s1", "messages": []}, {"run_id": "b", "session_id": "s2", "messages": []}]"#.to_owned(),
            "line 1: element 2 of 2 of the array: a run of session \"s2\" after runs of session \"s1\"",
        ),
        (
            format!(r#"{{"run_id": "a", "messages": [{{"role": "user", "content": "x", {h}}}, {{"role": "tool", "content": [{{"type": "tool_use", "id": "u", "name": "f", "input": {{}}}}], {h}}}]}}"#),
            "element 2 of 2: an Agno message's content holds tool uses or results",
        ),
    ] {
        let err = read(&text, Format::Auto).unwrap_err();
        assert!(err.to_string().contains(expected), "{err}");
        assert!(err.to_string().contains("format agno (detected)"), "{err}");
    }
}
