//! rlm-code's `final_pattern` termination policy, with the parser in place of its
//! default regexes.

use std::ops::Range;

use regex::{Regex, RegexBuilder};

use super::{
    Ambiguity, AnswerValue, FinalDetector, FinalKind, FinalOptions, ResolveError,
    format_final_answer, resolve_final_var,
};
use crate::{MAX_PATTERN_LEN, MAX_REGEX_FOLD_WORK, MAX_REGEX_SIZE};

/// The configuration of a [`FinalPatternPolicy`], with rlm-code's field names.
///
/// ```
/// use doneseq::answer::FinalPatternConfig;
///
/// let config = FinalPatternConfig {
///     final_patterns: vec![r"ANSWER:\s*(.+?)$".into(), r"SOLUTION\s*=\s*(.+?)$".into()],
///     ..FinalPatternConfig::default()
/// };
/// assert!(!config.case_sensitive && config.extract_answer && !config.strict);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FinalPatternConfig {
    /// Extra regexes, tried in order when the text holds no signal. The answer is the
    /// first capture group (trimmed), or the whole match when there is none. A
    /// pattern whose text contains `FINAL_VAR` captures a variable name, which is then
    /// looked up. At most [`FinalPatternPolicy::MAX_PATTERNS`], each at most
    /// [`MAX_PATTERN_LEN`](crate::MAX_PATTERN_LEN) bytes. Multi-line mode is on (`^`
    /// and `$` match at line breaks).
    ///
    /// Default: none. rlm-code's three default regexes are replaced by the parser,
    /// which detects what they were meant to (`FINAL('answer')`, `FINAL(answer)`,
    /// `FINAL_VAR('name')`) and more (`FINAL_VAR(name)`, `SUBMIT(...)`, nested
    /// parentheses) without their false positives. A list ported from rlm-code that
    /// repeats a default pattern still works; the repeat is redundant.
    pub final_patterns: Vec<String>,
    /// Whether `final_patterns` match case-sensitively. Default `false`, as in
    /// rlm-code.
    ///
    /// The protocol's names are always case-sensitive, whatever this says: rlm-code
    /// applies it to `FINAL` too, which is how "This is the final (third) draft" stops
    /// a run with the answer `third`. Add a pattern if a case-insensitive `final(...)`
    /// is really wanted.
    pub case_sensitive: bool,
    /// Whether the answer is extracted from the signal (`true`, the default) or is the
    /// whole output.
    pub extract_answer: bool,
    /// Whether a signal must start its line ([`FinalOptions::strict`]). Default
    /// `false`. (Not in rlm-code.)
    pub strict: bool,
}

impl Default for FinalPatternConfig {
    fn default() -> Self {
        FinalPatternConfig {
            final_patterns: Vec::new(),
            case_sensitive: false,
            extract_answer: true,
            strict: false,
        }
    }
}

/// rlm-code's `final_pattern` termination policy: stop when an action is final, or
/// when its output holds a FINAL signal or matches an extra pattern.
///
/// [`FinalPatternPolicy::should_terminate`] takes the fields of rlm-code's
/// `ActionResult` and `PolicyContext` that the policy reads. Differences from rlm-code,
/// besides the parser (see [`FinalPatternConfig`] and the [module docs](super)):
///
/// - a `FINAL_VAR` whose variable is missing does not stop the run with the variable's
///   *name* as the answer (rlm-code's silent fallback): it gives
///   [`Decision::Unresolved`], and the run should go on with the error shown to the
///   model;
/// - two different signals give [`Decision::Ambiguous`] and do not stop the run;
/// - the answer of a `SUBMIT` is its fields formatted by [`format_final_answer`] (the
///   `answer` field if there is one, else JSON), and a variable's value is formatted
///   the same way (`4950` → `"4950"`).
///
/// ```
/// use doneseq::answer::{AnswerValue, Decision, FinalPatternPolicy};
///
/// let policy = FinalPatternPolicy::default();
/// let none: [(&str, &AnswerValue); 0] = [];
/// let d = policy.should_terminate("code", "After computing, the answer is FINAL('42')", none);
/// assert_eq!(d.answer(), Some("42"));
///
/// let vars = [("result", AnswerValue::Int(4950))];
/// let vars = || vars.iter().map(|(k, v)| (*k, v));
/// assert_eq!(policy.should_terminate("code", "FINAL_VAR('result')", vars()).answer(), Some("4950"));
/// assert!(matches!(policy.should_terminate("code", "FINAL_VAR('total')", vars()),
///                  Decision::Unresolved(_)));
/// assert!(!policy.should_terminate("code", "This is the final (third) draft", none).should_stop());
/// ```
#[derive(Clone, Debug, Default)]
pub struct FinalPatternPolicy {
    config: FinalPatternConfig,
    detector: FinalDetector,
    patterns: Vec<(Regex, bool)>,
}

