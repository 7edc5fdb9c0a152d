//! `rookery train`: fits a network to labelled positions and exports it (see `train`).

use std::io::Write;
use std::time::Instant;

use clap::Args;

use crate::data::filter::Filter;
use crate::error::Error;
use crate::nnue::{Activation, InputLayout, LAYOUT_PRESETS};
use crate::train::{self, Config, Trainer};

#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Training data: record files or data directories (`rookery datagen --out DIR`, `rookery data convert`)
    #[arg(long, value_name = "PATH", num_args = 1.., required = true)]
    pub data: Vec<String>,
    /// Validation data [default: a fraction split off the training data]
    #[arg(long, value_name = "PATH")]
    pub val: Option<String>,
    /// Fraction of the training data kept apart for validation (without --val)
    #[arg(long, default_value_t = 0.01)]
    pub val_fraction: f64,
    /// How validation is split off (without --val): games (runs of consecutive positions, so
    /// the loss is on games the net never saw) or positions (one by one: their games' other
    /// positions stay in training)
    #[arg(long, default_value = "games", value_name = "games|positions")]
    pub val_split: String,
    /// The quantised net to write; the checkpoint, loss CSV and SVG are written beside it
    #[arg(long, value_name = "FILE")]
    pub out: String,
    /// Neurons in the hidden layer, each perspective [default: 128 up to 16M positions, 256 up to 64M, then 512]
    #[arg(long)]
    pub hidden: Option<usize>,
    /// Activation of the hidden layer: screlu or crelu
    #[arg(long, default_value = "screlu")]
    pub activation: String,
    /// Output buckets, chosen by the number of pieces on the board: 1, 2, 4 or 8
    #[arg(long, default_value_t = 1)]
    pub buckets: usize,
    /// Input layout: plain (768 inputs), mirror (a king on files e-h flips its side's board
    /// left to right), mirror-kb4 or mirror-kb8 (mirrored, and 4 or 8 king buckets of 768
    /// inputs each)
    #[arg(long, default_value = "plain", value_name = "LAYOUT")]
    pub inputs: String,
    /// With king buckets: train a shared block of 768 inputs that every bucket also reads, so
    /// what holds in all buckets learns from every position (added into each bucket's weights
    /// when the net is written)
    #[arg(long)]
    pub factorise: bool,
    /// Keep every feature weight within what 8 bits hold (127 / 255 either way; with
    /// --factorise, each bucket's weight plus the shared one; a written net's larger ones
    /// clipped at the start), so the search updates its accumulators from 8-bit rows: half the
    /// memory a king bucket
    #[arg(long)]
    pub eight_bit_features: bool,
    /// Small hidden layers after the feature transformer, in place of its output layer: `L1,L2`
    /// neurons (a deep head, `(768 -> N) x 2 -> L1 -> L2 -> 1`; L1 8, 16, 24 or 32, L2 1 to 64,
    /// N a multiple of 8), one for each output bucket
    #[arg(long, value_name = "L1,L2")]
    pub layers: Option<String>,
    /// With --layers: the first deep layer reads pairs' products, each perspective's first half
    /// of the clipped hidden layer times its second half (N inputs instead of 2N: half the
    /// work a position)
    #[arg(long)]
    pub paired: bool,
    #[arg(long, default_value_t = 30)]
    pub epochs: usize,
    /// Positions a mini-batch
    #[arg(long, default_value_t = 16_384)]
    pub batch: usize,
    /// Starting learning rate (AdamW)
    #[arg(long, default_value_t = 0.001)]
    pub lr: f32,
    /// The final learning rate as a fraction of --lr (cosine schedule)
    #[arg(long, default_value_t = 0.01)]
    pub lr_end: f32,
    /// AdamW's decoupled weight decay
    #[arg(long, default_value_t = 0.01)]
    pub weight_decay: f32,
    /// Weight of the game result in the target (the rest is the search score)
    #[arg(long, default_value_t = 0.0)]
    pub wdl: f32,
    /// Threads [default: every core]
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub threads: Option<usize>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Train on each position and its mirror image (files a-h flipped), alternately (with
    /// --inputs plain only: a mirrored layout reads both alike)
    #[arg(long)]
    pub mirror: bool,
    /// Leave out positions whose search score is beyond this many centipawns, either sign
    /// (the generator already leaves out decided ones, 5,000 and beyond)
    #[arg(long, value_name = "CP")]
    pub max_score: Option<i32>,
    /// Leave out each game's positions fewer than N plies after its first kept one (the first
    /// moves after the random opening plies); needs data directories with game logs
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub skip_plies: usize,
    /// Go on from a checkpoint (`<out>.ckpt`) instead of starting afresh
    #[arg(long, value_name = "FILE")]
    pub resume: Option<String>,
    /// Start from a written net's weights (a net file, read back as floats) instead of random
    /// ones, to train it further, on more data for example; the options above give its shape,
    /// or that shape with king buckets (`--inputs mirror-kb4` from a `mirror` net): each bucket
    /// then starts from the net's feature rows (with --factorise, the shared block does)
    #[arg(long, value_name = "FILE", conflicts_with = "resume")]
    pub init: Option<String>,
}

