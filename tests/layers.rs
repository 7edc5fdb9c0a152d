//! The layers of the crate (docs/architecture.md): a module may use only modules of lower
//! layers, and the files of the crate import each other without a circle. This test reads the
//! sources, so a change that breaks either rule fails here with the offending import named.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Lowest first. A module of layer N may use modules of layers below N only.
const LAYERS: &[&[&str]] = &[
    &["error"],
    &["core"],
    &["epd"],
    &["eval", "nnue", "data", "book", "tb", "perft", "mate"],
    &["engine", "train"],
    &["ladder", "search"],
    &["registry", "tree"],
    &["options", "bench", "driver"],
    &["tournament", "uci", "lab"],
    &["datagen"],
    &["tune"],
    &["cli"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// A source file and the module path it defines (`src/ladder/tt.rs` is `ladder::tt`).
struct Source {
    file: PathBuf,
    module: Vec<String>,
    text: String,
}

fn sources() -> Vec<Source> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(Path::new("src"), &mut files);
    files.sort();
    files
        .into_iter()
        .map(|file| {
            let rel = file.strip_prefix("src").unwrap().with_extension("");
            let mut module: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(
                module.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                module.pop();
            }
            let text = std::fs::read_to_string(&file).unwrap();
            Source { file, module, text }
        })
        .collect()
}

/// The text without comments (line comments; doc comments are line comments too).
fn code(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Parses a path tree at the start of `s` (`a::b::{c, d::e}`), returning every full path it
/// names and the number of bytes read.
fn parse_tree(s: &str) -> (Vec<Vec<String>>, usize) {
    let bytes = s.as_bytes();
    let mut i = 0;
    let mut prefix: Vec<String> = Vec::new();
    loop {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i < bytes.len() && bytes[i] == b'{' {
            i += 1;
            let mut out = Vec::new();
            loop {
                let (paths, used) = parse_tree(&s[i..]);
                i += used;
                for p in paths {
                    let mut full = prefix.clone();
                    full.extend(p.into_iter().filter(|seg| seg != "self"));
                    out.push(full);
                }
                while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                    i += 1;
                }
                match bytes.get(i) {
                    Some(b',') => i += 1,
                    Some(b'}') => {
                        i += 1;
                        return (out, i);
                    }
                    _ => return (out, i),
                }
                while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                    i += 1;
                }
                if bytes.get(i) == Some(&b'}') {
                    i += 1;
                    return (out, i);
                }
            }
        }
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
            i += 1;
        }
        if i == start {
            // `*` or the end of the path.
            if bytes.get(i) == Some(&b'*') {
                i += 1;
            }
            return (vec![prefix], i);
        }
        prefix.push(s[start..i].to_string());
        if s[i..].starts_with("::") {
            i += 2;
        } else {
            // Skip an `as alias`.
            let rest = &s[i..];
            let trimmed = rest.trim_start();
            if let Some(after) = trimmed.strip_prefix("as ") {
                let skipped = rest.len() - after.len();
                let alias_len = after
                    .bytes()
                    .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                    .count();
                i += skipped + alias_len;
            }
            return (vec![prefix], i);
        }
    }
}

/// Every path from the crate root that `src` refers to, with the re-exports (`pub use`) of
/// module files kept apart.
fn references(src: &Source) -> (Vec<Vec<String>>, Vec<Vec<String>>) {
    let text = code(&src.text);
    let tests_from = text.find("#[cfg(test)]").unwrap_or(text.len());
    let is_mod_file = src.file.ends_with("mod.rs") || src.file.ends_with("lib.rs");
    let mut uses = Vec::new();
    let mut reexports = Vec::new();
    for (start, _) in text
        .match_indices("crate::")
        .chain(text.match_indices("super::"))
    {
        // Only whole words: not `rookery::crate::`-like tails or `xsuper::`.
        if start > 0 {
            let before = text.as_bytes()[start - 1];
            if before.is_ascii_alphanumeric() || before == b'_' || before == b':' {
                continue;
            }
        }
        let (root, rest_at) = if text[start..].starts_with("crate::") {
            (Vec::new(), start + "crate::".len())
        } else {
            // `super` in a file's test module is the file itself; elsewhere its parent module.
            let mut m = src.module.clone();
            if start < tests_from || is_mod_file {
                m.pop();
            }
            if start >= tests_from && is_mod_file {
                m = src.module.clone();
            }
            (m, start + "super::".len())
        };
        let (paths, _) = parse_tree(&text[rest_at..]);
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let reexport = is_mod_file && text[line_start..start].trim_start().starts_with("pub use");
        for p in paths {
            let mut full = root.clone();
            full.extend(p);
            if reexport {
                reexports.push(full);
            } else {
                uses.push(full);
            }
        }
    }
    // Children re-exported by name from a module file (`pub use game::{Game, Termination};`).
    if is_mod_file {
        for (start, _) in text.match_indices("pub use ") {
            let rest = &text[start + "pub use ".len()..];
            if rest.starts_with("crate::") || rest.starts_with("super::") {
                continue;
            }
            let (paths, _) = parse_tree(rest);
            for p in paths {
                let mut full = src.module.clone();
                full.extend(p);
                reexports.push(full);
            }
        }
    }
    (uses, reexports)
}

