//! rlm-code's run logs (`--format rlm-code`): the events its runner writes, what each
//! becomes, a log of several runs, and errors.

use doneseq::Message;
use doneseq::transcript::{Format, TranscriptErrorKind};

use crate::formats::{read, sample, sample_text, summary};

/// [`summary`], each message's reward after its line.
fn with_rewards(messages: &[Message<'_>]) -> String {
    (summary(messages).lines().zip(messages))
        .map(|(line, m)| match m.reward() {
            Some(reward) => format!("{line} reward={reward}\n"),
            None => format!("{line}\n"),
        })
        .collect()
}

/// The messages of the rlm-code events `lines`, with their rewards.
fn messages(lines: &[&str]) -> String {
    with_rewards(&read(&lines.join("\n"), Format::RlmCode).unwrap())
}

#[test]
fn a_generic_run_of_python_actions_and_a_final_action() {
    // Written by rlm-code 0.1.13's runner (`RLMRunner.run_task`, environment
    // `generic`, a scripted planner, its own execution engine running the code): a
    // step that prints 42, one whose code raises, then the `final` action.
    insta::assert_snapshot!(sample("rlm-code-run.jsonl", Format::RlmCode));
    let read = read(&sample_text("rlm-code-run.jsonl"), Format::RlmCode).unwrap();
    let rewards: Vec<Option<f64>> = read.iter().map(Message::reward).collect();
    assert_eq!(
        rewards,
        [
            None,
            None,
            Some(0.7999999999999999),
            None,
            Some(-0.3),
            None,
            Some(1.0),
            None
        ]
    );
}

#[test]
fn a_pure_rlm_run_that_answers_by_final_var() {
    // Written by rlm-code 0.1.13's runner in its Pure RLM environment (the REPL run
    // in process): its context event, a step of REPL code, the model's
    // `FINAL_VAR(answer)`, and the run's end with the variable's value.
    insta::assert_snapshot!(sample("rlm-code-pure-rlm.jsonl", Format::RlmCode));
}

#[test]
fn each_kind_of_event() {
    assert_eq!(
        messages(&[
            r#"{"type": "context", "run_id": "r1", "environment": "pure_rlm", "context_files": ["a.py"]}"#,
            // An error in the observation fails the result; its other keys are its text.
            r#"{"type": "step", "run_id": "r1", "environment": "dspy", "task": "Fix it.", "step": 1, "action": {"action": "write_file", "path": ""}, "planner_raw": "{}", "observation": {"error": "write_file requires 'path'."}, "reward": -0.25, "usage": {"total_calls": 1, "prompt_tokens": 9, "completion_tokens": 3}}"#,
            // A framework adapter's step: no text of the planner's, no tokens.
            r#"{"type": "step", "run_id": "r1", "environment": "dspy", "task": "Fix it.", "step": 2, "action": {"action": "framework_step"}, "observation": {"success": true, "path": "a.py", "bytes_written": 12}, "reward": 0.5}"#,
            // A failure without stderr; an observation's empty error is no error.
            r#"{"type": "step", "run_id": "r1", "environment": "dspy", "task": "Fix it.", "step": 3, "action": {"action": "run_tests"}, "observation": {"success": false, "stdout": "", "stderr": ""}, "reward": -0.4}"#,
            r#"{"type": "step", "run_id": "r1", "environment": "dspy", "task": "Fix it.", "step": 4, "action": {"action": "run_python"}, "observation": {"success": true, "stdout": "ok", "error": ""}}"#,
            // A run that did not complete: its summary is not a message.
            r#"{"type": "final", "run_id": "r1", "environment": "dspy", "task": "Fix it.", "completed": false, "final_response": "Stopped due to time budget.", "usage": {"prompt_tokens": 9, "completion_tokens": 3}}"#,
            // The next run, in the same log: its own task.
            r#"{"type": "final", "run_id": "r2", "environment": "generic", "task": "Again.", "completed": true, "final_response": "Done."}"#,
        ]),
        "0 user \"Fix it.\"\n\
         1 llm \"{}\" call write_file({\"action\": \"write_file\", \"path\": \"\"}) id=None tokens=9+3\n\
         2 agent \"{\\\"error\\\":\\\"write_file requires 'path'.\\\"}\" tool=write_file error=\"write_file requires 'path'.\" reward=-0.25\n\
         3 llm call framework_step({\"action\": \"framework_step\"}) id=None\n\
         4 agent \"{\\\"success\\\":true,\\\"path\\\":\\\"a.py\\\",\\\"bytes_written\\\":12}\" tool=framework_step reward=0.5\n\
         5 llm call run_tests({\"action\": \"run_tests\"}) id=None\n\
         6 agent tool=run_tests error=\"the action failed\" reward=-0.4\n\
         7 llm call run_python({\"action\": \"run_python\"}) id=None\n\
         8 agent \"ok\" tool=run_python\n\
         9 user \"Again.\"\n\
         10 agent \"Done.\" stop\n"
    );
}

#[test]
fn a_run_is_given_its_task_once_whatever_its_events() {
    // A run's first event may be its context (no task): the task comes with its first
    // step; a run without a `run_id` is one run too.
    let step = |run: &str| {
        format!(
            r#"{{"type": "step", {run}"environment": "generic", "task": "Go.", "action": {{"action": "run_python"}}, "observation": {{"stdout": "1"}}}}"#
        )
    };
    let log = [
        step(r#""run_id": "a", "#),
        step(r#""run_id": "a", "#),
        step(""),
    ];
    let read = read(&log.join("\n"), Format::RlmCode).unwrap();
    let users = read.iter().filter(|m| m.role() == doneseq::Role::User);
    assert_eq!(users.count(), 2, "{}", summary(&read));
}

#[test]
fn errors_name_the_event() {
    let cases = [
        (
            r#"{"type": "iteration", "run_id": "r", "environment": "generic"}"#,
            "an rlm-code event of type \"iteration\": its runner writes \"step\", \"final\" and \"context\" events",
        ),
        (
            r#"{"type": "step", "run_id": "r", "environment": "generic", "observation": {}}"#,
            "an rlm-code step has no \"action\"",
        ),
        (
            r#"{"type": "step", "run_id": "r", "environment": "generic", "action": {"action": "run_python"}}"#,
            "an rlm-code step has no \"observation\"",
        ),
        (
            r#"{"type": "step", "run_id": "r", "environment": "generic", "action": {"code": "1"}, "observation": {}}"#,
            "the step's \"action\" has no name (its \"action\" key)",
        ),
        (
            r#"{"type": "step", "run_id": "r", "environment": "generic", "action": {"action": ""}, "observation": {}}"#,
            "the step's \"action\" has no name",
        ),
        (
            r#"{"type": "step", "run_id": "r", "environment": "generic", "action": "run_python", "observation": {}}"#,
            "the step's \"action\" is a string, not an object",
        ),
        (
            r#"{"type": "step", "run_id": "r", "environment": "generic", "action": ["run_python"], "observation": {}}"#,
            "the step's \"action\" is a list, not an object",
        ),
        (
            r#"{"type": "step", "run_id": "r", "environment": "generic", "action": {"action": "a"}, "observation": ["out", null, null, true]}"#,
            "the step's \"observation\" is a list, not an object",
        ),
        (
            r#"{"type": "step", "run_id": "r", "environment": "generic", "action": {"action": "a"}, "observation": 7}"#,
            "the step's \"observation\" is a number, not an object",
        ),
        (
            r#"{"type": "step", "run_id": "r", "environment": "generic", "action": true, "observation": {}}"#,
            "the step's \"action\" is a boolean, not an object",
        ),
        (
            r#"{"type": "step", "run_id": "r", "environment": "generic", "action": {"action": "a"}, "observation": {"stdout": 7}}"#,
            "the step's \"observation\": invalid type: integer `7`",
        ),
    ];
    // rlm-code's other logs: its TrajectoryLogger's and SessionRecorder's events.
    let other = "the events of rlm-code's TrajectoryLogger and SessionRecorder (\"event_type\") are not read";
    let cases = cases.into_iter().chain([
        (
            r#"{"event_type": "run_start", "timestamp": 1795808996.5, "run_id": "run_1", "data": {"task": "Go."}}"#,
            other,
        ),
        (
            r#"{"event_type": "session_start", "timestamp": "t", "session_id": "s", "data": {}}"#,
            other,
        ),
    ]);
    for (line, expected) in cases {
        for format in [Format::Auto, Format::RlmCode] {
            let err = read(line, format).unwrap_err();
            assert_eq!(
                (err.line, err.kind, err.format),
                (1, TranscriptErrorKind::Message, Some(Format::RlmCode)),
                "{err}"
            );
            assert!(err.message.contains(expected), "{line}: {err}");
        }
    }
    // A null type is no type (`auto` does not know the record for one of rlm-code's).
    let err = read(
        r#"{"type": null, "run_id": "r", "environment": "generic"}"#,
        Format::RlmCode,
    )
    .unwrap_err();
    assert!(
        err.message.contains("an rlm-code event without a \"type\""),
        "{err}"
    );
    // A wrong step gives nothing before its error, not even its run's task.
    let line = r#"{"type": "step", "run_id": "r", "environment": "generic", "task": "Go.", "action": {"action": "a"}}"#;
    let reader = doneseq::transcript::Reader::new(line.as_bytes(), Format::Auto);
    let given: Vec<_> = reader.collect();
    assert!(matches!(given.as_slice(), [Err(_)]), "{given:?}");
    // A field of the wrong type: serde's error, with its column; detected, the format.
    let log = "{\"type\": \"context\", \"run_id\": \"r\", \"environment\": \"generic\"}\n\
               {\"type\": \"step\", \"run_id\": \"r\", \"environment\": \"generic\", \"reward\": \"high\"}\n";
    let err = read(log, Format::Auto).unwrap_err();
    assert_eq!(
        (err.line, err.kind, err.column),
        (2, TranscriptErrorKind::Json, Some(74)),
        "{err}"
    );
    assert!(err.message.contains("format rlm-code (detected)"), "{err}");
}

#[test]
fn a_run_read_as_a_document_reads_as_its_lines() {
    // `jq -s .` of a run's log: one array of its events, indented.
    let text = sample_text("rlm-code-run.jsonl");
    let lines = read(&text, Format::RlmCode).unwrap();
    let events: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let document = serde_json::to_string_pretty(&events).unwrap();
    for format in [Format::Auto, Format::RlmCode] {
        let read = read(&document, format).unwrap();
        assert_eq!(read.len(), lines.len());
        for (a, b) in read.iter().zip(&lines) {
            assert_eq!(
                (a.role(), a.content(), a.error(), a.reward(), a.is_stop()),
                (b.role(), b.content(), b.error(), b.reward(), b.is_stop())
            );
        }
    }
}
