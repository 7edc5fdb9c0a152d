//! The documentation as a reader of a fresh clone meets it: a README short enough to read, words
//! that describe the product and not how it was made, links that lead somewhere, and one version
//! number everywhere a user can ask for it.
//!
//! Everything is read at run time (the tracked files from `git ls-files`, every Markdown file,
//! the manifests, the built binary), so files added later are checked too. The forbidden words
//! are assembled from pieces below, so this file does not trip its own check.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The README's length limits, in lines and in bytes.
const README_MAX_LINES: usize = 250;
const README_MAX_BYTES: usize = 12 * 1024;

/// The README's section of strength figures, and the most rows its table may have: the figures
/// of the build in force only; everything older goes to the results log.
const STRENGTH_HEADING: &str = "## How strong it is";
const STRENGTH_MAX_ROWS: usize = 8;
const RESULTS_LOG: &str = "docs/results.md";

/// Every file of the repository: the tracked ones (`git ls-files`), or, where there is no git
/// (an unpacked source archive), every file under the root outside build outputs.
fn repository_files() -> Vec<PathBuf> {
    let listed = Command::new("git")
        .args(["ls-files", "-z"])
        .stderr(Stdio::null())
        .output();
    if let Ok(out) = listed
        && out.status.success()
        && !out.stdout.is_empty()
    {
        return out
            .stdout
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| PathBuf::from(String::from_utf8_lossy(p).into_owned()))
            // A file deleted in the working tree but not yet from the index is not there to read.
            .filter(|p| p.exists())
            .collect();
    }
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                let skip = name.starts_with('.') && name != ".ci"
                    || ["target", "datagen-runs", "__pycache__"].contains(&name.as_str());
                if !skip {
                    walk(&path, out);
                }
            } else {
                out.push(path.strip_prefix(".").unwrap_or(&path).to_path_buf());
            }
        }
    }
    let mut files = Vec::new();
    walk(Path::new("."), &mut files);
    files
}

/// The file as text, or `None` for a binary file (a NUL byte, or not UTF-8).
fn text_of(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if bytes.contains(&0) {
        return None;
    }
    String::from_utf8(bytes).ok()
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The first place `word` stands in `lower` where `fits(bytes, start, end)` holds: `bytes` is
/// `lower`'s, `start` the word's first byte and `end` the byte after its last.
fn first_fitting(
    lower: &str,
    word: &str,
    fits: impl Fn(&[u8], usize, usize) -> bool,
) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = lower[from..].find(word) {
        let start = from + i;
        if fits(lower.as_bytes(), start, start + word.len()) {
            return Some(start);
        }
        from = start + 1;
    }
    None
}

/// Where `word` (lower case) or its plural stands as a whole word in `lower` (lower-cased text).
fn whole_word(lower: &str, word: &str) -> Option<usize> {
    first_fitting(lower, word, |bytes, start, mut end| {
        if bytes.get(end) == Some(&b's') {
            end += 1;
        }
        let before_ok = start == 0 || !is_word_byte(bytes[start - 1]);
        let after_ok = end >= bytes.len() || !is_word_byte(bytes[end]);
        before_ok && after_ok
    })
}

/// Where `word` is followed by a number (`word 12`, `word #12`, `word-12`, `word12`).
fn word_then_number(lower: &str, word: &str) -> Option<usize> {
    first_fitting(lower, word, |bytes, start, mut j| {
        while j < bytes.len() && matches!(bytes[j], b' ' | b'#' | b'-' | b'_' | b'\t') {
            j += 1;
        }
        let before_ok = start == 0 || !bytes[start - 1].is_ascii_alphabetic();
        before_ok && j < bytes.len() && bytes[j].is_ascii_digit()
    })
}

/// 1-based line of byte offset `at`, and the line itself.
fn line_at(text: &str, at: usize) -> (usize, &str) {
    let number = text[..at].matches('\n').count() + 1;
    (number, text.lines().nth(number - 1).unwrap_or(""))
}

