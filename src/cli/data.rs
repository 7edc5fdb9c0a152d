//! `rookery data`: look at and prepare training data (32-byte records, see `data`): statistics,
//! conversion from EPD, import of engine games from PGN (fastchess's, OpenBench's), shuffling, removing duplicates, a validation split, concatenation, nets' fit to a data set, and
//! packing a data set as its game logs (`data::games`) and back.

use std::collections::HashSet;
use std::io::BufRead;

use clap::Subcommand;

use crate::core::Rng;
use crate::data::import::{ImportCounts, ImportOptions, import_pgn};
use crate::data::store;
use crate::data::{Record, parse_sample};
use crate::error::Error;
use crate::nnue::Network;

#[derive(Subcommand, Debug)]
pub enum DataCommand {
    /// Count, result balance, score and piece-count histograms, duplicates
    Stats {
        /// Record files or data directories
        #[arg(required = true, num_args = 1..)]
        paths: Vec<String>,
    },
    /// Labelled EPD (`rookery datagen`'s EPD, `FEN | score | result`) to records; `-` reads stdin
    Convert {
        /// The EPD file (`-`: standard input)
        from: String,
        /// The file of records to write
        #[arg(long, value_name = "FILE")]
        out: String,
    },
    /// Engine games in PGN (fastchess's, OpenBench's) to records: each move whose comment
    /// starts with the mover's score (`{+0.33/14 0.080s}`) gives the position before it, with
    /// that score and the game's result
    Import {
        /// PGN files
        #[arg(required = true, num_args = 1..)]
        files: Vec<String>,
        /// The file of records to write (all files' games in one)
        #[arg(long, value_name = "FILE")]
        out: String,
        /// Leave out the positions before this ply of each game (0: its start position)
        #[arg(long, default_value_t = 0, value_name = "N")]
        min_ply: usize,
        /// Leave out positions scored this much or more either way (mates are 30,000 less
        /// their plies); above 30,000 keeps them all
        #[arg(long, default_value_t = crate::data::DECIDED, value_name = "CP",
              value_parser = clap::value_parser!(i32).range(1..=32_767))]
        max_score: i32,
        /// Keep positions whose side to move is in check
        #[arg(long)]
        keep_checks: bool,
        /// Keep positions whose move captures or promotes
        #[arg(long)]
        keep_noisy: bool,
    },
    /// All the positions of several data sets, in order, as one file
    Cat {
        /// Record files or data directories, in the order their positions are written
        #[arg(required = true, num_args = 1..)]
        paths: Vec<String>,
        /// The file of records to write
        #[arg(long, value_name = "FILE")]
        out: String,
    },
    /// The positions in a seeded random order
    Shuffle {
        /// A record file or data directory
        path: String,
        /// The file of records to write
        #[arg(long, value_name = "FILE")]
        out: String,
        /// The order's seed (the same seed, the same order)
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// The positions with each board kept once (the first)
    Dedup {
        /// A record file or data directory
        path: String,
        /// The file of records to write
        #[arg(long, value_name = "FILE")]
        out: String,
    },
    /// The scores multiplied by a factor: to put data scored by one evaluation on another's scale
    /// before training on both (`--to-k` takes the factor from the two fitted K of `data stats`)
    Rescale {
        /// Record files or data directories
        #[arg(required = true, num_args = 1..)]
        paths: Vec<String>,
        /// The file of records to write
        #[arg(long, value_name = "FILE")]
        out: String,
        /// The factor (for example 1.22)
        #[arg(long, conflicts_with = "to_k", required_unless_present = "to_k")]
        factor: Option<f64>,
        /// The K the scores should fit (the factor is this data's K over it)
        #[arg(long)]
        to_k: Option<f64>,
    },
    /// The game logs of a data directory, checked, with its manifest: the data set in about
    /// two bytes a position, to keep where the records would not fit (a repository)
    Pack {
        /// A data directory written by `rookery datagen --out DIR`
        dir: String,
        /// The directory to write (new, empty, or a copy packed before, brought up to date)
        #[arg(long, value_name = "DIR")]
        out: String,
    },
    /// A packed data set back as a full data directory: records, logs and manifest, ready for
    /// training and for `rookery datagen` to go on in
    Unpack {
        /// A directory written by `rookery data pack`
        dir: String,
        /// The directory to write (new or empty)
        #[arg(long, value_name = "DIR")]
        out: String,
    },
    /// How well nets fit a data set: each net's loss (as `rookery train` reports validation)
    /// and the mean distance of its score from the search's; give it games no net trained on
    /// to compare nets of any shape or data
    Loss {
        /// Record files or data directories
        #[arg(required = true, num_args = 1..)]
        paths: Vec<String>,
        /// A net file to score (several to compare them on the same positions) [default: the
        /// built-in net]
        #[arg(long = "net", value_name = "FILE")]
        nets: Vec<String>,
        /// Weight of the game result in the target, as `rookery train --wdl`
        #[arg(long, default_value_t = 0.0)]
        wdl: f32,
        /// Threads [default: every core]
        #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
        threads: Option<usize>,
    },
    /// A seeded random split into training and validation files
    Split {
        /// A record file or data directory
        path: String,
        /// The file of training records to write
        #[arg(long, value_name = "FILE")]
        out: String,
        /// The file of validation records to write
        #[arg(long, value_name = "FILE")]
        val: String,
        /// Fraction for validation
        #[arg(long, default_value_t = 0.01)]
        fraction: f64,
        /// The split's seed (the same seed, the same split)
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

pub fn run(cmd: DataCommand) -> Result<i32, Error> {
    // Output files checked before any data is read.
    let outputs: Vec<(&String, &str)> = match &cmd {
        DataCommand::Convert { out, .. }
        | DataCommand::Import { out, .. }
        | DataCommand::Cat { out, .. }
        | DataCommand::Shuffle { out, .. }
        | DataCommand::Dedup { out, .. }
        | DataCommand::Rescale { out, .. } => vec![(out, "--out")],
        DataCommand::Split { out, val, .. } => vec![(out, "--out"), (val, "--val")],
        _ => Vec::new(),
    };
    for (path, option) in outputs {
        super::args::check_output(path, option)?;
    }
    match cmd {
        DataCommand::Stats { paths } => {
            let records = crate::train::load_all(&paths)?;
            print!("{}", stats(&records));
        }
        DataCommand::Convert { from, out } => {
            let (records, skipped) = convert(&from)?;
            store::save(&out, &records)?;
            println!(
                "{} positions written to {out}{}",
                records.len(),
                if skipped > 0 {
                    format!(" ({skipped} lines without a score left out)")
                } else {
                    String::new()
                }
            );
        }
        DataCommand::Import {
            files,
            out,
            min_ply,
            max_score,
            keep_checks,
            keep_noisy,
        } => {
            let opts = ImportOptions {
                keep_checks,
                keep_noisy,
                min_ply,
                max_score,
            };
            let (records, counts) = import(&files, &opts)?;
            store::save(&out, &records)?;
            print!("{}", counts.summary(&out, &opts));
        }
        DataCommand::Cat { paths, out } => {
            let records = crate::train::load_all(&paths)?;
            store::save(&out, &records)?;
            println!("{} positions written to {out}", records.len());
        }
        DataCommand::Shuffle { path, out, seed } => {
            let mut records = store::load(&path)?;
            shuffle(&mut records, seed);
            store::save(&out, &records)?;
            println!("{} positions shuffled into {out}", records.len());
        }
        DataCommand::Dedup { path, out } => {
            let records = store::load(&path)?;
            let n = records.len();
            let kept = dedup(records);
            store::save(&out, &kept)?;
            println!(
                "{} of {n} positions kept ({} duplicates) in {out}",
                kept.len(),
                n - kept.len()
            );
        }
        DataCommand::Rescale {
            paths,
            out,
            factor,
            to_k,
        } => {
            let mut records = crate::train::load_all(&paths)?;
            let factor = match (factor, to_k) {
                (Some(f), _) => f,
                (None, Some(k)) if k > 0.0 && k.is_finite() => {
                    let own = fit_sigmoid_scale(&records).ok_or_else(|| {
                        Error::Invalid("too few decided scores to fit this data's K".into())
                    })?;
                    own / k
                }
                _ => return Err(Error::Invalid("--to-k must be above 0".into())),
            };
            if !(factor > 0.0 && factor <= 100.0) {
                return Err(Error::Invalid(format!(
                    "the factor must be above 0 and at most 100 (not {factor})"
                )));
            }
            rescale(&mut records, factor);
            store::save(&out, &records)?;
            println!(
                "{} positions written to {out}, scores times {factor:.4}",
                records.len()
            );
        }
        DataCommand::Pack { dir, out } => {
            let p = store::pack(&dir, &out)?;
            println!(
                "{} positions of {} games in {} chunks packed into {out} ({:.1} MB of game logs, {:.2} bytes a position){}",
                p.positions,
                p.games,
                p.chunks,
                p.log_bytes as f64 / 1e6,
                p.log_bytes as f64 / p.positions.max(1) as f64,
                if p.without_log > 0 {
                    format!(
                        "; {} chunks written before the generator kept game logs left out",
                        p.without_log
                    )
                } else {
                    String::new()
                }
            );
        }
        DataCommand::Unpack { dir, out } => {
            let p = store::unpack(&dir, &out)?;
            println!(
                "{} positions of {} games in {} chunks unpacked into {out}",
                p.positions, p.games, p.chunks
            );
        }
        DataCommand::Loss {
            paths,
            nets,
            wdl,
            threads,
        } => {
            if !(0.0..=1.0).contains(&wdl) {
                return Err(Error::Invalid("--wdl must be within 0 to 1".into()));
            }
            // Every net is read before the data, so a wrong file is named at once.
            let nets = if nets.is_empty() {
                vec![("built-in".to_string(), Network::default_net())]
            } else {
                nets.iter()
                    .map(|path| Ok((path.clone(), std::sync::Arc::new(Network::load(path)?))))
                    .collect::<Result<Vec<_>, Error>>()?
            };
            let records = crate::train::load_all(&paths)?;
            if records.is_empty() {
                return Err(Error::Invalid("no positions in the data given".into()));
            }
            let threads = threads
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
                .clamp(1, 256);
            for (name, net) in &nets {
                let f = crate::train::fit(net, &records, wdl, threads);
                println!(
                    "{name}: loss {:.6}, mean |net - search| {:.1} cp over {} positions",
                    f.loss, f.mean_abs_cp, f.positions
                );
            }
        }
        DataCommand::Split {
            path,
            out,
            val,
            fraction,
            seed,
        } => {
            if !(0.0..1.0).contains(&fraction) {
                return Err(Error::Invalid("--fraction must be within 0 to 1".into()));
            }
            let (t, v) = crate::train::split(store::load(&path)?, fraction, seed);
            store::save(&out, &t)?;
            store::save(&val, &v)?;
            println!("{} positions in {out}, {} in {val}", t.len(), v.len());
        }
    }
    Ok(0)
}

/// Every score times `factor`, rounded, within the record's range.
pub fn rescale(records: &mut [Record], factor: f64) {
    for r in records {
        r.score = (f64::from(r.score) * factor)
            .round()
            .clamp(-32000.0, 32000.0) as i16;
    }
}

fn shuffle(records: &mut [Record], seed: u64) {
    let mut rng = Rng::new(seed);
    rng.shuffle(records);
}

/// Keeps the first record of each board (the same pieces on the same squares, the same side to
/// move: records are from the mover's side).
pub fn dedup(records: Vec<Record>) -> Vec<Record> {
    let mut seen = HashSet::with_capacity(records.len());
    records
        .into_iter()
        .filter(|r| seen.insert((r.occ, r.pcs)))
        .collect()
}

/// Bad games named on standard error, at most; the rest are only counted.
const BAD_GAMES_NAMED: u64 = 10;

/// The records of the games of PGN `files` (see `data::import`), all read before anything is
/// written. A file that cannot be read, holds no game, or none that can be replayed is an error;
/// a bad game among good ones is named on standard error (the first few), counted and left out.
pub fn import(
    files: &[String],
    opts: &ImportOptions,
) -> Result<(Vec<Record>, ImportCounts), Error> {
    let mut records = Vec::new();
    let mut counts = ImportCounts::default();
    let mut warnings = Vec::new();
    for file in files {
        let text = crate::core::memory::read_text(file.as_ref(), crate::core::memory::MAX_INPUT)
            .map_err(|e| Error::io(file, e))?;
        let before = counts.clone();
        let mut problems = Vec::new();
        import_pgn(&text, opts, &mut counts, &mut records, |game, problem| {
            if problems.len() < BAD_GAMES_NAMED as usize {
                problems.push(format!("game {game}: {problem}"));
            }
        });
        let games = counts.games - before.games;
        if games == 0 {
            return Err(Error::Invalid(format!(
                "{file}: no games in it (not a PGN?)"
            )));
        }
        if counts.bad - before.bad == games {
            return Err(Error::Invalid(format!(
                "{file}: no game in it can be replayed (not a PGN of legal games?): {}",
                problems[0]
            )));
        }
        let room = BAD_GAMES_NAMED.saturating_sub(before.bad) as usize;
        warnings.extend(
            problems
                .iter()
                .take(room)
                .map(|p| format!("warning: {file}: {p}; left out")),
        );
    }
    // Said once every file has been read: an error in a later file stays the only line.
    for w in &warnings {
        eprintln!("{w}");
    }
    if counts.bad > BAD_GAMES_NAMED {
        eprintln!(
            "warning: {} more bad games left out, counted below",
            counts.bad - BAD_GAMES_NAMED
        );
    }
    Ok((records, counts))
}

/// Records from labelled EPD text; lines without a score are counted and left out.
pub fn convert(from: &str) -> Result<(Vec<Record>, u64), Error> {
    let reader: Box<dyn BufRead> = if from == "-" {
        Box::new(std::io::BufReader::new(std::io::stdin()))
    } else {
        Box::new(std::io::BufReader::new(
            std::fs::File::open(from).map_err(|e| Error::io(from, e))?,
        ))
    };
    let mut out = Vec::new();
    let mut skipped = 0;
    for (i, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| Error::io(from, e))?;
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let s = parse_sample(&line)
            .map_err(|e| Error::Invalid(format!("{from}: line {}: {e}", i + 1)))?;
        match s.score {
            Some(score) => out.push(Record::new(&s.pos, score, s.result)),
            None => skipped += 1,
        }
    }
    Ok((out, skipped))
}

/// The statistics `rookery data stats` prints.
pub fn stats(records: &[Record]) -> String {
    let n = records.len().max(1) as f64;
    let mut results = [0u64; 3];
    let mut pieces = [0u64; 33];
    let score_edges = [
        -2000, -1000, -500, -250, -100, -50, 0, 50, 100, 250, 500, 1000, 2000,
    ];
    let mut scores = vec![0u64; score_edges.len() + 1];
    let mut score_sum = 0f64;
    for r in records {
        results[usize::from(r.result.min(2))] += 1;
        pieces[(r.piece_count() as usize).min(32)] += 1;
        let s = i32::from(r.score);
        score_sum += f64::from(s.abs());
        scores[score_edges.iter().take_while(|&&e| s >= e).count()] += 1;
    }
    let unique = dedup(records.to_vec()).len();
    let pct = |k: u64| 100.0 * k as f64 / n;
    let scale = match fit_sigmoid_scale(records) {
        Some(k) => format!(
            "score scale: K {k:.5} fits 1 / (1 + exp(-K score)) to the results best; \
             +100 centipawns expects {:.1}%\n",
            100.0 / (1.0 + (-100.0 * k).exp())
        ),
        None => "score scale: too few decided scores to fit\n".into(),
    };
    let mut out = format!(
        "positions: {}\nunique boards: {unique} ({} duplicates, {:.2}%)\n\
         results for the side to move: win {} ({:.1}%), draw {} ({:.1}%), loss {} ({:.1}%)\n\
         mean |score|: {:.0} centipawns\n{scale}",
        records.len(),
        records.len() - unique,
        pct((records.len() - unique) as u64),
        results[2],
        pct(results[2]),
        results[1],
        pct(results[1]),
        results[0],
        pct(results[0]),
        score_sum / n
    );
    out += "score (side to move), centipawns:\n";
    for (i, &c) in scores.iter().enumerate() {
        let lo = if i == 0 {
            "".into()
        } else {
            score_edges[i - 1].to_string()
        };
        let hi = score_edges.get(i).map_or(String::new(), |e| e.to_string());
        out += &format!(
            "  {lo:>6} .. {hi:<6} {c:>10} {:5.1}% {}\n",
            pct(c),
            bar(pct(c))
        );
    }
    out += "pieces on the board (kings included):\n";
    for (k, &c) in pieces.iter().enumerate() {
        if c > 0 {
            out += &format!("  {k:>2} {c:>10} {:5.1}% {}\n", pct(c), bar(pct(c)));
        }
    }
    out
}

/// The K for which the sigmoid of the search's score, `1 / (1 + exp(-K score))`, is nearest the
/// game's result (least squares), over the positions scored below 2,000 centipawns (mates and won
/// endings say little about the scale). The score's meaning in expected results: what a search
/// score of one pawn is worth in this data, and so the `K` a trainer or a review should use.
/// `None` when fewer than 100 such positions, or when they hold no decided game.
pub fn fit_sigmoid_scale(records: &[Record]) -> Option<f64> {
    let samples: Vec<(f64, f64)> = records
        .iter()
        .filter(|r| r.score.unsigned_abs() < 2000)
        .map(|r| (f64::from(r.score), f64::from(r.result.min(2)) / 2.0))
        .collect();
    if samples.len() < 100 || samples.iter().all(|&(_, r)| r == 0.5) {
        return None;
    }
    let loss = |k: f64| {
        samples
            .iter()
            .map(|&(s, r)| (1.0 / (1.0 + (-k * s).exp()) - r).powi(2))
            .sum::<f64>()
    };
    // The loss is unimodal in K over this range.
    Some(crate::tune::golden_section_min(loss, 0.0001, 0.05, 40))
}

fn bar(pct: f64) -> String {
    "#".repeat((pct / 2.0).round() as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_fitted_is_the_one_the_results_were_drawn_from() {
        // Results drawn at random with P(win) = sigmoid(K score), K = 0.0056, no draws.
        let mut rng = crate::core::rng::Rng::new(7);
        let records: Vec<Record> = (0..40_000)
            .map(|i| {
                let score = (i % 1201) as i16 - 600;
                let p = 1.0 / (1.0 + (-0.0056 * f64::from(score)).exp());
                let win = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p;
                Record {
                    score,
                    result: if win { 2 } else { 0 },
                    ..Record::default()
                }
            })
            .collect();
        let k = fit_sigmoid_scale(&records).unwrap();
        assert!((k - 0.0056).abs() < 0.0004, "fitted {k}");
        // All draws, or too few positions, give nothing to fit.
        let draws: Vec<Record> = records.iter().map(|r| Record { result: 1, ..*r }).collect();
        assert_eq!(fit_sigmoid_scale(&draws), None);
        assert_eq!(fit_sigmoid_scale(&records[..50]), None);
        assert!(
            stats(&records).contains("score scale: K 0.005"),
            "{}",
            stats(&records)
        );
    }

    #[test]
    fn epd_converts_and_the_statistics_count_it() {
        let dir = std::env::temp_dir().join(format!("rookery-data-cli-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let epd = dir.join("a.epd");
        std::fs::write(
            &epd,
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - hmvc 0; fmvn 1; ce 20; c9 \"1-0\"; id \"s1g0\";\n\
             rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - hmvc 0; fmvn 1; ce 25; c9 \"1-0\"; id \"s1g1\";\n\
             8/8/8/4k3/8/8/3PPK2/8 w - - 0 1 | 120 | 0.5\n\
             8/8/8/4k3/8/8/3PPK2/8 w - - 0 1 [0.5]\n",
        )
        .unwrap();
        let (records, skipped) = convert(epd.to_str().unwrap()).unwrap();
        assert_eq!((records.len(), skipped), (3, 1));
        assert_eq!((records[0].score, records[0].result), (20, 0), "Black lost");
        assert_eq!((records[2].score, records[2].result), (120, 1));
        let s = stats(&records);
        assert!(s.contains("positions: 3"), "{s}");
        assert!(s.contains("unique boards: 2 (1 duplicates"), "{s}");
        assert!(s.contains("loss 2 (66.7%)"), "{s}");
        assert_eq!(dedup(records.clone()).len(), 2);
        let mut shuffled = records.clone();
        shuffle(&mut shuffled, 3);
        shuffled.sort_by_key(|r| (r.occ, r.score));
        let mut sorted = records;
        sorted.sort_by_key(|r| (r.occ, r.score));
        assert_eq!(shuffled, sorted);
        std::fs::write(&epd, "not a position\n").unwrap();
        assert!(
            convert(epd.to_str().unwrap())
                .unwrap_err()
                .to_string()
                .contains("line 1")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
