//! The table of conditions: one row per built-in condition and combinator, holding
//! its name, aliases, options (their kinds, and whether they may be given by
//! position), the kind of stop it stands for, a line of documentation and examples.
//! The expression parser, the canonical printer, serde, the lint and the
//! explanations read it; adding a built-in starts with its row here.

use super::VerdictKind;

/// The kind of value an option takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ParamKind {
    /// A string holding done-sequence DSL text.
    Sequence,
    /// A string holding a regex.
    Pattern,
    /// A whole number, 0 to `u64::MAX`.
    Count,
    /// A finite number.
    Float,
    /// A duration (`300s`, `5m`), or a whole number of seconds.
    Duration,
    /// `true` or `false`.
    Bool,
    /// A non-empty name: a bare word or a string.
    Name,
    /// One of these words (bare or quoted).
    Word(&'static [&'static str]),
    /// Speakers: roles and `@responder` names, as a list or one of them.
    Speakers,
    /// Names, as a list or one of them.
    Names,
    /// A JSON value.
    Json,
    /// A JSON object.
    JsonObject,
}

/// One option of a built-in condition.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Param {
    /// Its name, in `key=value` and in serde.
    pub(crate) key: &'static str,
    /// What it takes.
    pub(crate) kind: ParamKind,
    /// Whether it may also be given by position (positional ones come first).
    pub(crate) positional: bool,
    /// Other names of the field in the object form (serde): the peers' spellings,
    /// e.g. rlm-code's `confidence_threshold`, awaken's `tool_name`.
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    pub(crate) aliases: &'static [&'static str],
}

impl Param {
    /// The same option, also read from these field names in the object form.
    const fn aka(self, aliases: &'static [&'static str]) -> Param {
        Param { aliases, ..self }
    }
}

const fn pos(key: &'static str, kind: ParamKind) -> Param {
    Param {
        key,
        kind,
        positional: true,
        aliases: &[],
    }
}

const fn opt(key: &'static str, kind: ParamKind) -> Param {
    Param {
        key,
        kind,
        positional: false,
        aliases: &[],
    }
}

/// A field of a peer's object form that is not an option under another name, but
/// stands for options in another way (awaken's shapes); read by serde only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "serde"), allow(dead_code))]
pub(crate) enum Compat {
    /// awaken's limit field for the count option `into` (awaken's `rounds` for
    /// `turns`, `max_total` for `total`), where awaken reads 0 as "disabled": refused.
    AwakenLimit {
        key: &'static str,
        into: &'static str,
    },
    /// A duration as a whole number of this many milliseconds per unit, for the
    /// duration option `into` (`seconds`: 1000, awaken's field and what a whole-second
    /// timeout serializes as; `millis`: 1).
    DurationUnit {
        key: &'static str,
        millis: u64,
        into: &'static str,
    },
    /// awaken's `loop_detection` `window`: the last `window` texts are identical,
    /// which is `period=1, repeats=window, over=texts`.
    LoopWindow,
}

/// Which built-in condition or combinator a node is: the row of the table of
/// conditions that declares its name, aliases and options.
///
/// ```
/// use doneseq::stop::{Condition, ConditionId};
///
/// let id = Condition::max_turns(3).id();
/// assert_eq!(id, ConditionId::MaxTurns);
/// assert_eq!(id.name(), "max_turns");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
#[non_exhaustive]
pub enum ConditionId {
    /// `seq("...")`.
    Seq,
    /// `final`.
    Final,
    /// `done_signal`.
    DoneSignal,
    /// `max_turns(n)`.
    MaxTurns,
    /// `max_model_calls(n)`.
    MaxModelCalls,
    /// `max_messages(n)`.
    MaxMessages,
    /// `stop_message`.
    StopMessage,
    /// `handoff(...)`.
    Handoff,
    /// `tokens(...)`.
    Tokens,
    /// `timeout(d)`.
    Timeout,
    /// `consecutive_errors(n)`.
    ConsecutiveErrors,
    /// `tool(...)`.
    Tool,
    /// `no_tool_calls`.
    NoToolCalls,
    /// `text("...")`.
    Text,
    /// `confidence(t)`.
    Confidence,
    /// `reward(t)`.
    Reward,
    /// `loop(...)`.
    Loop,
    /// `cancelled`.
    Cancelled,
    /// `response(...)`.
    Response,
    /// `no_response(...)`.
    NoResponse,
    /// `single_round`.
    SingleRound,
    /// `custom(name)`.
    Custom,
    /// `all(...)`, `&`.
    All,
    /// `any(...)`, `|`.
    Any,
    /// `not(...)`, `!`.
    Not,
}

