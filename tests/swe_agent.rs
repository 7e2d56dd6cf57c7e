//! SWE-agent's trajectories (`--format swe-agent`): two runs of SWE-agent 1.1.0
//! itself (its replay model, a local deployment: `scripts/swe-agent-samples/run`),
//! a function-calling model's that submitted and a text-based model's that SWE-agent
//! ended; each kind of history entry, earlier releases' shape, the run's end, errors.

use doneseq::Role;
use doneseq::transcript::{Format, TranscriptErrorKind};

use crate::formats::{read, sample, summary};

/// A trajectory of the history entries `entries` (JSON objects) and the run's `info`.
fn trajectory(info: &str, entries: &[&str]) -> String {
    format!(
        r#"{{"environment": "main", "trajectory": [], "history": [{}], "info": {info}}}"#,
        entries.join(", ")
    )
}

const SYSTEM: &str = r#"{"role": "system", "content": "You are an autonomous programmer.", "agent": "main", "message_type": "system_prompt"}"#;
const TASK: &str = r#"{"role": "user", "content": "Fix the bug.", "agent": "main", "message_type": "observation"}"#;

/// The summary of the trajectory `text`, read by `auto` (which must detect it) and by
/// the format itself, which must agree.
fn messages(text: &str) -> String {
    let given = read(text, Format::SweAgent).unwrap();
    assert_eq!(read(text, Format::Auto).unwrap(), given, "{text}");
    summary(&given)
}

#[test]
fn a_function_calling_models_run_that_submitted() {
    // Each call named by the tool the model called, each output answering its call;
    // the first `submit` answered by SWE-agent's request for a review (its default
    // `review_on_submit_m`), the second's output the submission: a stop, its text the
    // patch.
    insta::assert_snapshot!(sample("swe-agent.traj", Format::SweAgent));
}

#[test]
fn a_text_models_run_that_swe_agent_ended() {
    // Each command SWE-agent parsed from the model's text a call named by its first
    // word, its output the user's message after it; the three replies without a
    // command, which SWE-agent refused, not in the history; the step SWE-agent wrote
    // as it ended the run (`submitted (exit_format)`: it submitted the edit itself),
    // and its autosubmission's output, no message.
    insta::assert_snapshot!(sample("swe-agent-text.traj", Format::SweAgent));
}

