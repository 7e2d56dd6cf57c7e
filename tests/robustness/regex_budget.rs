//! `MAX_REGEX_MEMORY`: the regexes one parse compiles (a list of sequences, a
//! configuration, a stop expression) share one heap budget, equal ones are compiled
//! once, and the regex that would pass the budget is refused before the next one is
//! compiled. The work is asserted by how far a parse got (how many regexes it
//! compiled), not by time.

use doneseq::dsl::MAX_PATTERNS;
use doneseq::stop::{Condition, ExprErrorKind};
use doneseq::{
    ContentPattern, DoneSequence, DoneSequences, Error, EventKind, MAX_PATTERN_LEN,
    MAX_REGEX_FOLD_WORK, MAX_REGEX_MEMORY, ParseErrorKind, TaskConfig,
};

/// A distinct regex of about a megabyte of heap compiled (`\w` is a large Unicode
/// class), as a configuration full of them would have.
fn big(i: usize) -> String {
    format!(r"{i}\w{{20}}")
}

/// The heap one [`big`] regex takes, as the budget counts it.
fn big_heap() -> usize {
    ContentPattern::new(&big(0)).unwrap().heap_bytes()
}

/// How many [`big`] regexes fit in the budget: the one after them is refused.
fn fitting() -> usize {
    MAX_REGEX_MEMORY / big_heap()
}

#[test]
fn a_configuration_of_large_regexes_is_refused_at_the_budget() {
    let heap = big_heap();
    assert!((MB / 2..4 * MB).contains(&heap), "{heap}");
    // 1,024 of them (the most distinct regexes a task may have): without the budget,
    // a gigabyte of heap and tens of seconds of compiling before the task limits
    // could refuse the configuration.
    let texts: Vec<String> = (0..1024).map(|i| format!("C[{}]", big(i))).collect();
    let err = DoneSequences::parse_all(&texts).unwrap_err();
    assert_eq!(
        err.index(),
        fitting(),
        "refused as soon as the budget is passed"
    );
    let Error::Parse(parse) = err.error() else {
        panic!("{err}")
    };
    assert_eq!(
        parse.kind(),
        &ParseErrorKind::RegexMemory {
            max: MAX_REGEX_MEMORY
        }
    );
    // The span is the regex, inside `C[...]`.
    let text = &texts[err.index()];
    assert_eq!(parse.span(), 2..text.len() - 1);
    assert!(
        err.to_string()
            .contains(&format!("done sequence {}", fitting()))
    );
    assert!(err.to_string().contains("past 67108864 bytes"), "{err}");

    // The same from JSON, as text and as Langroid objects.
    let json = serde_json::to_string(&serde_json::json!({ "done_sequences": texts })).unwrap();
    let message = serde_json::from_str::<TaskConfig>(&json)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains(&format!("done sequence {}:", fitting())),
        "{message}"
    );
    let objects: Vec<_> = (0..1024)
        .map(|i| {
            serde_json::json!({"events": [
                {"event_type": "content_match", "content_pattern": big(i)}
            ]})
        })
        .collect();
    let message = serde_json::from_value::<DoneSequences>(objects.into())
        .unwrap_err()
        .to_string();
    assert!(
        message.contains(&format!("done sequence {}:", fitting())),
        "{message}"
    );
}

#[test]
fn equal_regexes_are_compiled_once_per_parse() {
    // 1,024 sequences of 32 equal regexes: 32,768 compiles of a megabyte each without
    // sharing, one with it.
    let one = format!("C[{}]", big(0));
    let sequence = vec![one.as_str(); 32].join(", ");
    let texts = vec![sequence.clone(); 1024];
    let sequences = DoneSequences::parse_all(&texts).unwrap();
    assert_eq!(sequences.len(), 1024);
    // A single sequence shares its regexes too.
    assert_eq!(DoneSequence::parse(&sequence).unwrap().len(), 32);
    // So does a list of objects.
    let objects: Vec<_> = (0..1024)
        .map(|_| {
            serde_json::json!({"events": [
                {"event_type": "content_match", "content_pattern": big(0)}
            ]})
        })
        .collect();
    assert!(serde_json::from_value::<DoneSequences>(objects.into()).is_ok());
}

