//! `C[...]` patterns with look-around and backreferences in a running task: they
//! match as Python's `re` does, share the classifier's regex set (through their
//! relaxed forms) with every other regex, and a search past the backtracking limit
//! is counted and reported, never a silent "no match".

use doneseq::stop::Condition;
use doneseq::{ContentPattern, Message, Monitor, StateError, StopReason, TaskConfig, Verdict};

fn monitor(sequences: &[&str], stop: Option<&str>) -> Monitor {
    let mut config = TaskConfig::from_dsl(sequences).unwrap();
    config.recognize_string_signals = false;
    config.stop = stop.map(|s| Condition::parse(s).unwrap());
    Monitor::new(config).unwrap()
}

/// The step at which each message stopped the run (a fresh run per message).
fn stops(monitor: &Monitor, texts: &[&str]) -> Vec<bool> {
    texts
        .iter()
        .map(|text| {
            let mut run = monitor.start();
            monitor.observe(&mut run, &Message::user("go"));
            matches!(
                monitor.observe(&mut run, &Message::llm(*text)),
                Verdict::Stop(_)
            )
        })
        .collect()
}

#[test]
fn look_around_and_backreferences_decide_as_in_python() {
    // (pattern, [(text, whether Python's re.search(pattern, text, re.I) finds it)])
    let cases: &[(&str, &[(&str, bool)])] = &[
        (
            r"(?<!NOT )\bAPPROVED\b",
            &[
                ("Approved.", true),
                ("not approved", false),
                ("NOT APPROVED, approved", true),
            ],
        ),
        (
            r"DONE(?!\?)",
            &[("done?", false), ("done!", true), ("Done? done.", true)],
        ),
        (
            r"(?<=final answer: )\d+",
            &[("Final answer: 42", true), ("answer: 42", false)],
        ),
        (
            r"\b(\w+) \1\b",
            &[
                ("the the end", true),
                ("The THE end", true),
                ("the then", false),
            ],
        ),
        (
            r"(?P<q>['\x22]).*?(?P=q)",
            &[("say 'ok'", true), ("say 'ok\"", false)],
        ),
        (r"(?>a+)b", &[("aab", true), ("aa", false)]),
        (r"a++a", &[("aaa", false)]),
        (
            r"^DONE$\n",
            &[("DONE\n", true), ("DONE", false), ("DONE\n\n", false)],
        ),
    ];
    for (pattern, texts) in cases {
        let m = monitor(&[&format!("C[{pattern}]")], None);
        let (texts, expected): (Vec<&str>, Vec<bool>) = texts.iter().copied().unzip();
        assert_eq!(stops(&m, &texts), expected, "C[{pattern}]");
        let p = ContentPattern::new(pattern).unwrap();
        assert!(p.needs_backtracking(), "{pattern}");
        let alone: Vec<bool> = texts.iter().map(|t| p.is_match(t)).collect();
        assert_eq!(alone, expected, "ContentPattern {pattern}");
    }
}

