//! mini-swe-agent's trajectories (`--format mini-swe-agent`): a trajectory
//! mini-swe-agent saved, each kind of its messages, the run's end, errors.

use doneseq::transcript::{Format, TranscriptErrorKind};

use crate::formats::{read, sample, summary};

/// A trajectory of the messages `messages` (JSON objects), in the format mini-swe-agent
/// 2 writes.
fn trajectory(messages: &[&str]) -> String {
    format!(
        r#"{{"info": {{"exit_status": "Submitted", "mini_version": "2.4.6"}}, "messages": [{}], "trajectory_format": "mini-swe-agent-1.1"}}"#,
        messages.join(", ")
    )
}

/// The messages of a trajectory of `messages`, read as `auto` detects it and as its
/// format, which agree.
fn messages(messages: &[&str]) -> String {
    read_both(&trajectory(messages))
}

/// An API response of a model's message `message` (JSON) and its usage.
fn response(message: &str, input: u32, output: u32) -> String {
    format!(
        r#"{{"id": "chatcmpl-1", "choices": [{{"finish_reason": "stop", "index": 0, "message": {message}}}], "usage": {{"prompt_tokens": {input}, "completion_tokens": {output}, "total_tokens": {}}}}}"#,
        input + output
    )
}

/// mini-swe-agent 1's regex for a command (its default, and its SWE-bench
/// configuration's).
const FENCED: &str = r"```bash\s*\n(.*?)\n```";

/// A mini-swe-agent 1 trajectory of the messages `messages`, its run's command found
/// by `regex`, ended `Submitted`.
fn first(regex: &str, messages: &[&str]) -> String {
    first_ended(regex, "Submitted", messages)
}

/// [`first`], ended by `status`.
fn first_ended(regex: &str, status: &str, messages: &[&str]) -> String {
    format!(
        r#"{{"info": {{"exit_status": "{status}", "submission": "", "config": {{"agent": {{"action_regex": {}, "step_limit": 2}}}}, "mini_version": "1.17.5"}}, "messages": [{}], "trajectory_format": "mini-swe-agent-1"}}"#,
        serde_json::to_string(regex).unwrap(),
        messages.join(", ")
    )
}

/// The messages of the trajectory `text`, read as `auto` detects it and as its
/// format, which agree.
fn read_both(text: &str) -> String {
    let given = read(text, Format::MiniSweAgent).unwrap();
    assert_eq!(read(text, Format::Auto).unwrap(), given);
    summary(&given)
}

#[test]
fn a_trajectory_of_commands_a_refused_reply_and_a_submission() {
    // Saved by mini-swe-agent 2.4.6 (`DefaultAgent`, a tool-calling LiteLLM model,
    // against a scripted Chat Completions API; its commands run): its system message
    // and task; a command; a call of another tool than bash, refused (its API
    // response in the message that tells the model so); two commands, the second
    // exiting with 3; the submission.
    insta::assert_snapshot!(sample("mini-swe-agent.traj.json", Format::MiniSweAgent));
}

#[test]
fn a_responses_models_trajectory() {
    // Saved by mini-swe-agent 2.4.6 with a Responses API model (`LitellmResponseModel`,
    // against a scripted Responses API): each model turn the response object, each
    // output a `function_call_output` item, the refused reply's response (a call of
    // another tool) in the message item that tells the model so.
    insta::assert_snapshot!(sample(
        "mini-swe-agent-responses.traj.json",
        Format::MiniSweAgent
    ));
}