#[test]
fn the_budget_is_per_parse() {
    // Two lists that each fit, but not together: one after the other, both parse
    // (also after a refused one).
    let list = |from: usize| -> Vec<String> {
        (from..from + fitting())
            .map(|i| format!("C[{}]", big(i)))
            .collect()
    };
    let over: Vec<String> = (0..=fitting()).map(|i| format!("C[{}]", big(i))).collect();
    assert!(DoneSequences::parse_all(&over).is_err());
    assert!(DoneSequences::parse_all(list(0)).is_ok());
    assert!(DoneSequences::parse_all(list(fitting())).is_ok());
}

#[test]
fn one_sequence_never_reaches_the_budget() {
    // The heaviest regex `MAX_REGEX_SIZE` lets through, 32 times (the most one
    // sequence may have), distinct: the budget is for lists and trees.
    let heaviest = |i: usize| format!(r"{i}\pL{{24}}");
    let text = (0..MAX_PATTERNS)
        .map(|i| format!("C[{}]", heaviest(i)))
        .collect::<Vec<_>>()
        .join(", ");
    let sequence = DoneSequence::parse(&text).unwrap();
    let heap: usize = sequence
        .elements()
        .iter()
        .flat_map(doneseq::Element::literals)
        .filter_map(|l| match l.event().kind() {
            EventKind::Content(p) => Some(p.heap_bytes()),
            _ => None,
        })
        .sum();
    assert!(
        heap > MAX_REGEX_MEMORY / 2 && heap < MAX_REGEX_MEMORY,
        "{heap}"
    );
}

#[test]
fn a_stop_expression_shares_its_budget_between_text_and_seq() {
    // Half `text(...)`, half `seq("C[...]")`: one budget (content regexes are
    // case-insensitive, text regexes are not, so they do not share a compile).
    let leaves: Vec<String> = (0..2 * fitting())
        .map(|i| {
            if i % 2 == 0 {
                format!("text({:?})", big(i))
            } else {
                format!("seq({:?})", format!("C[{}]", big(i)))
            }
        })
        .collect();
    let text = leaves.join(" | ");
    let err = Condition::parse(&text).unwrap_err();
    let kind = err.kind();
    assert!(
        matches!(
            kind,
            ExprErrorKind::InvalidPattern(ParseErrorKind::RegexMemory { .. })
                | ExprErrorKind::InvalidSequence(ParseErrorKind::RegexMemory { .. })
        ),
        "{kind:?}"
    );
    // Refused at a regex, well before the end of the expression.
    let span = err.span();
    assert!(span.end < text.len() / 2 + text.len() / 4, "{span:?}");
    assert!(text[span].contains(r"\w{20}"));
    // Equal regexes are shared: the same leaf many times is one compile.
    let same = vec![format!("text({:?})", big(0)); 1000].join(" | ");
    assert!(Condition::parse(&same).is_ok());
    // From JSON, the tree is one parse too.
    let json = serde_json::Value::String(text);
    assert!(serde_json::from_value::<Condition>(json).is_err());
}

