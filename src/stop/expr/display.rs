//! Canonical text: what `Display` prints for a [`Condition`].
//!
//! The law is `parse(x.to_string()) == x` for every tree that
//! [`Condition::validate`] accepts. Canonical means: canonical names, `a & b` and
//! `a | b` for combinators of two or more (`all()`/`any()` of none or one child in
//! function form), parentheses only where the tree needs them (`All` inside `Any`
//! needs none; a nested `Any` inside `Any` keeps its own), options in their declared
//! order with defaults left out, names bare when they are words, strings in `"`
//! unless they hold `"` and no `'`, durations in the largest unit that divides them.

use std::fmt::{self, Write};
use std::ops::Range;
use std::time::Duration;

use super::super::args::{Arg, always_keyed, bind, unbind};
use super::super::{LoopOver, Speaker, ToolPhase};
use crate::stop::{Condition, MAX_CONDITION_DEPTH, MAX_CONDITION_NODES, MAX_VALUE_DEPTH};
use crate::text::is_name_char;

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Printer::new(f, None).condition(self)
    }
}

/// The canonical text of `root` and the span in it of the condition at pre-order
/// position `index`.
pub(super) fn text_with_span(root: &Condition, index: usize) -> (String, Range<usize>) {
    let mut text = String::new();
    let mut printer = Printer::new(&mut text, Some(index));
    // Writing to a String cannot fail.
    let _ = printer.condition(root);
    let span = printer.found.take().unwrap_or(0..0);
    (text, span)
}

/// A writer that counts the bytes written and numbers the conditions it prints in
/// pre-order, so that `validate` can point at one of them.
struct Printer<'w> {
    out: &'w mut dyn Write,
    pos: usize,
    next_index: usize,
    target: Option<usize>,
    found: Option<Range<usize>>,
    /// Conditions being printed, the one at hand included.
    depth: usize,
}

/// What stands for the part of a tree past the limits, which only an invalid tree
/// built in Rust has: printing it whole would recurse once per level (a tree of
/// 20,000 levels overflowed the stack in `validate`'s error) or print millions of
/// nodes. A valid tree never reaches it, so its text still parses back.
const ELIDED: &str = "...";

impl Write for Printer<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.pos += s.len();
        self.out.write_str(s)
    }
}

impl<'w> Printer<'w> {
    fn new(out: &'w mut dyn Write, target: Option<usize>) -> Printer<'w> {
        Printer {
            out,
            pos: 0,
            next_index: 0,
            target,
            found: None,
            depth: 0,
        }
    }

    fn condition(&mut self, c: &Condition) -> fmt::Result {
        // One level below the deepest fault `validate` reports (a combinator with
        // MAX_CONDITION_DEPTH ancestors), and past the node count: `validate`'s fault
        // always comes before the part cut (pre-order), so its span is exact.
        if self.depth > MAX_CONDITION_DEPTH + 1 || self.next_index > MAX_CONDITION_NODES + 1 {
            return self.write_str(ELIDED);
        }
        let index = self.next_index;
        self.next_index += 1;
        let start = self.pos;
        self.depth += 1;
        let body = self.body(c);
        self.depth -= 1;
        body?;
        if self.target == Some(index) {
            self.found = Some(start..self.pos);
        }
        Ok(())
    }

    fn body(&mut self, c: &Condition) -> fmt::Result {
        match c {
            Condition::All(children) => self.combinator("all", " & ", children),
            Condition::Any(children) => self.combinator("any", " | ", children),
            Condition::Not(child) => {
                self.write_str("!")?;
                self.child(child, is_infix)
            }
            builtin => self.builtin(builtin),
        }
    }

    /// A built-in from its values ([`unbind`]): its canonical name, bare without
    /// values (when that is valid); else its values in declared order, positional while every option
    /// before them was given (and a JSON value named), then `key=value`.
    fn builtin(&mut self, c: &Condition) -> fmt::Result {
        let row = c.id().row();
        self.write_str(row.name)?;
        let Some(args) = unbind(c) else {
            return Ok(());
        };
        let mut given = args.given().peekable();
        if given.peek().is_none() {
            // Bare when that reads back as this condition (`loop`); `tokens()` of an
            // invalid empty budget keeps its parentheses.
            return if bind(row, &args).is_ok() {
                Ok(())
            } else {
                self.write_str("()")
            };
        }
        self.write_str("(")?;
        let mut positional = true;
        for (n, (i, arg)) in given.enumerate() {
            if n > 0 {
                self.write_str(", ")?;
            }
            let param = &row.params[i];
            positional = positional && i == n && param.positional && !always_keyed(param.kind);
            if !positional {
                self.write_str(param.key)?;
                self.write_str("=")?;
            }
            self.arg(arg)?;
        }
        self.write_str(")")
    }

    /// One value, as the language writes its kind.
    fn arg(&mut self, arg: &Arg<'_>) -> fmt::Result {
        match arg {
            Arg::Sequence(seq) => write_string(self, &seq.to_string()),
            Arg::Pattern(pattern) => write_string(self, pattern.as_str()),
            Arg::Count(n) => write!(self, "{n}"),
            Arg::Float(x) => write!(self, "{x:?}"),
            Arg::Duration(d) => write_duration(self, *d),
            Arg::Bool(b) => write!(self, "{b}"),
            Arg::Name(name) => write_name(self, name),
            Arg::Word(word) => self.write_str(word),
            Arg::Speakers(speakers) => self.speakers(speakers),
            Arg::Names(names) => {
                self.write_str("[")?;
                for (n, name) in names.iter().enumerate() {
                    if n > 0 {
                        self.write_str(", ")?;
                    }
                    write_name(self, name)?;
                }
                self.write_str("]")
            }
            Arg::Json(json) => self.json(json),
        }
    }

    /// `a & b & c`, or `all(x)` / `all()` for fewer than two children.
    fn combinator(&mut self, name: &str, op: &str, children: &[Condition]) -> fmt::Result {
        if children.len() < 2 {
            self.write_str(name)?;
            self.write_str("(")?;
            if let Some(child) = children.first() {
                self.condition(child)?;
            }
            return self.write_str(")");
        }
        let inside_all = op == " & ";
        for (n, child) in children.iter().enumerate() {
            if n > 0 {
                self.write_str(op)?;
            }
            // `&` binds tighter than `|`: an `All` needs no parentheses inside an `Any`;
            // anything else infix keeps its own node with them.
            self.child(child, |c| match c {
                Condition::Any(cs) => cs.len() >= 2,
                Condition::All(cs) => cs.len() >= 2 && inside_all,
                _ => false,
            })?;
        }
        Ok(())
    }

    fn child(&mut self, child: &Condition, parens: impl Fn(&Condition) -> bool) -> fmt::Result {
        if parens(child) {
            self.write_str("(")?;
            self.condition(child)?;
            self.write_str(")")
        } else {
            self.condition(child)
        }
    }

    /// Speakers as a list: `[llm, @Critic]`.
    fn speakers(&mut self, speakers: &[Speaker]) -> fmt::Result {
        self.write_str("[")?;
        for (n, speaker) in speakers.iter().enumerate() {
            if n > 0 {
                self.write_str(", ")?;
            }
            match speaker {
                Speaker::Role(role) => self.write_str(role.as_str())?,
                Speaker::Responder(name) => write_name(self, &format!("@{name}"))?,
            }
        }
        self.write_str("]")
    }

    /// JSON, compact, as serde_json prints it (and reads it back).
    fn json(&mut self, value: &serde_json::Value) -> fmt::Result {
        // serde_json prints recursively: a value past the limit (built in Rust) is cut.
        if super::json_depth(value) > MAX_VALUE_DEPTH {
            return self.write_str(ELIDED);
        }
        write!(self, "{value}")
    }
}

/// Whether `c` prints with an infix operator, and so needs parentheses after `!`.
fn is_infix(c: &Condition) -> bool {
    matches!(c, Condition::All(cs) | Condition::Any(cs) if cs.len() >= 2)
}

pub(crate) fn phase_word(phase: ToolPhase) -> &'static str {
    match phase {
        ToolPhase::Requested => "requested",
        ToolPhase::Executed => "executed",
        ToolPhase::Finished => "finished",
    }
}