/// What a [`FinalPatternPolicy`] decided about one action.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Decision {
    /// No signal: keep going.
    Continue,
    /// Stop, with this answer.
    Stop {
        /// The final answer.
        answer: String,
        /// What made the policy stop.
        trigger: Trigger,
    },
    /// A `FINAL_VAR` named a variable that does not exist: keep going, and tell the
    /// model.
    Unresolved(ResolveError),
    /// Two different signals: keep going (neither is the answer).
    Ambiguous(Ambiguity),
}

impl Decision {
    /// Whether to stop the run.
    #[must_use]
    pub fn should_stop(&self) -> bool {
        matches!(self, Decision::Stop { .. })
    }

    /// The final answer, when stopping.
    #[must_use]
    pub fn answer(&self) -> Option<&str> {
        match self {
            Decision::Stop { answer, .. } => Some(answer),
            _ => None,
        }
    }
}

/// What made a [`FinalPatternPolicy`] stop.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Trigger {
    /// The action's type was `"final"`.
    FinalAction,
    /// A signal of this kind, at this span of the output.
    Signal {
        /// Which call.
        kind: FinalKind,
        /// Where it is in the output.
        span: Range<usize>,
    },
    /// The extra pattern with this index in `final_patterns`, at this span.
    Pattern {
        /// Its index in [`FinalPatternConfig::final_patterns`].
        index: usize,
        /// Where it matched in the output.
        span: Range<usize>,
    },
}

/// A [`FinalPatternConfig`] that cannot become a policy.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// More than [`FinalPatternPolicy::MAX_PATTERNS`] extra patterns.
    #[error("too many final patterns: {count} (at most {max})")]
    TooManyPatterns {
        /// How many were given.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// A pattern longer than [`MAX_PATTERN_LEN`](crate::MAX_PATTERN_LEN), checked
    /// before it is parsed.
    #[error("final pattern {index} is too long: {len} bytes (at most {max})")]
    PatternTooLong {
        /// Its index in `final_patterns`.
        index: usize,
        /// Its length in bytes.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// A pattern the regex crate refuses (syntax, or compiled size beyond
    /// [`MAX_REGEX_SIZE`](crate::MAX_REGEX_SIZE)).
    #[error("final pattern {index} is not a valid regex: {message}")]
    InvalidPattern {
        /// Its index in `final_patterns`.
        index: usize,
        /// The regex crate's message.
        message: String,
    },
    /// The patterns' character classes would take more than
    /// [`MAX_REGEX_FOLD_WORK`] code points of case folding
    /// to compile, together, up to and including this one (`[\s\S]` costs 1.1
    /// million: write `(?s:.)`). Counted from the syntax, before compiling.
    #[error(
        "final pattern {index} would take the patterns past {max} code points of case \
         folding, the limit (a class over everything, such as [\\s\\S], is folded code \
         point by code point: write (?s:.) instead)"
    )]
    RegexCost {
        /// Its index in `final_patterns`.
        index: usize,
        /// The limit in code points.
        max: u64,
    },
}

impl FinalPatternPolicy {
    /// rlm-code's registry name for this policy.
    pub const NAME: &'static str = "final_pattern";

    /// The most extra patterns a policy may have.
    pub const MAX_PATTERNS: usize = 32;