#[test]
fn a_configuration_is_one_budget() {
    // Sequences that take most of the budget, and a stop condition that takes most
    // of it again: each fits alone, not together.
    let half = fitting() * 3 / 4;
    let sequences: Vec<String> = (0..half).map(|i| format!("C[{}]", big(i))).collect();
    let stop = (half..2 * half)
        .map(|i| format!("text({:?})", big(i)))
        .collect::<Vec<_>>()
        .join(" | ");
    let read = |json: String| serde_json::from_str::<TaskConfig>(&json);
    let sequences = serde_json::to_string(&sequences).unwrap();
    let stop = serde_json::to_string(&stop).unwrap();
    assert!(read(format!(r#"{{"done_sequences": {sequences}}}"#)).is_ok());
    assert!(read(format!(r#"{{"stop": {stop}}}"#)).is_ok());
    // Whichever is read second is refused.
    let message = read(format!(
        r#"{{"done_sequences": {sequences}, "stop": {stop}}}"#
    ))
    .unwrap_err()
    .to_string();
    assert!(message.contains("stop expression"), "{message}");
    assert!(message.contains("past 67108864 bytes"), "{message}");
    let message = read(format!(
        r#"{{"stop": {stop}, "done_sequences": {sequences}}}"#
    ))
    .unwrap_err()
    .to_string();
    assert!(message.contains("done sequence "), "{message}");
    assert!(message.contains("past 67108864 bytes"), "{message}");
}

/// Classes that the regex engine folds code point by code point in case-insensitive
/// mode, a kilobyte of each: before `MAX_REGEX_FOLD_WORK`, a 64 KiB sequence of them
/// took 26 s to compile, and a megabyte of configuration minutes.
#[test]
fn costly_classes_are_refused_before_they_are_compiled() {
    for class in [r"[\S\s]", r"[^\W\D]", r"[\D]", r"[\x00-\x{10FFFF}]"] {
        let regex = class.repeat((MAX_PATTERN_LEN - 8) / class.len());
        // A megabyte of configuration made of them: refused after a few regexes (each
        // takes up to a few hundred milliseconds to compile), not after a thousand.
        let texts: Vec<String> = (0..MB / regex.len())
            .map(|i| format!("C[{i}{regex}]"))
            .collect();
        let err = DoneSequences::parse_all(&texts).unwrap_err();
        assert!(err.index() < 8, "{class}: {}", err.index());
        let Error::Parse(parse) = err.error() else {
            panic!("{err}")
        };
        // (A kilobyte of `[\D]` is also too big compiled, which it finds out first.)
        assert!(
            matches!(
                parse.kind(),
                ParseErrorKind::RegexCost {
                    max: MAX_REGEX_FOLD_WORK
                } | ParseErrorKind::RegexTooBig { .. }
            ),
            "{class}: {err}"
        );
        assert_eq!(parse.span(), 2..texts[err.index()].len() - 1);
        // A stop expression of them: refused within the first few too.
        let leaves: Vec<String> = (0..32).map(|i| format!("text(\"{i}{regex}\")")).collect();
        let text = leaves.join(" | ");
        let err = Condition::parse(&text).unwrap_err();
        assert_eq!(err.kind().name(), "invalid_pattern", "{class}");
        assert!(err.span().start < leaves[..8].join(" | ").len(), "{class}");
    }
    // Over everything: one kilobyte regex alone is over the budget.
    let err = ContentPattern::new(&r"[\S\s]".repeat(170)).unwrap_err();
    assert_eq!(err.kind().name(), "regex_cost");
    assert_eq!(err.span(), 0..170 * 6);
    assert!(err.to_string().contains("(?s:.)"), "{err}");
    // Fewer of them pass, each within the budget, until the parse's total does not.
    let some = r"[\S\s]".repeat(20);
    assert!(ContentPattern::new(&some).is_ok());
    let texts: Vec<String> = (0..10).map(|i| format!("C[{i}{some}]")).collect();
    let err = DoneSequences::parse_all(&texts).unwrap_err();
    assert!(err.error().to_string().contains("case folding"));
    assert!(err.index() < 4, "{}", err.index());
    // The everyday ones cost little: 500 distinct regexes with Unicode classes parse
    // (their regex set, though, is over `MAX_REGEX_SET_SIZE`, which the monitor
    // checks: the parse budgets are not the tighter ones).
    let everyday: Vec<String> = (0..500)
        .map(|i| format!(r"C[(?:^|\b)answer{i}:\s*[\w.-]+|\pL+ [^a-z]]"))
        .collect();
    assert_eq!(
        TaskConfig::from_dsl(&everyday)
            .unwrap()
            .done_sequences
            .len(),
        500
    );
}

const MB: usize = 1 << 20;
