//! The stop-expression language: what it accepts and how it prints it, the shapes of
//! the trees, `parse(x.to_string()) == x` for generated trees, no panic on any input,
//! the nesting and size limits, and `validate` for trees built in Rust.

use std::time::Duration;

use doneseq::stop::{
    Condition, ConfidenceMet, ExprError, ExprErrorKind, LoopDetection, LoopOver,
    MAX_CONDITION_DEPTH, MAX_CONDITION_NODES, MAX_EXPRESSION_LEN, MAX_VALUE_DEPTH, RewardThreshold,
    Speaker, TextMention, TextPattern, TokenBudget, ToolCalled, ToolPhase,
};
use doneseq::{DoneSequence, Role};
use proptest::prelude::*;
use serde_json::json;

use super::arb;

/// Parses `text`, failing the test with the rendered error if it does not parse.
#[track_caller]
pub(crate) fn cond(text: &str) -> Condition {
    match Condition::parse(text) {
        Ok(condition) => condition,
        Err(err) => panic!("{text:?} should parse, got:\n{err:#}"),
    }
}

/// Parses `text`, failing the test if it parses.
#[track_caller]
pub(crate) fn cond_err(text: &str) -> ExprError {
    match Condition::parse(text) {
        Ok(condition) => panic!("{text:?} should not parse, got {condition}"),
        Err(err) => err,
    }
}

