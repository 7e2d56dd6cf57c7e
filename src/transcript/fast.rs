//! The fast path for the commonest record: a chat message of the common fields.
//!
//! A replay reads one such line per step, and going through serde (a visitor, a
//! struct of twenty optional fields, the conversion into a [`Message`]) costs more
//! than scanning its bytes. This scanner knows the message's common keys (`role`,
//! `content` as a string, `responder`, `name`, `tool_calls`, `tool_call_id`, `usage`,
//! and the ignored `metadata`, `annotations`, `audio`) and builds the message
//! directly, its texts borrowed from the line where they have no escapes.
//!
//! It accepts only what it is sure of. Anything else (another key, a list of content
//! parts, a `null` role, a float where a count goes, an escape it does not decode, a
//! duplicate key, JSON nested deeper than [`DEPTH`], anything wrong at all) makes it
//! give up, and the serde path reads the line: the same message, or the error with
//! its position. So it never accepts what the serde path refuses, nor reads a line
//! otherwise (a test compares the two on every sample and on generated lines).

use std::borrow::Cow;

use super::autogen::AgentMessage;
use super::wire::{ProviderUsage, Str, is_langroid_role};
use crate::{Message, Role, ToolCall, Usage};

/// The deepest nesting the scanner follows (the line's object is level 1); deeper
/// lines go to the serde path, which checks them against
/// [`super::MAX_JSON_DEPTH`].
const DEPTH: usize = 32;

/// The message in `text` (a trimmed line), if it is a chat message the scanner is
/// sure of; `None` otherwise, and the serde path reads it. A role spelled as Langroid
/// spells its entities is left to the serde path too when `langroid_roles` is set:
/// it turns on the search for Langroid's tool JSON.
pub(super) fn message(text: &str, langroid_roles: bool) -> Option<Message<'_>> {
    let mut s = Scan { text, at: 0 };
    let mut seen = Seen::default();
    let mut role = None;
    let mut content = Cow::Borrowed("");
    let (mut responder, mut name, mut tool_call_id) = (None, None, None);
    let mut tool_calls = Vec::new();
    let mut usage = None;
    s.object(|s, key| {
        match key {
            b"role" => {
                seen.once(0)?;
                role = Some(s.string()?);
            }
            b"content" => {
                seen.once(1)?;
                content = s.nullable(Scan::string)?.unwrap_or_default();
            }
            b"responder" => {
                seen.once(2)?;
                responder = s.nullable(Scan::string)?;
            }
            b"name" => {
                seen.once(3)?;
                name = s.nullable(Scan::string)?;
            }
            b"tool_calls" => {
                seen.once(4)?;
                tool_calls = s.nullable(Scan::calls)?.unwrap_or_default();
            }
            b"tool_call_id" => {
                seen.once(5)?;
                tool_call_id = s.nullable(Scan::string)?;
            }
            b"usage" => {
                seen.once(6)?;
                usage = s.nullable(Scan::usage)?;
            }
            b"metadata" => {
                seen.once(7)?;
                s.skip(2)?;
            }
            b"annotations" => {
                seen.once(8)?;
                s.skip(2)?;
            }
            b"audio" => {
                seen.once(9)?;
                s.skip(2)?;
            }
            _ => return None,
        }
        Some(())
    })?;
    s.end()?;
    let role_text = role?;
    if langroid_roles && is_langroid_role(&role_text) {
        return None;
    }
    let role: Role = role_text.parse().ok()?;
    Some(Message {
        role,
        no_response: false,
        responder: responder.or(name),
        content,
        tool_calls,
        usage,
        tool_call_id,
        rare: None,
    })
}

/// An AutoGen message or event (`model_dump()`) if the scanner is sure of it: the
/// struct the serde path reads (its type, source, content as JSON text, usage and a
/// handoff's target; any other key skipped, as serde does), which the one conversion
/// then reads.
pub(super) fn agent_message(text: &str) -> Option<AgentMessage<'_>> {
    let mut s = Scan { text, at: 0 };
    let mut seen = Seen::default();
    let (mut kind, mut source, mut content, mut usage, mut target) = (None, None, None, None, None);
    s.object(|s, key| {
        match key {
            b"type" => {
                seen.once(0)?;
                kind = Some(s.string()?);
            }
            b"source" => {
                seen.once(1)?;
                source = Some(s.string()?);
            }
            b"content" => {
                seen.once(2)?;
                content = s.nullable(|s| s.raw(2))?;
            }
            b"models_usage" => {
                seen.once(3)?;
                usage = s.nullable(Scan::provider_usage)?;
            }
            b"target" => {
                seen.once(4)?;
                target = s.nullable(Scan::string)?;
            }
            _ => s.skip(2)?,
        }
        Some(())
    })?;
    s.end()?;
    Some(AgentMessage {
        kind: Str(kind?),
        source: Str(source?),
        content,
        models_usage: usage,
        target: target.map(Str),
    })
}

