//! `StatsPolicy`: doneseq conditions decided from awaken's stop statistics, inside
//! awaken's own `StopConditionPlugin`, with the meaning they have in doneseq.

mod support;

use std::sync::Arc;

use awaken_runtime::plugins::Plugin;
use awaken_runtime::policies::{StopDecision, StopPolicy, StopPolicyStats};
use awaken_runtime_contract::contract::lifecycle::StopConditionSpec as AwakenSpec;
use doneseq::compat::awaken::{StopConditionSpec, policies_from_specs};
use doneseq::stop::Condition;
use doneseq::{Monitor, TaskConfig};
use doneseq_awaken::{DoneseqPlugin, StatsPolicy, StatsPolicyPlugin, condition_from_specs};
use support::{add_call, call, run, say};

fn doneseq_plugin(stop: &Condition) -> Arc<dyn Plugin> {
    let mut config = TaskConfig::default();
    config.stop = Some(stop.clone());
    Arc::new(DoneseqPlugin::new(Monitor::new(config).unwrap()))
}

fn stats_plugin(stop: &Condition) -> Arc<dyn Plugin> {
    let policy: Arc<dyn StopPolicy> = Arc::new(StatsPolicy::new(stop).unwrap());
    Arc::new(StatsPolicyPlugin::new(vec![policy]))
}

/// Each decidable condition stops the same run at the same place, with the same
/// code, whether doneseq's plugin observes the messages or awaken's stop plugin
/// evaluates the policy on its statistics.
#[tokio::test]
async fn the_policy_stops_where_the_plugin_stops() {
    let script = || {
        vec![
            add_call("c1", 1, 2, 40),
            call("c2", "broken"),
            add_call("c3", 3, 4, 40),
            say("The sums are 3 and 7."),
            say("Anything else?"),
        ]
    };
    let cases = [
        "tokens(100)",
        "tokens(output=80)",
        "tokens(input=30)",
        "max_model_calls(2)",
        "tool(broken)",
        "tool",
        "no_tool_calls",
        r#"text("sums? are", from=llm)"#,
        "max_model_calls(3) & tokens(60)",
        "tool(nothing) | max_model_calls(4)",
        "timeout(1h) | tool(add)",
    ];
    for case in cases {
        let stop: Condition = case.parse().unwrap();
        let by_plugin = run("add", script(), vec![doneseq_plugin(&stop)]).await;
        let by_policy = run("add", script(), vec![stats_plugin(&stop)]).await;
        assert_eq!(
            by_policy.result.termination, by_plugin.result.termination,
            "{case}"
        );
        assert_eq!(by_policy.unused_turns, by_plugin.unused_turns, "{case}");
        assert_eq!(by_policy.adds, by_plugin.adds, "{case}");
        // Each case stops the run before the script's end.
        assert!(by_plugin.unused_turns > 0, "{case} did not stop the run");
    }
}

fn stats() -> StopPolicyStats {
    StopPolicyStats {
        step_count: 3,
        total_input_tokens: 60,
        total_output_tokens: 50,
        elapsed_ms: 2_000,
        consecutive_errors: 0,
        last_tool_names: vec!["search".into()],
        last_response_text: "Searching for it.".into(),
        recent_response_texts: vec!["Searching for it.".into()],
    }
}

fn decide(expression: &str, stats: &StopPolicyStats) -> StopDecision {
    StatsPolicy::new(&expression.parse().unwrap())
        .unwrap()
        .evaluate(stats)
}

fn stop(code: &str, detail: &str) -> StopDecision {
    StopDecision::Stop {
        code: code.into(),
        detail: detail.into(),
    }
}

