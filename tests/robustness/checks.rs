//! The invariants that both the fuzz targets (`fuzz/fuzz_targets/`, which include this
//! file) and the property tests check, so that an input a fuzzer finds is replayed by
//! the same code in the normal test run. Each check takes input from outside, runs
//! every entry point that reads it, and panics (an assertion) when an invariant
//! breaks; bad input must give an error, never a panic.

use std::sync::OnceLock;

use doneseq::answer::{
    AnswerValue, Decision, FinalDetector, FinalOptions, FinalPatternConfig, FinalPatternPolicy,
    LiteralError, detect_final_in_code, extract_code_blocks, format_final_answer,
};
use doneseq::naive::NaiveMatcher;
use doneseq::stop::{Condition, LintOptions};
use doneseq::transcript::{Format, Reader};
use doneseq::{
    AgentEvent, DoneSequence, DoneSequences, Message, Monitor, Role, RunState, SequenceObject,
    TaskConfig, ToolCall, Usage, Verdict,
};

/// Elements that together use every kind of literal the automaton compiles
/// differently: base kinds, tool names, regexes, `F`, `E`, `_`, responders,
/// negations and conjunctions (compounds).
pub(crate) const ELEMENTS: &[&str] = &[
    "T",
    "T[a]",
    "T[b]",
    "L",
    "A",
    "U",
    "N",
    "C[x]",
    "C[y|z]",
    "C[^f]",
    "F",
    "E",
    "_",
    "A@r1",
    "L@r2",
    "!T[a]",
    "T & !T[a]",
    "C[x] & C[y|z]",
    "!A@r1",
    "_@r1",
    "!E",
    "L & C[x]",
    "T[a] & T[b]",
    "!C[x]@r2",
    "F & !E",
    "!L",
    "T[a]@r1",
    "!U & !N",
    "E & C[x]",
    "!T[b]@r2",
    "!F",
    "N@r1",
    "_{2}",
];

/// Contents that the elements above tell apart.
pub(crate) const CONTENTS: &[&str] = &[
    "",
    "x",
    "Y",
    "xz",
    "FINAL(1)",
    "PASS",
    "hello",
    "z FINAL(x)",
    "f",
    "FINAL(1) FINAL(2)",
    "DONE",
];

/// Tool names and responders the elements above mention (and one they do not).
pub(crate) const TOOLS: &[&str] = &["a", "b", "c"];
pub(crate) const RESPONDERS: &[Option<&str>] = &[None, Some("r1"), Some("r2"), Some("r3")];

/// A message from small indices and free text, the way the fuzz targets and the
/// property tests build them.
pub(crate) fn message(
    role: u8,
    responder: Option<&str>,
    content: &str,
    tools: &[&str],
    error: bool,
    none: bool,
) -> Message<'static> {
    let role = [Role::User, Role::Llm, Role::Llm, Role::Agent, Role::System][role as usize % 5];
    let mut m = if none {
        Message::no_response(role)
    } else {
        Message::new(role, content.to_owned())
    };
    if let Some(r) = responder {
        m = m.with_responder(r.to_owned());
    }
    for t in tools {
        m = m.with_tool_call(ToolCall::new(t.to_string(), "{}"));
    }
    if error {
        m = m.with_error("boom");
    }
    m
}

/// A span is usable on the text it points into.
#[track_caller]
fn span_sound(text: &str, span: &std::ops::Range<usize>) {
    assert!(
        span.start <= span.end && span.end <= text.len(),
        "span {span:?} outside {} bytes",
        text.len()
    );
    assert!(
        text.is_char_boundary(span.start) && text.is_char_boundary(span.end),
        "span {span:?} splits a char"
    );
}

