//! `rookery serve`: the Lab, a local web application to play, watch and take apart every engine
//! (see `lab`).

use std::sync::Arc;

use clap::Args;

use crate::error::Error;
use crate::lab::api::Makers;

#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    /// Port to listen on (0: any free port, printed at start)
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on; the default serves this machine only, `0.0.0.0` exposes the Lab to
    /// the network on purpose
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Open the page in the default browser
    #[arg(long)]
    pub open: bool,
    /// The folder whose data sets (data directories, as `rookery datagen --out` writes them) the
    /// Train view offers [default: the repository's data/selfplay]
    #[arg(long, value_name = "DIR")]
    pub train_data: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub engine: super::args::EngineArgs,
}

pub fn run(args: ServeArgs) -> Result<i32, Error> {
    let seed = args.engine.seed();
    // No book unless one is given (the `book` rung has its built-in one).
    let book = match &args.engine.book {
        Some(path) => Some(Arc::new(crate::book::Book::open(path)?)),
        None => None,
    };
    let options = crate::engine::EngineOptions {
        dtm: args
            .engine
            .gaviota
            .as_deref()
            .map(crate::tb::open_gaviota)
            .transpose()?,
        ..args.engine.options(seed, book)
    };
    let makers = Makers {
        options,
        settings: args.engine.settings()?,
        train_data: args
            .train_data
            .clone()
            .unwrap_or_else(crate::lab::kept::default_data_dir),
        ..Makers::default()
    };
    let server = crate::lab::start(&args.host, args.port, makers)?;
    let url = format!("http://{}/", server.addr);
    println!("Rookery Lab on {url} (Ctrl-C to stop)");
    if args.open {
        let opened = std::process::Command::new("xdg-open")
            .arg(&url)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .is_ok();
        if !opened {
            println!("could not start a browser: open {url} yourself");
        }
    }
    let _ = server.thread.join();
    Ok(0)
}
