//! `rookery`: the command line. Errors are one line on stderr and exit code 2.

fn main() {
    let cli = rookery::cli::parse();
    // Rust ignores SIGPIPE, so printing into a closed pipe (`rookery perft 6 --divide | head`)
    // would panic; the Unix default ends the program quietly, as every command-line tool does.
    // Not for `match`: it writes to engines that may crash, and must live on.
    #[cfg(unix)]
    if !matches!(cli.command, Some(rookery::cli::Command::Match(_))) {
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