/// A parsed sequence survives every form it travels in: its canonical text (a fixed
/// point), its object form, and JSON as text and as an object.
#[track_caller]
pub(crate) fn sequence_round_trips(seq: &DoneSequence) {
    let canonical = seq.to_string();
    let again = DoneSequence::parse(&canonical)
        .unwrap_or_else(|e| panic!("the canonical text does not parse: {e:#}"));
    assert_eq!(&again, seq, "canonical text: {canonical:?}");
    assert_eq!(again.to_string(), canonical);
    let object = SequenceObject::from(seq);
    assert_eq!(DoneSequence::try_from(object.clone()).as_ref(), Ok(seq));
    let json = serde_json::to_string(seq).expect("serializes");
    assert_eq!(&serde_json::from_str::<DoneSequence>(&json).unwrap(), seq);
    let json = serde_json::to_string(&object).expect("serializes");
    assert_eq!(&serde_json::from_str::<DoneSequence>(&json).unwrap(), seq);
}

/// DSL text, as a sequence and as a single event: a value that round-trips, or an
/// error whose span is inside the input and whose renderings work.
pub(crate) fn dsl(text: &str) {
    match DoneSequence::parse(text) {
        Ok(seq) => {
            // The parser checks the canonical length only for inputs over a quarter of
            // the limit: the canonical text must never be longer than 4x the input.
            assert!(seq.to_string().len() <= 4 * text.len().max(1));
            sequence_round_trips(&seq);
        }
        Err(err) => {
            span_sound(text, &err.span());
            assert_eq!(err.input(), text);
            assert!(!err.to_string().is_empty());
            assert!(format!("{err:#}").contains('^'));
            assert!(!err.kind().name().is_empty());
        }
    }
    match text.parse::<AgentEvent>() {
        Ok(event) => {
            let canonical = event.to_string();
            assert_eq!(canonical.parse::<AgentEvent>().as_ref(), Ok(&event));
        }
        Err(err) => span_sound(text, &err.span()),
    }
}

/// A monitor with one sequence per element of [`ELEMENTS`] (and a few longer ones),
/// built once: what the transcript and config checks run messages through.
fn fixture() -> &'static Monitor {
    static MONITOR: OnceLock<Monitor> = OnceLock::new();
    MONITOR.get_or_init(|| {
        let mut texts: Vec<String> = ELEMENTS.iter().map(|e| (*e).to_owned()).collect();
        texts.extend([
            "T[calculator], A".to_owned(),
            "L, U, L & C[(?i)done]".to_owned(),
            "T{3}, A@r1".to_owned(),
        ]);
        let mut config = TaskConfig::from_dsl(&texts).expect("the fixture parses");
        config.max_turns = Some(1000);
        config.done_if_no_response = vec![Role::User];
        Monitor::new(config).expect("the fixture compiles")
    })
}

/// Observes `messages` through `monitor` with everything a caller might look at:
/// verdicts (whose fired ranges must be inside the run), classification and
/// explanations.
fn observe_all(monitor: &Monitor, run: &mut RunState, messages: &[Message]) {
    for m in messages {
        let verdict = monitor.observe(run, m);
        if let Some(outcome) = verdict.outcome() {
            // (A forged checkpoint may start at the most steps a count holds.)
            assert!(outcome.at < run.steps() || run.steps() == u64::MAX);
            for f in &outcome.fired {
                let len = monitor.sequences()[f.sequence].len() as u64;
                assert_eq!(*f.matched.end(), outcome.at);
                assert_eq!(f.matched.end() - f.matched.start() + 1, len);
            }
        }
        let _ = monitor.classify(m).labels();
    }
    for p in monitor.explain(run) {
        assert!(p.satisfied <= p.len);
        assert_eq!(p.fired, p.satisfied == p.len);
        if let Some(f) = p.failure {
            assert!(f.element < p.len);
        }
    }
}

