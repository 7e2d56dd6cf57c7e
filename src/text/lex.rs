//! Character classes shared by the DSL and the stop-expression language.

/// Whitespace as Python's `str.strip()` sees it (Langroid trims elements with it):
/// Unicode `White_Space` plus the ASCII separators U+001C..U+001F. U+200B (zero-width
/// space) is *not* whitespace, in Python or here.
pub(crate) fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Characters of an unquoted name (sequence names and responders).
pub(crate) fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.')
}
