//! The task monitor: Langroid's classification and task options (as Langroid 0.69's `Task` has them),
//! and a test for each fix of (d).

use doneseq::{
    AnswerSource, BaseKind, Message, Monitor, Role, StopReason, TaskConfig, ToolCall, Verdict,
    VerdictKind,
};

fn tool(name: &str) -> ToolCall<'static> {
    ToolCall::new(name.to_owned(), "{}")
}

fn llm_tool(names: &[&str]) -> Message<'static> {
    names
        .iter()
        .fold(Message::llm(""), |m, n| m.with_tool_call(tool(n)))
}

fn monitor(dsl: &[&str]) -> Monitor {
    Monitor::new(TaskConfig::from_dsl(dsl).unwrap()).unwrap()
}

/// The step at which the run first stops, and why.
fn first_stop(monitor: &Monitor, messages: &[Message]) -> Option<(u64, StopReason)> {
    let mut run = monitor.start();
    messages
        .iter()
        .find_map(|m| match monitor.observe(&mut run, m) {
            Verdict::Stop(o) => Some((o.at, o.reason)),
            Verdict::Continue => None,
        })
}

#[test]
fn base_kinds_follow_langroid() {
    let m = monitor(&["T"]);
    let cases = [
        (llm_tool(&["calc"]), BaseKind::Tool),
        (Message::llm("hi"), BaseKind::Llm),
        (Message::agent("42"), BaseKind::Agent),
        (
            Message::agent("").with_tool_call(tool("x")),
            BaseKind::Agent,
        ),
        (Message::user("go"), BaseKind::User),
        (Message::no_response(Role::Llm), BaseKind::NoResponse),
        (Message::llm("  "), BaseKind::NoResponse),
        (Message::user("PASS"), BaseKind::NoResponse),
        (Message::llm("").with_error("timeout"), BaseKind::Llm),
    ];
    for (message, base) in cases {
        assert_eq!(m.classify(&message).base, base, "{message:?}");
    }
}

#[test]
fn agent_message_with_tool_calls_is_an_agent_response() {
    // Only the LLM's tool calls make a `T`; an agent message that carries calls (and
    // content) is `A`, as in Langroid.
    let m = monitor(&["A"]);
    let message = Message::agent("result").with_tool_call(tool("x"));
    assert_eq!(m.classify(&message).base, BaseKind::Agent);
    assert_eq!(
        first_stop(&m, &[message]),
        Some((0, StopReason::Sequence(0)))
    );
}

#[test]
fn specific_tool_holds_for_any_of_parallel_calls() {
    // Langroid needs exactly one tool; two calls of `calculator`
    // do not satisfy `T[calculator]` there. They do here.
    let m = monitor(&["T[calculator]"]);
    assert!(first_stop(&m, &[llm_tool(&["calculator", "calculator"])]).is_some());
    assert!(first_stop(&m, &[llm_tool(&["search", "calculator"])]).is_some());
    assert!(first_stop(&m, &[llm_tool(&["search"])]).is_none());
    // Case-sensitive, exact.
    assert!(first_stop(&m, &[llm_tool(&["Calculator"])]).is_none());
}

#[test]
fn content_is_a_case_insensitive_search_on_any_entity() {
    let m = monitor(&["C[quit|bye]"]);
    for role in [Role::User, Role::Llm, Role::Agent] {
        // After a first step, so that a user message is the user's step, not the
        // task's input.
        let run = [Message::llm("hello"), Message::new(role, "OK, BYE now")];
        assert_eq!(
            first_stop(&m, &run),
            Some((1, StopReason::Sequence(0))),
            "{role}"
        );
    }
    assert!(first_stop(&m, &[Message::llm("hi"), Message::user("see you")]).is_none());
    // The task's input matches nothing.
    assert!(first_stop(&m, &[Message::user("OK, bye now")]).is_none());
}

