//! Inputs that broke an invariant, found by the property tests or the fuzz targets,
//! replayed through the same checks (`checks.rs`). Each names what it found.

use doneseq::{DoneSequence, Message, Monitor, Role, RunState, StateError, TaskConfig};

use super::checks;

fn monitor(texts: &[&str]) -> Monitor {
    Monitor::new(TaskConfig::from_dsl(texts).unwrap()).unwrap()
}

/// A checkpoint with the state's own fingerprint and other fields forged.
fn forged(monitor: &Monitor, steps: u64, bits: &[u64], prev: &[u64]) -> RunState {
    let mut state = serde_json::to_value(monitor.start()).unwrap();
    state["steps"] = steps.into();
    state["bits"] = bits.into();
    state["prev"] = prev.into();
    serde_json::from_value(state).unwrap()
}

/// Found by `forged_checkpoints_are_refused_or_harmless`: a checkpoint at step 0 whose
/// bits said that two elements of `T, T, E` already held. `resume` took it, and the
/// next message fired the sequence with a match starting before the run
/// (`at + 1 - len` overflowed: a panic in debug builds, a bogus range in release).
#[test]
fn a_checkpoint_ahead_of_its_steps_is_refused() {
    let sequences: Vec<DoneSequence> = ["T{3}", "T, T, E"].map(|t| t.parse().unwrap()).into();
    let error = checks::message(0, None, "", &[], true, false);
    checks::forged_checkpoint(&sequences, 0, &[16], &[0], None, &[error]);

    let m = monitor(&["T, T, E"]);
    let err = m.resume(forged(&m, 0, &[0b10], &[0])).unwrap_err();
    assert!(matches!(err, StateError::Corrupt(_)), "{err}");
    let err = m.resume(forged(&m, 1, &[0b1], &[0b1])).unwrap_err();
    assert!(matches!(err, StateError::Corrupt(_)), "{err}");
    // The same bits after enough steps are a state a run can reach.
    assert!(m.resume(forged(&m, 2, &[0b10], &[0b1])).is_ok());
}

/// Found while reviewing `observe` for forged checkpoints: a step count at its
/// maximum overflowed (a panic in debug builds). It saturates.
#[test]
fn a_step_count_at_its_maximum_saturates() {
    let m = monitor(&["T, A"]);
    let mut run = m.resume(forged(&m, u64::MAX - 1, &[0], &[0])).unwrap();
    for _ in 0..3 {
        m.observe(&mut run, &Message::agent("x"));
    }
    assert_eq!(run.steps(), u64::MAX);
}

/// Found while reviewing the parser's limits for the round trip: `T[[][]...]` fits in
/// `MAX_DSL_LEN`, but its canonical text escapes every bracket (`T[\[\]...]`) and was
/// twice as long, so `parse(seq.to_string())` failed with `TooLong`. A sequence whose
/// canonical text would not parse back is now refused, by every constructor.
#[test]
fn a_canonical_text_past_the_limit_is_refused() {
    use doneseq::dsl::MAX_DSL_LEN;
    use doneseq::object::{ElementObject, EventObject};
    use doneseq::{Element, EventKind, EventType, ParseErrorKind, SequenceObject, ToolName};

    let text = format!("T[{}]", "[]".repeat(20_000));
    assert!(text.len() <= MAX_DSL_LEN);
    let err = DoneSequence::parse(&text).unwrap_err();
    assert_eq!(
        err.kind(),
        &ParseErrorKind::CanonicalTooLong {
            len: 80_003,
            max: MAX_DSL_LEN
        }
    );
    assert_eq!(err.span(), 0..text.len());
    assert_eq!(err.kind().name(), "canonical_too_long");
    // Half as many brackets print within the limit, and round-trip.
    let half = format!("T[{}]", "[]".repeat(10_000));
    assert!(DoneSequence::parse(&half).is_ok());
    checks::dsl(&half);
    // Spacing counts too: `T,A` prints as `T, A`.
    let name = "x".repeat(MAX_DSL_LEN - 5);
    let near = format!("T[{name}],A");
    assert_eq!(near.len(), MAX_DSL_LEN);
    assert!(matches!(
        DoneSequence::parse(&near).unwrap_err().kind(),
        ParseErrorKind::CanonicalTooLong { .. }
    ));
    // Without the second element it fits, and round-trips.
    let alone = format!("T[{name}]");
    assert_eq!(DoneSequence::parse(&alone).unwrap().to_string(), alone);
    checks::dsl(&alone);

    // The Rust constructor and the object form refuse it as well.
    let long = ToolName::new(&"[".repeat(40_000)).unwrap();
    let element = Element::new(EventKind::SpecificTool(long).into());
    let err = DoneSequence::new(vec![element]).unwrap_err();
    assert!(matches!(
        err.kind(),
        ParseErrorKind::CanonicalTooLong { .. }
    ));
    let object = SequenceObject {
        name: Some("\"".repeat(40_000)),
        events: vec![ElementObject::Event(EventObject::new(EventType::Any))],
    };
    let err = DoneSequence::try_from(object).unwrap_err();
    assert!(err.to_string().starts_with("name: "), "{err}");
}