/// The text of the section that starts at the line `heading` (up to the next heading of the
/// same or a higher level, outside code blocks), or `None` when there is no such line.
fn section<'a>(markdown: &'a str, heading: &str) -> Option<&'a str> {
    let level = heading.chars().take_while(|&c| c == '#').count();
    let mut start = None;
    let mut fenced = false;
    let mut at = 0;
    for line in markdown.split_inclusive('\n') {
        let text = line.trim_end();
        if text.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && start.is_none() && text == heading {
            start = Some(at);
        } else if !fenced && let Some(from) = start {
            let hashes = text.chars().take_while(|&c| c == '#').count();
            if hashes > 0 && hashes <= level && text[hashes..].starts_with(' ') {
                return Some(&markdown[from..at]);
            }
        }
        at += line.len();
    }
    start.map(|from| &markdown[from..])
}

/// The body rows of the first Markdown table in `text` (its header and separator left out), or
/// `None` when `text` has no table.
fn first_table_rows(text: &str) -> Option<Vec<&str>> {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let first = lines.iter().position(|l| l.starts_with('|'))?;
    let table: Vec<&str> = lines[first..]
        .iter()
        .take_while(|l| l.starts_with('|'))
        .copied()
        .collect();
    let separator = table.get(1)?;
    if !separator
        .chars()
        .all(|c| matches!(c, '|' | '-' | ':' | ' '))
    {
        return None;
    }
    Some(table[2..].to_vec())
}

/// Whether `text` holds a date written `YYYY-MM-DD`.
fn has_date(text: &str) -> bool {
    text.as_bytes().windows(10).any(|w| {
        w.iter().enumerate().all(|(k, &c)| {
            if k == 4 || k == 7 {
                c == b'-'
            } else {
                c.is_ascii_digit()
            }
        })
    })
}

#[test]
fn the_readme_stays_short() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines; at most {README_MAX_LINES} (move detail to docs/)"
    );
    let bytes = readme.len();
    assert!(
        bytes <= README_MAX_BYTES,
        "README.md has {bytes} bytes; at most {README_MAX_BYTES} (move detail to docs/)"
    );
    // The two commands a newcomer needs come first.
    let top: String = readme.lines().take(30).collect::<Vec<_>>().join("\n");
    for command in ["cargo run --release -- play", "scripts/test"] {
        assert!(
            top.contains(command),
            "README.md's first 30 lines should show `{command}`"
        );
    }
}

#[test]
fn the_readme_shows_only_the_strength_figures_in_force() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let strength = section(&readme, STRENGTH_HEADING)
        .unwrap_or_else(|| panic!("README.md should have a section `{STRENGTH_HEADING}`"));
    let rows = first_table_rows(strength)
        .unwrap_or_else(|| panic!("README.md's `{STRENGTH_HEADING}` should hold a table"));
    assert!(!rows.is_empty(), "README.md's strength table is empty");
    assert!(
        rows.len() <= STRENGTH_MAX_ROWS,
        "README.md's strength table has {} rows; at most {STRENGTH_MAX_ROWS}, all on the build in \
         force (older figures go to {RESULTS_LOG})",
        rows.len()
    );
    for row in &rows {
        assert!(
            row.contains("Bench: ") && has_date(row),
            "each row of README.md's strength table names its build (`Bench: N`) and date: {row}"
        );
    }
    assert!(
        strength.contains(&format!("]({RESULTS_LOG})")),
        "README.md's `{STRENGTH_HEADING}` should link to the results log, {RESULTS_LOG}"
    );
    assert!(Path::new(RESULTS_LOG).exists(), "{RESULTS_LOG} is missing");
}