/// Transcript bytes, in every format: messages or an error naming a line of the
/// input, after which the reader stops; in JSONL, nothing is silently dropped (a
/// transcript that reads has at least one message per non-blank line: more where an
/// Anthropic message carries tool results); and every message goes through a monitor.
pub(crate) fn transcript(bytes: &[u8]) {
    let monitor = fixture();
    let lines = bytes.iter().filter(|&&b| b == b'\n').count() + 1;
    for format in Format::ALL {
        let mut reader = Reader::new(bytes, format);
        let mut messages = Vec::new();
        let mut failed = false;
        while let Some(item) = reader.next() {
            match item {
                Ok(m) => messages.push(m),
                Err(e) => {
                    assert!(
                        (1..=lines).contains(&e.line),
                        "{format:?}: error on line {} of {lines}: {e}",
                        e.line
                    );
                    assert!(!e.to_string().is_empty());
                    assert!(reader.next().is_none(), "the reader goes on after {e}");
                    failed = true;
                    break;
                }
            }
        }
        if !failed && format == Format::Jsonl {
            let non_blank = bytes
                .split(|&b| b == b'\n')
                .filter(|l| std::str::from_utf8(l).is_ok_and(|l| !l.trim().is_empty()))
                .count();
            assert!(messages.len() >= non_blank, "a line was dropped");
        }
        let mut run = monitor.start();
        observe_all(monitor, &mut run, &messages);
    }
    for line in bytes.split(|&b| b == b'\n').take(4) {
        if let Ok(line) = std::str::from_utf8(line) {
            reads_the_same_after_a_message(line);
        }
    }
}

/// A line of JSONL reads the same as a log's first line and after a chat message:
/// the same messages, or the same error. (After a chat message the reader scans the
/// commonest lines on a fast path of its own, and must never accept what the first
/// line's reading refuses, nor read a line otherwise.)
fn reads_the_same_after_a_message(line: &str) {
    const PRIMER: &str = r#"{"role": "user", "content": "primer"}"#;
    let alone: Result<Vec<_>, _> = Reader::new(line.as_bytes(), Format::Jsonl).collect();
    let after = format!("{PRIMER}\n{line}");
    let primed: Result<Vec<_>, _> = Reader::new(after.as_bytes(), Format::Jsonl).collect();
    match (alone, primed) {
        (Ok(alone), Ok(primed)) => assert_eq!(alone[..], primed[1..], "{line:?}"),
        (Err(alone), Err(primed)) => {
            assert_eq!(alone.line + 1, primed.line, "{line:?}");
            assert_eq!(
                (alone.column, alone.kind, &alone.message),
                (primed.column, primed.kind, &primed.message),
                "{line:?}"
            );
        }
        (alone, primed) => panic!("{line:?} read alone: {alone:?}; after a message: {primed:?}"),
    }
}

/// JSON configuration: a task (sequences as text or objects, options), a single
/// sequence, or an object-form sequence. What deserializes survives serialization and
/// compiles or fails with a limit; what compiles observes messages.
pub(crate) fn config(bytes: &[u8]) {
    if let Ok(config) = serde_json::from_slice::<TaskConfig>(bytes) {
        for seq in &config.done_sequences {
            sequence_round_trips(seq);
        }
        let json = serde_json::to_string(&config).expect("serializes");
        let back: TaskConfig = serde_json::from_str(&json).expect("its own JSON reads");
        assert_eq!(back, config);
        if let Ok(monitor) = Monitor::new(config) {
            let messages: Vec<Message> = (0..12u8)
                .map(|i| {
                    let content = CONTENTS[i as usize % CONTENTS.len()];
                    let tools = &TOOLS[..(i % 3) as usize];
                    let responder = RESPONDERS[i as usize % RESPONDERS.len()];
                    message(i, responder, content, tools, i % 4 == 0, i % 7 == 0)
                })
                .collect();
            let mut run = monitor.start();
            observe_all(&monitor, &mut run, &messages);
        }
    }
    if let Ok(seqs) = serde_json::from_slice::<DoneSequences>(bytes) {
        seqs.iter().for_each(sequence_round_trips);
    }
    if let Ok(seq) = serde_json::from_slice::<DoneSequence>(bytes) {
        sequence_round_trips(&seq);
    }
    if let Ok(object) = serde_json::from_slice::<SequenceObject>(bytes)
        && let Ok(seq) = DoneSequence::try_from(object)
    {
        sequence_round_trips(&seq);
    }
    stop_object(bytes);
}

