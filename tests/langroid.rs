//! Every DSL example of Langroid's docs and of its 0.69 parser's behaviour,
//! with the meaning Langroid gives it, or the documented fix (grammar.md,
//! "Differences from Langroid").

use doneseq::{DoneSequence, EventKind};

use crate::util::{kinds, seq, seq_err, tool};

/// What an input must give: its canonical text, or the name of the error kind.
enum Expect {
    /// Parses, and prints as this canonical text.
    Canonical(&'static str),
    /// Fails with this `ParseErrorKind::name()`.
    Error(&'static str),
}
use Expect::{Canonical, Error};

/// The examples of the Langroid documentation, all valid there.
const SEED_DOCS: &[(&str, Expect)] = &[
    ("T, A", Canonical("T, A")),
    ("T[calculator], A", Canonical("T[calculator], A")),
    ("L, T, A, L", Canonical("L, T, A, L")),
    ("C[quit|exit|bye]", Canonical("C[quit|exit|bye]")),
    ("U, L, A", Canonical("U, L, A")),
    (
        "T[search], A, T[calculator], A",
        Canonical("T[search], A, T[calculator], A"),
    ),
    (
        "L, C[complete|done|finished]",
        Canonical("L, C[complete|done|finished]"),
    ),
    ("TOOL, AGENT", Canonical("T, A")),
    (
        "L, T[calculator], A, L",
        Canonical("L, T[calculator], A, L"),
    ),
    // Repeated pairs stay pairs: a run is only of *consecutive* equal elements.
    (
        "T[search], A, T[search], A",
        Canonical("T[search], A, T[search], A"),
    ),
    ("L, L, L", Canonical("L{3}")),
];

/// Langroid 0.69's parser: the splitting, trimming and token rules of 0.69.16.
const LANGROID_PARSER: &[(&str, Expect)] = &[
    // Stage 1: splitting. An escaped comma still splits in Langroid (so `T\` is an
    // error there); here a backslash outside brackets is an error directly.
    ("T\\,A", Error("unexpected")),
    ("[T, A]", Error("unexpected")),
    // Fixed: Langroid reads the regex `x]y` and the tool `calc]`.
    ("C[x]y]", Error("unexpected")),
    ("T[calc]]", Error("stray_bracket")),
    ("C[a, L", Error("unclosed_bracket")),
    // Stage 2: trimming, empty elements.
    ("T,", Canonical("T")),
    (",T, A", Canonical("T, A")),
    ("T,,A", Canonical("T, A")),
    ("", Error("empty")),
    ("   ", Error("empty")),
    (",", Error("empty")),
    (",,,", Error("empty")),
    ("\tT,\nA\u{a0}, \u{3000}L ", Canonical("T, A, L")),
    ("\u{1f}T\u{1c}", Canonical("T")),
    ("T,\u{200b}A", Error("unexpected")),
    // Stage 3: bracket forms.
    ("T[param]", Canonical("T[param]")),
    ("C[param]", Canonical("C[param]")),
    ("A[x]", Error("bracket_not_allowed")),
    ("L[x]", Error("bracket_not_allowed")),
    ("N[x]", Error("bracket_not_allowed")),
    ("X[x]", Error("unknown_event")),
    ("T[]", Error("empty_bracket")),
    ("C[]", Error("empty_bracket")),
    // Fixed: Langroid keeps the padding, so the name never matches a real tool.
    ("T[ calc ]", Canonical("T[calc]")),
    ("T[ ]", Error("empty_bracket")),
    ("C[a\nb]", Canonical("C[a\nb]")),
    // Single letters are case-sensitive, words are not.
    ("T, A, L, U, N", Canonical("T, A, L, U, N")),
    ("t", Error("lowercase_letter")),
    ("a", Error("lowercase_letter")),
    ("tool", Canonical("T")),
    ("ToOl", Canonical("T")),
    ("agent, LLM, User", Canonical("A, L, U")),
    ("u\u{17f}er", Canonical("U")),
    // Fixed: a bare `C` parses in Langroid but can never match.
    ("C", Error("missing_pattern")),
    // Words Langroid lacks: ours are extensions, the others stay errors.
    ("NO_RESPONSE", Canonical("N")),
    ("CONTENT", Error("missing_pattern")),
    ("NONE", Error("unknown_event")),
    ("SPECIFIC_TOOL", Error("unknown_event")),
    ("LLM_RESPONSE", Error("unknown_event")),
    ("TOOLS", Error("unknown_event")),
    ("T A", Error("unexpected")),
    ("TA", Error("unknown_event")),
    ("T;A", Error("unexpected")),
    ("(T", Error("unexpected")),
    ("T*", Error("unexpected")),
    ("T [calc]", Error("unexpected")),
    ("t[calc]", Error("lowercase_letter")),
    ("TOOL[calc]", Canonical("T[calc]")),
    ("\u{c9}", Error("unknown_event")),
    ("\u{ff34}", Error("unknown_event")),
    // Parameters: unknown tool names are fine (there is no tools map at parse time).
    ("T[CompletionTool]", Canonical("T[CompletionTool]")),
    ("T[Calculator]", Canonical("T[Calculator]")),
    // Fixed: invalid regexes are parse errors, not `re.error` at run time.
    ("C[(]", Error("invalid_regex")),
    ("C[*]", Error("invalid_regex")),
    ("C[a\\]", Error("unclosed_bracket")),
    // Look-around and backreferences as in Python; what Python refuses (a look-behind
    // without a fixed width, a reference to a group not yet closed) is a parse error
    // here, with its position, not `re.error` at run time.
    ("C[(?<=a)b]", Canonical("C[(?<=a)b]")),
    ("C[(a)\\1]", Canonical("C[(a)\\1]")),
    ("C[(?<!NOT )APPROVED]", Canonical("C[(?<!NOT )APPROVED]")),
    ("C[(?<=a|bc)x]", Error("invalid_regex")),
    ("C[(a\\1)]", Error("invalid_regex")),
    ("C[\\1(a)]", Error("invalid_regex")),
    // Python's meaning where the regex crate reads the text otherwise: a `{` that is
    // not a repetition is literal, `{,n}` is `{0,n}`, `\Z` is the end, comments skip.
    ("C[{done}]", Canonical("C[{done}]")),
    ("C[a{,3}]", Canonical("C[a{,3}]")),
    ("C[\\Z]", Canonical("C[\\Z]")),
    ("C[(?#x)a]", Canonical("C[(?#x)a]")),
    // In Python `[[]` is a class holding `[`; in the regex crate it opens a nested one.
    ("C[[[]], A", Error("unclosed_bracket")),
    // Langroid lets an unclosed bracket swallow the rest: the tool `a[b`.
    ("T[a[b]", Error("unclosed_bracket")),
    ("T[a\\[b]", Canonical("T[a\\[b]")),
];

/// Langroid's parser: inputs that the 0.65 parser rejected and PR #1135 made valid,
/// and the four examples of PRs #1134/#1135.
const LANGROID_PR_1135: &[(&str, Expect)] = &[
    ("C[quit, exit]", Canonical("C[quit, exit]")),
    ("C[a{1,3}]", Canonical("C[a{1,3}]")),
    ("C[[a-z]+]", Canonical("C[[a-z]+]")),
    ("T[a,b]", Canonical("T[a,b]")),
    ("C[\\]]", Canonical("C[\\]]")),
    ("C[[], A", Error("unclosed_bracket")),
    ("C[done,\\s*thanks]", Canonical("C[done,\\s*thanks]")),
    ("C[\\[], A", Canonical("C[\\[], A")),
    ("C[[a,b]], A", Canonical("C[[a,b]], A")),
    ("C[done\\],thanks], A", Canonical("C[done\\],thanks], A")),
];

#[track_caller]
fn check(table: &[(&str, Expect)]) {
    let mut failures = Vec::new();
    for (input, expect) in table {
        let got = DoneSequence::parse(input);
        let ok = match (expect, &got) {
            (Canonical(want), Ok(seq)) => seq.to_string() == *want,
            (Error(want), Err(err)) => err.kind().name() == *want,
            _ => false,
        };
        if !ok {
            let got = match got {
                Ok(seq) => format!("Ok({seq})"),
                Err(err) => format!("Err({}: {err})", err.kind().name()),
            };
            failures.push(format!("{input:?}: got {got}"));
        }
    }
    assert!(failures.is_empty(), "mismatches:\n{}", failures.join("\n"));
}

#[test]
fn seed_documentation_examples() {
    check(SEED_DOCS);
}

#[test]
fn langroid_parser_rules() {
    check(LANGROID_PARSER);
}

#[test]
fn langroid_pr_1135_commas_and_classes() {
    check(LANGROID_PR_1135);
}

#[test]
fn meanings_of_the_seed_examples() {
    use EventKind::{Agent, Llm, Tool, User};
    assert_eq!(kinds(&seq("T, A")), [Tool, Agent]);
    assert_eq!(kinds(&seq("T[calculator], A")), [tool("calculator"), Agent]);
    assert_eq!(kinds(&seq("L, T, A, L")), [Llm, Tool, Agent, Llm]);
    assert_eq!(kinds(&seq("U, L, A")), [User, Llm, Agent]);
    assert_eq!(kinds(&seq("TOOL, AGENT")), kinds(&seq("T, A")));
    assert_eq!(kinds(&seq("L, L, L")), [Llm, Llm, Llm]);
}

#[test]
fn content_patterns_search_case_insensitively_and_unanchored() {
    let pattern = |text: &str| match kinds(&seq(text)).pop() {
        Some(EventKind::Content(p)) => p,
        other => panic!("{text}: expected a content event, got {other:?}"),
    };
    let quit = pattern("C[quit|exit|bye]");
    assert!(quit.is_match("OK, BYE then"));
    assert!(!quit.is_match("see you"));
    // The pattern is kept verbatim: "quit, exit" with its space, as in Langroid, so it
    // does not match a bare "exit".
    let comma = pattern("C[quit, exit]");
    assert_eq!(comma.as_str(), "quit, exit");
    assert!(comma.is_match("QUIT, EXIT"));
    assert!(!comma.is_match("exit"));
    // Unicode simple case folding, as Python's re.IGNORECASE.
    assert!(pattern("C[caf\u{e9}]").is_match("CAF\u{c9}"));
    assert!(pattern("C[k]").is_match("\u{212a}"));
    // Inline flags work.
    assert!(!pattern("C[(?-i)DONE]").is_match("done"));
    // Commas and escaped brackets from PR #1135.
    assert!(pattern("C[done,\\s*thanks]").is_match("done,   thanks"));
    assert!(pattern("C[done\\],thanks]").is_match("done],thanks"));
    assert!(pattern("C[[a,b]]").is_match(","));
}

#[test]
fn tool_names_are_kept_exactly_but_trimmed() {
    assert_eq!(kinds(&seq("T[ calc ]")), [tool("calc")]);
    assert_eq!(kinds(&seq("T[a,b]")), [tool("a,b")]);
    // Escapes are the one difference: `\]` is a literal `]` (Langroid keeps the `\`).
    assert_eq!(kinds(&seq("T[a\\]b]")), [tool("a]b")]);
    // Balanced brackets are part of the name, as in Langroid.
    assert_eq!(kinds(&seq("T[a[b]c]")), [tool("a[b]c")]);
    // An escaped space is kept even at the edge.
    assert_eq!(kinds(&seq("T[\\ x]")), [tool(" x")]);
}

#[test]
fn error_spans_point_at_the_problem() {
    let at = |text: &str| {
        let err = seq_err(text);
        err.input()[err.span()].to_owned()
    };
    assert_eq!(at("T A"), "A");
    assert_eq!(at("T[calc]]"), "]");
    assert_eq!(at("T, C[a(b]"), "(");
    assert_eq!(at("X, A"), "X");
    assert_eq!(at("T, TA"), "TA");
    assert_eq!(at("A[x], T"), "[x]");
    assert_eq!(at("T, L & A, U"), "L & A");
    assert_eq!(at("T{0}"), "{0}");
    assert_eq!(at("T, C"), "C");
    assert_eq!(at("T[calc"), "[");
}
