//! The engine as a GUI drives it: the built binary as a child process, a line at a time over
//! pipes. A thread reads its output into a channel, so every wait has a deadline and a hang
//! fails the test instead of blocking it; dropping an `Engine` kills the process, so a test that
//! fails leaves no engine behind. On Unix its address space can be limited (as `prlimit --as`
//! does), so an allocation beyond the limit fails as it would on a small machine.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// The longest wait for an answer a test expects.
pub const WAIT: Duration = Duration::from_secs(60);

/// Fails the test unless less than `limit` has passed since `since`; `what` names the wait.
pub fn assert_within(since: Instant, limit: Duration, what: &str) {
    let took = since.elapsed();
    assert!(took < limit, "{what}: {took:?}, not within {limit:?}");
}

/// Fails the test unless `line` is a `bestmove` that names a move (not `(none)` nor empty).
pub fn assert_a_move(line: &str, what: &str) {
    assert!(
        line.starts_with("bestmove ") && line.len() >= 13,
        "{what}: {line}"
    );
}

/// Whether one of `lines` starts with `prefix`.
pub fn some_line_starts(lines: &[String], prefix: &str) -> bool {
    lines.iter().any(|l| l.starts_with(prefix))
}

/// The lines of `lines` that start with `prefix`, in their order.
pub fn lines_starting<'a>(lines: &'a [String], prefix: &str) -> Vec<&'a String> {
    lines.iter().filter(|l| l.starts_with(prefix)).collect()
}

/// Whether one of `lines` contains `text`.
pub fn some_line_has(lines: &[String], text: &str) -> bool {
    lines.iter().any(|l| l.contains(text))
}

pub struct Engine {
    child: Child,
    /// `None` once closed (the engine reads the end of its input).
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Engine {
    /// The engine, its standard error shown with the test's.
    pub fn start() -> Engine {
        Engine::launch(None, Stdio::inherit())
    }

    /// The engine with its address space limited to `bytes`.
    /// The engine started with its option `name` set to `value`.
    pub fn with_option(name: &str, value: &str) -> Engine {
        let mut e = Engine::start();
        e.set(name, value);
        e
    }

    pub fn start_limited(bytes: u64) -> Engine {
        Engine::launch(Some(bytes), Stdio::inherit())
    }

    /// The engine with its address space limited to `bytes` where given (Unix only), and its
    /// standard error sent to `stderr` (`Stdio::piped()` keeps it for `stderr_text`).
    pub fn launch(bytes: Option<u64>, stderr: Stdio) -> Engine {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_rookery"));
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr);
        #[cfg(unix)]
        if let Some(bytes) = bytes {
            use std::os::unix::process::CommandExt;
            // SAFETY: only setrlimit, which is async-signal-safe, runs between fork and exec.
            unsafe {
                cmd.pre_exec(move || {
                    let lim = libc::rlimit {
                        rlim_cur: bytes as libc::rlim_t,
                        rlim_max: bytes as libc::rlim_t,
                    };
                    if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        #[cfg(not(unix))]
        assert!(bytes.is_none(), "an address-space limit needs Unix");
        let mut child = cmd.spawn().expect("start rookery");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            stdin: child.stdin.take(),
            child,
            lines,
        }
    }

    /// Writes `bytes` and a newline; an error when the engine no longer reads its input.
    pub fn write_line(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let stdin = self.stdin.as_mut().expect("input still open");
        stdin.write_all(bytes)?;
        stdin.write_all(b"\n")?;
        stdin.flush()
    }

    /// Sends one command.
    pub fn send(&mut self, cmd: &str) {
        self.write_line(cmd.as_bytes())
            .unwrap_or_else(|e| panic!("{cmd}: the engine is gone ({e})"));
    }

    /// Sets an option, as `setoption name NAME value VALUE`.
    pub fn set(&mut self, name: &str, value: &str) {
        self.send(&format!("setoption name {name} value {value}"));
    }

    /// Closes the engine's input: it reads the end of it, as when a GUI goes away.
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// The next line, if one arrives within `wait`.
    pub fn line_within(&mut self, wait: Duration) -> Option<String> {
        self.lines.recv_timeout(wait).ok()
    }

    /// The next line if one has arrived already.
    pub fn line_now(&mut self) -> Option<String> {
        self.lines.try_recv().ok()
    }

    /// Lines up to and including the first one that satisfies `done`; fails the test if none
    /// comes within `WAIT`.
    pub fn until(&mut self, done: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + WAIT;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let stop = done(&line);
                    seen.push(line);
                    if stop {
                        return seen;
                    }
                }
                Err(_) => panic!("no answer in time; got {seen:#?}"),
            }
        }
    }

    /// Sends `cmd`, then reads as `until` does.
    pub fn ask(&mut self, cmd: &str, done: impl Fn(&str) -> bool) -> Vec<String> {
        self.send(cmd);
        self.until(done)
    }

    /// The lines up to the next `bestmove`, and that line.
    pub fn bestmove(&mut self) -> (Vec<String>, String) {
        let lines = self.until(|l| l.starts_with("bestmove"));
        let best = lines.last().unwrap().clone();
        (lines, best)
    }

    /// Sends `cmd` (a `go`, `stop`, `ponderhit`) and waits for the `bestmove` it brings: the lines, and that line.
    pub fn bestmove_after(&mut self, cmd: &str) -> (Vec<String>, String) {
        self.send(cmd);
        self.bestmove()
    }

    /// Sets up `position` (a whole `position` command) and searches it with `go`: the lines up
    /// to the `bestmove`, and that line.
    pub fn search(&mut self, position: &str, go: &str) -> (Vec<String>, String) {
        self.send(position);
        self.bestmove_after(go)
    }

    /// Sends `cmd` and waits for the `info string` it gives: the lines up to it.
    pub fn said(&mut self, cmd: &str) -> Vec<String> {
        self.ask(cmd, |l| l.starts_with("info string"))
    }

    /// What arrives before a silence of `d` (to check that nothing more comes).
    pub fn quiet_for(&mut self, d: Duration) -> Vec<String> {
        let mut extra = Vec::new();
        while let Ok(l) = self.lines.recv_timeout(d) {
            extra.push(l);
        }
        extra
    }

    /// `isready`, answered: the lines up to `readyok`.
    pub fn ready(&mut self) -> Vec<String> {
        self.ask("isready", |l| l == "readyok")
    }

    /// The exit status, once the process has ended.
    pub fn try_wait(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().unwrap()
    }

    /// Waits up to `limit` for the process to end; its exit status, or `None` (then it is
    /// killed).
    pub fn exits_within(&mut self, limit: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                return None;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// What the engine wrote on its standard error, read to its end (when launched with it
    /// piped; "" otherwise or after a first call).
    pub fn stderr_text(&mut self) -> String {
        let mut err = String::new();
        if let Some(mut stderr) = self.child.stderr.take() {
            let _ = stderr.read_to_string(&mut err);
        }
        err
    }

    /// Whether the engine still runs, with its standard error if it ended: for a failure
    /// message. Waits a moment first, so an engine on its way out has left.
    pub fn state(&mut self) -> String {
        std::thread::sleep(Duration::from_millis(200));
        match self.try_wait() {
            Some(status) => format!("it ended, {status}; stderr: {}", self.stderr_text()),
            None => "it still runs".into(),
        }
    }

    /// `quit`: the engine must leave, successfully, within `WAIT`.
    pub fn quit(mut self) {
        self.send("quit");
        let status = self.exits_within(WAIT);
        assert!(status.is_some(), "quit did not end the engine");
        assert!(status.unwrap().success(), "{status:?}");
    }
}