#[test]
fn the_stop_is_the_submission_only_in_a_run_that_submitted() {
    let submit = r#"{"role": "assistant", "content": "Done.", "action": "submit", "agent": "main", "tool_calls": [{"function": {"arguments": "{}", "name": "submit"}, "id": "c9", "type": "function"}], "message_type": "action"}"#;
    // The patch as the shell wrote it (SWE-agent's own `\r\n`), in the output template.
    let output = r#"{"role": "tool", "content": [{"type": "text", "text": "OBSERVATION:\n\r\ndiff --git a/x b/x\r\n+y\r\n"}], "agent": "main", "message_type": "observation", "tool_call_ids": ["c9"]}"#;
    let entries = [SYSTEM, TASK, submit, output];
    let patch = r#""\r\ndiff --git a/x b/x\r\n+y\r\n""#;
    let submitted = messages(&trajectory(
        &format!(r#"{{"exit_status": "submitted", "submission": {patch}}}"#),
        &entries,
    ));
    assert!(
        submitted.ends_with(
            "3 agent \"\\r\\ndiff --git a/x b/x\\r\\n+y\\r\\n\" answers=c9 tool=submit stop\n"
        ),
        "{submitted}"
    );
    // A blank submission (SWE-agent saves none): the stop's text is empty, not the
    // words SWE-agent gives the model for no output.
    let no_output = output.replace(
        r#"OBSERVATION:\n\r\ndiff --git a/x b/x\r\n+y\r\n"#,
        "Your command ran successfully and did not produce any output.",
    );
    for saved in ["null", r#""""#, r#""\n""#] {
        let blank = messages(&trajectory(
            &format!(r#"{{"exit_status": "submitted", "submission": {saved}}}"#),
            &[SYSTEM, TASK, submit, &no_output],
        ));
        assert!(
            blank.ends_with("3 agent answers=c9 tool=submit stop (no response)\n"),
            "{saved}: {blank}"
        );
    }
    // A history that stops before the command that submitted (SWE-agent 1.0's
    // development releases): its last output is the last command's, and the
    // submission follows it.
    let before = messages(&trajectory(
        r#"{"exit_status": "submitted", "submission": "diff --git a/z b/z\n"}"#,
        &entries,
    ));
    assert!(
        before.ends_with(
            "3 agent \"OBSERVATION:\\n\\r\\ndiff --git a/x b/x\\r\\n+y\\r\\n\" answers=c9 tool=submit\n\
             4 agent \"diff --git a/z b/z\\n\" stop\n"
        ),
        "{before}"
    );
    // A run still going (the trajectory is saved after every step), or one without
    // its info (a demonstration): the output is a result, not a stop.
    for info in [r#"{"exit_status": null}"#, "{}"] {
        let going = read(&trajectory(info, &entries), Format::SweAgent).unwrap();
        assert_eq!(going.len(), 4, "{info}");
        assert!(going.iter().all(|m| !m.is_stop()), "{info}");
    }
}

#[test]
fn an_earlier_releases_run_ends_on_the_command_that_submitted() {
    // SWE-agent 0.x's history ends on the model's message; the command's output is
    // in the trajectory and the info.
    let text = trajectory(
        r#"{"exit_status": "submitted", "submission": "the patch"}"#,
        &[
            r#"{"role": "system", "content": "s", "agent": "primary"}"#,
            r#"{"role": "user", "content": "Fix it.", "agent": "primary"}"#,
            r#"{"role": "assistant", "content": "Fixed.\n```\nsubmit\n```", "thought": "Fixed.\n", "action": "submit\n", "agent": "primary"}"#,
        ],
    );
    assert_eq!(
        messages(&text),
        "0 system \"s\"\n\
         1 user \"Fix it.\"\n\
         2 llm \"Fixed.\\n```\\nsubmit\\n```\" call submit({\"command\":\"submit\"}) id=None\n\
         3 agent \"the patch\" tool=submit stop\n"
    );
}

#[test]
fn each_kind_of_entry() {
    let text = trajectory(
        r#"{"exit_status": "exit_format"}"#,
        &[
            SYSTEM,
            // A demonstration in the history, step by step: its calls are not the run's.
            r#"{"role": "assistant", "content": "demo step", "action": "ls", "agent": "main", "is_demo": true, "tool_calls": [{"function": {"arguments": "{}", "name": "submit"}, "id": "d1", "type": "function"}], "message_type": "action"}"#,
            r#"{"role": "tool", "content": "demo output", "agent": "main", "is_demo": true, "tool_call_ids": ["d1"]}"#,
            TASK,
            // A parsed command: the user's message after it is its output.
            r#"{"role": "assistant", "content": "look", "thought": "look", "action": "find_file \"a.py\" src\n", "agent": "main", "message_type": "action"}"#,
            r#"{"role": "user", "content": "Found 1 matches", "agent": "main", "message_type": "observation"}"#,
            // No command: the user's message after it is the user's.
            r#"{"role": "assistant", "content": "thinking aloud", "action": "", "agent": "main"}"#,
            r#"{"role": "user", "content": "go on", "agent": "main"}"#,
            // Two calls; a tool message without its id answers the first.
            r#"{"role": "assistant", "content": "", "action": "a", "agent": "main", "tool_calls": [{"function": {"arguments": "{\"command\": \"ls\"}", "name": "bash"}, "id": "c1", "type": "function"}, {"function": {"arguments": "{}", "name": "pwd"}, "id": "c2", "type": "function"}]}"#,
            r#"{"role": "tool", "content": "b.py", "agent": "main", "tool_call_ids": ["c2"]}"#,
            r#"{"role": "tool", "content": "a.py", "agent": "main"}"#,
            // The step SWE-agent wrote as it ended the run on repeated format errors.
            r#"{"role": "assistant", "content": "Exit due to repeated format/blocklist/bash syntax errors", "thought": "Exit due to repeated format/blocklist/bash syntax errors", "action": "", "agent": "main", "tool_calls": null, "message_type": "action", "thinking_blocks": null}"#,
            r#"{"role": "user", "content": "Exited", "agent": "main", "message_type": "observation"}"#,
        ],
    );
    assert_eq!(
        messages(&text),
        "0 system \"You are an autonomous programmer.\"\n\
         1 system \"demo step\"\n\
         2 system \"demo output\"\n\
         3 user \"Fix the bug.\"\n\
         4 llm \"look\" call find_file({\"command\":\"find_file \\\"a.py\\\" src\"}) id=None\n\
         5 agent \"Found 1 matches\" tool=find_file\n\
         6 llm \"thinking aloud\"\n\
         7 user \"go on\"\n\
         8 llm call bash({\"command\": \"ls\"}) id=Some(\"c1\") call pwd({}) id=Some(\"c2\")\n\
         9 agent \"b.py\" answers=c2 tool=pwd\n\
         10 agent \"a.py\" answers=c1 tool=bash\n"
    );
    // The same last step in a run still going, or one that submitted, is the model's
    // (and a run that submitted, whose history shows no submission, ends on it).
    for (info, stops) in [("{}", 0), (r#"{"exit_status": "submitted"}"#, 1)] {
        let text = text.replace(r#"{"exit_status": "exit_format"}"#, info);
        let read = read(&text, Format::SweAgent).unwrap();
        assert_eq!(read.len(), 13 + stops, "{info}");
        let (step, after) = (&read[11], &read[12]);
        assert_eq!(
            (step.role(), step.tool_calls().len()),
            (Role::Llm, 0),
            "{info}"
        );
        assert_eq!(
            (after.role(), after.content()),
            (Role::User, "Exited"),
            "{info}"
        );
        assert_eq!(read.iter().filter(|m| m.is_stop()).count(), stops, "{info}");
    }
}

#[test]
fn only_the_last_step_of_a_run_swe_agent_ended_is_its_own() {
    // A model's message of no command with more than its output after it is the
    // model's, in a run SWE-agent ended too.
    let no_command = r#"{"role": "assistant", "content": "hmm", "thought": "hmm", "action": "", "agent": "main"}"#;
    let user = r#"{"role": "user", "content": "continue", "agent": "main"}"#;
    let text = trajectory(
        r#"{"exit_status": "exit_cost"}"#,
        &[SYSTEM, TASK, no_command, user, user],
    );
    assert_eq!(
        messages(&text),
        "0 system \"You are an autonomous programmer.\"\n\
         1 user \"Fix the bug.\"\n\
         2 llm \"hmm\"\n\
         3 user \"continue\"\n\
         4 user \"continue\"\n"
    );
    // Last, or with its output after it: SWE-agent's.
    for tail in [&[no_command][..], &[no_command, user]] {
        let entries: Vec<&str> = [SYSTEM, TASK].iter().chain(tail).copied().collect();
        let text = trajectory(r#"{"exit_status": "exit_cost"}"#, &entries);
        assert_eq!(read(&text, Format::SweAgent).unwrap().len(), 2, "{text}");
    }
}

#[test]
fn an_earlier_releases_exit_step_is_named_by_its_action() {
    // SWE-agent 0.x wrote the step that ended a run with the limit's name as its
    // action (and, for a format error, the model's refused reply as its content),
    // last in the history.
    let step = |action: &str| {
        format!(
            r#"{{"role": "assistant", "content": "Exit due to cost limit", "thought": "Exit due to cost limit", "action": "{action}", "agent": "primary"}}"#
        )
    };
    let ls =
        r#"{"role": "assistant", "content": "```\nls\n```", "action": "ls\n", "agent": "primary"}"#;
    let out = r#"{"role": "user", "content": "a.py", "agent": "primary"}"#;
    for (status, action, read) in [
        ("exit_cost", "exit_cost", 4),
        ("submitted (exit_cost)", "exit_cost", 4),
        ("exit_format", "exit_format", 4),
        // Another status than the action's, or a command of the model's: its turn.
        ("exit_context", "exit_cost", 5),
        ("exit_cost", "exit_forfeit", 5),
    ] {
        let text = trajectory(
            &format!(r#"{{"exit_status": "{status}"}}"#),
            &[SYSTEM, TASK, ls, out, &step(action)],
        );
        let messages = read_all(&text);
        assert_eq!(messages.len(), read, "{status} {action}");
        assert!(messages.iter().all(|m| !m.is_stop()), "{status} {action}");
    }
}

#[test]
fn a_tool_message_without_its_id_answers_the_first_call() {
    let call = r#"{"role": "assistant", "content": "", "action": "ls", "agent": "main", "tool_calls": [{"function": {"arguments": "{}", "name": "ls"}, "id": "c1", "type": "function"}]}"#;
    for ids in ["", r#", "tool_call_ids": []"#, r#", "tool_call_ids": null"#] {
        let output = format!(r#"{{"role": "tool", "content": "a.py", "agent": "main"{ids}}}"#);
        let text = trajectory("{}", &[TASK, call, &output]);
        assert!(
            messages(&text).ends_with("2 agent \"a.py\" answers=c1 tool=ls\n"),
            "{ids}"
        );
    }
}

/// Every message of `text`, read as a SWE-agent trajectory.
fn read_all(text: &str) -> Vec<doneseq::Message<'static>> {
    read(text, Format::SweAgent).unwrap()
}

#[test]
fn errors_name_the_entry_and_the_format() {
    let cases = [
        (
            trajectory("{}", &[SYSTEM, r#"{"role": "critic", "content": "x"}"#]),
            "history entry 2 of 2: a SWE-agent message of role \"critic\" (expected system, \
             user, assistant or tool)",
        ),
        (
            trajectory(
                "{}",
                &[r#"{"role": "tool", "content": "x", "tool_call_ids": ["a", "b"]}"#],
            ),
            "history entry 1 of 1: a tool's message answering 2 calls (SWE-agent's answer one)",
        ),
        (
            r#"{"trajectory": [], "info": {"exit_status": "submitted"}, "history": null}"#
                .to_owned(),
            "a SWE-agent trajectory without its history",
        ),
        (
            // As a retry agent saves it before it chose an attempt (no history).
            r#"{"attempts": [{"history": [], "info": {}}]}"#.to_owned(),
            "a SWE-agent retry agent's trajectory of attempts without the one it chose",
        ),
    ];
    for (text, expected) in cases {
        for format in [Format::Auto, Format::SweAgent] {
            let err = read(&text, format).unwrap_err();
            assert_eq!(
                (err.line, err.kind, err.format),
                (1, TranscriptErrorKind::Message, Some(Format::SweAgent)),
                "{err}"
            );
            assert!(err.message.contains(expected), "{text}: {err}");
        }
    }
    // A value of the wrong type: serde's error, at its line and column in the
    // trajectory as SWE-agent writes it (indented).
    let text = "{\n  \"history\": [\n    {\n      \"role\": \"user\",\n      \"content\": 5\n    }\n  ],\n  \"info\": {}\n}";
    for format in [Format::Auto, Format::SweAgent] {
        let err = read(text, format).unwrap_err();
        assert_eq!(
            (err.line, err.column, err.kind),
            (5, Some(18), TranscriptErrorKind::Json),
            "{err}"
        );
        assert_eq!(err.format, Some(Format::SweAgent), "{err}");
    }
    // A history entry without a role, a call without its name: serde's errors too.
    for (entry, expected) in [
        (r#"{"content": "x"}"#, "missing field `role`"),
        (
            r#"{"role": "assistant", "content": "x", "tool_calls": [{"function": {"arguments": "{}"}, "id": "c1", "type": "function"}]}"#,
            "missing field `name`",
        ),
    ] {
        let err = read(&trajectory("{}", &[entry]), Format::SweAgent).unwrap_err();
        assert_eq!(
            (err.kind, err.format),
            (TranscriptErrorKind::Json, Some(Format::SweAgent))
        );
        assert!(err.message.contains(expected), "{err}");
    }
}

#[test]
fn swe_bench_predictions_beside_the_trajectories_are_refused_as_such() {
    // The `preds.json` SWE-agent's and mini-swe-agent's batch runs write beside their
    // trajectories (keyed by instance), and a line of `all_preds.jsonl`.
    let prediction = r#"{"model_name_or_path": "gpt-4o", "instance_id": "calc_1", "model_patch": "diff --git a/x b/x\n"}"#;
    let keyed = format!("{{\n  \"calc_1\": {prediction}\n}}\n");
    for text in [keyed.as_str(), prediction] {
        for format in [Format::Auto, Format::SweAgent, Format::MiniSweAgent] {
            let err = read(text, format).unwrap_err();
            assert_eq!(
                (err.line, err.kind),
                (1, TranscriptErrorKind::Message),
                "{format}: {err}"
            );
            assert!(
                err.message
                    .contains("SWE-bench predictions (each instance's model_patch")
                    && err
                        .message
                        .contains("hold no messages: read the trajectories"),
                "{format}: {err}"
            );
        }
    }
}