#[test]
fn no_tracked_file_speaks_of_how_the_project_was_made() {
    let meeting = ["ses", "sion"].concat();
    let ticket = ["is", "sue"].concat();
    let outside = ["..", "/", "sha", "red"].concat();
    let files = repository_files();
    assert!(
        files.iter().any(|f| f == Path::new("Cargo.toml")),
        "the file list should include Cargo.toml (run from the repository root)"
    );
    let mut found = Vec::new();
    let mut texts = 0;
    for file in &files {
        let Some(text) = text_of(file) else { continue };
        texts += 1;
        let lower = text.to_ascii_lowercase();
        let hits = [
            (whole_word(&lower, &meeting), "a word for a working period"),
            (word_then_number(&lower, &ticket), "a tracker number"),
            (lower.find(&outside), "a path outside the repository"),
        ];
        for (at, what) in hits {
            if let Some(at) = at {
                let (number, line) = line_at(&text, at);
                found.push(format!(
                    "{}:{number}: {what}: {}",
                    file.display(),
                    line.trim()
                ));
            }
        }
    }
    assert!(texts > 50, "only {texts} text files found");
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The relative link targets of a Markdown text: inline links and images `[..](target)` and
/// reference definitions `[..]: target`, outside code blocks and code spans.
fn relative_links(markdown: &str) -> Vec<(usize, String)> {
    let mut links = Vec::new();
    let mut fenced = false;
    for (i, line) in markdown.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Drop code spans: what is inside backticks is not a link.
        let mut plain = String::new();
        for (k, part) in line.split('`').enumerate() {
            if k % 2 == 0 {
                plain.push_str(part);
            }
        }
        let mut targets = Vec::new();
        let mut rest = plain.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            // Balanced parentheses inside the target are allowed.
            let mut depth = 1;
            let mut end = None;
            for (j, c) in after.char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            end = Some(j);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let Some(end) = end else { break };
            targets.push(after[..end].to_string());
            rest = &after[end..];
        }
        let trimmed = plain.trim_start();
        if trimmed.starts_with('[')
            && let Some(at) = trimmed.find("]: ")
        {
            targets.push(trimmed[at + 3..].to_string());
        }
        for target in targets {
            // `(path "title")` and `(<path>)` forms.
            let target = target.split_whitespace().next().unwrap_or("");
            let target = target.trim_start_matches('<').trim_end_matches('>');
            let external = target.is_empty()
                || target.starts_with('#')
                || target.contains("://")
                || target.starts_with("mailto:");
            if !external {
                links.push((i + 1, target.to_string()));
            }
        }
    }
    links
}

#[test]
fn relative_links_in_the_documentation_resolve() {
    let markdown: Vec<PathBuf> = repository_files()
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "md"))
        .collect();
    assert!(markdown.iter().any(|f| f == Path::new("README.md")));
    let mut checked = 0;
    let mut broken = Vec::new();
    for file in &markdown {
        let text = std::fs::read_to_string(file).unwrap();
        let dir = file.parent().unwrap_or(Path::new(""));
        for (line, target) in relative_links(&text) {
            let path = target.split(['#', '?']).next().unwrap();
            checked += 1;
            if !dir.join(path).exists() {
                broken.push(format!("{}:{line}: {target}", file.display()));
            }
        }
    }
    assert!(checked > 10, "only {checked} relative links found");
    assert!(
        broken.is_empty(),
        "links to files that do not exist:\n{}",
        broken.join("\n")
    );
}

/// The `version = "..."` of a TOML file's `[section]`.
fn toml_version(path: &str, section: &str) -> Option<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut inside = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            inside = line == section;
        } else if inside
            && let Some(value) = line.strip_prefix("version")
            && let Some(value) = value.trim_start().strip_prefix('=')
        {
            return Some(value.trim().trim_matches('"').to_string());
        }
    }
    None
}

/// The version a Cargo.lock records for package `name`.
fn locked_version(lock: &str, name: &str) -> Option<String> {
    let text = std::fs::read_to_string(lock).unwrap();
    let header = format!("name = \"{name}\"\n");
    let at = text.find(&header)? + header.len();
    let line = text[at..].lines().next()?;
    Some(
        line.strip_prefix("version = ")?
            .trim_matches('"')
            .to_string(),
    )
}

/// The newest released version in CHANGELOG.md: the first `## [x.y.z]` heading that is not
/// `[Unreleased]`.
fn changelog_version() -> Option<String> {
    let text = std::fs::read_to_string("CHANGELOG.md").unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix("## ["))
        .filter_map(|l| l.split(']').next())
        .find(|v| !v.eq_ignore_ascii_case("unreleased"))
        .map(str::to_string)
}

/// What `rookery ARGS` writes with `input` on its standard input; it must succeed.
fn stdout_of(args: &[&str], input: &str) -> String {
    let out = common::cli::rookery_with_input(args, input);
    assert!(out.status.success(), "rookery {args:?}");
    common::cli::stdout(&out)
}