#[test]
fn matching_is_strict_consecutive_and_decided_at_the_last_message() {
    let m = monitor(&["T, A"]);
    // (input) USER -> LLM(tool) -> AGENT matches at the agent's message, step 1: the
    // question is the task's input, not a step.
    let hit = [Message::user("q"), llm_tool(&["x"]), Message::agent("r")];
    assert_eq!(first_stop(&m, &hit), Some((1, StopReason::Sequence(0))));
    // Does NOT match: LLM(tool) -> USER -> AGENT.
    let gap = [llm_tool(&["x"]), Message::user("wait"), Message::agent("r")];
    assert_eq!(first_stop(&m, &gap), None);
}

#[test]
fn the_first_matching_sequence_in_list_order_wins_and_all_are_reported() {
    let m = monitor(&["L, A", "A", "T"]);
    let mut run = m.start();
    m.observe(&mut run, &Message::llm("x"));
    let outcome = m
        .observe(&mut run, &Message::agent("y"))
        .outcome()
        .cloned()
        .unwrap();
    assert_eq!(outcome.reason, StopReason::Sequence(0));
    let fired: Vec<usize> = outcome.fired.iter().map(|f| f.sequence).collect();
    assert_eq!(fired, [0, 1]);
    assert_eq!(outcome.fired[0].matched, 0..=1);
    assert_eq!(outcome.fired[1].matched, 1..=1);
}

#[test]
fn done_if_tool_comes_before_the_sequences() {
    let mut config = TaskConfig::from_dsl(["T[search]"]).unwrap();
    config.done_if_tool = true;
    let m = Monitor::new(config).unwrap();
    let mut run = m.start();
    let outcome = m
        .observe(&mut run, &llm_tool(&["search"]))
        .outcome()
        .cloned()
        .unwrap();
    assert_eq!(outcome.reason, StopReason::DoneIfTool);
    assert_eq!(outcome.fired.len(), 1, "the sequence is still reported");
}

#[test]
fn sequences_come_before_the_done_string_which_is_a_word() {
    let m = monitor(&["L"]);
    let mut run = m.start();
    let o = m
        .observe(&mut run, &Message::llm("DONE"))
        .outcome()
        .cloned()
        .unwrap();
    assert_eq!(o.reason, StopReason::Sequence(0));

    let m = monitor(&["A, A"]);
    assert_eq!(
        first_stop(&m, &[Message::llm("DONE: 42")]),
        Some((0, StopReason::StringSignal))
    );
    let mut run = m.start();
    let o = m
        .observe(&mut run, &Message::llm("DONE: 42"))
        .outcome()
        .cloned()
        .unwrap();
    assert_eq!(
        o.answer.as_ref().map(|a| (a.text.as_str(), a.source)),
        Some(("42", AnswerSource::DoneSignal))
    );
    // Langroid's `"DONE" in content` would stop here; the word rule does not.
    assert_eq!(first_stop(&m, &[Message::llm("ABANDONED")]), None);

    let mut config = TaskConfig::from_dsl(["A, A"]).unwrap();
    config.recognize_string_signals = false;
    let m = Monitor::new(config).unwrap();
    assert_eq!(first_stop(&m, &[Message::llm("DONE")]), None);
}

#[test]
fn done_if_response_and_no_response() {
    let mut config = TaskConfig::default();
    config.done_if_response = vec![Role::Llm];
    config.done_if_no_response = vec![Role::User];
    let m = Monitor::new(config).unwrap();
    assert_eq!(
        first_stop(&m, &[Message::agent("x"), Message::llm("answer")]),
        Some((1, StopReason::DoneIfResponse(Role::Llm)))
    );
    assert_eq!(
        first_stop(&m, &[Message::llm("")]),
        None,
        "an empty LLM message is no response"
    );
    assert_eq!(
        first_stop(&m, &[Message::user("hi"), Message::no_response(Role::User)]),
        Some((0, StopReason::DoneIfNoResponse(Role::User))),
        "the input is not a step; the user's silence after it is step 0"
    );
    assert_eq!(
        first_stop(
            &m,
            &[Message::agent("hi"), Message::no_response(Role::User)]
        ),
        Some((1, StopReason::DoneIfNoResponse(Role::User)))
    );
}

