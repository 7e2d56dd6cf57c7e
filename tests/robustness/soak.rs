//! The soak example's workload (`examples/soak.rs`, which runs ten million messages
//! and measures the resident size) on 200,000 messages in the normal test run: the
//! run state's memory does not grow with the run.

#[path = "../../examples/soak.rs"]
#[allow(dead_code, unreachable_pub)]
mod example;

#[test]
fn a_long_run_keeps_its_size() {
    let report = example::soak(200_000, 10_000);
    assert_eq!(report.messages, 200_000);
    let (before, after) = report.steps;
    assert!(after - before > 150_000, "{report:?}");
    // Sequences fire and restart all along (the workload is not trivial).
    assert!(
        report.stops > 1000 && report.stops < report.messages,
        "{report:?}"
    );
    // Over 128 positions: the state is on the heap, and stays the same size.
    assert!(report.heap_bytes.0 > 0, "{report:?}");
    assert_eq!(report.heap_bytes.0, report.heap_bytes.1, "{report:?}");
    // A checkpoint is never bigger than the largest this monitor can have: every
    // count at its maximum, every bit set.
    let mut largest = serde_json::to_value(example::monitor().start()).unwrap();
    let words = largest["bits"].as_array().unwrap().len();
    for field in ["steps", "stopped_at"] {
        largest[field] = u64::MAX.into();
    }
    for field in ["bits", "prev"] {
        largest[field] = vec![u64::MAX; words].into();
    }
    // The run's statistics, every count at its maximum (the task has no stop tree:
    // no node, tool, loop or custom state, and no partial answer to keep).
    let max = u64::MAX;
    largest["conditions"] = serde_json::json!({
        "stats": {"steps": max, "input_tokens": max, "output_tokens": max, "elapsed_ms": max,
                  "consecutive_errors": max, "reward": -f64::MAX, "negative_rewards": max},
        "nodes": [], "tools": [], "loops": [], "customs": [], "custom_details": [],
        "last_text": ""
    });
    let largest = largest.to_string().len();
    assert!(
        report.checkpoint_bytes.1 <= largest,
        "{report:?}: {largest}"
    );
}
