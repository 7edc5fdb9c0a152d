//! `rookery`: the command line. Errors are one line on stderr and exit code 2.

fn main() {
    let cli = rookery::cli::parse();
    match rookery::cli::run(cli) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