#[test]
fn single_round_ends_at_the_first_step_and_system_messages_are_not_steps() {
    let mut config = TaskConfig::default();
    config.single_round = true;
    let m = Monitor::new(config).unwrap();
    assert_eq!(
        first_stop(&m, &[Message::system("setup"), Message::llm("hi")]),
        Some((0, StopReason::SingleRound))
    );
}

#[test]
fn max_turns_is_checked_after_the_sequences() {
    let mut config = TaskConfig::from_dsl(["L, L, L"]).unwrap();
    config.max_turns = Some(3);
    let m = Monitor::new(config).unwrap();
    let mut run = m.start();
    let llm = Message::llm("x");
    assert!(!m.observe(&mut run, &llm).is_stop());
    assert!(!m.observe(&mut run, &llm).is_stop());
    let o = m.observe(&mut run, &llm).outcome().cloned().unwrap();
    assert_eq!(
        (o.kind, o.reason),
        (VerdictKind::Done, StopReason::Sequence(0))
    );

    let mut run = m.start();
    let msgs = [Message::llm("x"), Message::user("y"), Message::llm("z")];
    let verdicts: Vec<Verdict> = msgs.iter().map(|msg| m.observe(&mut run, msg)).collect();
    let o = verdicts[2].outcome().unwrap();
    assert_eq!(
        (o.kind, &o.reason),
        (VerdictKind::Exhausted, &StopReason::MaxTurns(3))
    );
    assert_eq!(run.stopped_at(), Some(2));
}

// ---- where Langroid's matching goes wrong: each fix ----------------------------------------------------

#[test]
fn d1_each_run_starts_clean() {
    // Langroid: run 1 stops by turn limit after T, A; run 2 then ends after ONE LLM
    // reply, matching on run 1's leftovers.
    let m = monitor(&["T, A, L"]);
    let mut run1 = m.start();
    m.observe(&mut run1, &llm_tool(&["x"]));
    m.observe(&mut run1, &Message::agent("r"));
    let mut run2 = m.start();
    assert!(!m.observe(&mut run2, &Message::llm("hi")).is_stop());
    // ...whereas continuing run 1 would have matched: the state is per run.
    assert!(m.observe(&mut run1, &Message::llm("hi")).is_stop());
}

#[test]
fn d3_n_matches_a_step_without_response() {
    let m = monitor(&["N"]);
    assert!(first_stop(&m, &[Message::llm("x")]).is_none());
    assert!(first_stop(&m, &[Message::no_response(Role::Llm)]).is_some());
    assert!(first_stop(&m, &[Message::no_response(Role::User)]).is_some());
}

#[test]
fn d4_placeholders_are_classified_by_their_own_role() {
    // Langroid: "L, L" fires after one LLM reply and a user DO-NOT-KNOW placeholder.
    let m = monitor(&["L, L"]);
    let placeholder = Message::no_response(Role::User);
    assert!(first_stop(&m, &[Message::llm("a"), placeholder.clone()]).is_none());
    // "U" on the placeholder: it is N, not U (no response from the user).
    let m = monitor(&["U"]);
    assert!(first_stop(&m, &[placeholder]).is_none());
}

#[test]
fn d5_the_complex_pattern_matches_when_its_messages_arrive() {
    let m = monitor(&["L, T, A, L"]);
    let msgs = [
        Message::llm("plan"),
        llm_tool(&["t"]),
        Message::agent("r"),
        Message::llm("done"),
    ];
    assert_eq!(first_stop(&m, &msgs), Some((3, StopReason::Sequence(0))));
}