impl TrainArgs {
    /// The positions `--max-score` and `--skip-plies` let through.
    fn filter(&self) -> Filter {
        Filter {
            max_score: self.max_score,
            skip_plies: self.skip_plies,
        }
    }
}

/// `--layers L1,L2` read and checked against a hidden layer of `hidden`.
fn parse_layers(text: &str, hidden: usize) -> Result<(usize, usize), Error> {
    let bad = || {
        Error::Invalid(format!(
            "--layers takes two sizes, L1,L2 (L1 8, 16, 24 or 32; L2 1 to {}): not '{text}'",
            crate::nnue::deep::MAX_L2
        ))
    };
    let (a, b) = text.split_once(',').ok_or_else(bad)?;
    let l1: usize = a.trim().parse().map_err(|_| bad())?;
    let l2: usize = b.trim().parse().map_err(|_| bad())?;
    crate::nnue::deep::check_shape(hidden, l1, l2)
        .map_err(|e| Error::Invalid(format!("--layers {text} with --hidden {hidden}: {e}")))?;
    Ok((l1, l2))
}

fn default_hidden(positions: usize) -> usize {
    match positions {
        0..=16_000_000 => 128,
        16_000_001..=64_000_000 => 256,
        _ => 512,
    }
}

pub fn run(args: TrainArgs) -> Result<i32, Error> {
    super::args::check_output(&args.out, "--out")?;
    let activation = match args.activation.to_ascii_lowercase().as_str() {
        "screlu" => Activation::SCReLU,
        "crelu" => Activation::CReLU,
        other => {
            return Err(Error::Invalid(format!(
                "unknown activation '{other}' (screlu or crelu)"
            )));
        }
    };
    if args.epochs == 0
        || args.batch == 0
        || args.lr.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater)
        || !(0.0..=1.0).contains(&args.wdl)
    {
        return Err(Error::Invalid(
            "--epochs and --batch must be at least 1, --lr above 0, --wdl within 0 to 1".into(),
        ));
    }
    if !crate::nnue::valid_buckets(args.buckets) {
        return Err(Error::Invalid("--buckets must be 1, 2, 4 or 8".into()));
    }
    let layout = InputLayout::preset(&args.inputs).ok_or_else(|| {
        Error::Invalid(format!(
            "unknown input layout '{}' ({})",
            args.inputs,
            LAYOUT_PRESETS.join(", ")
        ))
    })?;
    if args.factorise && layout.buckets() < 2 {
        return Err(Error::Invalid(format!(
            "--factorise needs king buckets (--inputs mirror-kb4 or mirror-kb8): the {} layout has one bucket, which the shared block would only repeat",
            args.inputs
        )));
    }
    if args.mirror && !layout.is_plain() {
        return Err(Error::Invalid(format!(
            "--mirror needs --inputs plain: the {} layout reads a position and its mirror image alike, so mirror images add nothing",
            args.inputs
        )));
    }
    let val_split = train::ValSplit::parse(&args.val_split).ok_or_else(|| {
        Error::Invalid(format!(
            "unknown --val-split '{}' (games or positions)",
            args.val_split
        ))
    })?;
    if !(0.0..0.5).contains(&args.val_fraction) {
        return Err(Error::Invalid(
            "--val-fraction must be within 0 to 0.5".into(),
        ));
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, 256);
    if args.max_score.is_some_and(|m| m <= 0) {
        return Err(Error::Invalid("--max-score must be above 0".into()));
    }
    let filter = args.filter();
    let t0 = Instant::now();
    let (records, counts) = train::load_filtered(&args.data, &filter)?;
    if !filter.keeps_all() {
        eprintln!(
            "filters ({}): {} of {} positions kept ({:.1}%)",
            filter.describe(),
            counts.kept,
            counts.read,
            100.0 * counts.kept as f64 / counts.read.max(1) as f64
        );
    }
    let (train_r, val_r) = match &args.val {
        Some(v) => (
            records,
            train::load_filtered(std::slice::from_ref(v), &filter)?.0,
        ),
        None => val_split.split(records, args.val_fraction, args.seed),
    };
    if train_r.is_empty() {
        return Err(Error::Invalid(
            "no training positions in the data given".into(),
        ));
    }
    let hidden = args.hidden.unwrap_or_else(|| default_hidden(train_r.len()));
    if hidden == 0 || hidden > crate::nnue::MAX_HIDDEN {
        return Err(Error::Invalid(format!(
            "--hidden must be within 1 to {}",
            crate::nnue::MAX_HIDDEN
        )));
    }
    let head = args
        .layers
        .as_deref()
        .map(|text| parse_layers(text, hidden))
        .transpose()?;
    if args.paired && head.is_none() {
        return Err(Error::Invalid(
            "--paired needs a deep head (--layers L1,L2)".into(),
        ));
    }
    let cfg = Config {
        hidden,
        activation,
        buckets: args.buckets,
        layout,
        head,
        paired: args.paired,
        epochs: args.epochs,
        batch: args.batch,
        lr: args.lr,
        lr_end: args.lr_end,
        weight_decay: args.weight_decay,
        wdl: args.wdl,
        threads,
        seed: args.seed,
        mirror: args.mirror,
        eight_bit_features: args.eight_bit_features,
    };
    let train_s = train::samples(&train_r, &layout, cfg.wdl);
    let val_s = train::samples(&val_r, &layout, cfg.wdl);
    eprintln!(
        "{} training and {} validation positions loaded in {:.1} s; ({} -> {hidden}) x 2 -> {}1, {} output bucket(s), {}, inputs {}{}, {threads} threads",
        train_s.len(),
        val_s.len(),
        t0.elapsed().as_secs_f64(),
        match layout.buckets() {
            1 => crate::nnue::INPUTS.to_string(),
            k => format!("{} x {k}", crate::nnue::INPUTS),
        },
        head.map_or(String::new(), |(l1, l2)| format!(
            "{}{l1} -> {l2} -> ",
            if args.paired {
                format!("{hidden} paired -> ")
            } else {
                String::new()
            }
        )),
        cfg.buckets,
        activation.name(),
        layout.describe(),
        if args.factorise { ", factorised" } else { "" }
    );
    drop(train_r);
    let ckpt = format!("{}.ckpt", args.out);
    // The shape the options give, to hold a checkpoint's or a written net's against.
    let wanted = Shape {
        hidden,
        activation,
        buckets: cfg.buckets,
        layout,
        factorised: args.factorise,
        head,
        paired: args.paired,
    };
    let mut trainer = match (&args.resume, &args.init) {
        (Some(path), _) => {
            let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
            let t = Trainer::from_bytes(&bytes).map_err(|e| e.in_file(path))?;
            wanted.check(path, &Shape::of(&t.net, t.net.factorised))?;
            eprintln!("going on from epoch {} of {path}", t.epoch);
            t
        }
        (None, Some(path)) => {
            let written = crate::nnue::Network::load(path)?;
            let mut net = train::FloatNet::from_network(&written);
            // A net without king buckets starts a king-bucketed one: each bucket (factorised,
            // the shared block) starts from its feature rows.
            let spread = layout.buckets() > 1 && net.layout.buckets() == 1;
            if spread {
                let inputs = net.layout.describe();
                net = net
                    .into_king_buckets(layout, args.factorise)
                    .ok_or_else(|| {
                        Error::Invalid(format!(
                            "{path}: its inputs ({inputs}) cannot start the king buckets of {}",
                            layout.describe()
                        ))
                    })?;
            }
            // A written net's shared rows are in its buckets' already: factorised, the shared
            // block starts at zero.
            wanted.check(path, &Shape::of(&net, args.factorise))?;
            if spread {
                eprintln!(
                    "starting from the weights of {path}, its feature rows in each of {} king buckets",
                    layout.buckets()
                );
            } else {
                eprintln!("starting from the weights of {path}");
            }
            Trainer::new(if args.factorise { net.factorise() } else { net })
        }
        (None, None) => {
            let net = cfg.new_net(args.seed);
            Trainer::new(if args.factorise { net.factorise() } else { net })
        }
    };
    if cfg.eight_bit_features {
        trainer.net.clip_feature_weights(train::EIGHT_BIT_CLIP);
    }
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let start_epoch = trainer.epoch;
    while trainer.epoch < cfg.epochs {
        let train_loss = trainer.epoch(&cfg, &train_s, |p| {
            let fraction = p.batch as f64 / p.batches as f64;
            let bar = super::args::progress_bar(fraction);
            eprint!(
                "\repoch {}/{} [{bar}] loss {:.6}, {:.0} positions/s   ",
                p.epoch, cfg.epochs, p.loss, p.positions_per_second
            );
            let _ = std::io::stderr().flush();
        });
        let val_loss = trainer.loss(&val_s, threads);
        trainer.history.push((train_loss, val_loss));
        eprintln!(
            "\repoch {}/{}: training loss {train_loss:.6}, validation loss {val_loss:.6}, {:.0} s                ",
            trainer.epoch,
            cfg.epochs,
            t0.elapsed().as_secs_f64()
        );
        std::fs::write(&ckpt, trainer.to_bytes()).map_err(|e| Error::io(&ckpt, e))?;
        write_outputs(&args, &cfg, &trainer, &command, train_s.len(), &val_r)?;
    }
    if trainer.epoch == start_epoch {
        // Nothing left to train (a resumed run that had finished): the outputs are written anew.
        write_outputs(&args, &cfg, &trainer, &command, train_s.len(), &val_r)?;
    }
    println!(
        "{}: {} (validation loss {:.6}); checkpoint {ckpt}",
        args.out,
        trainer.net.quantise(String::new()).architecture(),
        trainer.history.last().map_or(0.0, |h| h.1)
    );
    Ok(0)
}

