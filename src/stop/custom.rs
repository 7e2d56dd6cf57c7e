//! Custom conditions, registered by name with a JSON configuration (rlm-code's
//! `PolicyRegistry`), and rlm-code's documented convergence policy as a registered example.

use std::collections::BTreeMap;
use std::fmt;
use std::panic::{RefUnwindSafe, UnwindSafe};
use std::sync::Arc;

use serde_json::Value;

use crate::{Message, VerdictKind};

/// What a custom condition sees at each step: the message and the run's statistics.
#[derive(Clone, Copy, Debug)]
pub struct StepView<'a> {
    pub(crate) message: &'a Message<'a>,
    pub(crate) at: u64,
    pub(crate) stats: &'a RunStats,
    pub(crate) final_answer: bool,
}

impl<'a> StepView<'a> {
    /// The message of this step.
    #[must_use]
    pub const fn message(&self) -> &'a Message<'a> {
        self.message
    }

    /// This step's index (0 for the first step of the run).
    #[must_use]
    pub const fn step(&self) -> u64 {
        self.at
    }

    /// The run's statistics, this step included.
    #[must_use]
    pub const fn stats(&self) -> &'a RunStats {
        self.stats
    }

    /// Whether the content carries a `FINAL` answer.
    #[must_use]
    pub const fn has_final(&self) -> bool {
        self.final_answer
    }
}

/// The statistics of one run, as stop conditions read them (awaken's
/// `StopPolicyStats`, rlm-code's context metrics).
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
#[non_exhaustive]
pub struct RunStats {
    /// Steps taken.
    pub steps: u64,
    /// Model responses among them: LLM messages with a response (with or without
    /// tool calls), what awaken's rounds, locus's iterations and the OpenAI Agents
    /// SDK's turns count.
    #[cfg_attr(feature = "serde", serde(default))]
    pub model_calls: u64,
    /// Chat messages among them, as AutoGen counts them: steps that are not a
    /// tool-call request or a tool's result.
    #[cfg_attr(feature = "serde", serde(default))]
    pub chat_messages: u64,
    /// Input tokens over all steps.
    pub input_tokens: u64,
    /// Output tokens over all steps.
    pub output_tokens: u64,
    /// Milliseconds since the run started (by the messages' `elapsed` or the
    /// monitor's clock).
    pub elapsed_ms: u64,
    /// Steps in a row, ending with this one, that reported an error.
    pub consecutive_errors: u64,
    /// The sum of the rewards reported so far.
    pub reward: f64,
    /// Reported rewards in a row, ending with the latest, that were negative.
    pub negative_rewards: u64,
}

impl RunStats {
    /// Input plus output tokens.
    #[must_use]
    pub const fn total_tokens(&self) -> u64 {
        self.input_tokens.saturating_add(self.output_tokens)
    }
}

/// What a custom condition says when it fires.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CustomFire {
    /// The kind of stop (usually `Done`).
    pub kind: VerdictKind,
    /// What it saw, for the outcome's evidence.
    pub detail: String,
}

impl CustomFire {
    /// A firing of this kind with this detail.
    #[must_use]
    pub fn new(kind: VerdictKind, detail: impl Into<String>) -> CustomFire {
        CustomFire {
            kind,
            detail: detail.into(),
        }
    }
}

/// A condition written in Rust, built by a [`Registry`] factory from its JSON
/// configuration.
///
/// Its per-run state is a JSON value, so that a checkpoint of the run carries it:
/// [`CustomPolicy::start`] makes it, [`CustomPolicy::check`] updates it at every step
/// (exactly once per step, so a stateful condition cannot double-count, unlike
/// rlm-code's reward policy evaluated twice).
pub trait CustomPolicy: Send + Sync + RefUnwindSafe + UnwindSafe + fmt::Debug {
    /// The state of a fresh run.
    fn start(&self) -> Value {
        Value::Null
    }

