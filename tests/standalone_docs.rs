//! The project's docs stand alone: no rustdoc, README, ARCHITECTURE, grammar,
//! transcripts reference, performance log, test, bench or example line cites a file
//! that is not in the repository (the background notes the project started from); each
//! carries the fact itself.

use std::fs;
use std::path::{Path, PathBuf};

/// Citations of files outside the repository, lowercased. Written in pieces so that
/// this file does not cite them itself.
fn forbidden() -> Vec<String> {
    let md = ".md";
    ["langroid", "design", "peers", "frameworks", "style"]
        .iter()
        .map(|name| format!("{}{md}", name.to_uppercase()).to_lowercase())
        .chain([
            format!("../{}/", "shared"),
            format!("the {}", "seed"),
            format!("{} 00", "seed"),
        ])
        .collect()
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            // Snapshots are generated output, not docs.
            if !path.ends_with("snapshots") {
                files(&path, out);
            }
        } else if path
            .extension()
            .is_some_and(|e| ["rs", "md", "toml", "py", "pyi"].iter().any(|x| e == *x))
        {
            out.push(path);
        }
    }
}

fn cites(text: &str) -> Vec<(usize, String)> {
    let forbidden = forbidden();
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let lower = line.to_lowercase();
            forbidden
                .iter()
                .any(|f| lower.contains(f.as_str()))
                .then(|| (i + 1, line.trim().to_owned()))
        })
        .collect()
}

#[test]
fn no_doc_cites_a_file_outside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    for dir in [
        "src",
        "tests",
        "benches",
        "examples",
        "python",
        "integrations",
    ] {
        files(&root.join(dir), &mut paths);
    }
    // Every document at the top (README, ARCHITECTURE, grammar, the transcripts'
    // reference, the performance log, any added later) and the manifest.
    for entry in fs::read_dir(root).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() && path.extension().is_some_and(|e| e == "md") {
            paths.push(path);
        }
    }
    for file in [
        "README.md",
        "ARCHITECTURE.md",
        "grammar.md",
        "transcripts.md",
        "PERFORMANCE.md",
    ] {
        assert!(
            paths.contains(&root.join(file)),
            "{file} is a document the check reads"
        );
    }
    paths.push(root.join("Cargo.toml"));
    let mut found = Vec::new();
    for path in paths {
        let text = fs::read_to_string(&path).unwrap();
        for (line, cited) in cites(&text) {
            found.push(format!("{}:{line}: {cited}", path.display()));
        }
    }
    assert!(
        found.is_empty(),
        "citations of outside files:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_finds_a_citation() {
    let citation = format!("see {}.md (d)9", "LANGROID");
    assert_eq!(cites(&format!("ok\n{citation}")), [(2, citation.clone())]);
    assert!(cites("Langroid's own order").is_empty());
}
