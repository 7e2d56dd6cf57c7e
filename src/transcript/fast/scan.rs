//! The scanner's cursor: JSON read byte by byte, straight from a line, giving up
//! (`None`) at anything it is not sure of.

use std::borrow::Cow;

use crate::json_string::{self, plain};
use crate::message::CallArguments;

/// The deepest nesting the scanner follows (the line's object is level 1); deeper
/// lines go to the serde path, which checks them against
/// [`super::super::MAX_JSON_DEPTH`].
pub(super) const DEPTH: usize = 32;

/// The keys of an object seen so far: a second one is serde's "duplicate field".
#[derive(Default)]
pub(super) struct Seen(u32);

impl Seen {
    pub(super) fn once(&mut self, bit: u32) -> Option<()> {
        let mask = 1 << bit;
        if self.0 & mask != 0 {
            return None;
        }
        self.0 |= mask;
        Some(())
    }

    /// Whether the key of `bit` was seen.
    pub(super) fn has(&self, bit: u32) -> bool {
        self.0 & (1 << bit) != 0
    }

    /// Whether any key of a bit below `bit` was seen.
    pub(super) fn any_below(&self, bit: u32) -> bool {
        self.0 & ((1 << bit) - 1) != 0
    }
}

/// A cursor over a line's JSON.
pub(super) struct Scan<'a> {
    pub(super) text: &'a str,
    pub(super) at: usize,
}

impl<'a> Scan<'a> {
    /// A cursor at the start of `text`.
    pub(super) fn new(text: &'a str) -> Scan<'a> {
        Scan { text, at: 0 }
    }

    pub(super) fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// The line's text from `start` to `end`, where the scanner found both ends (whole
    /// characters, so never `None`). Checked as a slice is, but inline: `str::get`'s
    /// check, which the compiler left out of line, cost 20 instructions a string
    /// (`jsonl` 46 a message, AutoGen 80).
    #[inline(always)]
    pub(super) fn slice(&self, start: usize, end: usize) -> Option<&'a str> {
        self.text.get(..end)?.get(start..)
    }

    /// The next byte that is not JSON whitespace, not consumed.
    #[inline(always)]
    pub(super) fn peek(&mut self) -> Option<u8> {
        let b = *self.bytes().get(self.at)?;
        // Whitespace is below `!`: one comparison for every other byte.
        if b > b' ' {
            return Some(b);
        }
        self.peek_past_whitespace()
    }

