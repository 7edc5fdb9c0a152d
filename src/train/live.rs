//! A short training run that reports as it goes and stops when asked: what the Lab's "Train a
//! net" view and Python's `rookery.train` run. The first positions of a data set, a small net,
//! a budget of epochs and seconds; after each epoch the net as it is then, quantised as the
//! search would load it, so a caller can draw what it has learned ([`piece_square`]) or play it.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use shakmaty::{Chess, Color, FromSetup, Piece, Position, Rank, Role, Square};

use super::trainer::{Budget, Config, Progress, Trainer};
use super::{samples, split_runs};
use crate::error::Error;
use crate::nnue::{Activation, InputLayout, Network};

/// What to train: the data, the net's size, the budget.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Data sets (data directories or record files), read in order.
    pub data: Vec<String>,
    /// Positions read: the first ones of the data sets, in order.
    pub positions: usize,
    /// Neurons in the hidden layer, each perspective.
    pub hidden: usize,
    /// A deep head's two small layers after the hidden one (`rookery train --layers L1,L2`),
    /// or none for a single output.
    pub layers: Option<(usize, usize)>,
    /// The deep head reads pairs' products (`rookery train --paired`): only with `layers`.
    pub paired: bool,
    /// Output buckets, chosen by the number of pieces (`rookery train --buckets`): 1, 2, 4 or 8.
    pub buckets: usize,
    /// The input layout by its name (`rookery train --inputs`): plain, mirror, mirror-kb4 or
    /// mirror-kb8.
    pub inputs: String,
    /// The most epochs.
    pub epochs: usize,
    /// Starting learning rate (AdamW; it falls along a cosine to a hundredth of it).
    pub lr: f32,
    /// Positions a mini-batch.
    pub batch: usize,
    pub threads: usize,
    pub seed: u64,
    /// The most seconds of training (loading not counted): with a limit, the learning rate's
    /// cosine runs over the time, and the run ends when it is up, in the middle of an epoch if
    /// need be.
    pub seconds: Option<f64>,
    /// Fraction of the positions kept apart for validation, in runs of whole games.
    pub validation: f64,
}

impl Default for Plan {
    fn default() -> Plan {
        Plan {
            data: Vec::new(),
            positions: 500_000,
            hidden: 32,
            layers: None,
            paired: false,
            buckets: 1,
            inputs: "plain".into(),
            epochs: 5,
            lr: 0.002,
            batch: 16_384,
            threads: 1,
            seed: 1,
            seconds: None,
            validation: 0.05,
        }
    }
}

/// The mini-batch a run of `positions` positions trains with when none is asked for: a
/// 128th of them, from 1,024 to 16,384, so that a small slice still takes a hundred or more
/// steps an epoch and a large one the batch `rookery train` uses.
pub fn batch_for(positions: usize) -> usize {
    (positions / 128).clamp(1_024, 16_384)
}

/// What a run tells as it goes.
pub enum Event<'a> {
    /// The data is read and split, and the untrained net scored on the validation positions.
    Loaded {
        train: usize,
        validation: usize,
        /// Seconds the data took to read.
        seconds: f64,
        /// Validation loss of the untrained net.
        initial_loss: f32,
    },
    /// Part of an epoch is done (after its first batch, then about twice a second).
    Batch(&'a Progress),
    /// An epoch is done: its losses, and the net as it is now.
    Epoch(&'a EpochReport),
}

/// An epoch's figures and the net after it.
pub struct EpochReport {
    /// Epochs done, this one included.
    pub epoch: usize,
    pub train_loss: f32,
    pub validation_loss: f32,
    /// Seconds of training so far.
    pub seconds: f64,
    /// Positions trained on so far.
    pub positions: u64,
    /// The net after this epoch, quantised as the search loads it.
    pub net: Network,
}

/// Why a run ended before its last epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Halt {
    /// The stop flag was raised.
    Stopped,
    /// Its time was up.
    Time,
}

