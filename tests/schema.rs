//! The JSON Schema of configuration files: the committed `schema/doneseq.schema.json`
//! is what `doneseq schema` prints (regenerate it with
//! `cargo run -- schema > schema/doneseq.schema.json`), and it names every condition.
//! (The Python tests validate the example configurations against it.)

use doneseq::stop::{ConditionId, config_schema};

#[test]
fn the_committed_schema_is_current() {
    let committed: serde_json::Value =
        serde_json::from_str(include_str!("../schema/doneseq.schema.json")).unwrap();
    assert_eq!(
        committed,
        config_schema(),
        "run: cargo run -- schema > schema/doneseq.schema.json"
    );
}

#[test]
fn the_schema_names_every_condition_and_alias() {
    let schema = config_schema().to_string();
    for id in ConditionId::ALL {
        if matches!(id, ConditionId::All | ConditionId::Any | ConditionId::Not) {
            continue;
        }
        for name in std::iter::once(id.name()).chain(id.aliases().iter().copied()) {
            assert!(schema.contains(&format!("\"{name}\"")), "{name}");
        }
    }
}