#[test]
fn one_version_everywhere() {
    let crate_version = toml_version("Cargo.toml", "[package]").expect("Cargo.toml version");
    assert_eq!(crate_version, env!("CARGO_PKG_VERSION"));
    let mut versions = vec![("Cargo.toml", crate_version.clone())];
    versions.push((
        "python/Cargo.toml",
        toml_version("python/Cargo.toml", "[package]").expect("python/Cargo.toml version"),
    ));
    // The Python package: its own version, or the crate's when maturin takes it from Cargo.toml.
    let pyproject = std::fs::read_to_string("python/pyproject.toml").unwrap();
    match toml_version("python/pyproject.toml", "[project]") {
        Some(v) => versions.push(("python/pyproject.toml", v)),
        None => assert!(
            pyproject.contains("dynamic") && pyproject.contains("\"version\""),
            "python/pyproject.toml has neither a version nor a dynamic one"
        ),
    }
    versions.push((
        "Cargo.lock (rookery)",
        locked_version("Cargo.lock", "rookery").expect("rookery in Cargo.lock"),
    ));
    versions.push((
        "python/Cargo.lock (rookery)",
        locked_version("python/Cargo.lock", "rookery").expect("rookery in python/Cargo.lock"),
    ));
    versions.push((
        "python/Cargo.lock (rookery-python)",
        locked_version("python/Cargo.lock", "rookery-python")
            .expect("rookery-python in python/Cargo.lock"),
    ));
    versions.push((
        "CHANGELOG.md",
        changelog_version().expect("a released version in CHANGELOG.md"),
    ));

    let uci = stdout_of(&["uci"], "uci\nquit\n");
    let id = uci
        .lines()
        .find_map(|l| l.strip_prefix("id name "))
        .expect("id name");
    let uci_version = id.strip_prefix("Rookery ").unwrap_or(id).to_string();
    versions.push(("UCI id name", uci_version));
    let cli = stdout_of(&["--version"], "");
    versions.push((
        "rookery --version",
        cli.trim()
            .strip_prefix("rookery ")
            .unwrap_or(cli.trim())
            .to_string(),
    ));

    let distinct: BTreeSet<&str> = versions.iter().map(|(_, v)| v.as_str()).collect();
    assert_eq!(
        distinct.len(),
        1,
        "versions disagree: {}",
        versions
            .iter()
            .map(|(w, v)| format!("{w}: {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
}

#[test]
fn the_checks_find_what_they_look_for() {
    let meeting = ["ses", "sion"].concat();
    let ticket = ["is", "sue"].concat();
    assert!(whole_word(&format!("the {meeting}'s figures"), &meeting).is_some());
    assert!(whole_word(&format!("two {meeting}s ago"), &meeting).is_some());
    assert!(whole_word(&format!("{meeting}_id and {meeting}al"), &meeting).is_none());
    assert!(word_then_number(&format!("as {ticket} 11 said"), &ticket).is_some());
    assert!(word_then_number(&format!("({ticket} #7)"), &ticket).is_some());
    assert!(word_then_number(&format!("an {ticket} with 3 parts"), &ticket).is_none());
    assert!(word_then_number(&format!("t{ticket} 3"), &ticket).is_none());
    let links = relative_links(
        "See [a](docs/a.md#x) and ![b](img/b.png \"t\"), not `[c](d)` nor [e](https://x.org).\n\
         ```\n[f](g)\n```\n[h]: docs/h.md\n",
    );
    let targets: Vec<&str> = links.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(targets, ["docs/a.md#x", "img/b.png", "docs/h.md"]);
    let page = "# T\n\n## A\n\ntext\n\n```sh\n## not a heading\n```\n\n| h | i |\n|---|---:|\n\
                | 1 | 2026-11-29 |\n| 2 | x |\n\nafter\n\n### A.1\n\n| j |\n|---|\n| 3 |\n\n## B\n\n| k |\n";
    let a = section(page, "## A").unwrap();
    assert!(a.starts_with("## A\n") && a.contains("### A.1") && !a.contains("## B"));
    assert_eq!(
        first_table_rows(a).unwrap(),
        ["| 1 | 2026-11-29 |", "| 2 | x |"]
    );
    assert_eq!(section(page, "## B"), Some("## B\n\n| k |\n"));
    assert!(first_table_rows(section(page, "## B").unwrap()).is_none());
    assert!(section(page, "## C").is_none());
    assert!(has_date("`Bench: 1`, 2026-11-29 |") && !has_date("2026-11 and 11-29"));
}