/// Found while reviewing the object form's limits: every `content_match` was compiled
/// before the element and regex counts were checked, and `MAX_PATTERNS` was not
/// checked at all (a sequence of 256 distinct regexes, or one conjunction of a
/// hundred thousand, went through). The counts now come first; a run of equal
/// elements (the object form's `X{n}`) compiles once. Each input below would compile
/// a regex 100,000 times (minutes) if the counts came after the work.
#[test]
fn object_form_counts_come_before_any_regex_is_compiled() {
    use doneseq::dsl::{MAX_ELEMENTS, MAX_LITERALS, MAX_PATTERNS};
    use doneseq::object::{ElementObject, EventObject};
    use doneseq::{Element, EventType, ObjectError, ParseErrorKind, SequenceObject};

    let pattern = |n: usize| {
        ElementObject::Event(EventObject {
            content_pattern: Some(format!(r"\w{{20}}{n}")),
            ..EventObject::new(EventType::ContentMatch)
        })
    };
    let invalid = |object: SequenceObject| match DoneSequence::try_from(object) {
        Err(ObjectError::Invalid { path, error }) => (path, error.kind().clone()),
        other => panic!("expected a count error, got {other:?}"),
    };
    let many = SequenceObject {
        name: None,
        events: (0..100_000).map(pattern).collect(),
    };
    assert_eq!(
        invalid(many),
        (
            "events".into(),
            ParseErrorKind::TooManyElements { max: MAX_ELEMENTS }
        )
    );
    let members = (0..100_000)
        .map(|n| match pattern(n) {
            ElementObject::Event(e) => e,
            ElementObject::All(_) => unreachable!(),
        })
        .collect();
    let wide = SequenceObject {
        name: None,
        events: vec![ElementObject::All(members)],
    };
    assert_eq!(
        invalid(wide),
        (
            "events[0]".into(),
            ParseErrorKind::TooManyLiterals { max: MAX_LITERALS }
        )
    );
    let distinct = SequenceObject {
        name: None,
        events: (0..MAX_PATTERNS + 1).map(pattern).collect(),
    };
    assert_eq!(
        invalid(distinct),
        (
            "events".into(),
            ParseErrorKind::TooManyPatterns { max: MAX_PATTERNS }
        )
    );
    // A run of one regex is `C[...]{256}`: one regex, as in the DSL.
    let run = SequenceObject {
        name: None,
        events: vec![pattern(0); MAX_ELEMENTS],
    };
    let seq = DoneSequence::try_from(run).unwrap();
    assert_eq!(seq, DoneSequence::parse(r"C[\w{20}0]{256}").unwrap());
    // The Rust constructor counts regexes the same way.
    let elements: Vec<Element> = (0..MAX_PATTERNS + 1)
        .map(|n| Element::new(format!("C[x{n}]").parse().unwrap()))
        .collect();
    let err = DoneSequence::new(elements).unwrap_err();
    assert_eq!(
        err.kind(),
        &ParseErrorKind::TooManyPatterns { max: MAX_PATTERNS }
    );
}