#[test]
fn d8_d10_responder_is_honoured() {
    // Langroid ignores `responder` (its own docs use responder="DatabaseAgent").
    let m = monitor(&["A@DatabaseAgent"]);
    assert!(first_stop(&m, &[Message::agent("rows")]).is_none());
    assert!(first_stop(&m, &[Message::agent("rows").with_responder("Other")]).is_none());
    assert!(
        first_stop(
            &m,
            &[Message::agent("rows").with_responder("DatabaseAgent")]
        )
        .is_some()
    );
    // A sub-task's LLM output is visible as such when the log names it.
    let m = monitor(&["T@SubTask"]);
    assert!(first_stop(&m, &[llm_tool(&["x"]).with_responder("SubTask")]).is_some());
}

#[test]
fn d11_state_does_not_grow_with_the_run() {
    let m = monitor(&["T, A", "C[stop]", "L{3}"]);
    let mut run = m.start();
    let before = (std::mem::size_of_val(&run), run.heap_bytes());
    for i in 0..10_000 {
        let msg = if i % 2 == 0 {
            llm_tool(&["x"])
        } else {
            Message::user("go on")
        };
        m.observe(&mut run, &msg);
    }
    assert_eq!((std::mem::size_of_val(&run), run.heap_bytes()), before);
    assert_eq!(run.steps(), 10_000);
}