impl ConditionId {
    /// Every built-in condition and combinator, in the order the docs list them.
    pub const ALL: [ConditionId; 25] = [
        ConditionId::Seq,
        ConditionId::Final,
        ConditionId::DoneSignal,
        ConditionId::MaxTurns,
        ConditionId::MaxModelCalls,
        ConditionId::MaxMessages,
        ConditionId::StopMessage,
        ConditionId::Handoff,
        ConditionId::Tokens,
        ConditionId::Timeout,
        ConditionId::ConsecutiveErrors,
        ConditionId::Tool,
        ConditionId::NoToolCalls,
        ConditionId::Text,
        ConditionId::Confidence,
        ConditionId::Reward,
        ConditionId::Loop,
        ConditionId::Cancelled,
        ConditionId::Response,
        ConditionId::NoResponse,
        ConditionId::SingleRound,
        ConditionId::Custom,
        ConditionId::All,
        ConditionId::Any,
        ConditionId::Not,
    ];

    /// Its row of the table.
    pub(crate) fn row(self) -> &'static Builtin {
        // Every id has a row (`tests/table.rs` walks them).
        BUILTINS
            .iter()
            .find(|b| b.id == self)
            .unwrap_or(&BUILTINS[0])
    }

    /// The canonical name, as the expression language and the serde `type` tag write
    /// it.
    #[must_use]
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// The other names accepted on input (e.g. `max_rounds` for `max_turns`).
    #[must_use]
    pub fn aliases(self) -> &'static [&'static str] {
        self.row().aliases
    }

    /// The kind of stop it stands for when it fires; `None` for `&` and `|`, and for
    /// `reward` (done or failed) and `custom` (its policy says).
    #[must_use]
    pub fn verdict_kind(self) -> Option<VerdictKind> {
        self.row().kind
    }

    /// One line saying when it fires.
    #[must_use]
    pub fn doc(self) -> &'static str {
        self.row().doc
    }

    /// A usage line, e.g. `max_turns(10)`.
    #[must_use]
    pub fn usage(self) -> &'static str {
        self.row().usage
    }

    /// Examples in canonical form: each parses, and prints back as written.
    #[must_use]
    pub fn examples(self) -> &'static [&'static str] {
        self.row().examples
    }

    /// The options it takes, in declared order: their names, as `key=value` and in
    /// serde.
    #[must_use]
    pub fn options(self) -> Vec<&'static str> {
        self.row().params.iter().map(|p| p.key).collect()
    }
}

/// A condition of the language: its canonical name, the aliases accepted on input,
/// its options, the kind of stop it stands for, a line of documentation, a usage
/// example for messages, and canonical examples (each parses and prints back as
/// written, and round-trips through JSON, TOML and YAML: `tests/table.rs`).
#[derive(Debug)]
pub(crate) struct Builtin {
    pub(crate) id: ConditionId,
    pub(crate) name: &'static str,
    pub(crate) aliases: &'static [&'static str],
    pub(crate) params: &'static [Param],
    /// The kind it stands for when it fires; `None` for `&` and `|`, and for the
    /// conditions whose kind depends on what they saw (`reward`, `custom`).
    pub(crate) kind: Option<VerdictKind>,
    pub(crate) doc: &'static str,
    pub(crate) usage: &'static str,
    pub(crate) examples: &'static [&'static str],
    /// The peers' object shapes that stand for options (serde only).
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    pub(crate) compat: &'static [Compat],
}

pub(crate) const PHASES: &[&str] = &["requested", "executed", "finished"];
pub(crate) const LOOP_OVER: &[&str] = &["both", "calls", "texts"];