/// A finished run.
pub struct Trained {
    /// The net, quantised as the search loads it, with its provenance.
    pub net: Network,
    /// (training loss, validation loss) after each epoch.
    pub history: Vec<(f32, f32)>,
    /// Validation loss of the untrained net.
    pub initial_loss: f32,
    pub train_positions: usize,
    pub validation_positions: usize,
    /// Positions trained on, over all epochs.
    pub positions_seen: u64,
    /// Seconds of training (loading not counted).
    pub seconds: f64,
    /// Set when the run ended early.
    pub halted: Option<Halt>,
}

/// The checked bounds of a run's numbers, so a bad one gets a sentence, not a panic.
pub fn check(plan: &Plan) -> Result<(), Error> {
    if plan.data.is_empty() {
        return Err(Error::Invalid("name a data set to train on".into()));
    }
    Error::bounded("positions", plan.positions as u64, 1_000..=100_000_000, "")?;
    Error::bounded("hidden", plan.hidden as u64, 1..=1024, " neurons")?;
    if !crate::nnue::valid_buckets(plan.buckets) {
        return Err(Error::Invalid(format!(
            "buckets must be 1, 2, 4 or 8, got {}",
            plan.buckets
        )));
    }
    if InputLayout::preset(&plan.inputs).is_none() {
        return Err(Error::Invalid(format!(
            "inputs must be one of {}, got '{}'",
            crate::nnue::LAYOUT_PRESETS.join(", "),
            plan.inputs
        )));
    }
    if plan.paired && plan.layers.is_none() {
        return Err(Error::Invalid("paired needs a deep head (layers)".into()));
    }
    if let Some((l1, l2)) = plan.layers {
        crate::nnue::deep::check_shape(plan.hidden, l1, l2).map_err(|e| {
            Error::Invalid(format!("layers {l1},{l2} with hidden {}: {e}", plan.hidden))
        })?;
    }
    Error::bounded("epochs", plan.epochs as u64, 1..=100_000, "")?;
    Error::bounded("batch", plan.batch as u64, 16..=1_000_000, " positions")?;
    Error::bounded("threads", plan.threads as u64, 1..=256, "")?;
    if !(plan.lr.is_finite() && plan.lr > 0.0 && plan.lr <= 0.1) {
        return Err(Error::Invalid(format!(
            "lr must be above 0 and at most 0.1, got {}",
            plan.lr
        )));
    }
    if !(plan.validation > 0.0 && plan.validation < 0.5) {
        return Err(Error::Invalid(format!(
            "validation must be a fraction above 0 and below 0.5, got {}",
            plan.validation
        )));
    }
    if let Some(s) = plan.seconds
        && !(s.is_finite() && s > 0.0)
    {
        return Err(Error::Invalid(format!("seconds must be above 0, got {s}")));
    }
    Ok(())
}