#[test]
fn a_rejected_prefilter_match_leaves_the_other_regexes_of_the_set_alone() {
    // The relaxed form of the first matches "not ok, bye"; its exact form does not.
    let m = monitor(
        &[
            "ok: C[(?<!not )ok]",
            "bye: C[bye]",
            "both: C[(?<!not )ok] & C[bye]",
        ],
        Some(r#"text("(?i)halt")"#),
    );
    let mut run = m.start();
    m.observe(&mut run, &Message::user("go"));
    let Verdict::Stop(outcome) = m.observe(&mut run, &Message::llm("not ok, bye")) else {
        panic!("no stop");
    };
    assert_eq!(outcome.reason, StopReason::Sequence(1));
    let classified = m.classify(&Message::llm("not ok, bye, halt"));
    assert_eq!(classified.patterns, vec!["bye".to_owned()]);
    // The stop tree's text regex follows the sequences' regexes in the set.
    let mut run = m.start();
    m.observe(&mut run, &Message::user("go"));
    let Verdict::Stop(outcome) = m.observe(&mut run, &Message::llm("not ok; HALT")) else {
        panic!("no stop");
    };
    assert!(
        matches!(outcome.reason, StopReason::Condition(_)),
        "{outcome:?}"
    );
    let Verdict::Stop(outcome) = m.observe(&mut m.start(), &Message::llm("so ok, bye")) else {
        panic!("no stop");
    };
    assert_eq!(outcome.reason, StopReason::Sequence(0));
}

/// A message on which `^(a|a)*\1$` must backtrack about 2^40 times.
fn pathological() -> String {
    format!("{}b", "a".repeat(40))
}

#[test]
fn a_search_past_the_limit_is_counted_and_reported_not_a_stop() {
    let m = monitor(&[r"C[^(a|a)*\1$]", "C[bye]"], None);
    let mut run = m.start();
    m.observe(&mut run, &Message::user("go"));
    assert!(
        m.observe(&mut run, &Message::llm("fine"))
            .outcome()
            .is_none()
    );
    assert!(
        m.observe(&mut run, &Message::llm(pathological()))
            .outcome()
            .is_none()
    );
    assert!(
        m.observe(&mut run, &Message::llm(pathological()))
            .outcome()
            .is_none()
    );
    assert_eq!(run.pattern_overruns(), 2);
    assert_eq!(m.pattern_overrun(&run), Some((1, r"^(a|a)*\1$")));
    // The other regexes still decide on such a message.
    let stop = m.observe(&mut run, &Message::llm(format!("{} bye", pathological())));
    assert!(stop.outcome().is_some());
    assert_eq!(run.pattern_overruns(), 3);
    // A fresh run has none; a pattern that matches quickly is not an overrun.
    let mut run = m.start();
    m.observe(&mut run, &Message::user("go"));
    assert!(
        m.observe(&mut run, &Message::llm("a".repeat(40)))
            .outcome()
            .is_some()
    );
    assert_eq!((run.pattern_overruns(), m.pattern_overrun(&run)), (0, None));
}

#[cfg(feature = "serde")]
#[test]
fn overruns_survive_a_checkpoint_and_a_forged_one_is_refused() {
    let m = monitor(&[r"C[^(a|a)*\1$]"], None);
    let mut run = m.start();
    m.observe(&mut run, &Message::user("go"));
    m.observe(&mut run, &Message::llm(pathological()));
    let json = serde_json::to_string(&run).unwrap();
    assert!(
        json.contains(r#""pattern_overruns":{"count":1,"first":[0,0]}"#),
        "{json}"
    );
    let back = m.resume(serde_json::from_str(&json).unwrap()).unwrap();
    assert_eq!(back, run);
    assert_eq!(m.pattern_overrun(&back), Some((0, r"^(a|a)*\1$")));
    // A run without overruns writes nothing for them (older checkpoints read).
    let clean = serde_json::to_string(&m.start()).unwrap();
    assert!(!clean.contains("pattern_overruns"), "{clean}");
    for forged in [
        r#""pattern_overruns":{"count":1,"first":[0,7]}"#,
        r#""pattern_overruns":{"count":1,"first":[5,0]}"#,
        r#""pattern_overruns":{"count":0,"first":[0,0]}"#,
        r#""pattern_overruns":{"count":2,"first":null}"#,
    ] {
        let text = json.replace(r#""pattern_overruns":{"count":1,"first":[0,0]}"#, forged);
        let state = serde_json::from_str(&text).unwrap();
        assert!(
            matches!(m.resume(state), Err(StateError::Corrupt(_))),
            "{forged}"
        );
    }
}

#[test]
fn a_repeated_backtracking_pattern_is_compiled_and_charged_once() {
    // Each costs tens of kilobytes; 1,500 charged one by one would pass the 64 MiB
    // that one parse may spend on regexes.
    let pattern = r"C[(?<!not )\w+done]";
    let heap = ContentPattern::new(&pattern[2..pattern.len() - 1])
        .unwrap()
        .heap_bytes();
    let count = 1500;
    assert!(count * 2 * heap > doneseq::MAX_REGEX_MEMORY, "{heap}");
    let config = TaskConfig::from_dsl(vec![pattern; count]).unwrap();
    assert_eq!(config.done_sequences.len(), count);
}