    /// [`Scan::peek`] at whitespace (or a byte JSON does not allow there).
    fn peek_past_whitespace(&mut self) -> Option<u8> {
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
    pub(super) fn expect(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    /// After a member or element: `Some(true)` at the closing `close` (consumed),
    /// `Some(false)` at a comma (consumed, with the one space that most often follows
    /// it).
    #[inline(always)]
    pub(super) fn close(&mut self, close: u8) -> Option<bool> {
        match self.peek()? {
            b',' => {
                self.at += 1 + usize::from(self.bytes().get(self.at + 1) == Some(&b' '));
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
    pub(super) fn end(&mut self) -> Option<()> {
        self.peek().is_none().then_some(())
    }

    /// An object's members: `member` reads each, its key and value (an empty object
    /// has none), most often through `match_key!`, with the cursor at the key's
    /// opening quote. (Always inlined: each caller's loop is its own, and one left out
    /// of line, as the compiler chose for Responses items once more scanners were
    /// written, cost 80 instructions an item.)
    #[inline(always)]
    pub(super) fn object(&mut self, member: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.each(b'{', b'}', member)
    }

    /// A list's elements, each read by `element`; its brackets at nesting `depth`.
    /// (The loop of [`Scan::each`], written out: the list built in it measured
    /// dearer.)
    pub(super) fn array<T>(
        &mut self,
        depth: usize,
        mut element: impl FnMut(&mut Self) -> Option<T>,
    ) -> Option<Vec<T>> {
        if depth > DEPTH {
            return None;
        }
        self.expect(b'[')?;
        if self.peek()? == b']' {
            self.at += 1;
            return Some(Vec::new());
        }
        // Room for a few at once: a list here most often has one or two elements,
        // and growing from none costs more than allocating.
        let mut items = Vec::with_capacity(4);
        loop {
            items.push(element(self)?);
            if self.close(b']')? {
                return Some(items);
            }
        }
    }

    /// A list's elements, each read by `element` (which keeps what it reads); its
    /// brackets at nesting `depth`. ([`Scan::array`] where the caller holds the
    /// elements in a list of its own.)
    pub(super) fn elements(
        &mut self,
        depth: usize,
        element: impl FnMut(&mut Self) -> Option<()>,
    ) -> Option<()> {
        if depth > DEPTH {
            return None;
        }
        self.each(b'[', b']', element)
    }

    /// The items between `open` and `close` (an object's members, a list's
    /// elements), separated by commas, each read by `item`.
    #[inline(always)]
    fn each(
        &mut self,
        open: u8,
        close: u8,
        mut item: impl FnMut(&mut Self) -> Option<()>,
    ) -> Option<()> {
        self.expect(open)?;
        if self.peek()? == close {
            self.at += 1;
            return Some(());
        }
        loop {
            item(self)?;
            if self.close(close)? {
                return Some(());
            }
        }
    }

    /// `true` or `false`.
    pub(super) fn boolean(&mut self) -> Option<bool> {
        match self.peek()? {
            b't' => self.literal(b"true").map(|()| true),
            b'f' => self.literal(b"false").map(|()| false),
            _ => None,
        }
    }

    /// A value's JSON text, checked, at nesting `depth`.
    pub(super) fn raw(&mut self, depth: usize) -> Option<&'a str> {
        self.peek()?;
        let start = self.at;
        self.skip(depth)?;
        self.slice(start, self.at)
    }

    /// What `read` reads from the value at the cursor (after whitespace), and that
    /// value's JSON text as written.
    pub(super) fn spanned<T>(
        &mut self,
        read: impl FnOnce(&mut Self) -> Option<T>,
    ) -> Option<(T, &'a str)> {
        self.peek()?;
        let start = self.at;
        let value = read(self)?;
        Some((value, self.slice(start, self.at)?))
    }

    /// An object's key (with no escapes) and its colon.
    pub(super) fn key(&mut self) -> Option<&'a [u8]> {
        self.expect(b'"')?;
        let bytes = self.bytes();
        let start = self.at;
        let end = start + plain(&bytes[start..])?;
        if bytes[end] != b'"' {
            return None;
        }
        self.at = end + 1;
        self.colon()?;
        Some(&bytes[start..end])
    }

    /// The first byte of the key whose opening quote is next (after whitespace),
    /// nothing consumed: what `match_key!` compares first.
    #[inline(always)]
    pub(super) fn key_first(&mut self) -> Option<u8> {
        if self.peek()? != b'"' {
            return None;
        }
        self.bytes().get(self.at + 1).copied()
    }

    /// Whether the key at the cursor (at its opening quote) is `key`, written without
    /// escapes; if so it is consumed, with its closing quote (its colon is
    /// [`Scan::colon`]'s). Compared in place: a known key costs a few loads, where
    /// finding its end first costs a scan.
    #[inline(always)]
    pub(super) fn key_is(&mut self, key: &[u8]) -> bool {
        let start = self.at + 1;
        let end = start + key.len();
        let found = match self.bytes().get(start..=end) {
            Some(found) => found[..key.len()] == *key && found[key.len()] == b'"',
            None => false,
        };
        if found {
            self.at = end + 1;
        }
        found
    }

    /// A key's colon (after its closing quote), and the one space that most often
    /// follows it.
    #[inline(always)]
    pub(super) fn colon(&mut self) -> Option<()> {
        let bytes = self.bytes();
        if bytes.get(self.at) == Some(&b':') {
            self.at += 1 + usize::from(bytes.get(self.at + 1) == Some(&b' '));
            Some(())
        } else {
            self.expect(b':')
        }
    }

    /// `read`'s value, or `None` for `null` (an absent field, as serde reads an
    /// `Option`).
    #[inline(always)]
    pub(super) fn nullable<T>(
        &mut self,
        read: impl FnOnce(&mut Self) -> Option<T>,
    ) -> Option<Option<T>> {
        if self.peek()? == b'n' {
            self.literal(b"null")?;
            return Some(None);
        }
        read(self).map(Some)
    }

    /// Consumes `word` (`true`, `false`, `null`), or gives up.
    #[inline(always)]
    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.at + word.len();
        // A comparison of a known length: a few loads, not a call.
        (self.bytes().get(self.at..end)? == word).then(|| self.at = end)
    }

    /// A string: borrowed from the line when it has no escapes, decoded otherwise.
    #[inline(always)]
    pub(super) fn string(&mut self) -> Option<Cow<'a, str>> {
        match self.string_start()? {
            Ok(text) => Some(Cow::Borrowed(text)),
            Err(start) => self.unescape(start).map(Cow::Owned),
        }
    }

    /// Whether the string at the cursor (after whitespace) is `word`, consumed:
    /// compared in place where it is written as `word` is, decoded otherwise.
    #[inline(always)]
    pub(super) fn string_is(&mut self, word: &[u8]) -> Option<bool> {
        if self.peek()? == b'"' && self.key_is(word) {
            return Some(true);
        }
        Some(self.string()?.as_bytes() == word)
    }

    /// A string whose text is JSON (a call's arguments): borrowed from the line; where
    /// it has escapes (its quotes are escaped, every few bytes), checked as
    /// [`Scan::string`] checks them and kept as written, decoded when asked for.
    pub(super) fn json_in_string(&mut self) -> Option<CallArguments<'a>> {
        match self.string_start()? {
            Ok(text) => Some(CallArguments::Borrowed(text)),
            Err(start) => {
                self.skip_escaped_rest()?;
                Some(CallArguments::Escaped(self.slice(start - 1, self.at)?))
            }
        }
    }