#[test]
fn a_text_based_models_commands_and_outputs() {
    let reply = "THOUGHT: count.\n\n```mswea_bash_command\nls | wc -l\n```";
    let assistant = format!(
        r#"{{"role": "assistant", "content": {}, "tool_calls": null, "extra": {{"actions": [{{"command": "ls | wc -l"}}], "response": {}, "cost": 0.001}}}}"#,
        serde_json::to_string(reply).unwrap(),
        response(r#"{"role": "assistant", "content": "..."}"#, 12, 5)
    );
    let output = |code: i64, info: &str| {
        format!(
            r#"{{"role": "user", "content": "<returncode>{code}</returncode>", "extra": {{"raw_output": "", "returncode": {code}, "exception_info": "{info}"}}}}"#
        )
    };
    insta::assert_snapshot!(messages(&[
        r#"{"role": "system", "content": "You run commands."}"#,
        r#"{"role": "user", "content": "Count the files."}"#,
        &assistant,
        &output(0, ""),
        &assistant,
        &output(2, ""),
        &assistant,
        &output(-1, "An error occurred while executing the command: timed out"),
        // The user's own command (mini-swe-agent's interactive agent, human mode):
        // the user's message, its output a result of bash.
        r#"{"role": "user", "content": "User command: \n```bash\nls\n```", "extra": {"actions": [{"command": "ls"}]}}"#,
        &output(0, ""),
        // The user interrupts with a message.
        r#"{"role": "user", "content": "Stop and submit.", "extra": {"interrupt_type": "UserInterruption"}}"#,
    ]), @r#"
    0 system "You run commands."
    1 user "Count the files."
    2 llm "THOUGHT: count.\n\n```mswea_bash_command\nls | wc -l\n```" call bash({"command":"ls | wc -l"}) id=None tokens=12+5
    3 agent "<returncode>0</returncode>" tool=bash
    4 llm "THOUGHT: count.\n\n```mswea_bash_command\nls | wc -l\n```" call bash({"command":"ls | wc -l"}) id=None tokens=12+5
    5 agent "<returncode>2</returncode>" tool=bash error="the command exited with code 2"
    6 llm "THOUGHT: count.\n\n```mswea_bash_command\nls | wc -l\n```" call bash({"command":"ls | wc -l"}) id=None tokens=12+5
    7 agent "<returncode>-1</returncode>" tool=bash error="An error occurred while executing the command: timed out"
    8 user "User command: \n```bash\nls\n```"
    9 agent "<returncode>0</returncode>" tool=bash
    10 user "Stop and submit."
    "#);
}

#[test]
fn refused_replies_are_the_models_turns() {
    // A tool-calling model's reply without a call: its API response is its turn.
    let no_call = format!(
        r#"{{"role": "user", "content": "No tool calls found in the response.", "extra": {{"interrupt_type": "FormatError", "cost": 0.001, "response": {}}}}}"#,
        response(
            r#"{"role": "assistant", "content": "I am done.", "tool_calls": null, "function_call": null, "provider_specific_fields": {}}"#,
            30,
            4
        )
    );
    // A text-based model's reply of two commands, its response saved as a `repr`
    // (mini-swe-agent's fallback): the reply's text, no usage.
    let two_commands = r#"{"role": "user", "content": "Please always provide EXACTLY ONE action in triple backticks, found 2 actions.", "extra": {"interrupt_type": "FormatError", "n_actions": 2, "model_response": "```mswea_bash_command\nls\n```\n```mswea_bash_command\npwd\n```", "response": "ModelResponse(id='chatcmpl-2', ...)"}}"#;
    // Neither saved: an empty turn, the call still made.
    let nothing = r#"{"role": "user", "content": "Format error.", "extra": {"interrupt_type": "FormatError"}}"#;
    insta::assert_snapshot!(messages(&[&no_call, two_commands, nothing]), @r#"
    0 llm "I am done." tokens=30+4
    1 user "No tool calls found in the response."
    2 llm "```mswea_bash_command\nls\n```\n```mswea_bash_command\npwd\n```"
    3 user "Please always provide EXACTLY ONE action in triple backticks, found 2 actions."
    4 llm (no response)
    5 user "Format error."
    "#);
}

#[test]
fn the_runs_end() {
    let call = r#"{"role": "assistant", "content": "", "tool_calls": [{"id": "call_9", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; cat patch.diff\"}"}}], "extra": {"actions": [{"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; cat patch.diff", "tool_call_id": "call_9"}]}}"#;
    // The submission is the command's output, as a stop message.
    let submitted = r#"{"role": "exit", "content": "diff --git a/x b/x\n", "extra": {"exit_status": "Submitted", "submission": "diff --git a/x b/x\n"}}"#;
    insta::assert_snapshot!(messages(&[call, submitted]), @r#"
    0 llm call bash({"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; cat patch.diff"}) id=Some("call_9")
    1 agent "diff --git a/x b/x\n" tool=bash stop
    "#);
    // Any other end says why mini-swe-agent stopped: not a message.
    for status in [
        "LimitsExceeded",
        "TimeExceeded",
        "RepeatedFormatError",
        "RuntimeError",
    ] {
        let exit = format!(
            r#"{{"role": "exit", "content": "{status}", "extra": {{"exit_status": "{status}", "submission": ""}}}}"#
        );
        assert_eq!(
            messages(&[call, &exit]),
            "0 llm call bash({\"command\": \"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; cat patch.diff\"}) id=Some(\"call_9\")\n",
            "{status}"
        );
    }
}

#[test]
fn errors_name_the_message() {
    let cases = [
        (
            trajectory(&[r#"{"role": "critic", "content": "no"}"#]),
            "element 1 of 1: a mini-swe-agent message of role \"critic\"",
        ),
        (
            trajectory(&[
                r#"{"role": "system", "content": "s"}"#,
                r#"{"type": "web_search_call", "id": "ws_1"}"#,
            ]),
            "element 2 of 2: a message without a \"role\" (or a Responses model's response object or function_call_output item)",
        ),
        (
            trajectory(&[
                r#"{"object": "response", "output": [{"type": "computer_call", "id": "c"}]}"#,
            ]),
            "a response object's output item 0 is of type \"computer_call\" (expected message, function_call or reasoning)",
        ),
        (
            trajectory(&[r#"{"content": "who?"}"#]),
            "a message without a \"role\"",
        ),
        (
            trajectory(&[&format!(
                r#"{{"role": "user", "content": "x", "extra": {{"interrupt_type": "FormatError", "response": {}}}}}"#,
                response(r#"{"role": "tool", "content": "x"}"#, 1, 1)
            )]),
            "a FormatError's API response whose message is not the model's",
        ),
        (
            r#"{"info": {}, "messages": [], "trajectory_format": "mini-swe-agent-9"}"#.to_owned(),
            "a mini-swe-agent trajectory of format \"mini-swe-agent-9\" (expected \"mini-swe-agent-1.1\", mini-swe-agent 2's, or \"mini-swe-agent-1\", 1's)",
        ),
        (
            first(r"(?<=x)bash", &[r#"{"role": "system", "content": "s"}"#]),
            "the trajectory's action_regex \"(?<=x)bash\" is not a regex doneseq runs: error: look-around",
        ),
        (
            first(FENCED, &[r#"{"role": "tool", "content": "x"}"#]),
            "element 1 of 1: a mini-swe-agent 1 message of role \"tool\"",
        ),
    ];
    for (text, expected) in cases {
        for format in [Format::Auto, Format::MiniSweAgent] {
            let err = read(&text, format).unwrap_err();
            assert_eq!(
                (err.line, err.kind, err.format),
                (1, TranscriptErrorKind::Message, Some(Format::MiniSweAgent)),
                "{err}"
            );
            assert!(err.message.contains(expected), "{text}: {err}");
        }
    }
    // A value of the wrong type: serde's error, at its line and column in the
    // trajectory as mini-swe-agent writes it (indented).
    let text = "{\n  \"messages\": [\n    {\"role\": \"tool\", \"content\": \"\",\n     \"extra\": {\"returncode\": \"3\"}}\n  ],\n  \"trajectory_format\": \"mini-swe-agent-1.1\"\n}";
    let err = read(text, Format::Auto).unwrap_err();
    assert_eq!((err.line, err.column), (4, Some(32)), "{err}");
    assert!(err.message.contains("invalid type: string \"3\""), "{err}");
}

#[test]
fn a_first_trajectory_of_commands_a_refused_reply_and_a_submission() {
    // Saved by mini-swe-agent 1.17.5 (`DefaultAgent` with its SWE-bench
    // configuration and a LiteLLM model, against a scripted Chat Completions API; its
    // commands run; saved by `save_traj`): the same run as mini-swe-agent 2's
    // text-based model's, its commands in its text, its refused reply in the list.
    insta::assert_snapshot!(sample("mini-swe-agent-1.traj.json", Format::MiniSweAgent));
}

#[test]
fn first_trajectories_are_read_by_the_place_of_each_message() {
    let model = |text: &str| {
        format!(
            r#"{{"role": "assistant", "content": {}, "timestamp": 1.5, "extra": {{"response": {}}}}}"#,
            serde_json::to_string(text).unwrap(),
            response(r#"{"role": "assistant", "content": "..."}"#, 10, 2)
        )
    };
    let user = |text: &str| {
        format!(
            r#"{{"role": "user", "content": {}, "timestamp": 1.5}}"#,
            serde_json::to_string(text).unwrap()
        )
    };
    let messages = [
        r#"{"role": "system", "content": "You run commands.", "timestamp": 1.5}"#.to_owned(),
        user("Fix the bug."),
        // One command: the next message is its output (failed by its return code).
        model("THOUGHT: test.\n\n```bash\nmake test\n```"),
        user("<returncode>2</returncode>\n<output>\nError 1\n</output>"),
        // Two commands: refused, the next message is what the model was told.
        model("```bash\nls\n```\n```bash\npwd\n```"),
        user("Please always provide EXACTLY ONE action in triple backticks."),
        // An output in another template: no return code read.
        model("```bash\nls\n```"),
        user("Observation: {'output': 'a.py', 'returncode': 1}"),
        // The submission.
        model("```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff\n```"),
        user("diff --git a/x b/x\n"),
    ];
    let messages: Vec<&str> = messages.iter().map(String::as_str).collect();
    insta::assert_snapshot!(read_both(&first(FENCED, &messages)), @r#"
    0 system "You run commands."
    1 user "Fix the bug."
    2 llm "THOUGHT: test.\n\n```bash\nmake test\n```" call bash({"command":"make test"}) id=None tokens=10+2
    3 agent "<returncode>2</returncode>\n<output>\nError 1\n</output>" tool=bash error="the command exited with code 2"
    4 llm "```bash\nls\n```\n```bash\npwd\n```" tokens=10+2
    5 user "Please always provide EXACTLY ONE action in triple backticks."
    6 llm "```bash\nls\n```" call bash({"command":"ls"}) id=None tokens=10+2
    7 agent "Observation: {'output': 'a.py', 'returncode': 1}" tool=bash
    8 llm "```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff\n```" call bash({"command":"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff"}) id=None tokens=10+2
    9 agent "diff --git a/x b/x\n" tool=bash stop
    "#);
    // Ended on its limit: the last message, after an output, is the limit's (no
    // message); ended otherwise (an error), the last output is an output.
    let limited = &messages[..4];
    let limit = user("");
    let mut ended = limited.to_vec();
    ended.push(&limit);
    let read_limited = read_both(&first_ended(FENCED, "LimitsExceeded", &ended));
    assert_eq!(read_limited.lines().count(), 4, "{read_limited}");
    let read_error = read_both(&first_ended(FENCED, "RuntimeError", limited));
    assert!(
        read_error.ends_with("error=\"the command exited with code 2\"\n"),
        "{read_error}"
    );
    // The run's own regex (mini-swe-agent 1's XML configuration's), and a trajectory
    // of its first releases: no format, no configuration (the default regex).
    let xml = [
        model("<bash_code>ls</bash_code>"),
        user("<returncode>0</returncode>"),
    ];
    let xml: Vec<&str> = xml.iter().map(String::as_str).collect();
    assert!(
        read_both(&first(r"<bash_code>(.*?)</bash_code>", &xml))
            .contains("call bash({\"command\":\"ls\"})"),
    );
    let oldest = format!(
        r#"{{"info": {{"exit_status": "Submitted", "submission": "x"}}, "messages": [{}, {}]}}"#,
        model("```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; echo x\n```"),
        user("x")
    );
    assert_eq!(
        read_both(&oldest),
        "0 llm \"```bash\\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; echo x\\n```\" call bash({\"command\":\"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; echo x\"}) id=None tokens=10+2\n1 agent \"x\" tool=bash stop\n"
    );
}

#[test]
fn only_mini_swe_agents_info_makes_a_trajectory() {
    // A trajectory without a format (mini-swe-agent's first releases) is known by its
    // info's run statistics; a request with an `info` of its own is a request.
    let request = r#"{"info": {"user": "u1"}, "messages": [{"role": "user", "content": "hi"}]}"#;
    let mut reader = doneseq::transcript::Reader::new(request.as_bytes(), Format::Auto);
    assert_eq!(reader.by_ref().count(), 1);
    assert_eq!(reader.format(), Format::OpenAi);
    let oldest = r#"{"info": {"model_stats": {"api_calls": 0}}, "messages": [{"role": "user", "content": "hi"}]}"#;
    let mut reader = doneseq::transcript::Reader::new(oldest.as_bytes(), Format::Auto);
    assert_eq!(reader.by_ref().count(), 1);
    assert_eq!(reader.format(), Format::MiniSweAgent);
}