/// A net's shape, as the options give it.
#[derive(PartialEq)]
struct Shape {
    hidden: usize,
    activation: Activation,
    buckets: usize,
    layout: InputLayout,
    factorised: bool,
    head: Option<(usize, usize)>,
    paired: bool,
}

impl Shape {
    fn of(net: &train::FloatNet, factorised: bool) -> Shape {
        Shape {
            hidden: net.hidden,
            activation: net.activation,
            buckets: net.buckets,
            layout: net.layout,
            factorised,
            head: net.head,
            paired: net.paired,
        }
    }

    /// `SCReLU, 8 output buckets, inputs mirror, deep layers 8,32`.
    fn describe(&self) -> String {
        format!(
            "{}, {} output buckets, inputs {}{}{}",
            self.activation.name(),
            self.buckets,
            self.layout.describe(),
            if self.factorised { ", factorised" } else { "" },
            self.head.map_or(String::new(), |(l1, l2)| format!(
                ", deep layers {l1},{l2}{}",
                if self.paired { " paired" } else { "" }
            ))
        )
    }

    /// An error naming both shapes when the net in `path` is not of this one.
    fn check(&self, path: &str, found: &Shape) -> Result<(), Error> {
        if found == self {
            return Ok(());
        }
        Err(Error::Invalid(format!(
            "{path}: a net of {} hidden ({}), not {} ({})",
            found.hidden,
            found.describe(),
            self.hidden,
            self.describe()
        )))
    }
}