/// FINAL detection on any text, with every option: `find` and `detect` agree, spans
/// are sound, detection is a function of the text, and every value formats.
pub(crate) fn final_answer(text: &str) {
    for options in [
        FinalOptions::text(),
        FinalOptions::text().strict(true),
        FinalOptions::code(),
    ] {
        let detector = FinalDetector::new(options);
        let d = detector.detect(text);
        let m = detector.find(text);
        assert_eq!(d.detected, m.is_some_and(|m| !m.is_ambiguous()));
        assert_eq!(d.is_ambiguous(), m.is_some_and(|m| m.is_ambiguous()));
        if d.detected {
            let span = d.span.clone().expect("a detection has a span");
            span_sound(text, &span);
            assert_eq!(d.raw_match.as_deref(), text.get(span));
            assert!(d.kind.is_some() && d.content.is_some());
            assert!(d.ambiguity.is_none());
        } else {
            assert!(d.kind.is_none() && d.content.is_none() && d.span.is_none());
        }
        for r in &d.rejected {
            span_sound(text, &r.span);
        }
        if let Some(a) = &d.ambiguity {
            span_sound(text, &a.first);
            span_sound(text, &a.second);
        }
        if let Some(m) = m {
            span_sound(text, &m.span());
            span_sound(text, &m.arg_span());
            assert!(m.span().start <= m.arg_span().start && m.arg_span().end <= m.span().end);
        }
        assert_eq!(
            detector.detect(text),
            d,
            "detection is a function of the text"
        );
        if let Some(value) = &d.value {
            let _ = format_final_answer(value);
        }
    }
    let _ = detect_final_in_code(text);
    for block in extract_code_blocks(text, "repl") {
        let start = block.as_ptr() as usize - text.as_ptr() as usize;
        assert_eq!(text.get(start..start + block.len()), Some(block));
    }
    if let Ok(value) = AnswerValue::parse(text) {
        let wrapped = AnswerValue::List(vec![value]);
        match AnswerValue::parse(&wrapped.to_string()) {
            Err(LiteralError::TooDeep { .. }) => {}
            back => assert_eq!(back, Ok(wrapped), "a value's repr parses back"),
        }
    }
    let none: [(&str, &AnswerValue); 0] = [];
    let decision = FinalPatternPolicy::default().should_terminate("code", text, none);
    if let Decision::Stop { answer, .. } = &decision {
        assert!(decision.should_stop() && decision.answer() == Some(answer.as_str()));
    }
    // The text as a user's extra pattern: a policy, or an error.
    let config = FinalPatternConfig {
        final_patterns: vec![text.to_owned()],
        ..FinalPatternConfig::default()
    };
    if let Ok(policy) = FinalPatternPolicy::new(config) {
        let _ = policy.should_terminate("code", "ANSWER: 42\nFINAL(x)", none);
    }
}

/// Messages that give every built-in stop condition something to look at: tool calls
/// with arguments and call ids, their results, usage, confidence, reward, a metric,
/// elapsed time, errors, repeats (for `loop`) and a `FINAL`.
fn stop_messages() -> &'static [Message<'static>] {
    static MESSAGES: OnceLock<Vec<Message>> = OnceLock::new();
    MESSAGES.get_or_init(|| {
        (0..16u8)
            .map(|i| {
                let content = CONTENTS[i as usize % CONTENTS.len()];
                let tools = &TOOLS[..(i % 3) as usize];
                let responder = RESPONDERS[i as usize % RESPONDERS.len()];
                let mut m = message(i, responder, content, tools, i % 5 == 4, i % 7 == 6);
                if i % 4 == 1 {
                    let call = ToolCall::new("a", format!("{{\"x\": {}}}", i % 3))
                        .with_id(format!("c{i}"));
                    m = m.with_tool_call(call);
                }
                if i % 4 == 2 {
                    m = m.with_tool_call_id(format!("c{}", i - 1));
                }
                m.with_usage(Usage {
                    input_tokens: 100 * u64::from(i),
                    output_tokens: 10 * u64::from(i),
                })
                .with_confidence(f64::from(i) / 16.0)
                .with_reward(f64::from(i % 3) - 1.0)
                .with_metric("score", f64::from(i))
                .with_elapsed(std::time::Duration::from_secs(u64::from(i) * 30))
            })
            .collect()
    })
}