/// Found by the `stop_expr` check (the fuzz target's and the properties'): a tree of 64
/// nested `all`, valid then (`MAX_CONDITION_DEPTH` was 64), serialized to JSON that
/// serde_json refuses to read back (a combinator is an object and an array: two of its
/// 128 levels each). The limit is now 32 levels, and the deepest valid tree reads back
/// from every form (`tests/stop/expr.rs` also puts the deepest JSON value at its
/// bottom); the tree that was found is a `too_deep` error at its 33rd level.
#[test]
fn a_tree_too_deep_for_its_own_json_is_refused() {
    use doneseq::stop::{Condition, MAX_CONDITION_DEPTH};
    let tree = |depth: usize| format!("{}final{}", "all(".repeat(depth), ")".repeat(depth));
    let found = tree(64);
    checks::stop_expr(&found);
    let err = Condition::parse(&found).unwrap_err();
    assert_eq!(err.kind().name(), "too_deep");
    assert_eq!(err.span().start, 4 * MAX_CONDITION_DEPTH);
    let deepest = tree(MAX_CONDITION_DEPTH);
    checks::stop_expr(&deepest);
    let condition = Condition::parse(&deepest).unwrap();
    let json = serde_json::to_string(&condition).unwrap();
    assert_eq!(serde_json::from_str::<Condition>(&json).unwrap(), condition);
}

/// Found by a review for panics: `validate` walks a tree iteratively, but the error it
/// returns held the tree's whole canonical text, printed recursively, and so did
/// `Display`: a tree of 20,000 `Not` built in Rust (or a `custom` config nested 10,000
/// deep, which serde_json prints recursively) overflowed the stack in `validate`, and
/// so in `Monitor::new`. The printer now cuts what lies past the limits (`...`).
/// The trees are checked on a thread with a small stack, and dropped on one with a
/// large stack (dropping a deep tree recurses too).
#[test]
fn an_invalid_deep_tree_is_refused_without_deep_recursion() {
    use doneseq::stop::{Condition, MAX_CONDITION_DEPTH};
    let mut deep = Condition::Final;
    for _ in 0..20_000 {
        deep = Condition::Not(Box::new(deep));
    }
    let mut value = serde_json::json!(1);
    for _ in 0..10_000 {
        value = serde_json::Value::Array(vec![value]);
    }
    let custom = Condition::Any(vec![Condition::Final, Condition::custom("x", value)]);
    let check = move || {
        let err = deep.validate().unwrap_err();
        assert_eq!(err.kind().name(), "too_deep");
        // The text stops a little past the fault; the span is the condition at fault.
        assert!(err.input().len() < 200, "{}", err.input());
        assert!(err.input().ends_with("..."), "{}", err.input());
        assert_eq!(err.span().start, MAX_CONDITION_DEPTH);
        assert!(deep.to_string().len() < 200);

        let err = custom.validate().unwrap_err();
        assert_eq!(err.kind().name(), "value_too_deep");
        assert_eq!(err.input(), "final | custom(x, config=...)");
        assert_eq!(&err.input()[err.span()], "custom(x, config=...)");
        (deep, custom)
    };
    let trees = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(check)
        .unwrap()
        .join()
        .unwrap();
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            // `Monitor::new` validates (and drops the tree it refuses, here).
            let mut config = TaskConfig::default();
            config.stop = Some(trees.0);
            assert!(Monitor::new(config).is_err());
            drop(trees.1);
        })
        .unwrap()
        .join()
        .unwrap();
}

