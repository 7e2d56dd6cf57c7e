//! The crate's layers point one way: each module of `src/` refers only to modules
//! of lower layers (read from the source's `crate::` paths, the crate root's
//! re-exports resolved to the module that defines them). ARCHITECTURE.md draws the
//! same layers.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// Each top-level module of `src/` and its layer: a module may use the modules of
/// lower layers only.
const LAYERS: &[(&str, u32)] = &[
    ("text", 0),
    ("json_string", 0),
    ("message", 1),
    ("dsl", 2),
    ("answer", 2),
    ("transcript", 2),
    ("object", 3),
    ("list", 3),
    ("naive", 3),
    ("stop", 4),
    ("serde_impl", 4),
    ("engine", 5),
    ("monitor", 6),
    ("compat", 7),
    ("corpus", 7),
];

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The identifiers after each `crate::` in code (comments and unit tests left out),
/// and those of `use crate::{...}` groups.
fn crate_refs(source: &str) -> BTreeSet<String> {
    let code = match source.find("#[cfg(test)]\nmod tests") {
        Some(at) => &source[..at],
        None => source,
    };
    let mut refs = BTreeSet::new();
    for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                refs.extend(idents(&group[..end]).filter(|i| !i.is_empty()));
            } else {
                refs.extend(idents(rest).next());
            }
        }
    }
    refs
}

fn idents(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// The crate root's `pub use crate::module::...::{Names}` re-exports: name → module.
fn reexports(lib: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    let mut rest = lib;
    while let Some(at) = rest.find("pub use crate::") {
        rest = &rest[at + "pub use crate::".len()..];
        let end = rest.find(';').unwrap();
        let (path, module) = (&rest[..end], idents(rest).next().unwrap());
        let names = match path.find('{') {
            Some(open) => &path[open..],
            None => path.rsplit("::").next().unwrap(),
        };
        for name in idents(names) {
            map.insert(name, module.clone());
        }
    }
    map
}

#[test]
fn modules_use_only_lower_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let layer: BTreeMap<&str, u32> = LAYERS.iter().copied().collect();
    let roots = reexports(&fs::read_to_string(src.join("lib.rs")).unwrap());
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut wrong = Vec::new();
    let mut seen = BTreeSet::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_str()
            .unwrap();
        let top = top.trim_end_matches(".rs");
        if top == "lib" || top == "bin" {
            continue;
        }
        seen.insert(top.to_owned());
        let Some(&from) = layer.get(top) else {
            wrong.push(format!(
                "{}: module `{top}` has no layer in LAYERS",
                rel.display()
            ));
            continue;
        };
        for name in crate_refs(&fs::read_to_string(&file).unwrap()) {
            let target = roots.get(&name).cloned().unwrap_or(name);
            if target == top {
                continue;
            }
            // Items of the root itself (the crate `Error`) sit above every layer's
            // values but import nothing: they are not a module.
            if let Some(&to) = layer.get(target.as_str())
                && to >= from
            {
                wrong.push(format!(
                    "{}: `{top}` (layer {from}) uses `{target}` (layer {to})",
                    rel.display()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "layers broken:\n{}", wrong.join("\n"));
    let listed: BTreeSet<String> = LAYERS.iter().map(|(m, _)| (*m).to_owned()).collect();
    assert_eq!(seen, listed, "LAYERS lists exactly the modules of src/");
}

#[test]
fn the_checker_sees_references() {
    let refs = crate_refs(
        "use crate::dsl::X;\n// crate::monitor in a comment\nuse crate::{Monitor, stop::Y};\nfn f() { crate::text::scoped(|| 1) }\n#[cfg(test)]\nmod tests { use crate::compat; }",
    );
    let expected: BTreeSet<String> = ["dsl", "Monitor", "stop", "Y", "text"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    assert_eq!(refs, expected);
    let roots = reexports(
        "pub use crate::monitor::{\n    Monitor, Outcome,\n};\npub use crate::dsl::ContentPattern;",
    );
    assert_eq!(roots.get("Outcome").map(String::as_str), Some("monitor"));
    assert_eq!(roots.get("ContentPattern").map(String::as_str), Some("dsl"));
}