/// A stop expression: a tree that validates, prints a canonical text that parses back
/// to it, survives JSON, lints, and compiles into a monitor (or fails with a message)
/// whose runs explain themselves; or an error whose span is inside the input.
pub(crate) fn stop_expr(text: &str) {
    match Condition::parse(text) {
        Ok(condition) => {
            if let Err(e) = condition.validate() {
                panic!("{text:?} parsed but does not validate: {e:#}");
            }
            let canonical = condition.to_string();
            let back = Condition::parse(&canonical)
                .unwrap_or_else(|e| panic!("{text:?} -> {canonical:?} does not parse: {e:#}"));
            assert_eq!(back, condition, "canonical text: {canonical:?}");
            assert_eq!(
                back.to_string(),
                canonical,
                "the canonical text is a fixed point"
            );
            // The canonical text is within a constant factor of the input (names are
            // expanded, numbers normalised), so a limit on the input bounds it.
            assert!(
                canonical.len() <= 8 * text.len().max(16),
                "{text:?} -> {canonical:?}"
            );
            let json = serde_json::to_string(&condition).expect("a valid tree serializes");
            let from_json: Condition = serde_json::from_str(&json)
                .unwrap_or_else(|e| panic!("{canonical:?} as JSON {json} does not read: {e}"));
            assert_eq!(from_json, condition, "JSON: {json}");
            let from_text: Condition =
                serde_json::from_value(serde_json::Value::String(canonical.clone()))
                    .unwrap_or_else(|e| panic!("{canonical:?} as a JSON string: {e}"));
            assert_eq!(from_text, condition);
            for lint in condition.lint(&LintOptions::default().with_tools(TOOLS.iter().copied())) {
                assert!(!lint.to_string().is_empty());
            }
            let mut config = TaskConfig::default();
            config.stop = Some(condition);
            match Monitor::new(config) {
                Ok(monitor) => {
                    let mut run = monitor.start();
                    for m in stop_messages() {
                        let verdict = monitor.observe(&mut run, m);
                        if let Some(outcome) = verdict.outcome() {
                            assert!(outcome.at < run.steps());
                            for c in &outcome.conditions {
                                assert!(!c.text.is_empty() && c.at <= outcome.at);
                            }
                        }
                    }
                    let report = monitor.explain_stop(&run).expect("a monitor with a tree");
                    assert_eq!(report.condition, canonical);
                    let _ = report.to_string();
                    let json = serde_json::to_string(&run).expect("a run state serializes");
                    let state: RunState = serde_json::from_str(&json).expect("and reads back");
                    let resumed = monitor.resume(state).expect("its own state resumes");
                    assert_eq!(resumed, run);
                }
                Err(e) => assert!(!e.to_string().is_empty()),
            }
        }
        Err(err) => {
            span_sound(text, &err.span());
            assert_eq!(err.input(), text);
            assert!(!err.to_string().is_empty());
            assert!(format!("{err:#}").contains('^'));
            assert!(!err.kind().name().is_empty());
        }
    }
}

