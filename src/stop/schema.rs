//! JSON Schema of task configurations and stop conditions (feature `schema`), built
//! from the table of conditions, so that editors complete and check configuration
//! files with the names, aliases and options the parser reads.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde_json::{Map, Value, json};

use super::table::{BUILTINS, Builtin, Compat, ParamKind};
use super::{Condition, TaskConfig, TaskInput};

/// The schema of one option's value.
fn param_schema(kind: ParamKind) -> Value {
    let names = json!({"anyOf": [
        {"type": "string", "minLength": 1},
        {"type": "array", "items": {"type": "string", "minLength": 1}}
    ]});
    match kind {
        ParamKind::Sequence => json!({
            "description": "a done sequence in the DSL, or its object form",
            "type": ["string", "object"]
        }),
        ParamKind::Pattern => json!({"type": "string", "minLength": 1}),
        ParamKind::Count => json!({"type": "integer", "minimum": 0}),
        ParamKind::Float => json!({"type": "number"}),
        ParamKind::Duration => json!({
            "description": "a duration (\"300s\", \"5m\") or a whole number of seconds",
            "type": ["string", "integer"]
        }),
        ParamKind::Bool => json!({"type": "boolean"}),
        ParamKind::Name => json!({"type": "string", "minLength": 1}),
        ParamKind::Word(words) => json!({"type": "string", "enum": words}),
        ParamKind::Speakers => json!({
            "description": "roles (user, llm, agent) and @responder names",
            "anyOf": names["anyOf"]
        }),
        ParamKind::Names => names,
        ParamKind::Json => json!({}),
        ParamKind::JsonObject => json!({"type": "object"}),
    }
}

/// The tagged object form of one built-in: `{"type": name or alias, options...}`.
fn builtin_schema(row: &Builtin) -> Value {
    let mut properties = Map::new();
    let names: Vec<&str> = std::iter::once(row.name)
        .chain(row.aliases.iter().copied())
        .collect();
    properties.insert("type".into(), json!({"enum": names}));
    for param in row.params {
        let schema = param_schema(param.kind);
        properties.insert(param.key.into(), schema.clone());
        for alias in param.aliases {
            properties.insert((*alias).into(), schema.clone());
        }
    }
    for compat in row.compat {
        match compat {
            Compat::AwakenLimit { key, .. } => {
                properties.insert((*key).into(), json!({"type": "integer", "minimum": 1}));
            }
            Compat::DurationUnit { key, .. } => {
                properties.insert((*key).into(), json!({"type": "integer", "minimum": 0}));
            }
            Compat::LoopWindow => {
                properties.insert("window".into(), json!({"type": "integer", "minimum": 2}));
            }
        }
    }
    json!({
        "type": "object",
        "description": row.doc,
        "properties": properties,
        "required": ["type"],
        "additionalProperties": false
    })
}

impl JsonSchema for Condition {
    fn schema_name() -> Cow<'static, str> {
        "Condition".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let this = Value::from(generator.subschema_for::<Condition>());
        let list = json!({"type": "array", "items": this});
        let mut forms = vec![
            json!({"type": "string", "description": "a stop expression, e.g. \"final | max_turns(10)\""}),
            json!({"description": "any of these conditions, in order", "type": "array", "items": this}),
            json!({"type": "object", "properties": {"all": list}, "required": ["all"], "additionalProperties": false}),
            json!({"type": "object", "properties": {"any": list}, "required": ["any"], "additionalProperties": false}),
            json!({"type": "object", "properties": {"not": this}, "required": ["not"], "additionalProperties": false}),
            json!({
                "type": "object",
                "properties": {"type": {"enum": ["all", "any"]}, "of": list},
                "required": ["type", "of"],
                "additionalProperties": false
            }),
            json!({
                "type": "object",
                "properties": {"type": {"enum": ["not"]}, "of": this},
                "required": ["type", "of"],
                "additionalProperties": false
            }),
        ];
        // The combinators' object forms are above; every other row has its own.
        for row in BUILTINS {
            if !matches!(row.name, "all" | "any" | "not") {
                forms.push(builtin_schema(row));
            }
        }
        let schema = json!({
            "description": "A stop condition: an expression, a list (any of it), or the tagged object form",
            "anyOf": forms
        });
        Schema::try_from(schema).unwrap_or_else(|_| json_schema!(true))
    }
}

impl JsonSchema for TaskConfig {
    fn schema_name() -> Cow<'static, str> {
        "TaskConfig".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let roles = json!({"type": "array", "items": {"enum": ["user", "llm", "assistant", "agent", "tool", "function"]}});
        let stop = Value::from(generator.subschema_for::<Condition>());
        let input_modes: Vec<&str> = TaskInput::ALL.iter().map(|m| m.name()).collect();
        let schema = json!({
            "title": "doneseq task configuration",
            "description": "Langroid's termination options and a stop condition (doneseq's TaskConfig)",
            "type": "object",
            "properties": {
                "done_sequences": {
                    "description": "done sequences, in the DSL or Langroid's object form; the first that matches ends the task",
                    "type": "array",
                    "items": {"type": ["string", "object"]}
                },
                "done_if_tool": {"type": "boolean"},
                "done_if_response": roles,
                "done_if_no_response": roles,
                "single_round": {"type": "boolean"},
                "llm_delegate": {"description": "the LLM is the controller: a single round is two steps", "type": "boolean"},
                "max_turns": {"description": "steps; null or negative: no limit", "type": ["integer", "null"]},
                "recognize_string_signals": {"type": "boolean"},
                "stop": {"anyOf": [stop, {"type": "null"}]},
                "input": {
                    "description": "which messages are the task's input, not steps: leading (the user messages before the first response), marked (only messages marked \"input\": true), steps (none)",
                    "enum": input_modes
                },
                "tool_classes": {
                    "description": "tool class names and the request names they stand for",
                    "type": "object",
                    "additionalProperties": {"type": "string", "minLength": 1}
                }
            },
            "additionalProperties": false
        });
        Schema::try_from(schema).unwrap_or_else(|_| json_schema!(true))
    }
}

/// The JSON Schema of a task configuration file (what `doneseq schema` prints).
///
/// ```
/// let schema = doneseq::stop::config_schema();
/// assert_eq!(schema["title"], "doneseq task configuration");
/// assert!(schema["$defs"]["Condition"]["anyOf"].is_array());
/// ```
#[must_use]
pub fn config_schema() -> Value {
    Value::from(schemars::schema_for!(TaskConfig))
}
