//! A JSON text skimmed: its objects' keys read, and the values asked for; every other
//! value stepped over by its quotes and brackets alone ([`depth::brackets`], the walk
//! of the nesting check), its text not checked. What `auto` looks at to tell a
//! record's kind, before a reader reads the record, checking all of it: a few
//! instructions a byte, where serde_json's check of a document's every value cost 11
//! (an Inspect AI log's look was a fifth of its replay). Not the fast path's `Scan`,
//! whose skip checks every value it steps over (about ten instructions a byte): a
//! skim checks only what it reads (keys, the values asked for, the separators).

use std::borrow::Cow;

use super::depth;

/// A cursor in a JSON text. Each method gives up (`None`) where the text is not the
/// JSON it expects, the cursor where it stopped.
pub(super) struct Skim<'a> {
    text: &'a str,
    at: usize,
    /// The objects and lists the cursor is in.
    level: usize,
    /// The deepest nesting of the objects and lists stepped over or into so far.
    deepest: usize,
}

impl<'a> Skim<'a> {
    /// A cursor at the start of `text`.
    pub(super) fn new(text: &'a str) -> Skim<'a> {
        Skim {
            text,
            at: 0,
            level: 0,
            deepest: 0,
        }
    }

    /// The deepest nesting of the objects and lists the skim has stepped over or
    /// into (a text skimmed whole: its nesting).
    pub(super) fn deepest(&self) -> usize {
        self.deepest
    }

    /// Into an object or a list (its opening bracket consumed).
    fn enter(&mut self) {
        self.level += 1;
        self.deepest = self.deepest.max(self.level);
    }

    /// The next byte that is not JSON whitespace, not consumed.
    pub(super) fn peek(&mut self) -> Option<u8> {
        let bytes = self.text.as_bytes();
        while let Some(&b) = bytes.get(self.at) {
            if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                return Some(b);
            }
            self.at += 1;
        }
        None
    }

    /// The members of the object at the cursor (after whitespace): `member` is given
    /// each key, decoded, with the cursor at its value, which it must step over.
    pub(super) fn object(
        &mut self,
        mut member: impl FnMut(&mut Self, Cow<'a, str>) -> Option<()>,
    ) -> Option<()> {
        self.expect(b'{')?;
        self.enter();
        if self.peek()? == b'}' {
            self.at += 1;
            self.level -= 1;
            return Some(());
        }
        loop {
            let key = self.string()?;
            self.expect(b':')?;
            self.peek()?;
            member(self, key)?;
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    self.level -= 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// The list at the cursor (after whitespace): `first` is given the cursor at its
    /// first element (if it has one), which it must step over; the others are stepped
    /// over.
    pub(super) fn first_element(
        &mut self,
        first: impl FnOnce(&mut Self) -> Option<()>,
    ) -> Option<()> {
        self.expect(b'[')?;
        self.enter();
        if self.peek()? == b']' {
            self.at += 1;
            self.level -= 1;
            return Some(());
        }
        first(self)?;
        // The rest: the list's own level is one of the nesting `close` measures.
        self.level -= 1;
        self.close(b']').map(drop)
    }

    /// The string at the cursor (after whitespace), if it is one (then consumed);
    /// `None` for any other value, stepped over.
    pub(super) fn string_value(&mut self) -> Option<Option<Cow<'a, str>>> {
        if self.peek()? == b'"' {
            self.string().map(Some)
        } else {
            self.value().map(|_| None)
        }
    }

    /// Steps over the value at the cursor (after whitespace) and gives its text: a
    /// string to its closing quote, an object or a list to its closing bracket,
    /// anything else (a number, `true`, ...) to the first byte none of those has: a
    /// comma, bracket, brace, quote or whitespace.
    pub(super) fn value(&mut self) -> Option<&'a str> {
        let bytes = self.text.as_bytes();
        let first = self.peek()?;
        let start = self.at;
        match first {
            b'"' => self.skip_string()?,
            open @ (b'{' | b'[') => {
                self.at += 1;
                self.close(if open == b'{' { b'}' } else { b']' })?;
            }
            _ => {
                let rest = &bytes[start..];
                let len = rest
                    .iter()
                    .position(|b| {
                        matches!(
                            b,
                            b',' | b'}' | b']' | b'{' | b'[' | b'"' | b' ' | b'\t' | b'\n' | b'\r'
                        )
                    })
                    .unwrap_or(rest.len());
                if len == 0 {
                    return None;
                }
                self.at = start + len;
            }
        }
        self.text.get(start..self.at)
    }

    /// Steps over the rest of an object or a list, the cursor inside it (outside any
    /// string; the list or object not counted in the cursor's level), to its closing
    /// bracket, which must be `close`; gives the nesting it reached (1 for none
    /// within it), which the skim's deepest counts from its level.
    fn close(&mut self, close: u8) -> Option<usize> {
        // The first bracket that closes more than opened after the cursor.
        let (mut depth, mut deepest) = (1usize, 1usize);
        let end = depth::brackets(self.text.as_bytes(), self.at, |b, _| {
            if b == b'[' || b == b'{' {
                depth += 1;
                deepest = deepest.max(depth);
            } else {
                depth -= 1;
            }
            depth == 0
        })?;
        if self.text.as_bytes()[end] != close {
            return None;
        }
        self.at = end + 1;
        self.deepest = self.deepest.max(self.level + deepest);
        Some(deepest)
    }

    /// Consumes `byte` (after whitespace), or gives up.
    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    /// The string at the cursor (after whitespace): borrowed where it has no escape,
    /// decoded as serde_json decodes it otherwise.
    fn string(&mut self) -> Option<Cow<'a, str>> {
        self.expect(b'"')?;
        let bytes = self.text.as_bytes();
        let start = self.at;
        let end = start + memchr::memchr2(b'"', b'\\', &bytes[start..])?;
        if bytes[end] == b'"' {
            self.at = end + 1;
            return self.text.get(start..end).map(Cow::Borrowed);
        }
        let mut out = String::from(self.text.get(start..end)?);
        self.at = crate::json_string::unescape_into(self.text, end, &mut out)?;
        Some(Cow::Owned(out))
    }