/// Every condition of the language, in the order the docs list them.
pub(crate) const BUILTINS: &[Builtin] = &[
    Builtin {
        id: ConditionId::Seq,
        name: "seq",
        aliases: &[],
        params: &[pos("sequence", ParamKind::Sequence)],
        kind: Some(VerdictKind::Done),
        doc: "a done sequence matches the latest steps",
        usage: "seq(\"T[calculator], A\")",
        examples: &[
            r#"seq("T[calculator], A")"#,
            r#"seq("calc: T[calculator], A@Calculator & !E")"#,
        ],
        compat: &[],
    },
    Builtin {
        id: ConditionId::Final,
        name: "final",
        aliases: &[],
        params: &[],
        kind: Some(VerdictKind::Done),
        doc: "the message carries a FINAL(...), FINAL_VAR(...) or SUBMIT(...) answer",
        usage: "final",
        examples: &[r#"final"#],
        compat: &[],
    },
    Builtin {
        id: ConditionId::DoneSignal,
        name: "done_signal",
        aliases: &[],
        params: &[],
        kind: Some(VerdictKind::Done),
        doc: "the content says DONE as a word (Langroid's string signal)",
        usage: "done_signal",
        examples: &[r#"done_signal"#],
        compat: &[],
    },
    Builtin {
        id: ConditionId::MaxTurns,
        name: "max_turns",
        aliases: &["max_steps"],
        params: &[pos("turns", ParamKind::Count)],
        kind: Some(VerdictKind::Exhausted),
        doc: "this many steps were taken (Langroid's turns: every responder's step)",
        usage: "max_turns(10)",
        examples: &[r#"max_turns(10)"#],
        compat: &[],
    },
    Builtin {
        id: ConditionId::MaxModelCalls,
        name: "max_model_calls",
        aliases: &["max_rounds", "max_iterations"],
        params: &[pos("calls", ParamKind::Count)],
        kind: Some(VerdictKind::Exhausted),
        doc: "the model responded this many times (awaken's rounds, locus's iterations, \
              the OpenAI Agents SDK's turns)",
        usage: "max_model_calls(10)",
        examples: &[r#"max_model_calls(10)"#],
        compat: &[Compat::AwakenLimit {
            key: "rounds",
            into: "calls",
        }],
    },
    Builtin {
        id: ConditionId::MaxMessages,
        name: "max_messages",
        aliases: &[],
        params: &[
            pos("messages", ParamKind::Count),
            opt("events", ParamKind::Bool).aka(&["include_agent_event"]),
        ],
        kind: Some(VerdictKind::Exhausted),
        doc: "this many chat messages, as AutoGen counts them (tool-call requests and \
              results only with events=true)",
        usage: "max_messages(10, events=false)",
        examples: &[r#"max_messages(10)"#, r#"max_messages(10, events=true)"#],
        compat: &[],
    },
    Builtin {
        id: ConditionId::StopMessage,
        name: "stop_message",
        aliases: &[],
        params: &[],
        kind: Some(VerdictKind::Done),
        doc: "a stop message arrived (AutoGen's StopMessage)",
        usage: "stop_message",
        examples: &[r#"stop_message"#],
        compat: &[],
    },
    Builtin {
        id: ConditionId::Handoff,
        name: "handoff",
        aliases: &[],
        params: &[pos("targets", ParamKind::Names).aka(&["target"])],
        kind: Some(VerdictKind::Done),
        doc: "a handoff to one of these agents (any agent when none is named)",
        usage: "handoff or handoff([user])",
        examples: &[r#"handoff"#, r#"handoff([user, reviewer])"#],
        compat: &[],
    },
    Builtin {
        id: ConditionId::Tokens,
        name: "tokens",
        aliases: &["token_limit", "token_budget"],
        params: &[
            pos("total", ParamKind::Count),
            opt("input", ParamKind::Count),
            opt("output", ParamKind::Count),
        ],
        kind: Some(VerdictKind::Exhausted),
        doc: "a cumulative token count reaches its limit",
        usage: "tokens(100000) or tokens(input=80000, output=20000)",
        examples: &[
            r#"tokens(100000)"#,
            r#"tokens(input=80000, output=20000)"#,
            r#"tokens(5000, output=1000)"#,
        ],
        compat: &[Compat::AwakenLimit {
            key: "max_total",
            into: "total",
        }],
    },
    Builtin {
        id: ConditionId::Timeout,
        name: "timeout",
        aliases: &["time_limit"],
        params: &[pos("limit", ParamKind::Duration)],
        kind: Some(VerdictKind::Exhausted),
        doc: "the run's elapsed time reaches this duration",
        usage: "timeout(5m), timeout(300s) or timeout(300)",
        examples: &[r#"timeout(5m)"#, r#"timeout(1500ms)"#, r#"timeout(2h)"#],
        compat: &[
            Compat::DurationUnit {
                key: "seconds",
                millis: 1000,
                into: "limit",
            },
            Compat::DurationUnit {
                key: "millis",
                millis: 1,
                into: "limit",
            },
        ],
    },
    Builtin {
        id: ConditionId::ConsecutiveErrors,
        name: "consecutive_errors",
        aliases: &["errors", "max_errors"],
        params: &[pos("max", ParamKind::Count)],
        kind: Some(VerdictKind::Failed),
        doc: "this many steps in a row reported an error",
        usage: "consecutive_errors(3)",
        examples: &[r#"consecutive_errors(3)"#],
        compat: &[],
    },
    Builtin {
        id: ConditionId::Tool,
        name: "tool",
        aliases: &["tool_called", "stop_on_tool"],
        params: &[
            pos("name", ParamKind::Name).aka(&["tool_name"]),
            pos("when", ParamKind::Word(PHASES)),
            opt("args", ParamKind::JsonObject),
        ],
        kind: Some(VerdictKind::Done),
        doc: "the model requests a tool, or its result arrives (executed: without an error; \
              finished: failed or not, as AutoGen counts)",
        usage: "tool, tool(submit), tool(submit, executed) or tool(search, args={\"q\": \"x\"})",
        examples: &[
            r#"tool"#,
            r#"tool(submit)"#,
            r#"tool(submit, executed)"#,
            r#"tool(submit, finished)"#,
            r#"tool(when=executed)"#,
            r#"tool(search, args={"q":"x"})"#,
        ],
        compat: &[],
    },
    Builtin {
        id: ConditionId::NoToolCalls,
        name: "no_tool_calls",
        aliases: &["no_tools"],
        params: &[],
        kind: Some(VerdictKind::Done),
        doc: "the model answered with text and no tool call",
        usage: "no_tool_calls",
        examples: &[r#"no_tool_calls"#],
        compat: &[],
    },
    Builtin {
        id: ConditionId::Text,
        name: "text",
        aliases: &["text_mention", "content_match"],
        params: &[
            pos("pattern", ParamKind::Pattern),
            opt("from", ParamKind::Speakers),
        ],
        kind: Some(VerdictKind::Done),
        doc: "a regex (case-sensitive) matches the content, optionally only from some speakers",
        usage: "text(\"\\bDONE\\b\") or text(\"approved\", from=[llm, @Reviewer])",
        examples: &[
            r#"text("\bDONE\b")"#,
            r#"text("approved", from=[llm, @Reviewer])"#,
        ],
        compat: &[],
    },
    Builtin {
        id: ConditionId::Confidence,
        name: "confidence",
        aliases: &["confidence_met"],
        params: &[
            pos("threshold", ParamKind::Float).aka(&["confidence_threshold"]),
            opt("min_steps", ParamKind::Count).aka(&["min_steps_before_termination"]),
            opt("key", ParamKind::Name).aka(&["confidence_key"]),
            opt("fallback_final", ParamKind::Bool).aka(&["fallback_to_final_pattern"]),
        ],
        kind: Some(VerdictKind::Done),
        doc: "the message's confidence reaches a threshold (rlm-code's confidence policy)",
        usage: "confidence(0.85, min_steps=2, key=confidence, fallback_final=true)",
        examples: &[
            r#"confidence(0.85)"#,
            r#"confidence(0.9, min_steps=0, key=score, fallback_final=false)"#,
        ],
        compat: &[],
    },
    Builtin {
        id: ConditionId::Reward,
        name: "reward",
        aliases: &["reward_threshold"],
        params: &[
            pos("threshold", ParamKind::Float).aka(&["min_reward_threshold"]),
            opt("negative_streak", ParamKind::Count).aka(&["max_negative_streak"]),
            opt("require_final", ParamKind::Bool).aka(&["require_final_action"]),
        ],
        kind: None,
        doc: "the cumulative reward reaches a threshold (done), or rewards were negative too many steps in a row (failed)",
        usage: "reward(0.8, negative_streak=3, require_final=false)",
        examples: &[
            r#"reward(0.8)"#,
            r#"reward(1.5, negative_streak=0, require_final=true)"#,
        ],
        compat: &[],
    },
    Builtin {
        id: ConditionId::Loop,
        name: "loop",
        aliases: &["loop_detection"],
        params: &[
            opt("period", ParamKind::Count),
            opt("repeats", ParamKind::Count),
            opt("over", ParamKind::Word(LOOP_OVER)),
            opt("exempt", ParamKind::Names),
        ],
        kind: Some(VerdictKind::Stuck),
        doc: "the latest steps repeat a cycle",
        usage: "loop or loop(period=10, repeats=3, over=both, exempt=[poll])",
        examples: &[
            r#"loop"#,
            r#"loop(period=4, repeats=5, over=calls, exempt=[poll])"#,
        ],
        compat: &[Compat::LoopWindow],
    },
    Builtin {
        id: ConditionId::Cancelled,
        name: "cancelled",
        aliases: &["cancel"],
        params: &[],
        kind: Some(VerdictKind::Cancelled),
        doc: "the run's cancel handle was set",
        usage: "cancelled",
        examples: &[r#"cancelled"#],
        compat: &[],
    },
    Builtin {
        id: ConditionId::Response,
        name: "response",
        aliases: &["done_if_response"],
        params: &[pos("from", ParamKind::Speakers).aka(&["roles"])],
        kind: Some(VerdictKind::Done),
        doc: "one of these speakers gave a valid response (Langroid's done_if_response)",
        usage: "response(llm) or response([llm, @Critic])",
        examples: &[r#"response([llm])"#, r#"response([agent, @Critic])"#],
        compat: &[],
    },
    Builtin {
        id: ConditionId::NoResponse,
        name: "no_response",
        aliases: &["done_if_no_response"],
        params: &[pos("from", ParamKind::Speakers).aka(&["roles"])],
        kind: Some(VerdictKind::Done),
        doc: "one of these speakers gave no valid response (Langroid's done_if_no_response)",
        usage: "no_response(llm) or no_response([llm, user])",
        examples: &[r#"no_response([llm, user])"#],
        compat: &[],
    },
    Builtin {
        id: ConditionId::SingleRound,
        name: "single_round",
        aliases: &[],
        params: &[opt("llm_delegate", ParamKind::Bool)],
        kind: Some(VerdictKind::Done),
        doc: "one round after the task's input: its first step, or its first two when \
              the LLM is the controller (Langroid's single_round and llm_delegate)",
        usage: "single_round or single_round(llm_delegate=true)",
        examples: &[r#"single_round"#, r#"single_round(llm_delegate=true)"#],
        compat: &[],
    },
    Builtin {
        id: ConditionId::Custom,
        name: "custom",
        aliases: &[],
        params: &[pos("name", ParamKind::Name), pos("config", ParamKind::Json)],
        kind: None,
        doc: "a condition registered by name in a Registry, with its JSON configuration",
        usage: "custom(my_check) or custom(my_check, config={\"limit\": 3})",
        examples: &[
            r#"custom(convergence)"#,
            r#"custom(convergence, config={"window":3})"#,
        ],
        compat: &[],
    },
    Builtin {
        id: ConditionId::All,
        name: "all",
        aliases: &[],
        params: &[],
        kind: None,
        doc: "every child has fired at some step of this run (latched)",
        usage: "all(a, b) or a & b",
        examples: &[r#"final & max_turns(3)"#, r#"all()"#],
        compat: &[],
    },
    Builtin {
        id: ConditionId::Any,
        name: "any",
        aliases: &[],
        params: &[],
        kind: None,
        doc: "some child fires at this step",
        usage: "any(a, b) or a | b",
        examples: &[r#"final | max_turns(3)"#, r#"any()"#],
        compat: &[],
    },
    Builtin {
        id: ConditionId::Not,
        name: "not",
        aliases: &[],
        params: &[],
        // No kind of its own: the lowest, so that it never outranks what fires with
        // it, and a stop that fires only through negations is not `done`.
        kind: Some(VerdictKind::Exhausted),
        doc: "the child does not fire at this step (a stop only through negations is exhausted)",
        usage: "not(a) or !a",
        examples: &[r#"!final"#],
        compat: &[],
    },
];

/// The canonical names, for "unknown condition" messages: `seq, final, ...`.
pub(crate) fn known_conditions() -> String {
    let names: Vec<&str> = BUILTINS.iter().map(|b| b.name).collect();
    names.join(", ")
}

/// The condition of this canonical name or alias.
pub(crate) fn builtin(name: &str) -> Option<&'static Builtin> {
    BUILTINS
        .iter()
        .find(|b| b.name == name || b.aliases.contains(&name))
}
