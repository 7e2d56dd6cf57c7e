//! The stop-condition lint: one case per kind, the paths and the text of findings,
//! and what is deliberately not reported.

use std::time::Duration;

use doneseq::stop::{
    Condition, Lint, LintKind, LintOptions, MAX_CONDITION_DEPTH, Severity, Speaker, TokenBudget,
    lint,
};
use doneseq::{DoneSequence, Role};
use serde_json::json;

fn options() -> LintOptions {
    LintOptions::default()
        .with_tools(["search", "send_summary", "poll_status"])
        .with_custom(["converged"])
}

fn kinds(lints: &[Lint]) -> Vec<LintKind> {
    lints.iter().map(|l| l.kind).collect()
}

fn text_from(pattern: &str, from: Vec<Speaker>) -> Condition {
    let mut condition = Condition::text(pattern).unwrap();
    if let Condition::Text(mention) = &mut condition {
        mention.from = from;
    }
    condition
}

fn seq(text: &str) -> Condition {
    Condition::Sequence(DoneSequence::parse(text).unwrap())
}

fn nested(depth: usize) -> Condition {
    (0..depth).fold(Condition::max_turns(5), |inner, _| {
        Condition::All(vec![Condition::Final, inner])
    })
}

#[test]
fn each_kind_is_found_where_it_is() {
    let mut loop_check = Condition::loop_detection();
    if let Condition::Loop(detection) = &mut loop_check {
        detection.exempt = vec!["poll_stats".to_owned()];
    }
    let mut streakless = Condition::reward(f64::INFINITY);
    if let Condition::Reward(reward) = &mut streakless {
        reward.negative_streak = 0;
    }
    let zero_input = Condition::Tokens(TokenBudget::total(1000).with_input(0));
    // (condition, the kinds found, in order, and the path of the first)
    let cases: Vec<(Condition, Vec<LintKind>, Vec<usize>)> = vec![
        (
            Condition::tool("serch"),
            vec![LintKind::UnknownTool],
            vec![],
        ),
        (
            Condition::Final | seq("T[serch], A"),
            vec![LintKind::UnknownTool],
            vec![1],
        ),
        (
            seq("T & !T[serch], A"),
            vec![LintKind::NegatedUnknownTool],
            vec![],
        ),
        (loop_check, vec![LintKind::UnknownExemptTool], vec![]),
        (
            Condition::custom("convergd", json!(null)),
            vec![LintKind::UnknownCustom],
            vec![],
        ),
        (
            Condition::Any(vec![]),
            vec![LintKind::EmptyCombinator],
            vec![],
        ),
        (
            Condition::All(vec![]),
            vec![LintKind::EmptyCombinator],
            vec![],
        ),
        (
            Condition::Final | Condition::All(vec![Condition::max_turns(3)]),
            vec![LintKind::SingleChild],
            vec![1],
        ),
        (!!Condition::Final, vec![LintKind::DoubleNegation], vec![]),
        (
            !Condition::Any(vec![]),
            vec![
                LintKind::NegationAlwaysFires,
                LintKind::EmptyCombinator,
                LintKind::NegationOnly,
            ],
            vec![],
        ),
        (
            !Condition::max_turns(0),
            vec![LintKind::NegationNeverFires, LintKind::ZeroLimit],
            vec![],
        ),
        (Condition::max_turns(0), vec![LintKind::ZeroLimit], vec![]),
        (Condition::tokens(0), vec![LintKind::ZeroLimit], vec![]),
        (zero_input, vec![LintKind::ZeroLimit], vec![]),
        (
            Condition::timeout(Duration::ZERO),
            vec![LintKind::ZeroLimit],
            vec![],
        ),
        (
            Condition::timeout(Duration::from_micros(999)),
            vec![LintKind::ZeroLimit],
            vec![],
        ),
        (
            Condition::consecutive_errors(0),
            vec![LintKind::ZeroLimit],
            vec![],
        ),
        (
            Condition::Tokens(TokenBudget::default()),
            vec![LintKind::EmptyTokenBudget],
            vec![],
        ),
        (
            Condition::confidence(1.5),
            vec![LintKind::ConfidenceOutOfRange],
            vec![],
        ),
        (
            Condition::confidence(-0.1),
            vec![LintKind::ConfidenceOutOfRange],
            vec![],
        ),
        (
            Condition::confidence(f64::NAN),
            vec![LintKind::NonFiniteThreshold],
            vec![],
        ),
        (streakless, vec![LintKind::NonFiniteThreshold], vec![]),
        (
            text_from("DONE", vec![Speaker::Role(Role::System)]),
            vec![LintKind::TextFromSystemOnly],
            vec![],
        ),
        (
            Condition::text("x*").unwrap(),
            vec![LintKind::TextMatchesEverything],
            vec![],
        ),
        (!Condition::Final, vec![LintKind::NegationOnly], vec![]),
        (
            Condition::max_turns(9) | (!Condition::Final & !Condition::tool("search")),
            vec![LintKind::NegationOnly],
            vec![1],
        ),
        (
            nested(MAX_CONDITION_DEPTH + 6),
            vec![LintKind::TooDeep],
            std::iter::repeat_n(1, MAX_CONDITION_DEPTH).collect(),
        ),
    ];
    for (condition, expected, path) in cases {
        let lints = lint(&condition, &options());
        assert_eq!(kinds(&lints), expected, "{condition:?}: {lints:#?}");
        assert_eq!(lints[0].path, path, "{condition:?}");
        assert_eq!(lints[0].severity(), expected[0].severity());
    }
}

