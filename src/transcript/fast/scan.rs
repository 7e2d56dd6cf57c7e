//! The scanner's cursor: JSON read byte by byte, straight from a line, giving up
//! (`None`) at anything it is not sure of.

use std::borrow::Cow;

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
    /// opening quote.
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
        Some(&self.text[start..self.at])
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

    /// Consumes `word` (`true`, `false`, `null`, `\\u`), or gives up.
    #[inline(always)]
    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.at + word.len();
        // A comparison of a known length: a few loads, not a call.
        (self.bytes().get(self.at..end)? == word).then(|| self.at = end)
    }

    /// A string: borrowed from the line when it has no escapes, decoded otherwise.
    #[inline(always)]
    pub(super) fn string(&mut self) -> Option<Cow<'a, str>> {
        self.string_with::<false>()
    }

    /// A string whose text is JSON (a call's arguments), read as [`Scan::string`]
    /// reads one: decoded for its short runs between escapes (its quotes are
    /// escaped, every few bytes), where prose has long runs between line breaks.
    #[inline(always)]
    pub(super) fn json_in_string(&mut self) -> Option<Cow<'a, str>> {
        self.string_with::<true>()
    }

    /// [`Scan::string`], decoded by [`Scan::unescape`] for runs as `SHORT_RUNS`
    /// says.
    #[inline(always)]
    fn string_with<const SHORT_RUNS: bool>(&mut self) -> Option<Cow<'a, str>> {
        self.expect(b'"')?;
        let bytes = self.bytes();
        let start = self.at;
        let end = start + plain(&bytes[start..])?;
        if bytes[end] == b'"' {
            self.at = end + 1;
            return Some(Cow::Borrowed(&self.text[start..end]));
        }
        self.at = end;
        self.unescape::<SHORT_RUNS>(start).map(Cow::Owned)
    }

    /// The rest of a string with escapes, decoded into a new string as serde_json
    /// does: `start` is where the string's text begins and the cursor is at its first
    /// backslash. Sized by the rest of the line (a string cannot be longer), up to a
    /// bound above which the string is measured first, so that a short string is
    /// decoded in one pass and a long one is not given a line's worth of room. The
    /// runs between escapes are copied as [`copy_short`] copies them where they are
    /// expected short (`SHORT_RUNS`), else as [`copy_run`] does.
    #[cold]
    fn unescape<const SHORT_RUNS: bool>(&mut self, start: usize) -> Option<String> {
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
            // A short run's copy may run past the string by up to seven bytes.
            probe.at - start + if SHORT_RUNS { 8 } else { 0 }
        };
        let mut out = String::with_capacity(room);
        out.push_str(text.get(start..self.at)?);
        let mut at = self.at;
        loop {
            // At a backslash.
            let escape = *bytes.get(at + 1)?;
            at += 2;
            if escape == b'u' {
                self.at = at;
                out.push(self.unicode_escape()?);
                at = self.at;
            } else {
                out.push(char::from(match escape {
                    b'"' => b'"',
                    b'\\' => b'\\',
                    b'/' => b'/',
                    b'b' => 0x8,
                    b'f' => 0xc,
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    _ => return None,
                }));
            }
            at = if SHORT_RUNS {
                copy_short(text, at, &mut out)?
            } else {
                copy_run(text, at, &mut out)?
            };
            // At the quote or the backslash that ended the run.
            if bytes[at] == b'"' {
                self.at = at + 1;
                return Some(out);
            }
        }
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

    /// Skips the rest of a string from a backslash in it (out of line: most strings
    /// have none, and their skip is then a few instructions).
    #[cold]
    fn skip_escaped_rest(&mut self) -> Option<()> {
        let bytes = self.bytes();
        loop {
            // At a backslash.
            let escape = *bytes.get(self.at + 1)?;
            self.at += 2;
            match escape {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                b'u' => drop(self.unicode_escape()?),
                _ => return None,
            }
            let end = self.at + plain(&bytes[self.at..])?;
            self.at = end + 1;
            if bytes[end] == b'"' {
                return Some(());
            }
            self.at = end;
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

/// Copies the plain run of a string's text that starts at `at` onto `out` and gives
/// where it ends (at a quote or a backslash; a control character gives up): a run
/// expected short (between the escaped quotes of JSON in a string). Eight bytes at a
/// time, for up to three words: a word is copied whole, a fixed-size copy (a copy of
/// the run's own length is a call, dearer than a short run), and the one that holds
/// the run's end is cut back to it; the last few bytes of the line one character at
/// a time; the rest of a longer run as [`copy_run`] copies it. `out` has room for
/// the run and seven bytes more (the caller sized it by the line).
#[inline(always)]
fn copy_short(text: &str, mut at: usize, out: &mut String) -> Option<usize> {
    for _ in 0..3 {
        let Some(word) = text.get(at..at + 8) else {
            if at + 8 <= text.len() {
                // The word would split a character.
                break;
            }
            for (i, c) in text.get(at..)?.char_indices() {
                match c {
                    '"' | '\\' => return Some(at + i),
                    ..' ' => return None,
                    _ => out.push(c),
                }
            }
            return None;
        };
        let flags = special(u64::from_le_bytes(word.as_bytes().try_into().ok()?));
        out.push_str(word);
        if flags != 0 {
            let run = flags.trailing_zeros() as usize / 8;
            // The cut is at an ASCII byte: a character's boundary.
            out.truncate(out.len() - 8 + run);
            let end = at + run;
            return (text.as_bytes()[end] >= 0x20).then_some(end);
        }
        at += 8;
    }
    copy_run(text, at, out)
}

/// Copies the plain run of a string's text that starts at `at` onto `out` and gives
/// where it ends, as [`copy_short`] does: measured, then copied in one call
/// (cheaper a byte than word by word, where the run is long).
#[inline(always)]
fn copy_run(text: &str, at: usize, out: &mut String) -> Option<usize> {
    let end = at + plain(&text.as_bytes()[at..])?;
    out.push_str(text.get(at..end)?);
    Some(end)
}

/// The length of the plain run at the start of a string's remaining bytes: up to the
/// closing quote or a backslash, which must come; a control character (which JSON
/// does not allow in a string) gives up.
#[inline]
pub(super) fn plain(rest: &[u8]) -> Option<usize> {
    let mut i = 0;
    while let Some(word) = rest.get(i..i + 8) {
        let flags = special(u64::from_le_bytes(word.try_into().ok()?));
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

/// Eight bytes of a string at once (SWAR, as serde_json scans strings), in the order
/// they come: the high bit of each byte that is a quote, a backslash or below 0x20
/// (which ends a plain run) is set. Each test can flag bytes after a true one (a borrow
/// carries), never before it, so the lowest flag is the first.
#[inline(always)]
fn special(x: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    zero(x ^ (ONES * u64::from(b'"')))
        | zero(x ^ (ONES * u64::from(b'\\')))
        | (x.wrapping_sub(ONES * 0x20) & !x & HIGH)
}
