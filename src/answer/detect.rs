//! [`FinalDetector`]'s two entry points, and rlm-code's two free functions: the
//! scanner's events turned into a [`FinalMatch`] (no allocation) or a
//! [`FinalDetection`] (content and value materialized).

use std::ops::ControlFlow;

use super::lex::Dialect;
use super::scan::{self, Event, Hit};
use super::{
    Ambiguity, AnswerValue, FinalDetection, FinalDetector, FinalKind, FinalMatch, FinalOptions,
    Rejection, args, literal,
};

/// Detects a `FINAL(...)`, `FINAL_VAR(...)` or `SUBMIT(...)` signal in a model's prose.
///
/// The lenient prose rules of [`FinalOptions::text`]; see the [module docs](super) for
/// every rule and where it differs from rlm-code.
///
/// ```
/// use doneseq::answer::{FinalKind, detect_final_in_text};
///
/// let d = detect_final_in_text("I have stored the answer. FINAL_VAR(\"result\")");
/// assert!(d.detected);
/// assert_eq!(d.kind, Some(FinalKind::Variable));
/// assert_eq!(d.content.as_deref(), Some("result"));
///
/// assert!(!detect_final_in_text("Let me continue analyzing...").detected);
/// ```
#[must_use]
pub fn detect_final_in_text(text: &str) -> FinalDetection {
    FinalDetector::new(FinalOptions::text()).detect(text)
}

/// Detects a `FINAL(...)`, `FINAL_VAR(...)` or `SUBMIT(...)` call in Python code,
/// before it runs.
///
/// Comments and string literals are skipped; `FINAL_VAR` names are read statically;
/// `FINAL(expr)` reports the expression (its value is known only at run time, unless
/// it is a literal). Several calls are not ambiguous in code: the first in source order
/// is reported.
///
/// ```
/// use doneseq::answer::{AnswerValue, FinalKind, detect_final_in_code};
///
/// let d = detect_final_in_code("answer = 42\nFINAL(answer)");
/// assert!(d.detected);
/// assert_eq!(d.kind, Some(FinalKind::Direct));
/// assert_eq!(d.value, Some(AnswerValue::Expr("answer".into())));
///
/// assert!(!detect_final_in_code("# FINAL(x)\ns = 'FINAL(y)'").detected);
/// ```
#[must_use]
pub fn detect_final_in_code(code: &str) -> FinalDetection {
    FinalDetector::new(FinalOptions::code()).detect(code)
}

/// Decides on the scanner's signals: the first one, and the first that differs from
/// it (prose only). Shared by `find` and `detect` so that they cannot disagree.
struct Decider<'t> {
    text: &'t str,
    code: bool,
    first: Option<Hit>,
    conflict: Option<Hit>,
}

impl Decider<'_> {
    fn signal(&mut self, hit: Hit) -> ControlFlow<()> {
        match self.first {
            None => {
                self.first = Some(hit);
                // Code: the first call in source order is the answer.
                if self.code {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            }
            Some(first) if first.differs(&hit, self.text) => {
                self.conflict = Some(hit);
                ControlFlow::Break(())
            }
            Some(_) => ControlFlow::Continue(()),
        }
    }
}

impl FinalDetector {
    /// A detector with these options.
    #[must_use]
    pub const fn new(options: FinalOptions) -> Self {
        FinalDetector { options }
    }

    /// Its options.
    #[must_use]
    pub const fn options(&self) -> FinalOptions {
        self.options
    }

    /// The signal in `text`, if any: the fast path, which never allocates.
    ///
    /// An ambiguous text (two different signals in prose) gives the first one with
    /// [`FinalMatch::is_ambiguous`] set: the caller decides (the detection calls it not
    /// detected).
    ///
    /// ```
    /// use doneseq::answer::FinalDetector;
    ///
    /// let text = "All checks pass. FINAL(The answer is 42) Thanks!";
    /// let m = FinalDetector::default().find(text).unwrap();
    /// assert_eq!(&text[m.arg_span()], "The answer is 42");
    /// assert!(!m.is_ambiguous());
    /// ```
    #[must_use]
    pub fn find(&self, text: &str) -> Option<FinalMatch> {
        let mut decider = Decider {
            text,
            code: self.options.is_code(),
            first: None,
            conflict: None,
        };
        scan::scan(text, self.options, |event| match event {
            Event::Signal(hit) => decider.signal(hit),
            Event::Rejected { .. } => ControlFlow::Continue(()),
        });
        decider.first.map(|hit| FinalMatch {
            kind: hit.kind,
            span: (hit.start, hit.end),
            arg: hit.key,
            conflict: decider.conflict.map(|c| (c.start, c.end)),
        })
    }