#[test]
fn a_clean_tree_gives_no_lint() {
    let mut loop_check = Condition::loop_detection();
    if let Condition::Loop(detection) = &mut loop_check {
        detection.exempt = vec!["poll_status".to_owned()];
    }
    let clean = Condition::Any(vec![
        Condition::tool("send_summary") & Condition::confidence(0.9),
        seq("T[search], A & !E"),
        seq("T & !T[poll_status], A"),
        Condition::Final,
        Condition::DoneSignal,
        Condition::NoToolCalls,
        Condition::Cancelled,
        text_from(
            r"\bDONE\b",
            vec![Speaker::Role(Role::Llm), Speaker::Role(Role::System)],
        ),
        Condition::max_turns(20),
        Condition::Tokens(TokenBudget::total(100_000).with_output(20_000)),
        Condition::timeout(Duration::from_secs(300)),
        Condition::timeout(Duration::from_millis(1)),
        Condition::consecutive_errors(3),
        Condition::reward(0.8),
        Condition::confidence(0.0),
        Condition::confidence(1.0),
        loop_check,
        Condition::custom("converged", json!({"window": 3})),
        Condition::tool_executed("search") & !Condition::tool("search"),
        !Condition::Final & Condition::max_turns(3),
        nested(MAX_CONDITION_DEPTH - 2),
    ]);
    assert_eq!(lint(&clean, &options()), []);
    assert_eq!(clean.lint(&options()), []);
}

#[test]
fn x_and_not_x_under_all_is_not_reported() {
    // `All` is latched: `x` can fire at one step and `!x` at another.
    let both = Condition::tool("search") & !Condition::tool("search");
    assert_eq!(lint(&both, &options()), []);
    let both = Condition::Final & !Condition::Final;
    assert_eq!(lint(&both, &LintOptions::default()), []);
}

#[test]
fn name_checks_need_the_lists() {
    let stop = Condition::tool("anything")
        | seq("T[whatever], A")
        | Condition::custom("mine", json!(null));
    assert_eq!(lint(&stop, &LintOptions::default()), []);
    // With an empty tool list, every tool condition is dead, also `tool()` of any name.
    let mut any_tool = Condition::tool("x");
    if let Condition::Tool(tool) = &mut any_tool {
        tool.name = None;
    }
    let no_tools = LintOptions::default().with_tools(Vec::<String>::new());
    let lints = lint(&any_tool, &no_tools);
    assert_eq!(kinds(&lints), [LintKind::UnknownTool]);
    assert_eq!(
        lints[0].to_string(),
        "error: tool() can never fire: the agent has no tools (at root)"
    );
    let lints = lint(&Condition::tool("x"), &no_tools);
    assert!(
        lints[0].message.ends_with("; the agent has no tools"),
        "{}",
        lints[0]
    );
}