/// Trains a net as `plan` says, telling `on` what it does, until its epochs or its time are
/// done or `stop` is raised. A stopped run still returns the net as it then was.
pub fn run(plan: &Plan, stop: &AtomicBool, mut on: impl FnMut(Event)) -> Result<Trained, Error> {
    check(plan)?;
    let loading = Instant::now();
    let mut records = Vec::new();
    for path in &plan.data {
        if records.len() >= plan.positions {
            break;
        }
        let left = plan.positions - records.len();
        records.extend(crate::data::store::load_first(path, left)?);
    }
    if records.len() < 100 {
        return Err(Error::Invalid(format!(
            "{} positions are too few to train on (100 at least)",
            records.len()
        )));
    }
    let (train, val) = split_runs(records, plan.validation, plan.seed);
    let cfg = Config {
        hidden: plan.hidden,
        activation: Activation::SCReLU,
        buckets: plan.buckets,
        layout: InputLayout::preset(&plan.inputs).expect("checked"),
        epochs: plan.epochs,
        batch: plan.batch,
        lr: plan.lr,
        threads: plan.threads,
        seed: plan.seed,
        head: plan.layers,
        paired: plan.paired,
        ..Config::default()
    };
    let train_s = samples(&train, &cfg.layout, cfg.wdl);
    let val_s = samples(&val, &cfg.layout, cfg.wdl);
    let mut t = Trainer::new(cfg.new_net(plan.seed));
    let initial_loss = t.loss(&val_s, cfg.threads);
    on(Event::Loaded {
        train: train_s.len(),
        validation: val_s.len(),
        seconds: loading.elapsed().as_secs_f64(),
        initial_loss,
    });
    let provenance = |epochs: usize| {
        format!(
            "trained live: {} positions of {}, {epochs} epoch(s), lr {}, seed {}{}{}{}",
            train_s.len(),
            plan.data.join(" "),
            plan.lr,
            plan.seed,
            plan.layers.map_or(String::new(), |(l1, l2)| format!(
                ", deep layers {l1},{l2}{}",
                if plan.paired { " paired" } else { "" }
            )),
            if plan.buckets > 1 {
                format!(", {} output buckets", plan.buckets)
            } else {
                String::new()
            },
            if plan.inputs == "plain" {
                String::new()
            } else {
                format!(", inputs {}", plan.inputs)
            }
        )
    };
    let started = Instant::now();
    let budget = Budget {
        stop: Some(stop),
        time: plan.seconds.map(|s| (started, Duration::from_secs_f64(s))),
    };
    let mut seen = 0u64;
    let mut halted = None;
    while t.epoch < cfg.epochs {
        let end = t.epoch_within(&cfg, &train_s, budget, |p| on(Event::Batch(p)));
        if end.positions == 0 {
            halted = Some(if budget.time.is_some_and(|(s, l)| s.elapsed() >= l) {
                Halt::Time
            } else {
                Halt::Stopped
            });
            break;
        }
        seen += end.positions as u64;
        let val_loss = t.loss(&val_s, cfg.threads);
        t.history.push((end.loss, val_loss));
        on(Event::Epoch(&EpochReport {
            epoch: t.epoch,
            train_loss: end.loss,
            validation_loss: val_loss,
            seconds: started.elapsed().as_secs_f64(),
            positions: seen,
            net: t.net.quantise(provenance(t.epoch)),
        }));
        if !end.complete {
            halted = Some(if stop.load(std::sync::atomic::Ordering::Relaxed) {
                Halt::Stopped
            } else {
                Halt::Time
            });
            break;
        }
    }
    Ok(Trained {
        net: t.net.quantise(provenance(t.epoch)),
        history: t.history,
        initial_loss,
        train_positions: train_s.len(),
        validation_positions: val_s.len(),
        positions_seen: seen,
        seconds: started.elapsed().as_secs_f64(),
        halted,
    })
}

/// The pieces [`piece_square`] places, in its rows' order.
pub const PIECE_ROLES: [Role; 5] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
];

/// The position [`piece_square`] adds a piece to: both kings castled short behind three pawns
/// (White: Kg1, f2 g2 h2; Black: Kg8, f7 g7 h7), Black to move. Its pawns keep the evaluations
/// away from the endings where a lone piece cannot win (which both score near a draw).
pub const CONTEXT: &str = "6k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1";

/// What an evaluation thinks a White piece is worth on each square: for each of
/// [`PIECE_ROLES`], each square's score (White's point of view, from `score`) of [`CONTEXT`]
/// with that piece added, less the score of the context alone. Black is to move, so a piece
/// giving check makes a legal position; occupied squares and a pawn's first and last ranks are
/// `None`. Squares in `Square` order (a1, b1, ..., h8).
pub fn piece_square(score: impl Fn(&Chess) -> i32) -> Vec<[Option<i32>; 64]> {
    let context: Chess = CONTEXT
        .parse::<shakmaty::fen::Fen>()
        .ok()
        .and_then(|f| f.into_position(shakmaty::CastlingMode::Standard).ok())
        .expect("the context is a legal position");
    let base = score(&context);
    PIECE_ROLES
        .iter()
        .map(|&role| {
            let mut row = [None; 64];
            for sq in Square::ALL {
                let pawn_edge =
                    role == Role::Pawn && matches!(sq.rank(), Rank::First | Rank::Eighth);
                if context.board().piece_at(sq).is_some() || pawn_edge {
                    continue;
                }
                let mut setup = context.to_setup(shakmaty::EnPassantMode::Legal);
                setup.board.set_piece_at(
                    sq,
                    Piece {
                        color: Color::White,
                        role,
                    },
                );
                row[sq as usize] = Chess::from_setup(setup, shakmaty::CastlingMode::Standard)
                    .ok()
                    .map(|p| score(&p) - base);
            }
            row
        })
        .collect()
}