    /// A string up to its first escape: its whole text (`Ok`, the cursor past the
    /// closing quote) where it has none, else where its text begins (`Err`, the cursor
    /// at the first backslash).
    #[inline(always)]
    fn string_start(&mut self) -> Option<Result<&'a str, usize>> {
        self.expect(b'"')?;
        let bytes = self.bytes();
        let start = self.at;
        let end = start + plain(&bytes[start..])?;
        if bytes[end] == b'"' {
            self.at = end + 1;
            return Some(Ok(self.slice(start, end)?));
        }
        self.at = end;
        Some(Err(start))
    }

    /// The rest of a string with escapes, decoded into a new string as serde_json
    /// does: `start` is where the string's text begins and the cursor is at its first
    /// backslash. Sized by the rest of the line (a string cannot be longer), up to a
    /// bound above which the string is measured first, so that a short string is
    /// decoded in one pass and a long one is not given a line's worth of room.
    #[cold]
    fn unescape(&mut self, start: usize) -> Option<String> {
        const ROOM: usize = 512;
        let text = self.text;
        let bytes = text.as_bytes();
        let rest = bytes.len() - start;
        let room = if rest <= ROOM {
            rest
        } else {
            let mut probe = Scan {
                text,
                at: start - 1,
            };
            probe.skip_string()?;
            probe.at - start
        };
        let mut out = String::with_capacity(room);
        out.push_str(text.get(start..self.at)?);
        self.at = json_string::unescape_into(text, self.at, &mut out)?;
        Some(out)
    }

    /// Skips a string, checking it as [`Scan::string`] does, without building it.
    fn skip_string(&mut self) -> Option<()> {
        self.expect(b'"')?;
        self.skip_string_rest()
    }

    /// Skips the rest of a string (just past its opening quote), checking it. (Always
    /// inlined: the call, its saved registers and constants, cost a third of a short
    /// string's skip.)
    #[inline(always)]
    fn skip_string_rest(&mut self) -> Option<()> {
        let bytes = self.bytes();
        let end = self.at + plain(&bytes[self.at..])?;
        if bytes[end] == b'"' {
            self.at = end + 1;
            return Some(());
        }
        self.at = end;
        self.skip_escaped_rest()
    }

    /// Skips the rest of a string from a backslash in it.
    #[inline(always)]
    fn skip_escaped_rest(&mut self) -> Option<()> {
        self.at = json_string::skip_escaped(self.bytes(), self.at)?;
        Some(())
    }

    /// A count of tokens: an integer that fits a `u64` (serde_json refuses a float or
    /// a negative number there; the scanner gives up on them).
    pub(super) fn count(&mut self) -> Option<u64> {
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

    /// A JSON integer that fits an `i64`, as serde_json reads one there (a float, an
    /// integer beyond, or `-0`, which serde_json reads as a float, gives up: serde
    /// refuses them).
    pub(super) fn integer(&mut self) -> Option<i64> {
        if self.peek()? != b'-' {
            return i64::try_from(self.count()?).ok();
        }
        // The digits right after the sign (`count` would step over whitespace).
        self.at += 1;
        if !self.bytes().get(self.at)?.is_ascii_digit() {
            return None;
        }
        match self.count()? {
            0 => None,
            n => 0i64.checked_sub_unsigned(n),
        }
    }

    /// A number as serde_json reads it into an `f64`: an integer converted (`-0`
    /// negative, as serde_json makes it), one with a fraction or an exponent
    /// correctly rounded (serde_json's `float_roundtrip` rounds so too). `None` for an
    /// integer past 64 bits (serde_json rounds its digits as a float's) and a value
    /// out of range (which serde_json refuses).
    pub(super) fn float(&mut self) -> Option<f64> {
        self.peek()?;
        let start = self.at;
        self.number()?;
        let text = self.slice(start, self.at)?;
        let value = if text.bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) {
            text.parse::<f64>().ok()?
        } else if let Some(magnitude) = text.strip_prefix('-') {
            // The magnitude converted, then negated: as serde_json does past
            // `i64` and for `-0`, and the same as `i64`'s conversion within it.
            -(magnitude.parse::<u64>().ok()? as f64)
        } else {
            text.parse::<u64>().ok()? as f64
        };
        value.is_finite().then_some(value)
    }

    /// Skips a value at nesting `depth` (of its brackets, if it has any), checking it
    /// is JSON. (Always inlined: the call and the registers its string loop saves,
    /// 16 instructions, were a third of a `null`'s skip; OpenAI's log, whose objects
    /// carry the most members nothing reads, 2 % fewer instructions, the others
    /// within 1 %.)
    #[inline(always)]
    pub(super) fn skip(&mut self, depth: usize) -> Option<()> {
        match self.peek()? {
            b'"' => {
                self.at += 1;
                self.skip_string_rest()
            }
            b'{' | b'[' => self.skip_container(depth),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => self.number(),
        }
    }

    /// Skips an object or a list (at its opening bracket) at nesting `depth`.
    fn skip_container(&mut self, depth: usize) -> Option<()> {
        if depth > DEPTH {
            return None;
        }
        let open = self.bytes()[self.at];
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

    /// A JSON number, checked against JSON's grammar.
    fn number(&mut self) -> Option<()> {
        let bytes = self.bytes();
        let mut i = self.at;
        // The commonest, a positive integer (a time, a count, an index), on a path
        // of its own: a loop of its digits, then the end of the value (OpenAI's log
        // 14 fewer instructions a message).
        if let Some(b'1'..=b'9') = bytes.get(i) {
            i += 1;
            while let Some(b'0'..=b'9') = bytes.get(i) {
                i += 1;
            }
            if !matches!(bytes.get(i), Some(b'.' | b'e' | b'E')) {
                self.at = i;
                return Some(());
            }
            self.at = Self::fraction_and_exponent(bytes, i)?;
            return Some(());
        }
        if bytes.get(i) == Some(&b'-') {
            i += 1;
        }
        match bytes.get(i)? {
            b'0' => i += 1,
            b'1'..=b'9' => {
                i += 1;
                while let Some(b'0'..=b'9') = bytes.get(i) {
                    i += 1;
                }
            }
            _ => return None,
        }
        if let Some(b'.' | b'e' | b'E') = bytes.get(i) {
            i = Self::fraction_and_exponent(bytes, i)?;
        }
        self.at = i;
        Some(())
    }

    /// A number's fraction and exponent, from `i` (at its `.`, `e` or `E`): where the
    /// number ends.
    fn fraction_and_exponent(bytes: &[u8], mut i: usize) -> Option<usize> {
        let digits = |i: &mut usize| {
            let start = *i;
            while let Some(b'0'..=b'9') = bytes.get(*i) {
                *i += 1;
            }
            *i > start
        };
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
        Some(i)
    }
}