    /// Steps over the string at the cursor (at its opening quote).
    fn skip_string(&mut self) -> Option<()> {
        let bytes = self.text.as_bytes();
        let mut at = self.at + 1;
        loop {
            at += memchr::memchr2(b'"', b'\\', bytes.get(at..)?)?;
            if bytes[at] == b'"' {
                self.at = at + 1;
                return Some(());
            }
            // A backslash: the byte after it is text.
            at += 2;
        }
    }
}

/// The elements of the JSON list `text` (trimmed), the text of each as
/// [`Skim::value`] steps over it, and whether the list nests no deeper than `max`
/// (itself one level); `None` where it is not a list of values separated by commas,
/// with nothing after it. One walk finds both: the elements' ends and the list's
/// nesting.
pub(super) fn elements(text: &str, max: usize) -> Option<(Vec<&str>, bool)> {
    let mut skim = Skim::new(text);
    skim.expect(b'[')?;
    skim.enter();
    let mut elements = Vec::new();
    if skim.peek()? == b']' {
        skim.at += 1;
    } else {
        loop {
            skim.peek()?;
            let start = skim.at;
            skim.value()?;
            elements.push(text.get(start..skim.at)?);
            match skim.peek()? {
                b',' => skim.at += 1,
                b']' => {
                    skim.at += 1;
                    break;
                }
                _ => return None,
            }
        }
    }
    skim.peek()
        .is_none()
        .then_some((elements, skim.deepest <= max))
}

/// The JSON values of `text` (trimmed), one after another (whitespace or nothing
/// between them), where it holds more than one: the text of each as [`Skim::value`]
/// steps over it, and whether they nest no deeper than `max`; `None` where it holds
/// one, or where a value cannot be stepped over.
pub(super) fn documents(text: &str, max: usize) -> Option<(Vec<&str>, bool)> {
    let mut skim = Skim::new(text);
    let mut documents = Vec::new();
    while skim.peek().is_some() {
        let start = skim.at;
        skim.value()?;
        documents.push(text.get(start..skim.at)?);
    }
    (documents.len() > 1).then_some((documents, skim.deepest <= max))
}

#[cfg(test)]
mod tests {
    use super::{Skim, documents, elements};