    /// Looks at one step: `Some` when the condition fires at it.
    fn check(&self, step: &StepView<'_>, state: &mut Value) -> Option<CustomFire>;

    /// How close the run is, for explanations (e.g. `2 of 3 outputs agree`).
    fn progress(&self, _state: &Value) -> String {
        String::new()
    }
}

/// Builds a custom condition from its JSON configuration, or says what is wrong
/// with the configuration.
pub type Factory = Arc<dyn Fn(&Value) -> Result<Arc<dyn CustomPolicy>, String> + Send + Sync>;

/// Custom conditions by name: what `custom("name", config={...})` refers to.
///
/// [`Registry::default`] holds the built-in `convergence`;
/// [`Registry::empty`] holds nothing.
///
/// ```
/// use std::sync::Arc;
/// use doneseq::stop::{Condition, CustomFire, CustomPolicy, Registry, StepView};
/// use doneseq::{Message, Monitor, TaskConfig, VerdictKind};
///
/// /// Stops when a message mentions a number above `limit`.
/// #[derive(Debug)]
/// struct Above(f64);
///
/// impl CustomPolicy for Above {
///     fn check(&self, step: &StepView<'_>, _: &mut serde_json::Value) -> Option<CustomFire> {
///         let n: f64 = step.message().content().trim().parse().ok()?;
///         (n > self.0).then(|| CustomFire::new(VerdictKind::Done, format!("{n} > {}", self.0)))
///     }
/// }
///
/// let mut registry = Registry::default();
/// registry.register("above", Arc::new(|config: &serde_json::Value| {
///     let limit = config["limit"].as_f64().ok_or("\"limit\" must be a number")?;
///     Ok(Arc::new(Above(limit)) as Arc<dyn CustomPolicy>)
/// }));
/// let mut config = TaskConfig::default();
/// config.stop = Some(Condition::custom("above", serde_json::json!({"limit": 10})));
/// let monitor = Monitor::with_registry(config, &registry)?;
/// let mut run = monitor.start();
/// assert!(!monitor.observe(&mut run, &Message::agent("7")).is_stop());
/// assert!(monitor.observe(&mut run, &Message::agent("12")).is_stop());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Registry {
    factories: BTreeMap<String, Factory>,
}

impl Registry {
    /// A registry with no condition in it.
    #[must_use]
    pub fn empty() -> Registry {
        Registry {
            factories: BTreeMap::new(),
        }
    }

    /// Registers (or replaces) the factory for `name`.
    pub fn register(&mut self, name: impl Into<String>, factory: Factory) -> &mut Registry {
        self.factories.insert(name.into(), factory);
        self
    }

    /// The registered names, sorted.
    #[must_use]
    pub fn names(&self) -> Vec<&str> {
        self.factories.keys().map(String::as_str).collect()
    }

    /// Builds the condition registered as `name` from `config`.
    ///
    /// # Errors
    ///
    /// The name is not registered (the message lists those that are), or the
    /// factory refused the configuration.
    pub fn build(&self, name: &str, config: &Value) -> Result<Arc<dyn CustomPolicy>, String> {
        match self.factories.get(name) {
            Some(factory) => factory(config),
            None => Err(format!(
                "no custom condition is registered as '{name}' (registered: {})",
                if self.factories.is_empty() {
                    "none".to_owned()
                } else {
                    self.names().join(", ")
                }
            )),
        }
    }
}

impl Default for Registry {
    /// The built-in custom conditions: `convergence` ([`Convergence`]).
    fn default() -> Registry {
        let mut registry = Registry::empty();
        registry.register(
            "convergence",
            Arc::new(|config: &Value| {
                Convergence::from_config(config).map(|c| Arc::new(c) as Arc<dyn CustomPolicy>)
            }),
        );
        registry
    }
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registry")
            .field("names", &self.names())
            .finish()
    }
}

