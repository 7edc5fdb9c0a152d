//! The binary run as a user runs it from a shell: its arguments, what is typed on its standard
//! input, and its whole output once it has ended. Output is read as lossy UTF-8, so a test that
//! fails on odd bytes still shows the rest, or as strict UTF-8 where that is part of the check.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// The binary cargo built for the tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_rookery");

/// The command `rookery ARGS`, not yet started.
fn command(args: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.args(args);
    cmd
}

/// `rookery ARGS`, run to its end with nothing on its input.
pub fn rookery(args: &[&str]) -> Output {
    command(args)
        .output()
        .unwrap_or_else(|e| panic!("rookery {args:?} did not start: {e}"))
}

/// `rookery ARGS` with `input` on its standard input (closed after it), run to its end.
pub fn rookery_with_input(args: &[&str], input: &str) -> Output {
    let mut child = command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("rookery {args:?} did not start: {e}"));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// The engine fed `input` as UCI commands on its standard input; what it wrote.
pub fn uci_script(input: &str) -> String {
    stdout(&rookery_with_input(&[], input))
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard output that must be UTF-8 throughout.
pub fn stdout_utf8(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap_or_else(|e| panic!("output not UTF-8: {e}"))
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Standard output then standard error, for checks that care only that something was said.
pub fn text(o: &Output) -> String {
    format!("{}{}", stdout(o), stderr(o))
}

/// A path `name` in a folder of this test process's own, `rookery-AREA-PID` under the system's
/// temporary folder (made if missing), so test files running at once keep apart.
pub fn temp(area: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rookery-{area}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}
