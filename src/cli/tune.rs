//! `rookery tune`: fits every evaluation parameter to labelled positions (see `tune`) and writes
//! them as Rust source (`src/eval/tuned.rs` by default), so the tuned values are reviewed in a
//! diff and built into the engine.

use std::io::Write;
use std::time::Instant;

use clap::Args;

use crate::error::Error;
use crate::eval::trace::{current, rust_source};
use crate::tune::{Entry, Settings, tune};

#[derive(Args, Debug)]
pub struct TuneArgs {
    /// Data files (rookery datagen's EPD, or `FEN [result]`, or `FEN | score | result` lines)
    #[arg(long, num_args = 1.., required = true, value_name = "FILE")]
    pub data: Vec<String>,
    /// Passes over the data
    #[arg(long, default_value_t = 400)]
    pub epochs: usize,
    /// Weight of the search's score in the label (the game's result has 1 - lambda)
    #[arg(long, default_value_t = 0.5)]
    pub lambda: f32,
    /// Adam's step size, in centipawns
    #[arg(long, default_value_t = 1.0)]
    pub learning_rate: f64,
    /// The sigmoid's scale [default: fitted to the results]
    #[arg(long)]
    pub k: Option<f32>,
    /// Threads for the gradient [default: every core]
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub threads: Option<usize>,
    /// Keep the piece-square tables; tune the other terms only
    #[arg(long)]
    pub terms_only: bool,
    /// Pull toward the starting values: adds L2 * (value - start)^2 per parameter (centipawns) to
    /// the loss, so values the data rarely sees stay near their start (0: off)
    #[arg(long, default_value_t = 1e-8)]
    pub l2: f64,
    /// Where to write the tuned parameters as Rust source
    #[arg(long, default_value = "src/eval/tuned.rs", value_name = "FILE")]
    pub out: String,
}

pub fn run(args: TuneArgs) -> Result<i32, Error> {
    super::args::check_output(&args.out, "--out")?;
    if !(0.0..=1.0).contains(&args.lambda) {
        return Err(Error::Invalid("--lambda must be between 0 and 1".into()));
    }
    let started = Instant::now();
    let start = current();
    let mut entries = Vec::new();
    for path in &args.data {
        let samples = crate::data::read_samples(path)?;
        eprintln!("{path}: {} positions", samples.len());
        entries.extend(samples.iter().map(|s| Entry::new(s, &start)));
    }
    if entries.is_empty() {
        return Err(Error::Invalid("no positions in the data".into()));
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    eprintln!(
        "{} positions traced in {:.1} s; tuning {} parameters on {threads} threads",
        entries.len(),
        started.elapsed().as_secs_f64(),
        2 * start.len()
    );
    let settings = Settings {
        epochs: args.epochs,
        lambda: args.lambda,
        learning_rate: args.learning_rate,
        threads,
        k: args.k,
        terms_only: args.terms_only,
        l2: args.l2,
    };
    let tuning = Instant::now();
    let epochs = args.epochs.max(1);
    let result = tune(&entries, &start, &settings, |t, loss| {
        let bar: String = (0..30)
            .map(|i| if i * epochs < t * 30 { '#' } else { '.' })
            .collect();
        let secs = tuning.elapsed().as_secs_f64();
        let left = secs / t as f64 * (epochs - t) as f64;
        eprint!("\r[{bar}] epoch {t}/{epochs}  loss {loss:.7}  {secs:.0} s, {left:.0} s left   ");
        let _ = std::io::stderr().flush();
    });
    eprintln!();
    println!(
        "K {:.6}; loss {:.7} -> {:.7} over {} positions, {} epochs, lambda {}, in {:.0} s",
        result.k,
        result.loss_before,
        result.loss_after,
        entries.len(),
        args.epochs,
        args.lambda,
        started.elapsed().as_secs_f64()
    );
    let note = format!(
        "Tuned by `rookery tune --data {}{} --epochs {} --lambda {} --learning-rate {} --l2 {:e}`:\n{} positions, K {:.6}, loss {:.7} -> {:.7}.",
        args.data.join(" "),
        if args.terms_only { " --terms-only" } else { "" },
        args.epochs,
        args.lambda,
        args.learning_rate,
        args.l2,
        entries.len(),
        result.k,
        result.loss_before,
        result.loss_after
    );
    std::fs::write(&args.out, rust_source(&result.params, &note))
        .map_err(|e| Error::io(&args.out, e))?;
    println!("written to {}", args.out);
    Ok(0)
}