/// A net's [`piece_square`] values: its score turned to White's point of view.
pub fn net_piece_square(net: &Network) -> Vec<[Option<i32>; 64]> {
    piece_square(|pos| {
        let v = net.evaluate_board(pos.board(), pos.turn());
        if pos.turn() == Color::White { v } else { -v }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::sample::tests::{material, records};
    use std::sync::atomic::Ordering;

    /// Positions of a few pieces placed at random besides the kings, labelled by material.
    fn sparse_records(n: usize) -> Vec<crate::data::Record> {
        let mut rng = crate::core::Rng::new(7);
        let mut out = Vec::new();
        while out.len() < n {
            let mut board = shakmaty::Board::empty();
            for color in Color::ALL {
                board.set_piece_at(
                    Square::new(rng.below(64) as u32),
                    Piece {
                        color,
                        role: Role::King,
                    },
                );
            }
            for _ in 0..1 + rng.below(6) {
                let role = PIECE_ROLES[rng.below(5) as usize];
                let color = Color::ALL[rng.below(2) as usize];
                let sq = Square::new(rng.below(64) as u32);
                if board.piece_at(sq).is_none()
                    && !(role == Role::Pawn && matches!(sq.rank(), Rank::First | Rank::Eighth))
                {
                    board.set_piece_at(sq, Piece { color, role });
                }
            }
            let setup = shakmaty::Setup {
                board,
                turn: Color::ALL[rng.below(2) as usize],
                ..shakmaty::Setup::empty()
            };
            if let Ok(pos) = Chess::from_setup(setup, shakmaty::CastlingMode::Standard) {
                out.push(crate::data::Record::new(&pos, material(&pos), 0.5));
            }
        }
        out
    }

    /// A record file of positions labelled by material alone, and a plan that trains on it.
    fn material_plan(name: &str) -> (std::path::PathBuf, Plan) {
        let mut recs = records(|p| (material(p), 0.5));
        recs.extend(sparse_records(4000));
        let path =
            std::env::temp_dir().join(format!("rookery-live-{name}-{}.bin", std::process::id()));
        crate::data::store::save(path.to_str().unwrap(), &recs).unwrap();
        let plan = Plan {
            data: vec![path.to_str().unwrap().to_string()],
            positions: 1_000_000,
            hidden: 16,
            epochs: 12,
            lr: 0.01,
            batch: 256,
            threads: 2,
            validation: 0.1,
            ..Plan::default()
        };
        (path, plan)
    }

    fn mean(row: &[Option<i32>; 64]) -> f64 {
        let v: Vec<i32> = row.iter().flatten().copied().collect();
        v.iter().map(|&x| f64::from(x)).sum::<f64>() / v.len() as f64
    }

    #[test]
    fn a_run_reports_each_epoch_and_its_net_learns_the_piece_values() {
        let (path, plan) = material_plan("learn");
        let stop = AtomicBool::new(false);
        let (mut loaded, mut batches, mut epochs) = (0, 0, Vec::new());
        let t = run(&plan, &stop, |e| match e {
            Event::Loaded {
                train, validation, ..
            } => {
                loaded += 1;
                assert!(
                    train > 5 * validation && validation > 0,
                    "{train} {validation}"
                );
            }
            Event::Batch(p) => {
                batches += 1;
                assert!(p.loss.is_finite() && p.batch <= p.batches);
            }
            Event::Epoch(r) => epochs.push((r.epoch, r.validation_loss, net_piece_square(&r.net))),
        })
        .unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(loaded, 1);
        assert!(batches >= plan.epochs, "{batches}");
        assert_eq!(
            epochs.iter().map(|e| e.0).collect::<Vec<_>>(),
            (1..=12).collect::<Vec<_>>()
        );
        assert_eq!(t.history.len(), 12);
        assert_eq!(t.halted, None);
        assert_eq!(t.positions_seen, 12 * t.train_positions as u64);
        let last = t.history.last().unwrap().1;
        assert!(last < t.initial_loss / 3.0, "{} -> {last}", t.initial_loss);
        // What the net thinks the pieces are worth changed from the first epoch to the last,
        // toward the labels' order: a queen above a rook above a knight above a pawn.
        let (first, end) = (&epochs[0].2, &epochs.last().unwrap().2);
        assert_ne!(first, end);
        let m: Vec<f64> = end.iter().map(mean).collect();
        assert!(
            m[4] > m[3] && m[3] > m[1] && m[1] > m[0] && m[0] > 0.0,
            "{m:?}"
        );
        assert_eq!(
            *end,
            net_piece_square(&t.net),
            "the net returned is the last epoch's"
        );
        assert!(
            t.net.provenance.contains("12 epoch(s)"),
            "{}",
            t.net.provenance
        );
    }

    #[test]
    fn a_run_stops_when_asked_or_when_its_time_is_up_and_keeps_its_net() {
        let (path, plan) = material_plan("stop");
        // Raised during the first epoch: that epoch ends early, and the run with it.
        let stop = AtomicBool::new(false);
        let t = run(
            &Plan {
                batch: 16,
                ..plan.clone()
            },
            &stop,
            |e| {
                if let Event::Batch(_) = e {
                    stop.store(true, Ordering::Relaxed);
                }
            },
        )
        .unwrap();
        assert_eq!(t.halted, Some(Halt::Stopped));
        assert_eq!(t.history.len(), 1);
        assert!(t.positions_seen < t.train_positions as u64);
        // Raised before it starts: no epoch at all, the untrained net.
        let t = run(&plan, &AtomicBool::new(true), |_| {}).unwrap();
        assert_eq!(
            (t.halted, t.history.len(), t.positions_seen),
            (Some(Halt::Stopped), 0, 0)
        );
        // A time limit ends it with fewer epochs than asked for.
        let many = Plan {
            epochs: 100_000,
            seconds: Some(0.3),
            ..plan.clone()
        };
        let t = run(&many, &AtomicBool::new(false), |_| {}).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(t.halted, Some(Halt::Time));
        assert!(!t.history.is_empty() && t.history.len() < 100_000);
        assert!(t.seconds >= 0.3 && t.seconds < 5.0, "{}", t.seconds);
    }

    /// A run with a deep head (`layers`), output buckets and mirrored inputs learns the labels
    /// too, and its net carries all three.
    #[test]
    fn a_run_with_a_deep_head_learns_and_keeps_the_head() {
        let (path, plan) = material_plan("deep");
        let plan = Plan {
            layers: Some((8, 4)),
            epochs: 24,
            buckets: 2,
            inputs: "mirror".into(),
            ..plan
        };
        let t = run(&plan, &AtomicBool::new(false), |_| {}).unwrap();
        std::fs::remove_file(&path).unwrap();
        let last = t.history.last().unwrap().1;
        assert!(last < t.initial_loss / 3.0, "{} -> {last}", t.initial_loss);
        assert!(t.net.deep().is_some());
        let arch = t.net.architecture();
        assert!(arch.contains("-> 8 -> 4 -> 1 x 2 buckets"), "{arch}");
        assert!(arch.contains("inputs mirror"), "{arch}");
        for words in ["deep layers 8,4", "2 output buckets", "inputs mirror"] {
            assert!(t.net.provenance.contains(words), "{}", t.net.provenance);
        }
        let m: Vec<f64> = net_piece_square(&t.net).iter().map(mean).collect();
        assert!(m[4] > m[3] && m[3] > m[1] && m[1] > m[0], "{m:?}");
    }

    #[test]
    fn small_runs_take_smaller_batches() {
        assert_eq!(batch_for(20_000), 1_024);
        assert_eq!(batch_for(300_000), 2_343);
        assert_eq!(batch_for(8_000_000), 16_384);
    }

    #[test]
    fn bad_plans_are_refused_with_a_sentence() {
        let good = Plan {
            data: vec!["x".into()],
            ..Plan::default()
        };
        assert!(check(&good).is_ok());
        assert!(
            check(&Plan {
                layers: Some((8, 32)),
                ..good.clone()
            })
            .is_ok()
        );
        for (plan, words) in [
            (
                Plan {
                    data: vec![],
                    ..good.clone()
                },
                "data set",
            ),
            (
                Plan {
                    hidden: 0,
                    ..good.clone()
                },
                "hidden",
            ),
            (
                Plan {
                    positions: 10,
                    ..good.clone()
                },
                "positions",
            ),
            (
                Plan {
                    lr: f32::NAN,
                    ..good.clone()
                },
                "lr",
            ),
            (
                Plan {
                    lr: 1.0,
                    ..good.clone()
                },
                "lr",
            ),
            (
                Plan {
                    validation: 0.0,
                    ..good.clone()
                },
                "validation",
            ),
            (
                Plan {
                    seconds: Some(-1.0),
                    ..good.clone()
                },
                "seconds",
            ),
            (
                Plan {
                    epochs: 0,
                    ..good.clone()
                },
                "epochs",
            ),
            (
                Plan {
                    layers: Some((12, 8)),
                    ..good.clone()
                },
                "layers 12,8",
            ),
            (
                Plan {
                    paired: true,
                    ..good.clone()
                },
                "paired needs a deep head",
            ),
            (
                Plan {
                    buckets: 3,
                    ..good.clone()
                },
                "buckets must be 1, 2, 4 or 8",
            ),
            (
                Plan {
                    inputs: "sideways".into(),
                    ..good.clone()
                },
                "inputs must be one of plain, mirror",
            ),
            (
                Plan {
                    hidden: 12,
                    layers: Some((8, 8)),
                    ..good.clone()
                },
                "multiple of 8",
            ),
        ] {
            let e = check(&plan).unwrap_err().to_string();
            assert!(e.contains(words), "{e}");
        }
        let e = run(
            &Plan {
                data: vec!["/nonexistent/set".into()],
                ..good
            },
            &AtomicBool::new(false),
            |_| {},
        );
        assert!(e.is_err());
    }

    #[test]
    fn the_hand_crafted_piece_values_rank_the_pieces_and_leave_out_the_impossible_squares() {
        let hce = |pos: &Chess| {
            let v = crate::eval::hce::evaluate_board(
                pos.board(),
                pos.turn(),
                &mut crate::eval::hce::NoEvalTrace,
            );
            if pos.turn() == Color::White { v } else { -v }
        };
        let rows = piece_square(hce);
        assert_eq!(rows.len(), PIECE_ROLES.len());
        let m: Vec<f64> = rows.iter().map(mean).collect();
        assert!(
            m[4] > m[3] && m[3] > m[2] && m[2] > m[0] && m[1] > m[0],
            "{m:?}"
        );
        for row in &rows {
            assert_eq!(row[Square::G1 as usize], None);
            assert_eq!(row[Square::F7 as usize], None);
            assert!(row[Square::D4 as usize].is_some());
        }
        assert!(rows[0][Square::A1 as usize].is_none() && rows[0][Square::H8 as usize].is_none());
        assert!(rows[0][Square::E4 as usize].is_some());
        // A knight giving check (Black to move) is still a position.
        assert!(rows[1][Square::H6 as usize].is_some());
    }
}