    /// The signal in `text` with its content and value, and what was rejected.
    ///
    /// ```
    /// use doneseq::answer::{AnswerValue, FinalDetector};
    ///
    /// let d = FinalDetector::default().detect("FINAL({'answer': [1, 2.5, None]})");
    /// assert_eq!(
    ///     d.value.unwrap().get("answer"),
    ///     Some(&AnswerValue::List(vec![
    ///         AnswerValue::Int(1), AnswerValue::Float(2.5), AnswerValue::Null,
    ///     ])),
    /// );
    /// ```
    #[must_use]
    pub fn detect(&self, text: &str) -> FinalDetection {
        let mut decider = Decider {
            text,
            code: self.options.is_code(),
            first: None,
            conflict: None,
        };
        let mut rejected = Vec::new();
        scan::scan(text, self.options, |event| match event {
            Event::Signal(hit) => decider.signal(hit),
            Event::Rejected { start, end, reason } => {
                if rejected.len() < FinalDetection::MAX_REJECTIONS {
                    rejected.push(Rejection {
                        span: start..end,
                        reason,
                    });
                }
                ControlFlow::Continue(())
            }
        });
        let Some(hit) = decider.first else {
            return FinalDetection {
                rejected,
                ..FinalDetection::default()
            };
        };
        if let Some(second) = decider.conflict {
            return FinalDetection {
                ambiguity: Some(Ambiguity {
                    first: hit.start..hit.end,
                    second: second.start..second.end,
                }),
                rejected,
                ..FinalDetection::default()
            };
        }
        let dialect = self.options.dialect();
        let key = text.get(hit.key.0..hit.key.1).unwrap_or_default();
        let (content, value) = match hit.kind {
            FinalKind::Direct => answer(key, dialect),
            FinalKind::Variable => (key.to_owned(), None),
            FinalKind::Submit => (key.to_owned(), Some(submit_fields(text, dialect, hit.key))),
        };
        FinalDetection {
            detected: true,
            kind: Some(hit.kind),
            content: Some(content),
            raw_match: text.get(hit.start..hit.end).map(str::to_owned),
            span: Some(hit.start..hit.end),
            value,
            ambiguity: None,
            rejected,
        }
    }
}

/// The content and value of an argument: see [`FinalDetection::content`] and
/// [`FinalDetection::value`].
fn answer(arg: &str, dialect: Dialect) -> (String, Option<AnswerValue>) {
    let value = value_of(arg, dialect);
    let content = match &value {
        AnswerValue::String(s) => s.clone(),
        _ => arg.to_owned(),
    };
    (content, Some(value))
}

/// A literal's value; otherwise, in prose, the text (without a pair of enclosing
/// quotes: the model forgot to escape quotes inside), and in code, the expression.
fn value_of(arg: &str, dialect: Dialect) -> AnswerValue {
    if let Ok(value) = literal::parse(arg) {
        return value;
    }
    match dialect {
        Dialect::Code => AnswerValue::Expr(arg.to_owned()),
        Dialect::Text => AnswerValue::String(unquote(arg).unwrap_or(arg).to_owned()),
    }
}

/// The inside of `"..."`, `'...'`, `"""..."""` or `'''...'''`, taken as is.
fn unquote(arg: &str) -> Option<&str> {
    ["\"\"\"", "'''", "\"", "'"].iter().find_map(|q| {
        arg.strip_prefix(q)?
            .strip_suffix(q)
            .filter(|_| arg.len() >= 2 * q.len())
    })
}

/// A `SUBMIT`'s fields as an object (its arguments were checked by the scanner).
fn submit_fields(text: &str, dialect: Dialect, (a, b): (usize, usize)) -> AnswerValue {
    let mut fields = Vec::new();
    args::for_each_part(text, dialect, a, b, |s, e| {
        if let Some(((ns, ne), (vs, ve))) = args::keyword(text, s, e) {
            let name = text.get(ns..ne).unwrap_or_default().to_owned();
            let value = value_of(text.get(vs..ve).unwrap_or_default(), dialect);
            fields.push((name, value));
        }
        ControlFlow::Continue(())
    });
    AnswerValue::Object(fields)
}