/// Found by a review for panics: `resume` checks a checkpoint's shape, not its counts,
/// and the stop conditions added to them with `+`, which panics on overflow in debug
/// builds (and wraps in release): a forged step count, error streak or negative-reward
/// streak at `u64::MAX`, a loop's run at `u32::MAX` (the explanation computed
/// `1 + run / p`), a node that last fired at step `u64::MAX` (`at + 1`). They
/// saturate now. And a cumulative reward could become infinite (two rewards of
/// 1e308), which JSON writes as `null`: the checkpoint did not read back.
#[test]
fn forged_counts_and_huge_rewards_neither_panic_nor_break_the_checkpoint() {
    use doneseq::stop::Condition;
    use serde_json::{Value, json};
    let mut config = TaskConfig::default();
    config.stop = Some(
        Condition::parse(
            r#"seq("A") & max_turns(2) | loop(period=2, repeats=3) | reward(5, negative_streak=3) | consecutive_errors(3)"#,
        )
        .unwrap(),
    );
    let monitor = Monitor::new(config).unwrap();
    let llm = Message::new(Role::Llm, "hi");
    let messages = [
        llm.clone(),
        llm.clone(),
        Message::new(Role::Agent, "A").with_error("boom"),
        Message::new(Role::Agent, "A").with_reward(-1.0),
        llm.clone(),
        llm,
    ];
    type Forge = (&'static str, fn(&mut Value));
    let forges: [Forge; 5] = [
        ("steps", |s| {
            s["conditions"]["stats"]["steps"] = json!(u64::MAX);
        }),
        ("errors", |s| {
            s["conditions"]["stats"]["consecutive_errors"] = json!(u64::MAX);
        }),
        ("negative rewards", |s| {
            s["conditions"]["stats"]["negative_rewards"] = json!(u64::MAX);
        }),
        ("loop run", |s| {
            s["conditions"]["loops"][0]["runs"] = json!([u32::MAX, 0]);
        }),
        ("seq fired at the last step", |s| {
            s["conditions"]["nodes"][2] = json!({"first": 0, "last": u64::MAX, "kind": "done"});
        }),
    ];
    for (what, forge) in forges {
        let mut run = monitor.start();
        monitor.observe(&mut run, &messages[0]);
        let mut state = serde_json::to_value(&run).unwrap();
        forge(&mut state);
        let state: RunState = serde_json::from_value(state).unwrap();
        let Ok(mut run) = monitor.resume(state) else {
            continue; // refused: harmless too
        };
        for m in &messages {
            let verdict = monitor.observe(&mut run, m);
            if let Some(outcome) = verdict.outcome() {
                assert!(!outcome.conditions.is_empty(), "{what}");
            }
        }
        let report = monitor.explain_stop(&run).unwrap();
        assert!(!report.to_string().is_empty(), "{what}");
    }

    let mut run = monitor.start();
    for _ in 0..2 {
        let big = Message::new(Role::Agent, "x").with_reward(1e308);
        monitor.observe(&mut run, &big);
    }
    let json = serde_json::to_string(&run).unwrap();
    let back: RunState = serde_json::from_str(&json).unwrap();
    assert_eq!(monitor.resume(back).unwrap(), run);
}

/// Found by a review of the pending-id search of `tool(x, executed)` (sorted ids, an
/// answered one marked by its low bit): a checkpoint whose ids are out of order or
/// whose count of open ids is wrong would miss results or wait forever. `resume`
/// refuses it; an honest one resumes and answers as the uninterrupted run.
#[test]
fn a_forged_pending_tool_state_is_refused() {
    use doneseq::stop::Condition;
    use serde_json::json;
    let mut config = TaskConfig::default();
    config.stop = Some(Condition::parse("tool(x, executed)").unwrap());
    let monitor = Monitor::new(config).unwrap();
    let mut request = Message::new(Role::Llm, "");
    for id in ["a", "b", "c"] {
        request = request.with_tool_call(doneseq::ToolCall::new("x", "").with_id(id));
    }
    let answer = |id: &str| Message::new(Role::Agent, "ok").with_tool_call_id(id.to_owned());
    let mut run = monitor.start();
    monitor.observe(&mut run, &request);
    monitor.observe(&mut run, &answer("b"));
    let state = serde_json::to_value(&run).unwrap();
    let tool = &state["conditions"]["tools"][0];
    assert_eq!(tool["open"], json!(2));
    let forged: [fn(&mut serde_json::Value); 3] = [
        |t| {
            let mut ids = t["ids"].as_array().unwrap().clone();
            ids.reverse();
            t["ids"] = ids.into();
        },
        |t| t["open"] = json!(3),
        |t| t["pending"] = json!(false),
    ];
    for forge in forged {
        let mut state = state.clone();
        forge(&mut state["conditions"]["tools"][0]);
        let state: RunState = serde_json::from_value(state).unwrap();
        assert!(
            matches!(monitor.resume(state), Err(StateError::Corrupt(_))),
            "{tool}"
        );
    }
    let state: RunState = serde_json::from_value(state).unwrap();
    let mut resumed = monitor.resume(state).unwrap();
    for id in ["b", "a", "c", "a"] {
        let expected = monitor.observe(&mut run, &answer(id)).outcome().is_some();
        let got = monitor
            .observe(&mut resumed, &answer(id))
            .outcome()
            .is_some();
        assert_eq!(got, expected, "{id}");
    }
    assert_eq!(resumed, run);
}