/// Input, and its canonical text.
const ACCEPTED: &[(&str, &str)] = &[
    // Names and aliases.
    ("final", "final"),
    ("final()", "final"),
    ("done_signal", "done_signal"),
    ("max_turns(10)", "max_turns(10)"),
    // Model calls are their own unit (awaken's rounds, locus's iterations).
    ("max_rounds(10)", "max_model_calls(10)"),
    ("max_iterations(10)", "max_model_calls(10)"),
    ("max_model_calls(calls=3)", "max_model_calls(3)"),
    ("max_steps(10)", "max_turns(10)"),
    ("max_turns(turns=10)", "max_turns(10)"),
    ("max_turns(007)", "max_turns(7)"),
    // Zero budgets are legal (they fire at the first step; the lint warns).
    ("max_turns(0)", "max_turns(0)"),
    ("tokens(0, input=0)", "tokens(0, input=0)"),
    ("timeout(0ms)", "timeout(0s)"),
    ("consecutive_errors(0)", "consecutive_errors(0)"),
    ("tokens(100000)", "tokens(100000)"),
    ("token_limit(100000)", "tokens(100000)"),
    ("token_budget(total=100000)", "tokens(100000)"),
    ("tokens(output=5, input=3)", "tokens(input=3, output=5)"),
    ("tokens(total=9, output=5)", "tokens(9, output=5)"),
    ("timeout(300)", "timeout(5m)"),
    ("timeout(300s)", "timeout(5m)"),
    ("time_limit(7200s)", "timeout(2h)"),
    ("timeout(90s)", "timeout(90s)"),
    ("timeout(1500ms)", "timeout(1500ms)"),
    ("timeout(120m)", "timeout(2h)"),
    ("timeout(limit=2000ms)", "timeout(2s)"),
    ("consecutive_errors(3)", "consecutive_errors(3)"),
    ("errors(3)", "consecutive_errors(3)"),
    ("max_errors(max=3)", "consecutive_errors(3)"),
    ("tool", "tool"),
    ("tool()", "tool"),
    ("tool(submit)", "tool(submit)"),
    ("tool(\"submit\")", "tool(submit)"),
    ("tool('web search')", "tool(\"web search\")"),
    ("tool_called(submit, executed)", "tool(submit, executed)"),
    (
        "stop_on_tool(submit, when=executed)",
        "tool(submit, executed)",
    ),
    ("tool(submit, requested)", "tool(submit)"),
    ("tool(when=executed)", "tool(when=executed)"),
    ("tool(name=x, when=\"executed\")", "tool(x, executed)"),
    (
        "tool(search, args={\"q\": \"rust\", \"n\": 1})",
        "tool(search, args={\"n\":1,\"q\":\"rust\"})",
    ),
    ("tool(args = { })", "tool(args={})"),
    ("no_tool_calls", "no_tool_calls"),
    ("no_tools()", "no_tool_calls"),
    (r#"text("\bDONE\b")"#, r#"text("\bDONE\b")"#),
    (r#"text_mention('\bDONE\b')"#, r#"text("\bDONE\b")"#),
    (r#"content_match(pattern="a\"b")"#, r#"text('a"b')"#),
    (r#"text('it\'s')"#, r#"text("it's")"#),
    (r#"text("x\\\\")"#, r#"text("x\\\\")"#),
    (
        r#"text("re", from=[llm, "@Planner", @Other, tool, assistant, '@Sub Task'])"#,
        r#"text("re", from=[llm, @Planner, @Other, agent, llm, "@Sub Task"])"#,
    ),
    (r#"text("re", from=user)"#, r#"text("re", from=[user])"#),
    (r#"text("re", from=[])"#, r#"text("re")"#),
    ("confidence", "confidence(0.85)"),
    ("confidence()", "confidence(0.85)"),
    ("confidence(0.85)", "confidence(0.85)"),
    ("confidence_met(1)", "confidence(1.0)"),
    (
        "confidence(threshold=0.9, min_steps=2, key=confidence)",
        "confidence(0.9)",
    ),
    (
        "confidence(0.5, fallback_final=false, key=\"self score\", min_steps=0)",
        "confidence(0.5, min_steps=0, key=\"self score\", fallback_final=false)",
    ),
    ("confidence(1e-7)", "confidence(1e-7)"),
    ("reward", "reward(0.8)"),
    (
        "reward_threshold(-1.5, negative_streak=0)",
        "reward(-1.5, negative_streak=0)",
    ),
    (
        "reward(2, require_final=true)",
        "reward(2.0, require_final=true)",
    ),
    ("loop", "loop"),
    ("loop()", "loop"),
    ("loop(period=10, repeats=3, over=both, exempt=[])", "loop"),
    (
        "loop_detection(over=calls, exempt=[\"poll\", check])",
        "loop(over=calls, exempt=[poll, check])",
    ),
    (
        "loop(exempt=poll, period=1, repeats=64)",
        "loop(period=1, repeats=64, exempt=[poll])",
    ),
    ("cancelled", "cancelled"),
    ("cancel", "cancelled"),
    ("custom(\"budget_ok\")", "custom(budget_ok)"),
    (
        "custom(budget_ok, {\"max\": 3})",
        "custom(budget_ok, config={\"max\":3})",
    ),
    ("custom(name=budget_ok, config=null)", "custom(budget_ok)"),
    ("custom(x, config=\"a\\nb\")", "custom(x, config=\"a\\nb\")"),
    (
        "custom(x, config=[1, 2.5, true])",
        "custom(x, config=[1,2.5,true])",
    ),
    ("custom(x, config=-3)", "custom(x, config=-3)"),
    ("seq(\"T[calculator], A\")", "seq(\"T[calculator], A\")"),
    ("seq('TOOL[calculator],AGENT')", "seq(\"T[calculator], A\")"),
    ("seq(sequence=\"\\\"a b\\\": T\")", "seq('\"a b\": T')"),
    // Whitespace, trailing commas, combinators.
    ("  max_turns ( 10 , )  ", "max_turns(10)"),
    ("final|cancelled", "final | cancelled"),
    ("final&cancelled", "final & cancelled"),
    ("\tfinal\n|\n  cancelled ", "final | cancelled"),
    ("!final", "!final"),
    ("! ! final", "!!final"),
    ("not(final)", "!final"),
    ("not(final | cancelled)", "!(final | cancelled)"),
    ("!(final & cancelled)", "!(final & cancelled)"),
    ("!all(final)", "!all(final)"),
    ("all(final, cancelled)", "final & cancelled"),
    ("any(final, cancelled,)", "final | cancelled"),
    ("all()", "all()"),
    ("any( )", "any()"),
    ("all(final)", "all(final)"),
    ("any(final | cancelled)", "any(final | cancelled)"),
    ("all(final | cancelled, loop)", "(final | cancelled) & loop"),
    ("((final))", "final"),
    ("(final & cancelled) | loop", "final & cancelled | loop"),
    ("final & (cancelled | loop)", "final & (cancelled | loop)"),
    ("final | (cancelled | loop)", "final | (cancelled | loop)"),
    ("(final | cancelled) | loop", "(final | cancelled) | loop"),
    ("final & (cancelled & loop)", "final & (cancelled & loop)"),
    (
        "any(all(final, loop), cancelled)",
        "final & loop | cancelled",
    ),
];

#[test]
fn accepted_inputs_print_canonically() {
    for &(input, canonical) in ACCEPTED {
        let condition = cond(input);
        assert_eq!(condition.to_string(), canonical, "{input:?}");
        assert_eq!(cond(canonical), condition, "{canonical:?} parses back");
        assert!(condition.validate().is_ok(), "{input:?} validates");
    }
}

#[test]
fn operators_are_n_ary_and_parentheses_keep_nesting() {
    let (a, b, c) = (
        Condition::Final,
        Condition::Cancelled,
        Condition::NoToolCalls,
    );
    let any = |cs: Vec<Condition>| Condition::Any(cs);
    let all = |cs: Vec<Condition>| Condition::All(cs);
    let cases = [
        (
            "final | cancelled | no_tool_calls",
            any(vec![a.clone(), b.clone(), c.clone()]),
        ),
        (
            "final & cancelled & no_tool_calls",
            all(vec![a.clone(), b.clone(), c.clone()]),
        ),
        (
            "final | (cancelled | no_tool_calls)",
            any(vec![a.clone(), any(vec![b.clone(), c.clone()])]),
        ),
        (
            "(final | cancelled) | no_tool_calls",
            any(vec![any(vec![a.clone(), b.clone()]), c.clone()]),
        ),
        (
            "final & cancelled | no_tool_calls",
            any(vec![all(vec![a.clone(), b.clone()]), c.clone()]),
        ),
        (
            "final | cancelled & no_tool_calls",
            any(vec![a.clone(), all(vec![b.clone(), c.clone()])]),
        ),
        ("!final & cancelled", all(vec![!a.clone(), b.clone()])),
        ("!(final & cancelled)", !all(vec![a.clone(), b.clone()])),
        ("all(final)", all(vec![a.clone()])),
        ("any()", any(vec![])),
        ("!!final", !!a.clone()),
    ];
    for (text, tree) in cases {
        assert_eq!(cond(text), tree, "{text}");
        assert_eq!(tree.to_string(), text, "{tree:?}");
    }
    assert_eq!(cond("not(not(final))"), !!a);
}

#[test]
fn every_builtin_parses_to_its_value() {
    let budget = TokenBudget {
        total: None,
        input: Some(80_000),
        output: Some(20_000),
    };
    let confidence = ConfidenceMet {
        threshold: 0.9,
        min_steps: 0,
        key: "score".to_owned(),
        fallback_final: false,
    };
    let reward = RewardThreshold {
        threshold: 1.0,
        negative_streak: 5,
        require_final: true,
    };
    let detection = LoopDetection {
        period: 4,
        repeats: 2,
        over: LoopOver::Calls,
        exempt: vec!["poll".to_owned()],
    };
    let tool = ToolCalled {
        name: Some("search".to_owned()),
        phase: ToolPhase::Executed,
        args: Some(json!({"q": "rust"})),
    };
    let text = TextMention {
        pattern: TextPattern::new("approved").unwrap(),
        from: vec![
            Speaker::Role(Role::Llm),
            Speaker::Responder("Reviewer".to_owned()),
        ],
    };
    let cases = [
        (
            "seq(\"calc: T[calculator], A\")",
            Condition::sequence(DoneSequence::parse("calc: T[calculator], A").unwrap()),
        ),
        ("final", Condition::Final),
        ("done_signal", Condition::DoneSignal),
        ("max_turns(25)", Condition::max_turns(25)),
        ("tokens(100000)", Condition::tokens(100_000)),
        (
            "tokens(input=80000, output=20000)",
            Condition::Tokens(budget),
        ),
        ("timeout(5m)", Condition::timeout(Duration::from_secs(300))),
        (
            "timeout(1500ms)",
            Condition::timeout(Duration::from_millis(1500)),
        ),
        ("consecutive_errors(3)", Condition::consecutive_errors(3)),
        ("tool", Condition::Tool(ToolCalled::default())),
        ("tool(submit)", Condition::tool("submit")),
        ("tool(submit, executed)", Condition::tool_executed("submit")),
        (
            "tool(search, executed, args={\"q\":\"rust\"})",
            Condition::Tool(tool),
        ),
        ("no_tool_calls", Condition::NoToolCalls),
        (
            "text(\"approved\", from=[llm, @Reviewer])",
            Condition::Text(text),
        ),
        ("confidence(0.85)", Condition::confidence(0.85)),
        (
            "confidence(0.9, min_steps=0, key=score, fallback_final=false)",
            Condition::Confidence(confidence),
        ),
        ("reward(0.8)", Condition::reward(0.8)),
        (
            "reward(1.0, negative_streak=5, require_final=true)",
            Condition::Reward(reward),
        ),
        ("loop", Condition::loop_detection()),
        (
            "loop(period=4, repeats=2, over=calls, exempt=[poll])",
            Condition::Loop(detection),
        ),
        ("cancelled", Condition::Cancelled),
        ("custom(x)", Condition::custom("x", serde_json::Value::Null)),
        (
            "custom(x, config={\"a\":[1,null]})",
            Condition::custom("x", json!({"a": [1, null]})),
        ),
    ];
    for (text, value) in cases {
        assert_eq!(cond(text), value, "{text}");
        assert_eq!(value.to_string(), text);
        assert_eq!(value.canonical_name(), text.split('(').next().unwrap());
    }
}

/// The printer's string escapes: a backslash is doubled only before a backslash, the
/// quote, or the end; the quote is `'` when the text holds `"` and no `'`.
#[test]
fn strings_escape_only_what_they_must() {
    let cases = [
        (r"\bDONE\b", r#"text("\bDONE\b")"#),
        (r"a\\b", r#"text("a\\\b")"#),
        (r"x\\", r#"text("x\\\\")"#),
        (r#"say "hi""#, r#"text('say "hi"')"#),
        (r#"it's "x""#, r#"text("it's \"x\"")"#),
        (r#"\""#, r#"text('\"')"#),
        (r#"\"'"#, r#"text("\\\"'")"#),
    ];
    for (pattern, text) in cases {
        let condition = Condition::text(pattern).unwrap();
        assert_eq!(condition.to_string(), text, "{pattern:?}");
        assert_eq!(cond(text), condition, "{text:?}");
    }
}

#[test]
fn names_are_bare_only_when_they_read_back_as_words() {
    for (name, printed) in [
        ("submit", "tool(submit)"),
        ("web.search-v2", "tool(web.search-v2)"),
        ("_x", "tool(_x)"),
        ("caf\u{e9}", "tool(caf\u{e9})"),
        ("true", "tool(true)"),
        ("web search", "tool(\"web search\")"),
        ("1abc", "tool(\"1abc\")"),
        ("-x", "tool(\"-x\")"),
        ("a,b", "tool(\"a,b\")"),
        ("@x", "tool(@x)"),
    ] {
        let condition = Condition::tool(name);
        assert_eq!(condition.to_string(), printed);
        assert_eq!(cond(printed), condition);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// The law: every valid tree prints a text that parses back to it, and that text is
    /// already canonical.
    #[test]
    fn display_parses_back_to_an_equal_tree(condition in arb::condition()) {
        prop_assert!(condition.validate().is_ok(), "{}", condition.validate().unwrap_err());
        let text = condition.to_string();
        let back = Condition::parse(&text).map_err(|e| TestCaseError::fail(format!("{text}\n{e:#}")))?;
        prop_assert_eq!(&back, &condition, "{}", text);
        prop_assert_eq!(back.to_string(), text);
    }
}

/// Text made of the language's tokens, so that generated inputs get deep into the
/// parser.
fn token_soup() -> impl Strategy<Value = String> {
    let token = prop::sample::select(vec![
        "(",
        ")",
        "!",
        "&",
        "|",
        ",",
        "=",
        "[",
        "]",
        "{",
        "}",
        " ",
        "\"",
        "'",
        "\\",
        "final",
        "max_turns",
        "tokens",
        "timeout",
        "tool",
        "text",
        "seq",
        "loop",
        "custom",
        "all",
        "any",
        "not",
        "confidence",
        "reward",
        "from",
        "args",
        "config",
        "period",
        "over",
        "executed",
        "llm",
        "@x",
        "3",
        "0",
        "-1",
        "1.5",
        "1e999",
        "5m",
        "300s",
        "1500ms",
        "\"T, A\"",
        "\"(\"",
        "{\"a\": 1}",
        "null",
        "true",
        "99999999999999999999",
        "\u{e9}",
        "\u{200b}",
        "\n",
    ]);
    prop::collection::vec(token, 0..24).prop_map(|tokens| tokens.concat())
}

/// An edit of a valid expression: cut a range, insert a token, or duplicate a range.
fn mutated() -> impl Strategy<Value = String> {
    (
        arb::condition(),
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
        0..3u8,
        prop::sample::select(vec![
            "(", ")", "!", "&", "|", ",", "\"", "'", "\\", "=", "[", "{", "x",
        ]),
    )
        .prop_map(|(condition, a, b, edit, token)| {
            let text = condition.to_string();
            let mut cuts: Vec<usize> = (0..=text.len())
                .filter(|&i| text.is_char_boundary(i))
                .collect();
            cuts.dedup();
            let (mut i, mut j) = (*a.get(&cuts), *b.get(&cuts));
            if i > j {
                std::mem::swap(&mut i, &mut j);
            }
            match edit {
                0 => format!("{}{}", &text[..i], &text[j..]),
                1 => format!("{}{token}{}", &text[..i], &text[i..]),
                _ => format!("{}{}{}", &text[..j], &text[i..j], &text[j..]),
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        crate::robustness::checks::stop_expr(&text);
    }

    #[test]
    fn token_soup_never_panics(text in token_soup()) {
        crate::robustness::checks::stop_expr(&text);
    }

    #[test]
    fn mutated_expressions_never_panic(text in mutated()) {
        crate::robustness::checks::stop_expr(&text);
    }
}

// ---- limits ------------------------------------------------------------------------

#[test]
fn length_is_checked_first() {
    for text in [
        "(".repeat(100_000),
        "!".repeat(100_000),
        "x".repeat(MAX_EXPRESSION_LEN + 1),
    ] {
        let err = cond_err(&text);
        assert_eq!(
            err.kind(),
            &ExprErrorKind::TooLong {
                len: text.len(),
                max: MAX_EXPRESSION_LEN
            }
        );
        assert_eq!(err.span(), MAX_EXPRESSION_LEN..text.len());
    }
    // Exactly at the limit is fine.
    let mut text = "final".to_owned();
    text.push_str(&" ".repeat(MAX_EXPRESSION_LEN - text.len()));
    assert_eq!(cond(&text), Condition::Final);
}

/// Deep nesting is refused one level past `MAX_CONDITION_DEPTH` (the 33rd), before recursing: tens of thousands of
/// `(`, `!`, `not(` or `!(` (within the length limit) stop at the same place.
#[test]
fn deep_nesting_is_refused_without_recursion() {
    let max = MAX_CONDITION_DEPTH;
    let cases = [
        (
            format!("{}final{}", "(".repeat(30_000), ")".repeat(30_000)),
            max..max + 1,
        ),
        (format!("{}final", "!".repeat(60_000)), max..max + 1),
        (
            format!("{}final", "! ".repeat(30_000)),
            2 * max..2 * max + 1,
        ),
        (
            format!("{}final{}", "not(".repeat(12_000), ")".repeat(12_000)),
            4 * max..4 * max + 4,
        ),
        (
            format!("{}final{}", "!(".repeat(20_000), ")".repeat(20_000)),
            max..max + 1,
        ),
        (
            format!("{}final{}", "all(".repeat(12_000), ")".repeat(12_000)),
            4 * max..4 * max + 4,
        ),
    ];
    for (text, span) in cases {
        let err = cond_err(&text);
        assert_eq!(
            err.kind(),
            &ExprErrorKind::TooDeep { max },
            "{}",
            &text[..10]
        );
        assert_eq!(err.span(), span, "{}", &text[..10]);
    }
}

/// The deepest valid trees parse, print and parse back, on a thread with a small
/// stack (the test harness gives 2 MiB; this uses 1 MiB).
#[test]
fn the_deepest_valid_trees_fit_a_small_stack() {
    let run = || {
        let max = MAX_CONDITION_DEPTH;
        let texts = [
            format!("{}final{}", "(".repeat(max), ")".repeat(max)),
            format!("{}final", "!".repeat(max)),
            format!(
                "{}final{}",
                "!(final | ".repeat(max / 2),
                ")".repeat(max / 2)
            ),
            format!("{}final{}", "all(final, ".repeat(max), ")".repeat(max)),
        ];
        for text in texts {
            let condition = cond(&text);
            assert!(condition.validate().is_ok());
            assert_eq!(cond(&condition.to_string()), condition);
            // And everything else a tree goes through: JSON (whose reader has its own
            // depth limit), lint, compile, observe, explain, checkpoint.
            crate::robustness::checks::stop_expr(&text);
        }
        // One more level is too deep.
        let err = cond_err(&format!("{}final", "!".repeat(max + 1)));
        assert_eq!(err.kind().name(), "too_deep");
        // `&` under `|` adds height without parentheses: the tree's height counts.
        let text = format!(
            "{}final{}",
            "(final & cancelled | ".repeat(max),
            ")".repeat(max)
        );
        let err = cond_err(&text);
        assert_eq!(err.kind(), &ExprErrorKind::TooDeep { max });
    };
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(run)
        .unwrap()
        .join()
        .unwrap();
}

/// JSON values inside a condition (`args`, `config`) are limited too, so that the
/// deepest valid tree with the deepest values in it still reads back from JSON.
#[test]
fn values_nest_at_most_max_value_depth() {
    let value = |depth: usize| format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    let object = |depth: usize| {
        format!(
            "{}{{\"n\": 1}}{}",
            "{\"a\": ".repeat(depth - 1),
            "}".repeat(depth - 1)
        )
    };
    // The deepest tree, with the deepest value at its bottom: every form round-trips
    // (serde_json's reader stops at 128 levels).
    let deepest = format!(
        "{}custom(x, config={}){}",
        "all(final, ".repeat(MAX_CONDITION_DEPTH),
        value(MAX_VALUE_DEPTH),
        ")".repeat(MAX_CONDITION_DEPTH)
    );
    crate::robustness::checks::stop_expr(&deepest);
    let args = format!("tool(search, args={})", object(MAX_VALUE_DEPTH));
    crate::robustness::checks::stop_expr(&args);

    let cases = [
        (
            format!("custom(x, config={})", value(MAX_VALUE_DEPTH + 1)),
            "config",
        ),
        (
            format!("tool(args={})", object(MAX_VALUE_DEPTH + 1)),
            "args",
        ),
    ];
    for (text, option) in cases {
        let err = cond_err(&text);
        assert_eq!(
            err.kind(),
            &ExprErrorKind::ValueTooDeep {
                option,
                max: MAX_VALUE_DEPTH
            }
        );
        assert_eq!(err.kind().name(), "value_too_deep");
        // The span is the value.
        let at = text.find('=').unwrap() + 1;
        assert_eq!(err.span(), at..text.len() - 1);
        assert!(
            err.to_string().contains("nested more than 32 levels"),
            "{err}"
        );
    }

    // Trees built in Rust, and trees read from JSON objects, are checked the same way.
    let mut deep = json!(1);
    for _ in 0..=MAX_VALUE_DEPTH {
        deep = json!([deep]);
    }
    let built = Condition::max_turns(3) | Condition::custom("x", deep.clone());
    let err = built.validate().unwrap_err();
    assert_eq!(err.kind().name(), "value_too_deep");
    assert_eq!(
        &err.input()[err.span()],
        err.input().split(" | ").nth(1).unwrap()
    );
    let object = json!({"type": "custom", "name": "x", "config": deep});
    let err = serde_json::from_value::<Condition>(object).unwrap_err();
    assert!(
        err.to_string().contains("'config' is nested more than 32"),
        "{err}"
    );
    let tool = ToolCalled {
        args: Some(json!({ "q": deep })),
        ..ToolCalled::default()
    };
    assert_eq!(
        Condition::Tool(tool).validate().unwrap_err().kind().name(),
        "value_too_deep"
    );
}

#[test]
fn node_count_is_limited() {
    let at_limit = vec!["final"; MAX_CONDITION_NODES - 1].join("|");
    assert_eq!(cond(&at_limit).children().len(), MAX_CONDITION_NODES - 1);
    crate::robustness::checks::stop_expr(&at_limit);
    let over = vec!["final"; MAX_CONDITION_NODES].join("|");
    let err = cond_err(&over);
    assert_eq!(
        err.kind(),
        &ExprErrorKind::TooManyNodes {
            max: MAX_CONDITION_NODES
        }
    );
    // Reported at the n-ary node, which is counted after its children.
    assert_eq!(err.span(), 0..over.len());
    let built = Condition::Any(vec![Condition::Final; MAX_CONDITION_NODES]);
    assert_eq!(
        built.validate().unwrap_err().kind().name(),
        "too_many_nodes"
    );
    let built = Condition::Any(vec![Condition::Final; MAX_CONDITION_NODES - 1]);
    assert!(built.validate().is_ok());
}

// ---- validate ----------------------------------------------------------------------

/// Trees built in Rust: each fault, the kind it gives and the text its span covers.
#[test]
fn validate_reports_each_fault_with_its_span() {
    let detector = LoopDetection {
        repeats: 1,
        ..LoopDetection::default()
    };
    let exempt = LoopDetection {
        exempt: vec![String::new()],
        ..LoopDetection::default()
    };
    let tool = ToolCalled {
        args: Some(json!([1])),
        ..ToolCalled::default()
    };
    let text = TextMention {
        pattern: TextPattern::new("x").unwrap(),
        from: vec![Speaker::Responder(String::new())],
    };
    let key = ConfidenceMet {
        key: String::new(),
        ..ConfidenceMet::default()
    };
    let cases: Vec<(Condition, &str, &str)> = vec![
        (Condition::Loop(detector), "out_of_range", "loop(repeats=1)"),
        (Condition::Loop(exempt), "empty_name", "loop(exempt=[\"\"])"),
        (
            Condition::confidence(f64::NAN),
            "not_finite",
            "confidence(NaN)",
        ),
        (
            Condition::reward(f64::INFINITY),
            "not_finite",
            "reward(inf)",
        ),
        (
            Condition::Confidence(key),
            "empty_name",
            "confidence(0.85, key=\"\")",
        ),
        (
            Condition::Tokens(TokenBudget::default()),
            "empty_budget",
            "tokens()",
        ),
        (
            Condition::timeout(Duration::from_micros(1500)),
            "invalid_duration",
            "timeout(1ms)",
        ),
        (
            Condition::timeout(Duration::MAX),
            "invalid_duration",
            "timeout(18446744073709551615999ms)",
        ),
        (Condition::tool(""), "empty_name", "tool(\"\")"),
        (Condition::Tool(tool), "wrong_type", "tool(args=[1])"),
        (
            Condition::Text(text),
            "empty_name",
            "text(\"x\", from=[\"@\"])",
        ),
        (
            Condition::custom("", json!(null)),
            "empty_name",
            "custom(\"\")",
        ),
    ];
    for (bad, kind, printed) in cases {
        // Alone, and as the third child of a tree.
        let err = bad.validate().unwrap_err();
        assert_eq!(err.kind().name(), kind, "{bad:?}");
        assert_eq!(err.input(), printed);
        assert_eq!(err.span(), 0..printed.len());
        let tree = Condition::Final & (Condition::Cancelled | !bad.clone());
        let err = tree.validate().unwrap_err();
        assert_eq!(err.kind().name(), kind);
        assert_eq!(&err.input()[err.span()], printed, "{tree:?}");
        assert!(
            err.to_string()
                .starts_with("invalid stop condition \"final & (cancelled | !")
        );
    }
}

#[test]
fn validate_walks_deep_trees_iteratively() {
    let mut tree = Condition::Final;
    for _ in 0..MAX_CONDITION_DEPTH {
        tree = !tree;
    }
    assert!(tree.validate().is_ok());
    let tree = !tree;
    let err = tree.validate().unwrap_err();
    assert_eq!(
        err.kind(),
        &ExprErrorKind::TooDeep {
            max: MAX_CONDITION_DEPTH
        }
    );
    // The level past the limit (the 33rd from the top), down to the leaf.
    assert_eq!(&err.input()[err.span()], "!final");
}