#[test]
fn a_decision_names_the_condition_and_its_evidence() {
    let s = stats();
    assert_eq!(
        decide("tokens(100)", &s),
        stop("token_budget", "tokens(100): tokens 110% (110/100 total)")
    );
    assert_eq!(decide("tokens(111)", &s), StopDecision::Continue);
    assert_eq!(
        decide("timeout(2s)", &s),
        stop("timeout", "timeout(2s): elapsed 2s of 2s (100%)")
    );
    assert_eq!(
        decide("tool(search)", &s),
        stop("stop_on_tool", "tool(search): search requested")
    );
    assert_eq!(decide("tool(fetch)", &s), StopDecision::Continue);
    assert_eq!(decide("no_tool_calls", &s), StopDecision::Continue);
    assert_eq!(
        decide(r#"text("Search\w+", from=llm)"#, &s),
        stop(
            "content_match",
            r#"text("Search\w+", from=[llm]): "Searching" matched in a llm message"#
        )
    );
}

#[test]
fn the_strongest_kind_decides_as_in_doneseq() {
    let mut s = stats();
    s.consecutive_errors = 2;
    // Failed comes before exhausted, whatever the order in the expression.
    let StopDecision::Stop { code, .. } = decide("tokens(100) | consecutive_errors(2)", &s) else {
        panic!("no stop");
    };
    assert_eq!(code, "consecutive_errors");
    // Among one kind, the first in the expression.
    let StopDecision::Stop { code, .. } = decide("timeout(1s) | tokens(100)", &s) else {
        panic!("no stop");
    };
    assert_eq!(code, "timeout");
}

#[test]
fn what_the_statistics_cannot_decide_is_refused_with_where_and_why() {
    let cases: [(&str, &[usize], &str); 9] = [
        ("final", &[], "not the run's messages"),
        ("max_turns(3)", &[], "max_model_calls(n)"),
        ("loop", &[], "every step"),
        ("tool(add, executed)", &[], "not tool results"),
        (r#"text("done")"#, &[], "from=llm"),
        (
            "tokens(10) | seq(\"T[add], A\")",
            &[1],
            "not the run's messages",
        ),
        ("tokens(10) & tool(add)", &[1], "only limits"),
        ("max_model_calls(2) | !tool", &[1], "after model calls only"),
        (
            "max_model_calls(2) | any(tokens(5), confidence(0.9))",
            &[1, 1],
            "not the run's messages",
        ),
    ];
    for (expression, path, why) in cases {
        let error = StatsPolicy::new(&expression.parse().unwrap()).unwrap_err();
        assert_eq!(error.path, path, "{expression}");
        let message = error.to_string();
        assert!(message.contains(why), "{expression}: {message}");
        assert!(message.contains("DoneseqPlugin"), "{message}");
    }
}

/// Every awaken spec converts as doneseq's copy of it does.
#[test]
fn awaken_specs_convert_as_doneseqs_copy_of_them() {
    let all = vec![
        AwakenSpec::MaxRounds { rounds: 10 },
        AwakenSpec::Timeout { seconds: 300 },
        AwakenSpec::TokenBudget { max_total: 1000 },
        AwakenSpec::ConsecutiveErrors { max: 3 },
        AwakenSpec::StopOnTool {
            tool_name: "finish".into(),
        },
        AwakenSpec::ContentMatch {
            pattern: r"\bDONE\b".into(),
        },
        AwakenSpec::LoopDetection { window: 3 },
    ];
    for spec in &all {
        let copy: StopConditionSpec =
            serde_json::from_value(serde_json::to_value(spec).unwrap()).unwrap();
        assert_eq!(doneseq_awaken::spec(spec), copy);
    }
    let copies: Vec<StopConditionSpec> = all.iter().map(doneseq_awaken::spec).collect();
    assert_eq!(
        condition_from_specs(&all).unwrap(),
        policies_from_specs(&copies).unwrap()
    );
    let error = condition_from_specs(&[
        AwakenSpec::MaxRounds { rounds: 3 },
        AwakenSpec::TokenBudget { max_total: 0 },
    ])
    .unwrap_err()
    .to_string();
    assert!(
        error.starts_with("specs[1]: token_budget.max_total is 0"),
        "{error}"
    );
}

/// Records the step counts it is shown.
struct Spy(std::sync::Mutex<Vec<u32>>);

impl StopPolicy for Spy {
    fn id(&self) -> &str {
        "spy"
    }

    fn evaluate(&self, stats: &StopPolicyStats) -> StopDecision {
        self.0.lock().unwrap().push(stats.step_count);
        StopDecision::Continue
    }
}

/// Why `StatsPolicyPlugin` keeps statistics of its own: a second awaken
/// `StopConditionPlugin` beside the one every agent has sees each model call
/// counted twice (awaken-runtime 0.6.0). When this fails, awaken counts once and
/// `StatsPolicyPlugin`'s documentation should say so.
#[tokio::test]
async fn a_second_awaken_stop_plugin_counts_each_call_twice_and_this_one_once() {
    let script = || {
        vec![
            add_call("c1", 1, 2, 5),
            add_call("c2", 3, 4, 5),
            say("3, 7"),
        ]
    };
    let spy = Arc::new(Spy(std::sync::Mutex::new(Vec::new())));
    let policy: Arc<dyn StopPolicy> = spy.clone();
    run(
        "add",
        script(),
        vec![Arc::new(
            awaken_runtime::policies::StopConditionPlugin::new(vec![policy.clone()]),
        )],
    )
    .await;
    assert_eq!(*spy.0.lock().unwrap(), [1, 3, 5]);
    spy.0.lock().unwrap().clear();
    run(
        "add",
        script(),
        vec![Arc::new(StatsPolicyPlugin::new(vec![policy]))],
    )
    .await;
    assert_eq!(*spy.0.lock().unwrap(), [1, 2, 3]);
}