/// The source file that defines the item a path names, following module files' re-exports.
fn resolve(
    path: &[String],
    files: &BTreeSet<PathBuf>,
    reexports: &BTreeMap<Vec<String>, Vec<String>>,
    depth: usize,
) -> Option<PathBuf> {
    let mut module: Vec<String> = Vec::new();
    let file_of = |m: &[String]| -> Option<PathBuf> {
        let base: PathBuf = std::iter::once("src".to_string())
            .chain(m.iter().cloned())
            .collect();
        if m.is_empty() {
            return Some(PathBuf::from("src/lib.rs"));
        }
        let as_file = base.with_extension("rs");
        let as_dir = base.join("mod.rs");
        [as_file, as_dir].into_iter().find(|f| files.contains(f))
    };
    for (i, seg) in path.iter().enumerate() {
        let mut next = module.clone();
        next.push(seg.clone());
        if file_of(&next).is_some() {
            module = next;
            continue;
        }
        // An item of `module`: defined there, or re-exported from elsewhere.
        let key: Vec<String> = path[..=i].to_vec();
        if depth < 8
            && let Some(target) = reexports.get(&key)
            && target != &key
        {
            let mut full = target.clone();
            full.extend(path[i + 1..].iter().cloned());
            return resolve(&full, files, reexports, depth + 1);
        }
        return file_of(&module);
    }
    file_of(&module)
}

#[test]
fn no_module_uses_one_above_it_and_no_files_import_in_a_circle() {
    let sources = sources();
    let files: BTreeSet<PathBuf> = sources.iter().map(|s| s.file.clone()).collect();
    let mut reexports: BTreeMap<Vec<String>, Vec<String>> = BTreeMap::new();
    let mut uses: Vec<(&Source, Vec<Vec<String>>)> = Vec::new();
    for s in &sources {
        let (u, r) = references(s);
        for path in r {
            if let Some(name) = path.last() {
                let mut key = s.module.clone();
                key.push(name.clone());
                if key != path {
                    reexports.insert(key, path);
                }
            }
        }
        uses.push((s, u));
    }

    let mut violations = Vec::new();
    let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for (s, paths) in &uses {
        let Some(own) = s.module.first() else {
            continue; // lib.rs and main.rs sit above everything
        };
        let own_layer =
            layer_of(own).unwrap_or_else(|| panic!("module '{own}' has no layer in LAYERS"));
        for p in paths {
            let Some(target) = p.first() else { continue };
            if target != own {
                let Some(layer) = layer_of(target) else {
                    continue; // not a module of ours (a macro path or the like)
                };
                if layer >= own_layer {
                    violations.push(format!(
                        "{} (layer {own_layer}) uses crate::{} (layer {layer})",
                        s.file.display(),
                        p.join("::")
                    ));
                }
            }
            if let Some(f) = resolve(p, &files, &reexports, 0)
                && f != s.file
            {
                edges.entry(s.file.clone()).or_default().insert(f);
            }
        }
    }
    assert!(
        violations.is_empty(),
        "imports against the layers:\n{}",
        violations.join("\n")
    );

    // A circle among the files: depth-first search with colours.
    fn visit(
        f: &PathBuf,
        edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        state: &mut BTreeMap<PathBuf, u8>,
        stack: &mut Vec<PathBuf>,
    ) -> Option<Vec<PathBuf>> {
        match state.get(f) {
            Some(2) => return None,
            Some(1) => {
                let from = stack.iter().position(|x| x == f).unwrap();
                let mut circle = stack[from..].to_vec();
                circle.push(f.clone());
                return Some(circle);
            }
            _ => {}
        }
        state.insert(f.clone(), 1);
        stack.push(f.clone());
        for next in edges.get(f).into_iter().flatten() {
            if let Some(c) = visit(next, edges, state, stack) {
                return Some(c);
            }
        }
        stack.pop();
        state.insert(f.clone(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for f in &files {
        if let Some(circle) = visit(f, &edges, &mut state, &mut Vec::new()) {
            let names: Vec<String> = circle.iter().map(|p| p.display().to_string()).collect();
            panic!(
                "files import each other in a circle: {}",
                names.join(" -> ")
            );
        }
    }
    // The test sees the imports it must: the strong engine's worker uses the core.
    let worker = edges
        .get(Path::new("src/search/worker.rs"))
        .expect("worker imports");
    assert!(worker.contains(Path::new("src/core/pv.rs")), "{worker:?}");
}

#[test]
fn the_parser_reads_use_trees() {
    let (paths, _) = parse_tree("core::{Game, game::{san, uci}, self}, x");
    let names: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(
        names,
        ["core::Game", "core::game::san", "core::game::uci", "core"]
    );
    let (paths, _) = parse_tree("registry as engine;");
    assert_eq!(paths, vec![vec!["registry".to_string()]]);
}