/// The text of `text` if it is one JSON string the scanner is sure of.
pub(super) fn json_string(text: &str) -> Option<Cow<'_, str>> {
    let mut s = Scan { text, at: 0 };
    let string = s.string()?;
    s.end()?;
    Some(string)
}

/// The keys of an object seen so far: a second one is serde's "duplicate field".
#[derive(Default)]
struct Seen(u32);

impl Seen {
    fn once(&mut self, bit: u32) -> Option<()> {
        let mask = 1 << bit;
        if self.0 & mask != 0 {
            return None;
        }
        self.0 |= mask;
        Some(())
    }
}

/// A cursor over a line's JSON.
struct Scan<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Scan<'a> {
    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// The next byte that is not JSON whitespace, not consumed.
    #[inline]
    fn peek(&mut self) -> Option<u8> {
        let bytes = self.bytes();
        while let Some(&b) = bytes.get(self.at) {
            if !matches!(b, b' ' | b'\n' | b'\t' | b'\r') {
                return Some(b);
            }
            self.at += 1;
        }
        None
    }

    /// Consumes `byte` (after whitespace), or gives up.
    #[inline]
    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    /// After a member or element: `Some(true)` at the closing `close` (consumed),
    /// `Some(false)` at a comma (consumed).
    #[inline]
    fn close(&mut self, close: u8) -> Option<bool> {
        match self.peek()? {
            b',' => {
                self.at += 1;
                Some(false)
            }
            b if b == close => {
                self.at += 1;
                Some(true)
            }
            _ => None,
        }
    }

    /// Nothing but whitespace is left.
    fn end(&mut self) -> Option<()> {
        self.peek().is_none().then_some(())
    }

    /// An object's members: `member` reads the value of each key (an empty object has
    /// none).
    fn object(&mut self, mut member: impl FnMut(&mut Self, &'a [u8]) -> Option<()>) -> Option<()> {
        self.expect(b'{')?;
        if self.peek()? == b'}' {
            self.at += 1;
            return Some(());
        }
        loop {
            let key = self.key()?;
            member(self, key)?;
            if self.close(b'}')? {
                return Some(());
            }
        }
    }

    /// A value's JSON text, checked, at nesting `depth`.
    fn raw(&mut self, depth: usize) -> Option<&'a str> {
        self.peek()?;
        let start = self.at;
        self.skip(depth)?;
        Some(&self.text[start..self.at])
    }

    /// An object's key (with no escapes) and its colon.
    #[inline]
    fn key(&mut self) -> Option<&'a [u8]> {
        self.expect(b'"')?;
        let rest = &self.bytes()[self.at..];
        let end = plain(rest)?;
        if rest[end] != b'"' {
            return None;
        }
        let key = &rest[..end];
        self.at += end + 1;
        self.expect(b':')?;
        Some(key)
    }

    /// `read`'s value, or `None` for `null` (an absent field, as serde reads an
    /// `Option`).
    #[inline]
    fn nullable<T>(&mut self, read: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        if self.peek()? == b'n' {
            self.literal(b"null")?;
            return Some(None);
        }
        read(self).map(Some)
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        self.bytes()[self.at..]
            .starts_with(word)
            .then(|| self.at += word.len())
    }

    /// A string: borrowed from the line when it has no escapes, decoded otherwise.
    #[inline]
    fn string(&mut self) -> Option<Cow<'a, str>> {
        self.expect(b'"')?;
        let bytes = self.bytes();
        let start = self.at;
        let end = start + plain(&bytes[start..])?;
        self.at = end + 1;
        if bytes[end] == b'"' {
            return Some(Cow::Borrowed(&self.text[start..end]));
        }
        // Escapes: decoded into a new string, as serde_json does.
        let mut out = String::with_capacity(end - start + 16);
        out.push_str(&self.text[start..end]);
        loop {
            // Just past a backslash.
            let escape = *bytes.get(self.at)?;
            self.at += 1;
            out.push(match escape {
                b'"' => '"',
                b'\\' => '\\',
                b'/' => '/',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => self.unicode_escape()?,
                _ => return None,
            });
            let from = self.at;
            let end = from + plain(&bytes[from..])?;
            out.push_str(&self.text[from..end]);
            self.at = end + 1;
            if bytes[end] == b'"' {
                return Some(Cow::Owned(out));
            }
        }
    }

    /// Skips a string, checking it as [`Scan::string`] does, without building it.
    fn skip_string(&mut self) -> Option<()> {
        self.expect(b'"')?;
        let bytes = self.bytes();
        loop {
            let end = self.at + plain(&bytes[self.at..])?;
            self.at = end + 1;
            if bytes[end] == b'"' {
                return Some(());
            }
            // Just past a backslash.
            let escape = *bytes.get(self.at)?;
            self.at += 1;
            match escape {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                b'u' => drop(self.unicode_escape()?),
                _ => return None,
            }
        }
    }

    /// The character of a `\u` escape (just past the `u`), a surrogate pair joined;
    /// a lone surrogate gives up (serde_json refuses it in a string it reads).
    fn unicode_escape(&mut self) -> Option<char> {
        let first = self.hex4()?;
        match first {
            0xD800..=0xDBFF => {
                self.literal(b"\\u")?;
                let second = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return None;
                }
                char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
            }
            0xDC00..=0xDFFF => None,
            _ => char::from_u32(first),
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.bytes().get(self.at..self.at + 4)?;
        let mut value = 0;
        for &d in digits {
            value = value * 16 + char::from(d).to_digit(16)?;
        }
        self.at += 4;
        Some(value)
    }

    /// A count of tokens: an integer that fits a `u64` (serde_json refuses a float or
    /// a negative number there; the scanner gives up on them).
    fn count(&mut self) -> Option<u64> {
        self.peek()?;
        let bytes = self.bytes();
        let start = self.at;
        let mut end = start;
        let mut value: u64 = 0;
        while let Some(&d) = bytes.get(end).filter(|d| d.is_ascii_digit()) {
            value = value.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
            end += 1;
        }
        let digits = end - start;
        let leading_zero = digits > 1 && bytes[start] == b'0';
        if digits == 0 || leading_zero || matches!(bytes.get(end), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        self.at = end;
        Some(value)
    }

    /// `usage`: input and output tokens (OpenAI's names as aliases), `total_tokens`
    /// ignored; no other key.
    fn usage(&mut self) -> Option<Usage> {
        let mut seen = Seen::default();
        let mut usage = Usage::default();
        self.object(|s, key| {
            match key {
                b"input_tokens" | b"prompt_tokens" => {
                    seen.once(0)?;
                    usage.input_tokens = s.count()?;
                }
                b"output_tokens" | b"completion_tokens" => {
                    seen.once(1)?;
                    usage.output_tokens = s.count()?;
                }
                b"total_tokens" => {
                    seen.once(2)?;
                    s.skip(3)?;
                }
                _ => return None,
            }
            Some(())
        })?;
        Some(usage)
    }

    /// A provider's usage (OpenAI's names as aliases, Anthropic's cache counts); any
    /// other key skipped, as serde does.
    fn provider_usage(&mut self) -> Option<ProviderUsage> {
        let mut seen = Seen::default();
        let mut usage = ProviderUsage::default();
        self.object(|s, key| {
            let (bit, slot) = match key {
                b"input_tokens" | b"prompt_tokens" => (0, &mut usage.input_tokens),
                b"output_tokens" | b"completion_tokens" => (1, &mut usage.output_tokens),
                b"cache_creation_input_tokens" => (2, &mut usage.cache_creation_input_tokens),
                b"cache_read_input_tokens" => (3, &mut usage.cache_read_input_tokens),
                _ => return s.skip(3),
            };
            seen.once(bit)?;
            *slot = s.nullable(Scan::count)?;
            Some(())
        })?;
        Some(usage)
    }

    /// `tool_calls`: a list of calls.
    fn calls(&mut self) -> Option<Vec<ToolCall<'a>>> {
        self.expect(b'[')?;
        let mut calls = Vec::new();
        if self.peek()? == b']' {
            self.at += 1;
            return Some(calls);
        }
        loop {
            calls.push(self.call()?);
            if self.close(b']')? {
                return Some(calls);
            }
        }
    }

    /// One tool call, in doneseq's shape (`name`, `arguments`) or OpenAI's
    /// (`function: {name, arguments}`), with its `id` and an ignored `type`.
    fn call(&mut self) -> Option<ToolCall<'a>> {
        let mut seen = Seen::default();
        let (mut id, mut name, mut arguments, mut function) = (None, None, None, None);
        self.object(|s, key| {
            match key {
                b"id" => {
                    seen.once(0)?;
                    id = s.nullable(Scan::string)?;
                }
                b"type" => {
                    seen.once(1)?;
                    s.skip(4)?;
                }
                b"name" => {
                    seen.once(2)?;
                    name = s.nullable(Scan::string)?;
                }
                b"arguments" => {
                    seen.once(3)?;
                    arguments = s.nullable(|s| s.arguments(4))?;
                }
                b"function" => {
                    seen.once(4)?;
                    function = s.nullable(Scan::function)?;
                }
                _ => return None,
            }
            Some(())
        })?;
        let (name, arguments) = match (name, function) {
            (Some(name), None) => (name, arguments),
            (None, Some((name, inner))) if arguments.is_none() => (name, inner),
            _ => return None,
        };
        if name.is_empty() {
            return None;
        }
        let call = ToolCall::new(name, arguments.unwrap_or_default());
        Some(match id {
            Some(id) => call.with_id(id),
            None => call,
        })
    }

    /// OpenAI's `function`: its `name` (required) and `arguments`.
    #[allow(clippy::type_complexity)]
    fn function(&mut self) -> Option<(Cow<'a, str>, Option<Cow<'a, str>>)> {
        let mut seen = Seen::default();
        let (mut name, mut arguments) = (None, None);
        self.object(|s, key| {
            match key {
                b"name" => {
                    seen.once(0)?;
                    name = Some(s.string()?);
                }
                b"arguments" => {
                    seen.once(1)?;
                    arguments = s.nullable(|s| s.arguments(5))?;
                }
                _ => return None,
            }
            Some(())
        })?;
        Some((name?, arguments))
    }

    /// A call's arguments at nesting `depth`: a string of JSON is its text, any other
    /// value the JSON text it is written in.
    fn arguments(&mut self, depth: usize) -> Option<Cow<'a, str>> {
        if self.peek()? == b'"' {
            return self.string();
        }
        self.raw(depth).map(Cow::Borrowed)
    }

    /// Skips a value at nesting `depth` (of its brackets, if it has any), checking it
    /// is JSON.
    fn skip(&mut self, depth: usize) -> Option<()> {
        match self.peek()? {
            b'"' => self.skip_string(),
            open @ (b'{' | b'[') => {
                if depth > DEPTH {
                    return None;
                }
                self.at += 1;
                let close = if open == b'{' { b'}' } else { b']' };
                if self.peek()? == close {
                    self.at += 1;
                    return Some(());
                }
                loop {
                    if open == b'{' {
                        self.skip_string()?;
                        self.expect(b':')?;
                    }
                    self.skip(depth + 1)?;
                    if self.close(close)? {
                        return Some(());
                    }
                }
            }
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => self.number(),
        }
    }

    /// A JSON number, checked against JSON's grammar.
    fn number(&mut self) -> Option<()> {
        let bytes = self.bytes();
        let mut i = self.at;
        let digits = |i: &mut usize| {
            let start = *i;
            while bytes.get(*i).is_some_and(u8::is_ascii_digit) {
                *i += 1;
            }
            *i > start
        };
        if bytes.get(i) == Some(&b'-') {
            i += 1;
        }
        match bytes.get(i)? {
            b'0' => i += 1,
            b'1'..=b'9' => {
                digits(&mut i);
            }
            _ => return None,
        }
        if bytes.get(i) == Some(&b'.') {
            i += 1;
            if !digits(&mut i) {
                return None;
            }
        }
        if matches!(bytes.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(bytes.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            if !digits(&mut i) {
                return None;
            }
        }
        self.at = i;
        Some(())
    }
}

/// The length of the plain run at the start of a string's remaining bytes: up to the
/// closing quote or a backslash, which must come; a control character (which JSON
/// does not allow in a string) gives up.
#[inline]
fn plain(rest: &[u8]) -> Option<usize> {
    // Eight bytes at a time (SWAR, as serde_json scans strings): a byte is flagged if
    // it is a quote, a backslash or below 0x20. Each test can flag bytes after a true
    // one (a borrow carries), never before it, so the lowest flag is the first.
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    let mut i = 0;
    while let Some(word) = rest.get(i..i + 8) {
        let x = u64::from_le_bytes(word.try_into().ok()?);
        let flags = zero(x ^ (ONES * u64::from(b'"')))
            | zero(x ^ (ONES * u64::from(b'\\')))
            | (x.wrapping_sub(ONES * 0x20) & !x & HIGH);
        if flags != 0 {
            i += flags.trailing_zeros() as usize / 8;
            return (rest[i] >= 0x20).then_some(i);
        }
        i += 8;
    }
    let tail = rest.get(i..)?;
    let end = i + tail
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
    (rest[end] >= 0x20).then_some(end)
}

#[cfg(test)]
mod tests;
