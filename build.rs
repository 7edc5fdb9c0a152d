//! Records the commit the binary was built from (`ROOKERY_COMMIT`), for the provenance that data
//! manifests and net files carry: `-dirty` follows it when tracked files differ from the commit,
//! so a net or a data set made with uncommitted code says so. Outside a git checkout it is
//! "unknown".

fn git(args: &[&str]) -> Option<String> {
    std::process::Command::new("git")
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

fn main() {
    let commit = match git(&["rev-parse", "--short=10", "HEAD"]) {
        Some(head) => {
            let dirty = git(&[
                "--no-optional-locks",
                "status",
                "--porcelain",
                "--untracked-files=no",
            ])
            .is_some_and(|s| !s.is_empty());
            if dirty { format!("{head}-dirty") } else { head }
        }
        None => "unknown".into(),
    };
    println!("cargo:rustc-env=ROOKERY_COMMIT={commit}");
    for path in [
        ".git/HEAD",
        ".git/refs/heads",
        ".git/index",
        "src",
        "nets",
        "Cargo.toml",
        "build.rs",
    ] {
        println!("cargo:rerun-if-changed={path}");
    }
}
