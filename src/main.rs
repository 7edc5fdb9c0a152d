//! `rookery`: the command line. Errors are one line on stderr and exit code 2.

fn main() {
    rookery::core::memory::return_large_blocks();
    // OpenBench's convention for distributed data generation: `rookery "genfens N seed S book
    // <None|FILE>" "quit"` prints N opening FENs as `info string genfens <FEN>`.
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args
        .first()
        .is_some_and(|a| a.trim_start().starts_with("genfens"))
    {
        let words: Vec<&str> = args[0].split_whitespace().collect();
        // Streamed: a large count prints as it goes, and a closed pipe ends it.
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        let result = rookery::datagen::parse_genfens(&words).and_then(|(n, seed, book)| {
            rookery::datagen::genfens_each(n, seed, book.as_deref(), |fen| {
                use std::io::Write;
                writeln!(out, "info string genfens {fen}").is_ok()
            })
        });
        match result {
            Ok(()) => {
                use std::io::Write;
                let _ = out.flush();
                std::process::exit(0);
            }
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(2);
            }
        }
    }
    let cli = rookery::cli::parse();
    // Rust ignores SIGPIPE, so printing into a closed pipe (`rookery perft 6 --divide | head`)
    // would panic; the Unix default ends the program quietly, as every command-line tool does.
    // Not for `match`, `serve` and `epd --cmd`: they write to engines and browsers that may go
    // away, and must live on.
    #[cfg(unix)]
    if !is_long_lived(&cli.command) {
        // SAFETY: setting a signal disposition before any other thread exists.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    match rookery::cli::run(cli) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}

/// Commands that write to peers that may go away (engines, browsers) and must survive it.
fn is_long_lived(command: &Option<rookery::cli::Command>) -> bool {
    use rookery::cli::Command;
    match command {
        Some(Command::Match(_)) => true,
        // A suite run through another program writes to it.
        Some(Command::Epd(args)) => args.cmd.is_some(),
        #[cfg(feature = "lab")]
        Some(Command::Serve(_)) => true,
        _ => false,
    }
}