/// The quantised net and the loss curve (CSV and SVG), after every epoch.
fn write_outputs(
    args: &TrainArgs,
    cfg: &Config,
    t: &Trainer,
    command: &str,
    positions: usize,
    val: &[crate::data::Record],
) -> Result<(), Error> {
    // A deep head's first layer at the scale whose quantised net fits the validation positions
    // best; without validation positions, the one that loses least to rounding and clipping.
    let scale = train::best_deep_scale(&t.net, val, cfg.wdl, cfg.threads);
    let ql1 = match scale {
        Some((q, fit)) => {
            eprintln!(
                "the deep head's first layer at scale {q}: quantised validation loss {:.6}",
                fit.loss
            );
            format!("first deep layer scale: {q}, chosen on the validation positions\n")
        }
        None => String::new(),
    };
    let init = args
        .init
        .as_ref()
        .map_or(String::new(), |p| format!("started from: {p}\n"));
    let provenance = format!(
        "data: {}\npositions: {positions}\ncommand: {command}\ncommit: {}\nversion: {}\n\
         epochs: {}\nhidden: {}{}\noutput buckets: {}\ninputs: {}{}\nwdl: {}\nfilters: {}\nvalidation: {}\nvalidation loss: {:.6}\n{ql1}{init}",
        args.data.join(" "),
        option_env!("ROOKERY_COMMIT").unwrap_or("unknown"),
        env!("CARGO_PKG_VERSION"),
        t.epoch,
        cfg.hidden,
        cfg.head.map_or(String::new(), |(l1, l2)| format!(
            "\ndeep layers: {l1}, {l2}{}",
            if cfg.paired { " (paired)" } else { "" }
        )),
        cfg.buckets,
        cfg.layout.describe(),
        if t.net.factorised {
            " (trained factorised)"
        } else {
            ""
        },
        cfg.wdl,
        args.filter().describe(),
        match &args.val {
            Some(v) => format!("the data set {v}"),
            None => format!(
                "{} of the data, split by {}",
                args.val_fraction, args.val_split
            ),
        },
        t.history.last().map_or(0.0, |h| h.1),
    );
    let net = match scale {
        Some((q, _)) => t.net.quantise_at(provenance, q),
        None => t.net.quantise(provenance),
    };
    std::fs::write(&args.out, net.to_bytes()).map_err(|e| Error::io(&args.out, e))?;
    let csv = format!("{}.loss.csv", args.out);
    let mut text = Vec::new();
    train::loss_csv(&t.history, &mut text).map_err(|e| Error::io(&csv, e))?;
    std::fs::write(&csv, text).map_err(|e| Error::io(&csv, e))?;
    let svg = format!("{}.loss.svg", args.out);
    let title = format!(
        "{}: loss by epoch ({positions} positions)",
        net.architecture()
    );
    std::fs::write(&svg, train::loss_svg(&t.history, &title)).map_err(|e| Error::io(&svg, e))
}
