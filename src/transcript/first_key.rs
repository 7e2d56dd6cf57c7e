//! The kind of record each first key was: a log that mixes kinds (chat messages and
//! response objects) writes each kind's keys in its own order, so that a record's
//! first key says which kind to read it as first.

use super::record::Kind;

/// A few shapes per log; a log of ever new first keys is not predicted.
const MAX_KEYS: usize = 8;

/// The first keys a log has shown, each with the kind of record it was lately.
#[derive(Debug, Default)]
pub(super) struct FirstKeys {
    keys: Vec<Known>,
}

/// One first key and its kind.
#[derive(Debug)]
struct Known {
    key: String,
    kind: Kind,
    /// The key and its closing quote as the first bytes of a word (little-endian),
    /// and the mask of those bytes, where they fit in 8 (`id`, `role`, `type`,
    /// `content`, ...): one comparison of a word against a line's first bytes.
    /// A mask of 0 for a longer key, compared as bytes.
    word: u64,
    mask: u64,
}

impl FirstKeys {
    /// Whether no key is known (the log has shown one kind only).
    pub(super) fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The kind records whose first key is the record `text`'s were lately, if its
    /// first key is one known.
    #[inline]
    pub(super) fn find(&self, text: &[u8]) -> Option<Kind> {
        if self.keys.is_empty() {
            return None;
        }
        let rest = key_start(text)?;
        // The first eight bytes from the key on (a shorter rest padded with zeros,
        // which no key's closing quote matches).
        let head = match rest.first_chunk::<8>() {
            Some(head) => u64::from_le_bytes(*head),
            None => {
                let mut padded = [0u8; 8];
                padded[..rest.len()].copy_from_slice(rest);
                u64::from_le_bytes(padded)
            }
        };
        self.keys
            .iter()
            .find(|k| {
                if k.mask != 0 {
                    head & k.mask == k.word
                } else {
                    rest.get(k.key.len()) == Some(&b'"') && rest.starts_with(k.key.as_bytes())
                }
            })
            .map(|k| k.kind)
    }

    /// Remembers that records whose first key is `key` were of `kind`.
    pub(super) fn learn(&mut self, key: &str, kind: Kind) {
        if let Some(known) = self.keys.iter_mut().find(|k| k.key == key) {
            known.kind = kind;
            return;
        }
        if self.keys.len() == MAX_KEYS {
            return;
        }
        let (word, mask) = if key.len() < 8 {
            let mut bytes = [0u8; 8];
            bytes[..key.len()].copy_from_slice(key.as_bytes());
            bytes[key.len()] = b'"';
            (u64::from_le_bytes(bytes), u64::MAX >> (8 * (7 - key.len())))
        } else {
            (0, 0)
        };
        self.keys.push(Known {
            key: key.to_owned(),
            kind,
            word,
            mask,
        });
    }
}

/// A record of a log that predicts kinds by first keys (one that has shown two kinds),
/// whose first key is read from it only where it is learnt: rarely, where a key is new
/// or its kind changed. (Taken from each record as it was read, as a slice of its
/// text, the key cost a mixed log 50 instructions a record: a slice of text is checked
/// at both ends, out of line.)
#[derive(Clone, Copy)]
pub(super) struct Keyed<'t>(pub(super) &'t str);

impl<'t> Keyed<'t> {
    /// The record's first key, if it has one without escapes.
    pub(super) fn key(self) -> Option<&'t str> {
        first_key(self.0)
    }
}

/// The bytes of the JSON object `text` from just past its first key's opening quote.
pub(super) fn key_start(text: &[u8]) -> Option<&[u8]> {
    // Most often `{"`: no whitespace to look for.
    if let Some(rest) = text.strip_prefix(b"{\"") {
        return Some(rest);
    }
    text.strip_prefix(b"{")?
        .trim_ascii_start()
        .strip_prefix(b"\"")
}

/// The first key of the JSON object `text`, if it has no escapes.
pub(crate) fn first_key(text: &str) -> Option<&str> {
    let rest = key_start(text.as_bytes())?;
    let start = text.len() - rest.len();
    let end = memchr::memchr2(b'"', b'\\', rest)?;
    (rest[end] == b'"').then(|| &text[start..start + end])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kind `keys` finds for the first key of `text`.
    fn found(keys: &FirstKeys, text: &str) -> Option<Kind> {
        keys.find(text.as_bytes())
    }

    #[test]
    fn a_known_key_is_found_whole_and_only_whole() {
        let mut keys = FirstKeys::default();
        assert!(keys.is_empty());
        keys.learn("id", Kind::Completion);
        keys.learn("role", Kind::Message);
        keys.learn("content", Kind::AnthropicResponse);
        keys.learn("messages", Kind::ChatRequest);
        assert_eq!(found(&keys, r#"{"id": 1}"#), Some(Kind::Completion));
        assert_eq!(found(&keys, r#"{ "role": "user"}"#), Some(Kind::Message));
        assert_eq!(
            found(&keys, r#"{"content":"x"}"#),
            Some(Kind::AnthropicResponse)
        );
        assert_eq!(found(&keys, r#"{"messages": []}"#), Some(Kind::ChatRequest));
        // A key that begins as a known one, or ends the text, or is not first.
        assert_eq!(found(&keys, r#"{"ids": 1}"#), None);
        assert_eq!(found(&keys, r#"{"rol": 1}"#), None);
        assert_eq!(found(&keys, r#"{"message": []}"#), None);
        assert_eq!(found(&keys, r#"{"id"#), None);
        assert_eq!(found(&keys, r#"{"i"#), None);
        assert_eq!(found(&keys, r#"{"x": 1, "id": 2}"#), None);
        assert_eq!(found(&keys, r#"["id"]"#), None);
        // Learnt again: its kind is the latest.
        keys.learn("id", Kind::Response);
        assert_eq!(found(&keys, r#"{"id": 1}"#), Some(Kind::Response));
        // The key a record is learnt by is its first.
        assert_eq!(Keyed(r#"{ "role": "user"}"#).key(), Some("role"));
    }

    #[test]
    fn a_log_of_ever_new_first_keys_is_not_predicted() {
        let mut keys = FirstKeys::default();
        for i in 0..20 {
            keys.learn(&format!("k{i}"), Kind::Message);
        }
        assert!(keys.find(br#"{"k7": 1}"#).is_some());
        assert!(keys.find(br#"{"k8": 1}"#).is_none());
    }

    #[test]
    fn the_first_key_is_read_where_it_has_no_escapes() {
        assert_eq!(first_key(r#"{"role": "user"}"#), Some("role"));
        assert_eq!(first_key(r#"{ "r\"ole": 1}"#), None);
        assert_eq!(first_key(r#"["role"]"#), None);
        assert_eq!(first_key(r#"{"role"#), None);
    }
}