#[cfg(feature = "json")]
#[test]
fn d9_unknown_config_fields_are_errors() {
    let err = serde_json::from_str::<TaskConfig>(r#"{"single_rounds": true}"#).unwrap_err();
    assert!(
        err.to_string().contains("unknown field `single_rounds`"),
        "{err}"
    );
    let config: TaskConfig = serde_json::from_str(r#"{"max_turns": -1}"#).unwrap();
    assert_eq!(config.max_turns, None, "Langroid's -1 is no limit");
}

#[test]
fn d13_an_empty_sequence_is_an_error() {
    assert!(TaskConfig::from_dsl([""]).is_err());
}

#[test]
fn error_messages_are_never_answers() {
    let m = monitor(&["A"]);
    let mut run = m.start();
    let o = m
        .observe(&mut run, &Message::agent("Traceback...").with_error("boom"))
        .outcome()
        .cloned()
        .unwrap();
    assert_eq!(o.answer, None);
}

#[test]
fn explain_says_how_close_and_what_failed() {
    let m = monitor(&["T[calc], A, L", "U"]);
    let mut run = m.start();
    m.observe(&mut run, &llm_tool(&["calc"]));
    m.observe(&mut run, &Message::agent("42"));
    m.observe(&mut run, &Message::user("hmm"));
    let e = m.explain(&run);
    // The attempt T[calc], A reached element 2 (L) and the user's message broke it.
    assert_eq!((e[0].satisfied, e[0].len, e[0].fired), (0, 3, false));
    assert_eq!(e[0].failure.map(|f| (f.element, f.at)), Some((2, 2)));
    assert_eq!((e[1].satisfied, e[1].fired, e[1].failure), (1, true, None));
}

#[test]
fn a_checkpoint_from_another_monitor_is_refused() {
    let a = monitor(&["T, A"]);
    let b = monitor(&["T, L"]);
    assert!(matches!(
        b.resume(a.start()),
        Err(doneseq::StateError::Foreign)
    ));
    assert!(a.resume(a.start()).is_ok());
}

#[test]
fn final_answers_are_extracted_and_ambiguity_is_not_f() {
    let m = monitor(&["F"]);
    let answer = |text: &str| {
        let mut run = m.start();
        m.observe(&mut run, &Message::llm(text))
            .outcome()
            .and_then(|o| o.answer.clone())
            .map(|a| (a.text, a.source))
    };
    assert_eq!(
        answer("Done. FINAL(\"Paris\")"),
        Some(("Paris".to_owned(), AnswerSource::Final))
    );
    assert_eq!(
        answer("SUBMIT(answer='Paris', confidence=0.9)"),
        Some(("Paris".to_owned(), AnswerSource::Final))
    );
    assert_eq!(
        answer("FINAL_VAR(report)"),
        Some(("report".to_owned(), AnswerSource::FinalVariable))
    );
    // Two different answers: no `F`, and "NOT_FINAL(3)" or prose about a final draft
    // is no signal at all (rlm-code's regexes fire on it).
    for text in [
        r#"FINAL("a") and FINAL("b")"#,
        "NOT_FINAL(3)",
        "the final (third) draft",
    ] {
        assert_eq!(answer(text), None, "{text}");
        assert!(!m.classify(&Message::llm(text)).final_answer, "{text}");
    }
    assert_eq!(m.classify(&Message::llm("FINAL(42)")).labels(), ["L", "F"]);
}

/// `step_facts` reads the step's `FINAL` fact back where the monitor computed it
/// (for a sequence's `F` or a condition that reads it), and computes it otherwise;
/// in each case it equals `classify`, patterns and tools included.
#[test]
fn step_facts_equal_classify_whoever_computes_final() {
    let messages = [
        Message::llm("FINAL(42)"),
        Message::llm("no answer here, only DONE"),
        llm_tool(&["search", "add", "search"]),
        Message::agent("the sum is FINAL(7)").with_responder("calc"),
        Message::agent("failed").with_error("boom"),
    ];
    let mut with_stop = TaskConfig::from_dsl(["C[sum], A"]).unwrap();
    with_stop.stop = Some("final() | max_turns(50)".parse().unwrap());
    let configs = [
        TaskConfig::from_dsl(["F", "T[add], A"]).unwrap(),
        TaskConfig::from_dsl(["C[sum|answer]", "T[search]"]).unwrap(),
        with_stop,
    ];
    for config in configs {
        let monitor = Monitor::new(config).unwrap();
        let mut run = monitor.start();
        for message in &messages {
            assert!(monitor.is_step(&run, message));
            monitor.observe(&mut run, message);
            let facts = monitor.step_facts(&run, message);
            assert_eq!(facts.classification(), monitor.classify(message));
            assert_eq!(facts.labels(), monitor.classify(message).labels());
        }
    }
}

/// A checkpoint resumes in a later version: a configuration's fingerprint, which a
/// checkpoint carries and `resume` checks, is the same from one version to the next.
/// (The values are those the fingerprint gave before it hashed each text as it is
/// printed, where it printed each into a string first.)
#[cfg(feature = "serde")]
#[test]
fn a_configuration_keeps_its_fingerprint_from_one_version_to_the_next() {
    use doneseq::stop::TaskInput;

    let mut with_options = TaskConfig::from_dsl(["T[Calc], A", "L, C[quit|bye]"]).unwrap();
    with_options.stop = Some("final | max_turns(10)".parse().unwrap());
    with_options.done_if_tool = true;
    with_options.done_if_response = vec![Role::Llm];
    with_options.llm_delegate = true;
    with_options.input = TaskInput::Marked;
    with_options
        .tool_classes
        .insert("Calc".to_owned(), "calculator".to_owned());
    let cases = [
        (
            TaskConfig::from_dsl(["T[calculator], A"]).unwrap(),
            8_132_636_990_432_064_725_u64,
        ),
        (with_options, 11_091_421_464_406_604_472),
    ];
    let mut wrong = Vec::new();
    for (i, (config, expected)) in cases.into_iter().enumerate() {
        let monitor = Monitor::new(config).unwrap();
        let checkpoint = serde_json::to_value(monitor.start()).unwrap();
        let fingerprint = checkpoint["fingerprint"].as_u64().unwrap();
        if fingerprint != expected {
            wrong.push(format!("case {i}: {fingerprint}, expected {expected}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