/// The custom `convergence` policy of rlm-code's documentation: stop when the
/// model's outputs stop changing.
///
/// Configuration (rlm-code's defaults): `window_size` 3, `similarity_threshold`
/// 0.9, `min_steps` 3. It fires at a step with index at least `min_steps` when the
/// last `window_size` LLM outputs are all similar to the latest one: the share of
/// their words in common (Jaccard similarity of the sets of lowercase words) is at
/// least `similarity_threshold`. The documented code compares outputs for exact equality
/// and leaves the threshold unused; identical outputs have similarity 1, so its
/// example behaves the same here. The answer is the latest output.
#[derive(Clone, Debug, PartialEq)]
pub struct Convergence {
    window_size: usize,
    similarity_threshold: f64,
    min_steps: u64,
}

impl Convergence {
    /// Reads the configuration; `null` or `{}` gives the defaults.
    ///
    /// # Errors
    ///
    /// An unknown key, a value of the wrong type, a window below 2, or a threshold
    /// outside 0..=1.
    pub fn from_config(config: &Value) -> Result<Convergence, String> {
        let mut c = Convergence {
            window_size: 3,
            similarity_threshold: 0.9,
            min_steps: 3,
        };
        let map = match config {
            Value::Null => return Ok(c),
            Value::Object(map) => map,
            other => {
                return Err(format!(
                    "convergence: the configuration must be an object, not {other}"
                ));
            }
        };
        for (key, value) in map {
            match key.as_str() {
                "window_size" => {
                    let n = value
                        .as_u64()
                        .ok_or("convergence: window_size must be a whole number")?;
                    c.window_size = usize::try_from(n)
                        .ok()
                        .filter(|n| (2..=64).contains(n))
                        .ok_or("convergence: window_size must be between 2 and 64")?;
                }
                "similarity_threshold" => {
                    c.similarity_threshold = value
                        .as_f64()
                        .filter(|t| (0.0..=1.0).contains(t))
                        .ok_or("convergence: similarity_threshold must be a number in 0..=1")?;
                }
                "min_steps" => {
                    c.min_steps = value
                        .as_u64()
                        .ok_or("convergence: min_steps must be a whole number")?;
                }
                other => {
                    return Err(format!(
                        "convergence: unknown option '{other}' (expected window_size, similarity_threshold, min_steps)"
                    ));
                }
            }
        }
        Ok(c)
    }
}

fn words(text: &str) -> std::collections::BTreeSet<String> {
    text.split_whitespace().map(str::to_lowercase).collect()
}

fn similarity(a: &str, b: &str) -> f64 {
    let (a, b) = (words(a), words(b));
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let common = a.intersection(&b).count();
    let all = a.union(&b).count();
    #[allow(clippy::cast_precision_loss)]
    let ratio = common as f64 / all as f64;
    ratio
}

impl CustomPolicy for Convergence {
    fn start(&self) -> Value {
        Value::Array(Vec::new())
    }

    fn check(&self, step: &StepView<'_>, state: &mut Value) -> Option<CustomFire> {
        let message = step.message();
        if message.role() != crate::Role::Llm || message.is_no_response() {
            return None;
        }
        if !state.is_array() {
            *state = Value::Array(Vec::new());
        }
        let recent = state.as_array_mut()?;
        recent.push(Value::String(message.content().to_owned()));
        if recent.len() > self.window_size {
            let excess = recent.len() - self.window_size;
            recent.drain(..excess);
        }
        if step.step() < self.min_steps || recent.len() < self.window_size {
            return None;
        }
        let latest = message.content();
        let agree = recent
            .iter()
            .filter_map(Value::as_str)
            .all(|o| similarity(o, latest) >= self.similarity_threshold);
        agree.then(|| {
            CustomFire::new(
                VerdictKind::Done,
                format!("the last {} outputs converged", self.window_size),
            )
        })
    }

    fn progress(&self, state: &Value) -> String {
        let seen = state.as_array().map_or(0, Vec::len);
        format!("{seen} of {} outputs in the window", self.window_size)
    }
}
