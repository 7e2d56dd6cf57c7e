//! Inputs that broke an invariant, found by the property tests or the fuzz targets,
//! replayed through the same checks (`checks.rs`). Each names what it found.

use doneseq::{DoneSequence, Message, Monitor, RunState, StateError, TaskConfig};

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