    #[test]
    fn values_are_stepped_over_to_their_ends() {
        let text = r#" {"a\"b": [1, {"x": "]}"}], "c": -1.5e3 , "d": "q\\", "e": {}}"#;
        let mut keys = Vec::new();
        let mut values = Vec::new();
        Skim::new(text)
            .object(|s, key| {
                keys.push(key.into_owned());
                values.push(s.value()?);
                Some(())
            })
            .expect("an object");
        assert_eq!(keys, ["a\"b", "c", "d", "e"]);
        assert_eq!(values, [r#"[1, {"x": "]}"}]"#, "-1.5e3", r#""q\\""#, "{}"]);
        // A value after whitespace: its own text.
        assert_eq!(Skim::new(" \n 7 ,").value(), Some("7"));
        assert_eq!(Skim::new("\t[1] ").value(), Some("[1]"));
    }

    #[test]
    fn a_lists_first_element_is_given_and_the_rest_stepped_over() {
        let mut skim = Skim::new(r#"[{"k": 1}, [2, "]"], 3] "after""#);
        let mut first = None;
        skim.first_element(|s| {
            first = Some(s.value()?);
            Some(())
        })
        .expect("a list");
        assert_eq!(first, Some(r#"{"k": 1}"#));
        assert_eq!(skim.string_value(), Some(Some("after".into())));
        let mut empty = Skim::new("[ ]");
        empty
            .first_element(|_| panic!("an empty list has no element"))
            .expect("a list");
        assert_eq!(empty.peek(), None);
    }

    #[test]
    fn a_lists_elements_are_found_with_its_nesting() {
        let text = r#"[ {"a": [1, "]"]}, 2 ,"x", [[[]]] ]"#;
        let (found, _) = elements(text, 4).expect("a list");
        assert_eq!(found, [r#"{"a": [1, "]"]}"#, "2", r#""x""#, "[[[]]]"]);
        // The list one level, `[[[]]]` three more: four deep.
        assert_eq!(elements(text, 4).map(|(_, shallow)| shallow), Some(true));
        assert_eq!(elements(text, 3).map(|(_, shallow)| shallow), Some(false));
        assert_eq!(elements("[]", 1), Some((vec![], true)));
        assert_eq!(elements("[1]", 0), Some((vec!["1"], false)));
        for text in ["[1 2]", "[1,", "[1] 2", "[1,]", "{}", "[{]"] {
            assert_eq!(elements(text, 9), None, "{text}");
        }
    }

    #[test]
    fn documents_one_after_another_are_found_with_their_nesting() {
        let text = "{\"a\": [1]}\n[[2]]{}  \"s\" 7\"t\"8[]";
        let (found, shallow) = documents(text, 3).expect("documents");
        assert_eq!(
            found,
            [
                r#"{"a": [1]}"#,
                "[[2]]",
                "{}",
                r#""s""#,
                "7",
                r#""t""#,
                "8",
                "[]"
            ]
        );
        assert!(shallow);
        assert_eq!(documents(text, 1).map(|(_, shallow)| shallow), Some(false));
        // One document is not documents; a comma between them is not whitespace.
        assert_eq!(documents(r#"{"a": 1}"#, 9), None);
        assert_eq!(documents(r#"{"a": 1}, {}"#, 9), None);
        assert_eq!(documents(r#"{"a": 1} {"#, 9), None);
    }

    #[test]
    fn what_is_not_the_json_asked_for_gives_up() {
        // A value cut short, a bracket closing what it did not open, a missing colon,
        // a key that is not a string, nothing where a value should be, no comma, a
        // list closed by a brace.
        for text in [
            r#"{"a": [1, 2"#,
            r#"{"a": "b"#,
            r#"{"a": [1}"#,
            r#"{"a" 1}"#,
            r#"{a: 1}"#,
            r#"{"a": }"#,
            r#"{"a": 1 "b": 2}"#,
            r#"{"a": {"x": 1], "b": 2}"#,
        ] {
            let seen = Skim::new(text).object(|s, _| s.value().map(drop));
            assert_eq!(seen, None, "{text}");
        }
        let mut list = Skim::new(r#"[1, {"a": 2}}, 3"#);
        assert_eq!(list.first_element(|s| s.value().map(drop)), None);
        assert_eq!(Skim::new(r#""\q""#).string(), None);
        assert_eq!(Skim::new(r#"7"#).string_value(), Some(None));
    }
}