    /// Builds the policy, compiling its extra patterns once.
    ///
    /// # Errors
    ///
    /// - [`PolicyError::TooManyPatterns`]: more than [`Self::MAX_PATTERNS`];
    /// - [`PolicyError::PatternTooLong`]: a pattern over 1 KiB;
    /// - [`PolicyError::InvalidPattern`]: `ANSWER:(` (unclosed group), `(?<=x)y`
    ///   (look-around, which Python has and the regex crate does not);
    /// - [`PolicyError::RegexCost`]: the patterns' classes would take more than
    ///   [`MAX_REGEX_FOLD_WORK`] to fold, e.g. 32 patterns
    ///   of a kilobyte of `[\s\S]` (about 25 s of compiling). Counted also when
    ///   `case_sensitive` is set, as `(?i)` in a pattern turns folding back on.
    ///
    /// The compiled size is bounded per pattern by [`MAX_REGEX_SIZE`], which with
    /// [`Self::MAX_PATTERNS`] keeps a policy's regexes under
    /// [`MAX_REGEX_MEMORY`](crate::MAX_REGEX_MEMORY).
    ///
    /// ```
    /// use doneseq::answer::{FinalPatternConfig, FinalPatternPolicy, PolicyError};
    ///
    /// let config = FinalPatternConfig { final_patterns: vec!["ANSWER:(".into()], ..Default::default() };
    /// assert!(matches!(FinalPatternPolicy::new(config), Err(PolicyError::InvalidPattern { index: 0, .. })));
    /// ```
    pub fn new(config: FinalPatternConfig) -> Result<Self, PolicyError> {
        if config.final_patterns.len() > Self::MAX_PATTERNS {
            return Err(PolicyError::TooManyPatterns {
                count: config.final_patterns.len(),
                max: Self::MAX_PATTERNS,
            });
        }
        let mut patterns = Vec::with_capacity(config.final_patterns.len());
        let mut fold_work = 0u64;
        for (index, pattern) in config.final_patterns.iter().enumerate() {
            if pattern.len() > MAX_PATTERN_LEN {
                return Err(PolicyError::PatternTooLong {
                    index,
                    len: pattern.len(),
                    max: MAX_PATTERN_LEN,
                });
            }
            // The time of compiling that neither size limit sees (see
            // `MAX_REGEX_FOLD_WORK`): counted before this pattern is compiled.
            fold_work = fold_work.saturating_add(crate::text::fold_work(pattern));
            if fold_work > MAX_REGEX_FOLD_WORK {
                return Err(PolicyError::RegexCost {
                    index,
                    max: MAX_REGEX_FOLD_WORK,
                });
            }
            let regex = RegexBuilder::new(pattern)
                .case_insensitive(!config.case_sensitive)
                .multi_line(true)
                .size_limit(MAX_REGEX_SIZE)
                .build()
                .map_err(|e| PolicyError::InvalidPattern {
                    index,
                    message: e.to_string(),
                })?;
            patterns.push((regex, pattern.contains("FINAL_VAR")));
        }
        Ok(FinalPatternPolicy {
            detector: FinalDetector::new(FinalOptions::text().strict(config.strict)),
            config,
            patterns,
        })
    }

    /// Its configuration.
    #[must_use]
    pub fn config(&self) -> &FinalPatternConfig {
        &self.config
    }

    /// Decides on one action, given its type, its output and the REPL's variables.
    ///
    /// In order: an action of type `"final"` stops with its output; then a signal in
    /// the output (a `FINAL_VAR` is looked up in `variables`); then the extra patterns.
    ///
    /// ```
    /// use doneseq::answer::{AnswerValue, FinalPatternConfig, FinalPatternPolicy};
    ///
    /// let policy = FinalPatternPolicy::new(FinalPatternConfig {
    ///     final_patterns: vec![r"ANSWER:\s*(.+?)$".into()],
    ///     ..Default::default()
    /// })?;
    /// let none: [(&str, &AnswerValue); 0] = [];
    /// assert_eq!(policy.should_terminate("code", "Thinking.\nanswer: 42\n", none).answer(), Some("42"));
    /// assert_eq!(policy.should_terminate("final", "done", none).answer(), Some("done"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn should_terminate<'v, I, K>(
        &self,
        action_type: &str,
        output: &str,
        variables: I,
    ) -> Decision
    where
        I: IntoIterator<Item = (K, &'v AnswerValue)>,
        K: AsRef<str>,
    {
        if action_type == "final" {
            return Decision::Stop {
                answer: output.to_owned(),
                trigger: Trigger::FinalAction,
            };
        }
        let detection = self.detector.detect(output);
        if let Some(ambiguity) = detection.ambiguity {
            return Decision::Ambiguous(ambiguity);
        }
        if let (Some(kind), Some(span), Some(content)) =
            (detection.kind, detection.span, detection.content)
        {
            let trigger = Trigger::Signal { kind, span };
            if !self.config.extract_answer {
                return stop(output.to_owned(), trigger);
            }
            return match (kind, detection.value) {
                (FinalKind::Variable, _) => lookup(&content, variables, trigger),
                (FinalKind::Submit, Some(value)) => stop(format_final_answer(&value), trigger),
                _ => stop(content, trigger),
            };
        }
        for (index, (regex, is_variable)) in self.patterns.iter().enumerate() {
            let Some(captures) = regex.captures(output) else {
                continue;
            };
            let whole = captures.get(0).map_or(0..0, |m| m.range());
            let trigger = Trigger::Pattern {
                index,
                span: whole.clone(),
            };
            if !self.config.extract_answer {
                return stop(output.to_owned(), trigger);
            }
            let captured = captures
                .get(1)
                .map_or(&output[whole], |m| m.as_str())
                .trim();
            return if *is_variable {
                lookup(captured, variables, trigger)
            } else {
                stop(captured.to_owned(), trigger)
            };
        }
        Decision::Continue
    }
}

fn stop(answer: String, trigger: Trigger) -> Decision {
    Decision::Stop { answer, trigger }
}

fn lookup<'v, I, K>(name: &str, variables: I, trigger: Trigger) -> Decision
where
    I: IntoIterator<Item = (K, &'v AnswerValue)>,
    K: AsRef<str>,
{
    match resolve_final_var(name, variables) {
        Ok(value) => stop(format_final_answer(value), trigger),
        Err(err) => Decision::Unresolved(err),
    }
}
