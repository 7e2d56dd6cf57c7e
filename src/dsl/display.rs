//! Canonical text: what `Display` prints for every DSL value.
//!
//! The law is `parse(x.to_string()) == x`. Canonical means: letters for words
//! (`TOOL` prints `T`), `", "` between elements, `" & "` between literals, a run of
//! equal elements as `X{n}`, names and responders quoted only when they must be,
//! and tool names escaped only where the parser would otherwise read them differently.

use std::fmt::{self, Write};

use super::{DoneSequence, Element, Literal};
use crate::dsl::{AgentEvent, EventKind};
use crate::text::{is_name_char, is_space};

impl fmt::Display for DoneSequence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(name) = &self.name {
            write_name(f, name)?;
            f.write_str(": ")?;
        }
        let mut rest = self.elements.as_slice();
        let mut first = true;
        while let Some(element) = rest.first() {
            let run = rest.iter().take_while(|e| *e == element).count();
            if !first {
                f.write_str(", ")?;
            }
            first = false;
            write!(f, "{element}")?;
            if run > 1 {
                write!(f, "{{{run}}}")?;
            }
            rest = &rest[run..];
        }
        Ok(())
    }
}

impl fmt::Display for Element {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, literal) in self.literals.iter().enumerate() {
            if n > 0 {
                f.write_str(" & ")?;
            }
            write!(f, "{literal}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.negated {
            f.write_char('!')?;
        }
        write!(f, "{}", self.event)
    }
}

impl fmt::Display for AgentEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char(self.kind().letter())?;
        match self.kind() {
            EventKind::SpecificTool(name) => {
                f.write_char('[')?;
                write_tool_name(f, name.as_str())?;
                f.write_char(']')?;
            }
            EventKind::Content(pattern) => write!(f, "[{pattern}]")?,
            _ => {}
        }
        if let Some(responder) = self.responder() {
            f.write_char('@')?;
            write_name(f, responder)?;
        }
        Ok(())
    }
}

impl fmt::Display for EventKind {
    /// The kind as an event without responder: `T[calculator]`, `A`, `C[quit]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&AgentEvent::new(self.clone()), f)
    }
}

/// The length in bytes of a sequence's canonical text, without building it.
pub(crate) fn canonical_len(seq: &DoneSequence) -> usize {
    struct Count(usize);
    impl Write for Count {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            self.0 += s.len();
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing to a counter cannot fail, and `Display` has no error of its own.
    let _ = write!(count, "{seq}");
    count.0
}

/// A sequence name or responder: bare when it is made of name characters, quoted
/// otherwise.
fn write_name(f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
    if !name.is_empty() && name.chars().all(is_name_char) {
        return f.write_str(name);
    }
    f.write_char('"')?;
    for c in name.chars() {
        if matches!(c, '"' | '\\') {
            f.write_char('\\')?;
        }
        f.write_char(c)?;
    }
    f.write_char('"')
}

/// A tool name inside `T[...]`: brackets and backslashes are escaped, and so is
/// whitespace at either end (the parser trims unescaped whitespace there).
fn write_tool_name(f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
    let last = name.chars().count().saturating_sub(1);
    for (n, c) in name.chars().enumerate() {
        if matches!(c, '[' | ']' | '\\') || ((n == 0 || n == last) && is_space(c)) {
            f.write_char('\\')?;
        }
        f.write_char(c)?;
    }
    Ok(())
}
