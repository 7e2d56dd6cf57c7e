//! `extract_code_blocks` beyond the documented example.

use doneseq::answer::extract_code_blocks;

fn blocks(text: &str) -> Vec<&str> {
    extract_code_blocks(text, "repl")
}

#[test]
fn fence_rules() {
    let none: Vec<&str> = Vec::new();
    // Tags: the language or python, any ASCII case; other tags never.
    assert_eq!(blocks("```Python\nx = 1\n```"), ["x = 1"]);
    assert_eq!(blocks("```repl title=\"a\"\nx = 1\n```"), ["x = 1"]);
    assert_eq!(blocks("```json\n{\"a\": 1}\n```\n```sh\nls = 1\n```"), none);
    assert_eq!(extract_code_blocks("```py3\nx = 1\n```", "py3"), ["x = 1"]);
    // Longer fences hold shorter ones.
    assert_eq!(
        blocks("````repl\n```\nnot a fence\n```\n````"),
        ["```\nnot a fence\n```"]
    );
    // Indented fences (a list item), CRLF line ends.
    assert_eq!(
        blocks("1. step\n   ```repl\n   x = 1\n   ```"),
        ["   x = 1"]
    );
    assert_eq!(
        blocks("```repl\r\nx = 1\r\ny = 2\r\n```\r\n"),
        ["x = 1\r\ny = 2"]
    );
    // Unclosed: nothing from it, nor after it.
    assert_eq!(blocks("```repl\nx = 1\n```\n```repl\ny = 2"), ["x = 1"]);
    // Inline triple backticks are not fences.
    assert_eq!(
        blocks("Use ```repl x``` inline.\n```repl\ny = 2\n```"),
        ["y = 2"]
    );
    // Empty blocks are skipped; leading blank lines and trailing space trimmed.
    assert_eq!(
        blocks("```repl\n\n  \n```\n```repl\n\n\nx = 1  \n\n```"),
        ["x = 1"]
    );
    assert_eq!(blocks(""), none);
    assert_eq!(blocks("no fences at all"), none);
}

#[test]
fn blocks_are_slices_of_the_input() {
    let text = "```repl\nFINAL(42)\n```";
    let block = blocks(text)[0];
    let offset = block.as_ptr() as usize - text.as_ptr() as usize;
    assert_eq!(&text[offset..offset + block.len()], "FINAL(42)");
}
