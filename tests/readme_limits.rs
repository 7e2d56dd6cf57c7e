//! The README's table of limits gives each limit's value as the crate declares it, so
//! that a limit changed in the code cannot leave the table behind.

use crate::grouped::grouped;

/// `n` bytes as the table writes sizes: in MiB or KiB where they divide evenly.
fn bytes(n: usize) -> String {
    if n >= 1 << 30 && n.is_multiple_of(1 << 30) {
        format!("{} GiB", n >> 30)
    } else if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
        format!("{} KiB", n >> 10)
    } else {
        format!("{n} bytes")
    }
}

#[test]
fn the_readme_gives_every_limit_as_declared() {
    use doneseq::{answer, dsl, stop};

    let readme = include_str!("../README.md");
    let mut rows = vec![
        (
            "dsl::MAX_DSL_LEN",
            format!("{} per sequence", bytes(dsl::MAX_DSL_LEN)),
        ),
        (
            "dsl::MAX_ELEMENTS",
            format!("{} elements per sequence", dsl::MAX_ELEMENTS),
        ),
        (
            "dsl::MAX_LITERALS",
            format!("{} literals per element", dsl::MAX_LITERALS),
        ),
        (
            "dsl::MAX_PATTERNS",
            format!("{} regexes per sequence", dsl::MAX_PATTERNS),
        ),
        (
            "MAX_PATTERN_LEN",
            format!("{} per regex", bytes(doneseq::MAX_PATTERN_LEN)),
        ),
        (
            "MAX_REGEX_SIZE",
            format!("{} per compiled regex", bytes(doneseq::MAX_REGEX_SIZE)),
        ),
        (
            "MAX_REGEX_MEMORY",
            format!("{} of heap", bytes(doneseq::MAX_REGEX_MEMORY)),
        ),
        (
            "MAX_REGEX_FOLD_WORK",
            format!(
                "2^{} code points",
                doneseq::MAX_REGEX_FOLD_WORK.trailing_zeros()
            ),
        ),
        (
            "MAX_SEQUENCES",
            format!("{} sequences per task", grouped(doneseq::MAX_SEQUENCES)),
        ),
        (
            "MAX_POSITIONS",
            format!("{} elements per task", grouped(doneseq::MAX_POSITIONS)),
        ),
        (
            "MAX_TASK_PATTERNS",
            format!(
                "{} distinct regexes per task",
                grouped(doneseq::MAX_TASK_PATTERNS)
            ),
        ),
        (
            "MAX_REGEX_SET_SIZE",
            format!(
                "{} for a task's regex set",
                bytes(doneseq::MAX_REGEX_SET_SIZE)
            ),
        ),
        (
            "stop::MAX_EXPRESSION_LEN",
            format!("{} per stop expression", bytes(stop::MAX_EXPRESSION_LEN)),
        ),
        (
            "stop::MAX_CONDITION_DEPTH",
            format!("{} levels of nesting", stop::MAX_CONDITION_DEPTH),
        ),
        (
            "stop::MAX_VALUE_DEPTH",
            format!("{} levels of JSON", stop::MAX_VALUE_DEPTH),
        ),
        (
            "stop::MAX_CONDITION_NODES",
            format!(
                "{} nodes per stop condition",
                grouped(stop::MAX_CONDITION_NODES)
            ),
        ),
        (
            "answer::MAX_LITERAL_DEPTH",
            format!("{} levels of a Python literal", answer::MAX_LITERAL_DEPTH),
        ),
        (
            "answer::MAX_SUBMIT_FIELDS",
            format!("{} fields of a `SUBMIT(...)`", answer::MAX_SUBMIT_FIELDS),
        ),
        (
            "FinalPatternPolicy::MAX_PATTERNS",
            format!(
                "{} extra final patterns",
                answer::FinalPatternPolicy::MAX_PATTERNS
            ),
        ),
    ];
    assert_eq!(
        stop::MAX_LOOP_PERIOD,
        stop::MAX_LOOP_REPEATS,
        "one row gives both"
    );
    rows.push((
        "stop::MAX_LOOP_PERIOD`, `MAX_LOOP_REPEATS",
        format!("{} each", stop::MAX_LOOP_PERIOD),
    ));
    #[cfg(feature = "json")]
    {
        use doneseq::transcript;
        rows.push((
            "transcript::MAX_LINE_LEN",
            format!("{} per line", bytes(transcript::MAX_LINE_LEN)),
        ));
        rows.push((
            "transcript::MAX_DOCUMENT_LEN",
            format!("{} per JSON document", bytes(transcript::MAX_DOCUMENT_LEN)),
        ));
        rows.push((
            "transcript::MAX_JSON_DEPTH",
            format!(
                "{} levels of JSON nesting per line",
                transcript::MAX_JSON_DEPTH
            ),
        ));
        rows.push((
            "transcript::MAX_TOOL_SEARCH_WORK",
            format!(
                "{} bytes of JSON parsed per byte",
                transcript::MAX_TOOL_SEARCH_WORK
            ),
        ));
    }
    // (The CLI's row gives the binary's own limits, which the library does not
    // declare: the robustness tests' limits run the binary past them.)
    for (name, value) in rows {
        let row = format!("| `{name}` | {value}");
        assert!(
            readme.contains(&row),
            "the README's limits should say: {row}"
        );
    }
}
