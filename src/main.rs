//! `rookery`: the command line. Errors are one line on stderr and exit code 2.

fn main() {
    let cli = rookery::cli::parse();
    // Rust ignores SIGPIPE, so printing into a closed pipe (`rookery perft 6 --divide | head`)
    // would panic; the Unix default ends the program quietly, as every command-line tool does.
    // Not for `match` and `serve`: they write to engines and browsers that may go away, and must
    // live on.
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
        #[cfg(feature = "lab")]
        Some(Command::Serve(_)) => true,
        _ => false,
    }
}
