//! [`extract_code_blocks`]: the code a model wrote in fenced blocks.

/// The code in a model's fenced blocks, in order, by rlm-code's search order:
///
/// 1. blocks tagged `language` or `python` (```` ```repl ````, ```` ```python ````);
/// 2. if there are none, untagged blocks (```` ``` ````) that look like Python: they
///    contain `import `, `def `, `class `, `print(` or `=`.
///
/// Blocks with any other tag (```` ```json ````) are never code. Tags compare without
/// regard to ASCII case. A fence is a line of three or more backticks (indentation
/// allowed), the tag is the first word after them, and the block ends at a line of at
/// least as many backticks. A block that is never closed is not returned: the reply
/// was cut off, and running half a block is worse than running none. Each block is
/// returned without its leading blank lines and trailing whitespace (the first line
/// keeps its indentation); empty blocks are skipped.
///
/// ````
/// use doneseq::answer::extract_code_blocks;
///
/// let response = "Let me analyze the data.\n\n```python\nresult = sum(data)\nprint(result)\n```\n\n\
///                 And then finalize:\n\n```repl\nFINAL(result)\n```\n";
/// assert_eq!(
///     extract_code_blocks(response, "repl"),
///     ["result = sum(data)\nprint(result)", "FINAL(result)"],
/// );
///
/// // No tagged block: untagged ones that look like code.
/// let response = "```\nx = 1\n```\n```\njust prose\n```";
/// assert_eq!(extract_code_blocks(response, "repl"), ["x = 1"]);
/// ````
#[must_use]
pub fn extract_code_blocks<'t>(text: &'t str, language: &str) -> Vec<&'t str> {
    let mut tagged = Vec::new();
    let mut untagged = Vec::new();
    let mut lines = Lines { text, at: 0 };
    while let Some((_, line)) = lines.next() {
        let fence = line.trim_start();
        let ticks = fence.bytes().take_while(|&b| b == b'`').count();
        let info = fence[ticks..].trim();
        // A backtick after the fence makes it inline code (```x```), not a fence.
        if ticks < 3 || info.contains('`') {
            continue;
        }
        let tag = info.split_whitespace().next().unwrap_or("");
        let body_start = lines.at;
        let Some(body_end) = close(&mut lines, ticks) else {
            break;
        };
        let Some(body) = text.get(body_start..body_end).map(trim_block) else {
            continue;
        };
        if body.is_empty() {
            continue;
        }
        if tag.is_empty() {
            untagged.push(body);
        } else if tag.eq_ignore_ascii_case(language) || tag.eq_ignore_ascii_case("python") {
            tagged.push(body);
        }
    }
    if !tagged.is_empty() {
        return tagged;
    }
    untagged.retain(|body| looks_like_python(body));
    untagged
}

/// rlm-code's heuristic for an untagged block.
fn looks_like_python(body: &str) -> bool {
    ["import ", "def ", "class ", "print(", "="]
        .iter()
        .any(|marker| body.contains(marker))
}

/// Reads up to the closing fence; returns where the block's body ends (the start of
/// the fence line), or `None` at the end of the text.
fn close(lines: &mut Lines<'_>, ticks: usize) -> Option<usize> {
    for (start, line) in lines.by_ref() {
        let t = line.trim();
        if t.len() >= ticks && t.bytes().all(|b| b == b'`') {
            return Some(start);
        }
    }
    None
}

/// Leading blank lines and trailing whitespace removed.
fn trim_block(body: &str) -> &str {
    let body = body.trim_end();
    let mut start = 0;
    for line in body.split_inclusive('\n') {
        if !line.trim().is_empty() {
            break;
        }
        start += line.len();
    }
    &body[start..]
}

/// Lines with their start offsets, without their line break.
struct Lines<'t> {
    text: &'t str,
    at: usize,
}

impl<'t> Iterator for Lines<'t> {
    type Item = (usize, &'t str);

    fn next(&mut self) -> Option<Self::Item> {
        let rest = self.text.get(self.at..).filter(|r| !r.is_empty())?;
        let start = self.at;
        let (line, len) = match rest.find('\n') {
            Some(k) => (&rest[..k], k + 1),
            None => (rest, rest.len()),
        };
        self.at += len;
        Some((start, line.strip_suffix('\r').unwrap_or(line)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences() {
        fn blocks(t: &str) -> Vec<&str> {
            extract_code_blocks(t, "repl")
        }
        assert_eq!(blocks("```REPL\r\nx = 1\r\n```\r\n"), ["x = 1"]);
        assert_eq!(
            blocks("````python\n```\ninner\n```\n````"),
            ["```\ninner\n```"]
        );
        assert_eq!(blocks("  ```repl\n\n\n    y = 2\n  ```"), ["    y = 2"]);
        assert_eq!(blocks("```json\n{\"a\": 1}\n```"), Vec::<&str>::new());
        assert_eq!(blocks("```repl\nFINAL(x)\n"), Vec::<&str>::new());
        assert_eq!(blocks("```repl\n\n```"), Vec::<&str>::new());
        assert_eq!(blocks("```repl FINAL(x)```\nno fence"), Vec::<&str>::new());
        assert_eq!(
            blocks("```\nimport os\n```\n```repl\nFINAL(1)\n```"),
            ["FINAL(1)"]
        );
        assert_eq!(extract_code_blocks("```js\nx\n```", "js"), ["x"]);
    }
}