#[test]
fn messages_name_the_closest_known_name_and_the_path() {
    let stop = Condition::max_turns(10)
        | (Condition::tool("Search") & Condition::custom("converge", json!(null)));
    let lints = lint(&stop, &options());
    let text: Vec<String> = lints.iter().map(ToString::to_string).collect();
    assert_eq!(
        text,
        [
            "error: tool(\"Search\") can never fire: the agent has no tool \"Search\" \
             (closest: \"search\") (at root.1.0)",
            "error: custom(\"converge\") is not a registered condition \
             (closest: \"converged\") (at root.1.1)",
        ]
    );
    let lints = lint(&seq("T[send_sumary], A"), &options());
    assert_eq!(
        lints[0].message,
        "seq(\"T[send_sumary], A\") can never match: element 0 needs T[send_sumary], \
         but the agent has no tool \"send_sumary\" (closest: \"send_summary\")"
    );
}

#[test]
fn zero_limits_say_what_awaken_does_and_what_to_write() {
    let lints = lint(&Condition::max_turns(0), &LintOptions::default());
    assert_eq!(
        lints[0].to_string(),
        "warning: max_turns(0) fires at the first step (0 steps already reach it). \
         awaken reads a 0 limit as \"disabled\"; doneseq does not: to disable it, leave \
         max_turns out (at root)"
    );
    let lints = lint(
        &Condition::Tokens(TokenBudget::total(0).with_output(0)),
        &LintOptions::default(),
    );
    assert_eq!(kinds(&lints), [LintKind::ZeroLimit, LintKind::ZeroLimit]);
    assert!(lints[0].message.contains("total limit of 0"));
    assert!(lints[1].message.contains("leave the output limit unset"));
}

#[test]
fn negation_follows_what_never_or_always_fires() {
    // A dead tool under `!` makes a negation that fires at once: both are reported.
    let lints = lint(&!Condition::tool("serch"), &options());
    assert_eq!(
        kinds(&lints),
        [
            LintKind::NegationAlwaysFires,
            LintKind::UnknownTool,
            LintKind::NegationOnly
        ]
    );
    assert_eq!(
        (lints[0].path.clone(), lints[1].path.clone()),
        (vec![], vec![0])
    );
    // Through `any` and `all`: any() of dead children is dead; all() of a dead child is.
    let dead_any = !Condition::Any(vec![Condition::tool("a"), Condition::tool("b")]);
    assert_eq!(
        lint(&dead_any, &options())[0].kind,
        LintKind::NegationAlwaysFires
    );
    let dead_all = !(Condition::Final & Condition::Tokens(TokenBudget::default()));
    assert_eq!(
        lint(&dead_all, &options())[0].kind,
        LintKind::NegationAlwaysFires
    );
    let live = !(Condition::Final | Condition::tool("a"));
    assert_eq!(
        kinds(&lint(&live, &options())),
        [LintKind::UnknownTool, LintKind::NegationOnly]
    );
    // `!!x` with a constant x: the note, and what the inner negation does.
    let lints = lint(&!!Condition::max_turns(0), &options());
    assert_eq!(
        kinds(&lints),
        [
            LintKind::DoubleNegation,
            LintKind::NegationAlwaysFires,
            LintKind::NegationNeverFires,
            LintKind::ZeroLimit,
        ]
    );
}

#[test]
fn severities_are_ordered_and_named() {
    assert_eq!(LintKind::UnknownTool.severity(), Severity::Error);
    assert_eq!(LintKind::ZeroLimit.severity(), Severity::Warning);
    assert_eq!(LintKind::SingleChild.severity(), Severity::Note);
    assert_eq!(LintKind::TextFromSystemOnly.name(), "text_from_system_only");
    let mut all = [Severity::Error, Severity::Note, Severity::Warning];
    all.sort();
    assert_eq!(all, [Severity::Note, Severity::Warning, Severity::Error]);
}

#[test]
fn a_negation_with_a_condition_that_says_when_is_no_finding() {
    for text in [
        "max_turns(2) & !final",
        "!!final",
        "final | max_turns(3) & !tool(search)",
    ] {
        let condition = Condition::parse(text).unwrap();
        let lints = lint(&condition, &options());
        assert!(
            !kinds(&lints).contains(&LintKind::NegationOnly),
            "{text}: {lints:#?}"
        );
    }
}