pub(crate) fn over_word(over: LoopOver) -> &'static str {
    match over {
        LoopOver::Both => "both",
        LoopOver::Calls => "calls",
        LoopOver::Texts => "texts",
    }
}

/// Whether `s` reads back as one bare word: a letter, `_` or `@` first, then name
/// characters (alphanumerics, `_`, `-`, `.`).
pub(super) fn is_word(s: &str) -> bool {
    let mut chars = s.chars();
    let first = match chars.next() {
        Some('@') => chars.next(),
        first => first,
    };
    first.is_some_and(|c| c.is_alphabetic() || c == '_') && chars.all(is_name_char)
}

/// A name: bare when it is a word, a string otherwise.
fn write_name(w: &mut dyn Write, name: &str) -> fmt::Result {
    if is_word(name) {
        w.write_str(name)
    } else {
        write_string(w, name)
    }
}

/// A string literal that reads back as exactly `s`. Quoted with `"`, or with `'` when
/// `s` holds a `"` and no `'`. The quote is escaped as `\"`; a backslash is doubled
/// only where the parser would otherwise read it as an escape: before a backslash,
/// before the quote, and at the end. So `\bDONE\b` prints as written.
pub(crate) fn write_string(w: &mut dyn Write, s: &str) -> fmt::Result {
    let quote = if s.contains('"') && !s.contains('\'') {
        '\''
    } else {
        '"'
    };
    w.write_char(quote)?;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        let escape =
            c == quote || (c == '\\' && chars.peek().is_none_or(|&n| n == '\\' || n == quote));
        if escape {
            w.write_char('\\')?;
        }
        w.write_char(c)?;
    }
    w.write_char(quote)
}

/// A duration in the largest unit that divides it: `2h`, `5m`, `300s` would be `5m`,
/// `1500ms`; zero is `0s`. Sub-millisecond parts (which `validate` refuses) are
/// dropped.
pub(crate) fn write_duration(w: &mut dyn Write, limit: Duration) -> fmt::Result {
    let ms = limit.as_millis();
    match ms {
        0 => w.write_str("0s"),
        ms if ms % 3_600_000 == 0 => write!(w, "{}h", ms / 3_600_000),
        ms if ms % 60_000 == 0 => write!(w, "{}m", ms / 60_000),
        ms if ms % 1000 == 0 => write!(w, "{}s", ms / 1000),
        ms => write!(w, "{ms}ms"),
    }
}
