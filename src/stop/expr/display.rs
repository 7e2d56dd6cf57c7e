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

use super::super::{LoopOver, Speaker, ToolPhase};
use crate::dsl::is_name_char;
use crate::stop::{
    Condition, ConfidenceMet, LoopDetection, MAX_CONDITION_DEPTH, MAX_CONDITION_NODES,
    MAX_VALUE_DEPTH, RewardThreshold, TextMention, TokenBudget, ToolCalled,
};

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
            Condition::Sequence(seq) => {
                self.write_str("seq(")?;
                write_string(self, &seq.to_string())?;
                self.write_str(")")
            }
            Condition::Final => self.write_str("final"),
            Condition::DoneSignal => self.write_str("done_signal"),
            Condition::MaxTurns(n) => write!(self, "max_turns({n})"),
            Condition::Tokens(budget) => self.tokens(budget),
            Condition::Timeout(limit) => {
                self.write_str("timeout(")?;
                write_duration(self, *limit)?;
                self.write_str(")")
            }
            Condition::ConsecutiveErrors(n) => write!(self, "consecutive_errors({n})"),
            Condition::Tool(tool) => self.tool(tool),
            Condition::NoToolCalls => self.write_str("no_tool_calls"),
            Condition::Text(text) => self.text(text),
            Condition::Confidence(c) => self.confidence(c),
            Condition::Reward(r) => self.reward(r),
            Condition::Loop(l) => self.loop_detection(l),
            Condition::Cancelled => self.write_str("cancelled"),
            Condition::SingleRound => self.write_str("single_round"),
            Condition::Response(from) => {
                self.write_str("response(")?;
                self.speakers(from)?;
                self.write_str(")")
            }
            Condition::NoResponse(from) => {
                self.write_str("no_response(")?;
                self.speakers(from)?;
                self.write_str(")")
            }
            Condition::Custom(custom) => {
                self.write_str("custom(")?;
                write_name(self, &custom.name)?;
                if !custom.config.is_null() {
                    self.write_str(", config=")?;
                    self.json(&custom.config)?;
                }
                self.write_str(")")
            }
            Condition::All(children) => self.combinator("all", " & ", children),
            Condition::Any(children) => self.combinator("any", " | ", children),
            Condition::Not(child) => {
                self.write_str("!")?;
                self.child(child, is_infix)
            }
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

    fn tokens(&mut self, budget: &TokenBudget) -> fmt::Result {
        self.write_str("tokens(")?;
        let mut args = Args::default();
        if let Some(total) = budget.total {
            args.next(self)?;
            write!(self, "{total}")?;
        }
        if let Some(input) = budget.input {
            args.next(self)?;
            write!(self, "input={input}")?;
        }
        if let Some(output) = budget.output {
            args.next(self)?;
            write!(self, "output={output}")?;
        }
        self.write_str(")")
    }

    fn tool(&mut self, tool: &ToolCalled) -> fmt::Result {
        if tool.name.is_none() && tool.phase == ToolPhase::default() && tool.args.is_none() {
            return self.write_str("tool");
        }
        self.write_str("tool(")?;
        let mut args = Args::default();
        if let Some(name) = &tool.name {
            args.next(self)?;
            write_name(self, name)?;
        }
        if tool.phase != ToolPhase::default() {
            args.next(self)?;
            if tool.name.is_none() {
                self.write_str("when=")?;
            }
            self.write_str(phase_word(tool.phase))?;
        }
        if let Some(json) = &tool.args {
            args.next(self)?;
            self.write_str("args=")?;
            self.json(json)?;
        }
        self.write_str(")")
    }

    fn text(&mut self, text: &TextMention) -> fmt::Result {
        self.write_str("text(")?;
        write_string(self, text.pattern.as_str())?;
        if !text.from.is_empty() {
            self.write_str(", from=")?;
            self.speakers(&text.from)?;
        }
        self.write_str(")")
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

    fn confidence(&mut self, c: &ConfidenceMet) -> fmt::Result {
        let default = ConfidenceMet::default();
        write!(self, "confidence({:?}", c.threshold)?;
        if c.min_steps != default.min_steps {
            write!(self, ", min_steps={}", c.min_steps)?;
        }
        if c.key != default.key {
            self.write_str(", key=")?;
            write_name(self, &c.key)?;
        }
        if c.fallback_final != default.fallback_final {
            write!(self, ", fallback_final={}", c.fallback_final)?;
        }
        self.write_str(")")
    }

    fn reward(&mut self, r: &RewardThreshold) -> fmt::Result {
        let default = RewardThreshold::default();
        write!(self, "reward({:?}", r.threshold)?;
        if r.negative_streak != default.negative_streak {
            write!(self, ", negative_streak={}", r.negative_streak)?;
        }
        if r.require_final != default.require_final {
            write!(self, ", require_final={}", r.require_final)?;
        }
        self.write_str(")")
    }

    fn loop_detection(&mut self, l: &LoopDetection) -> fmt::Result {
        let default = LoopDetection::default();
        if *l == default {
            return self.write_str("loop");
        }
        self.write_str("loop(")?;
        let mut args = Args::default();
        if l.period != default.period {
            args.next(self)?;
            write!(self, "period={}", l.period)?;
        }
        if l.repeats != default.repeats {
            args.next(self)?;
            write!(self, "repeats={}", l.repeats)?;
        }
        if l.over != default.over {
            args.next(self)?;
            write!(self, "over={}", over_word(l.over))?;
        }
        if !l.exempt.is_empty() {
            args.next(self)?;
            self.write_str("exempt=[")?;
            for (n, name) in l.exempt.iter().enumerate() {
                if n > 0 {
                    self.write_str(", ")?;
                }
                write_name(self, name)?;
            }
            self.write_str("]")?;
        }
        self.write_str(")")
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

/// Writes `, ` before every argument but the first.
#[derive(Default)]
struct Args {
    started: bool,
}

impl Args {
    fn next(&mut self, w: &mut dyn Write) -> fmt::Result {
        if std::mem::replace(&mut self.started, true) {
            w.write_str(", ")?;
        }
        Ok(())
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