/// A stop tree in its object form (JSON, as in a configuration): what reads validates,
/// prints to text that parses back to it and goes through [`stop_expr`]'s checks; what
/// does not read is an error with a message.
pub(crate) fn stop_object(bytes: &[u8]) {
    match serde_json::from_slice::<Condition>(bytes) {
        Ok(condition) => {
            if let Err(e) = condition.validate() {
                panic!("{condition:?} read but does not validate: {e:#}");
            }
            let canonical = condition.to_string();
            let back = Condition::parse(&canonical)
                .unwrap_or_else(|e| panic!("{canonical:?} does not parse: {e:#}"));
            assert_eq!(back, condition, "canonical text: {canonical:?}");
            stop_expr(&canonical);
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

/// The sequence indices a verdict reports as fired.
pub(crate) fn fired(verdict: &Verdict) -> Vec<usize> {
    verdict
        .outcome()
        .map(|o| o.fired.iter().map(|f| f.sequence).collect())
        .unwrap_or_default()
}

/// The compiled monitor against the naive oracle: same matches and same progress at
/// every step; and a checkpoint taken at `cut` and resumed gives the verdicts of the
/// uninterrupted run.
pub(crate) fn differential(sequences: &[DoneSequence], messages: &[Message], cut: usize) {
    let texts = sequences.iter().map(ToString::to_string);
    let mut config = TaskConfig::from_dsl(texts).expect("canonical texts parse");
    // The oracle knows sequences only: no `DONE` signal; and it matches a Langroid
    // `response_sequence`, which holds no task input.
    config.recognize_string_signals = false;
    config.input = doneseq::stop::TaskInput::Marked;
    let Ok(monitor) = Monitor::new(config) else {
        return; // a task limit: nothing to compare
    };
    let mut run = monitor.start();
    let mut naive = NaiveMatcher::new(sequences);
    let mut verdicts = Vec::with_capacity(messages.len());
    for (i, m) in messages.iter().enumerate() {
        let expected = naive.observe(m);
        let step = monitor.is_step(&run, m);
        let verdict = monitor.observe(&mut run, m);
        assert_eq!(fired(&verdict), expected, "message {i}: {m:?}");
        for s in 0..sequences.len() {
            assert_eq!(
                monitor.progress(&run, s),
                naive.progress(s),
                "progress of sequence {s} at message {i}"
            );
        }
        // The one-pass list of the sequences that progress, and the step's
        // classification read back from the run, against their direct forms.
        let dense: Vec<(usize, usize)> = (0..sequences.len())
            .map(|s| (s, naive.progress(s)))
            .filter(|&(_, p)| p > 0)
            .collect();
        assert_eq!(
            monitor.progressing(&run).collect::<Vec<_>>(),
            dense,
            "message {i}"
        );
        let snapshot = monitor.progress_bits(&run).to_vec();
        assert_eq!(monitor.progressing_in(&snapshot).collect::<Vec<_>>(), dense);
        if step {
            assert_eq!(
                monitor.step_facts(&run, m).classification(),
                monitor.classify(m),
                "message {i}: {m:?}"
            );
        }
        verdicts.push(verdict);
    }
    let cut = cut % (messages.len() + 1);
    let mut first = monitor.start();
    let mut got: Vec<Verdict> = messages[..cut]
        .iter()
        .map(|m| monitor.observe(&mut first, m))
        .collect();
    let json = serde_json::to_string(&first).expect("a state serializes");
    let state: RunState = serde_json::from_str(&json).expect("and reads back");
    let mut resumed = monitor
        .resume(state)
        .expect("a monitor resumes its own state");
    got.extend(
        messages[cut..]
            .iter()
            .map(|m| monitor.observe(&mut resumed, m)),
    );
    assert_eq!(got, verdicts, "checkpoint at {cut}");
    assert_eq!(resumed, run);
}

/// A checkpoint from outside, with this monitor's fingerprint and any counters and
/// bits: `resume` refuses it, or the run it gives observes messages without a panic
/// and reports only matches that fit in the steps taken.
pub(crate) fn forged_checkpoint(
    sequences: &[DoneSequence],
    steps: u64,
    bits: &[u64],
    prev: &[u64],
    stopped_at: Option<u64>,
    messages: &[Message],
) {
    let texts = sequences.iter().map(ToString::to_string);
    let Ok(monitor) = Monitor::new(TaskConfig::from_dsl(texts).expect("canonical texts parse"))
    else {
        return;
    };
    let mut state = serde_json::to_value(monitor.start()).expect("a state serializes");
    state["steps"] = steps.into();
    state["bits"] = bits.into();
    state["prev"] = prev.into();
    state["stopped_at"] = stopped_at.into();
    let state: RunState = serde_json::from_value(state).expect("the wire form reads");
    if let Ok(mut run) = monitor.resume(state) {
        observe_all(&monitor, &mut run, messages);
    }
}
