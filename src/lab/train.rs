//! The Train view: a small net trained while the page watches. `GET /api/train/sets`: the data
//! sets the server offers (the directories of its training data folder) and the bounds of a run.
//! `POST /api/train`: trains a net on the first positions of one set (`train::live`), streamed
//! as the analysis is: `start` (the split, the untrained net's loss, the hand-crafted
//! evaluation's piece values), `progress` (twice a second), `epoch` (the losses and the net's
//! piece values after each), then `done` with the net kept under a name (`trained-1` ...) that
//! the Play and Tournament views take as an engine. `POST /api/train/stop` stops it;
//! `GET /api/train/nets` lists the nets kept; `GET /api/train/net/NAME` gives one as a net file.
//!
//! One training runs at a time, on a bounded budget (positions, epochs, seconds, threads); it
//! holds no search slot, so the other views answer meanwhile. A closed page, a stop request or
//! the time limit ends it; a second request while one runs gets 409.

use std::path::Path;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use shakmaty::Square;

use super::events::{self, Emitter};
use super::heatmap::hce_white;
use super::kept::{TRAINED, TrainedNets};
use super::reply::{ApiError, ApiResult, bounded, error_response, parse_body, reply};
use super::state::Lab;
use crate::train::live::{self, CONTEXT, Event, Halt, PIECE_ROLES};

/// Bounds of a run.
pub const MIN_POSITIONS: usize = 10_000;
pub const MAX_POSITIONS: usize = 4_000_000;
pub const MAX_HIDDEN: usize = 256;
pub const MAX_EPOCHS: usize = 50;
pub const MAX_SECONDS: u64 = 900;
/// Defaults of a run.
pub const DEFAULT_POSITIONS: usize = 300_000;
pub const DEFAULT_HIDDEN: usize = 32;
pub const DEFAULT_EPOCHS: usize = 5;
pub const DEFAULT_LR: f32 = 0.002;
/// Seconds a run may take when the request sets no limit.
pub const DEFAULT_SECONDS: u64 = 300;

/// A data set on offer: its name and size.
#[derive(Clone, Debug, PartialEq)]
pub struct DataSet {
    pub name: String,
    pub positions: u64,
}

/// The data sets in `dir`: its directories that hold a data set's manifest, by name.
pub fn data_sets(dir: &Path) -> Vec<DataSet> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut sets: Vec<DataSet> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().join("manifest.json").is_file())
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let m = crate::data::store::read_manifest(&e.path()).ok()??;
            Some(DataSet {
                name,
                positions: m.total_positions(),
            })
        })
        .collect();
    sets.sort_by(|a, b| a.name.cmp(&b.name));
    sets
}

/// `POST /api/train`.
#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct TrainRequest {
    /// A data set by name, as `GET /api/train/sets` lists them.
    pub set: String,
    pub positions: Option<usize>,
    pub hidden: Option<usize>,
    /// A deep head's two layers, `[L1, L2]` (`rookery train --layers`), or none.
    pub layers: Option<(usize, usize)>,
    /// The deep head reads pairs' products (`rookery train --paired`).
    pub paired: Option<bool>,
    /// Output buckets (1, 2, 4 or 8) and the input layout by name, as `rookery train`'s.
    pub buckets: Option<usize>,
    pub inputs: Option<String>,
    pub epochs: Option<usize>,
    pub lr: Option<f32>,
    pub threads: Option<usize>,
    pub seed: Option<u64>,
    /// The most seconds of training.
    pub seconds: Option<u64>,
}

/// The cores a training may use.
fn max_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

impl TrainRequest {
    /// The run this asks for, checked against the bounds and the sets in `dir`.
    pub fn check(&self, dir: &Path) -> Result<(live::Plan, DataSet), ApiError> {
        let name = self.set.trim();
        if name.contains(['/', '\\']) || name.contains("..") {
            return Err(ApiError::bad(format!(
                "set must be a data set's name as GET /api/train/sets lists them, not a path: got '{name}'"
            )));
        }
        let sets = data_sets(dir);
        let set = sets
            .iter()
            .find(|s| s.name == name)
            .cloned()
            .ok_or_else(|| {
                let known: Vec<&str> = sets.iter().map(|s| s.name.as_str()).collect();
                ApiError::bad(if known.is_empty() {
                    format!("unknown data set '{name}': this server has none")
                } else {
                    format!("unknown data set '{name}' ({})", known.join(", "))
                })
            })?;
        let positions = self.positions.unwrap_or(DEFAULT_POSITIONS);
        bounded("positions", positions, MIN_POSITIONS..=MAX_POSITIONS, "")?;
        let hidden = self.hidden.unwrap_or(DEFAULT_HIDDEN);
        bounded("hidden", hidden, 1..=MAX_HIDDEN, " neurons")?;
        let epochs = self.epochs.unwrap_or(DEFAULT_EPOCHS);
        bounded("epochs", epochs, 1..=MAX_EPOCHS, "")?;
        let lr = self.lr.unwrap_or(DEFAULT_LR);
        if !(lr.is_finite() && (0.00001..=0.05).contains(&lr)) {
            return Err(ApiError::bad(format!(
                "lr must be 0.00001 to 0.05, got {lr}"
            )));
        }
        let cores = max_threads();
        let threads = self.threads.unwrap_or(cores);
        bounded("threads", threads, 1..=cores, "")?;
        let seconds = self.seconds.unwrap_or(DEFAULT_SECONDS);
        bounded("seconds", seconds, 1..=MAX_SECONDS, "")?;
        let plan = live::Plan {
            data: vec![dir.join(&set.name).to_string_lossy().into_owned()],
            positions,
            hidden,
            layers: self.layers,
            paired: self.paired.unwrap_or(false),
            buckets: self.buckets.unwrap_or(1),
            inputs: self.inputs.clone().unwrap_or_else(|| "plain".into()),
            epochs,
            lr,
            threads,
            seed: self.seed.unwrap_or(1),
            seconds: Some(seconds as f64),
            batch: live::batch_for(positions),
            ..live::Plan::default()
        };
        live::check(&plan)?;
        Ok((plan, set))
    }
}

/// Piece values (`live::piece_square`) as the page draws them: for each piece letter, each
/// square's value by name.
pub fn piece_values_json(rows: &[[Option<i32>; 64]]) -> Value {
    let mut pieces = Map::new();
    for (role, row) in PIECE_ROLES.iter().zip(rows) {
        let squares: Map<String, Value> = Square::ALL
            .iter()
            .filter_map(|&sq| row[sq as usize].map(|v| (sq.to_string(), json!(v))))
            .collect();
        pieces.insert(role.upper_char().to_string(), Value::Object(squares));
    }
    Value::Object(pieces)
}

fn round(x: f64, places: i32) -> f64 {
    let k = 10f64.powi(places);
    (x * k).round() / k
}

/// Trains as `plan` says, sending the events, and keeps the net in `nets`.
pub fn run(nets: &TrainedNets, plan: &live::Plan, set: &DataSet, emitter: &Emitter) -> ApiResult {
    let hce = piece_values_json(&live::piece_square(hce_white));
    let trained = live::run(plan, &emitter.stop, |event| match event {
        Event::Loaded {
            train,
            validation,
            seconds,
            initial_loss,
        } => {
            emitter.send(
                "start",
                &json!({
                    "set": set.name, "set_positions": set.positions,
                    "train": train, "validation": validation,
                    "hidden": plan.hidden, "epochs": plan.epochs, "lr": plan.lr,
                    "threads": plan.threads, "seconds_limit": plan.seconds,
                    "load_seconds": round(seconds, 2),
                    "initial_loss": initial_loss,
                    "context": CONTEXT,
                    "hce": hce,
                }),
            );
        }
        Event::Batch(p) => {
            emitter.send(
                "progress",
                &json!({
                    "epoch": p.epoch, "batch": p.batch, "batches": p.batches,
                    "loss": p.loss, "positions_per_second": p.positions_per_second.round(),
                }),
            );
        }
        Event::Epoch(r) => {
            emitter.send(
                "epoch",
                &json!({
                    "epoch": r.epoch, "train_loss": r.train_loss,
                    "validation_loss": r.validation_loss,
                    "seconds": round(r.seconds, 2), "positions": r.positions,
                    "positions_per_second": (r.positions as f64 / r.seconds.max(1e-9)).round(),
                    "net": piece_values_json(&live::net_piece_square(&r.net)),
                }),
            );
        }
    })?;
    let halted = trained.halted.map(|h| match h {
        Halt::Stopped => "stopped",
        Halt::Time => "time",
    });
    let about = json!({
        "set": set.name, "positions": trained.train_positions, "hidden": plan.hidden,
        "epochs": trained.history.len(), "lr": plan.lr, "seed": plan.seed,
        "validation_loss": trained.history.last().map(|h| h.1),
        "seconds": round(trained.seconds, 1),
        "architecture": trained.net.architecture(),
    });
    // A net that trained at all is kept, stopped or not; one stopped before its first epoch
    // has learned nothing to play.
    let name = (!trained.history.is_empty()).then(|| nets.keep(trained.net, about.clone()));
    Ok(json!({
        "name": name,
        "about": about,
        "halted": halted,
        "initial_loss": trained.initial_loss,
        "history": trained.history,
        "train": trained.train_positions,
        "validation": trained.validation_positions,
        "positions_seen": trained.positions_seen,
        "seconds": round(trained.seconds, 2),
    }))
}

/// `GET /api/train/sets`.
pub async fn sets_handler(State(lab): State<Arc<Lab>>) -> Response {
    let sets: Vec<Value> = data_sets(&lab.makers.train_data)
        .into_iter()
        .map(|s| json!({ "name": s.name, "positions": s.positions }))
        .collect();
    axum::Json(json!({
        "sets": sets,
        "busy": lab.makers.trained.busy(),
        "bounds": {
            "positions": [MIN_POSITIONS, MAX_POSITIONS],
            "hidden": [1, MAX_HIDDEN],
            "epochs": [1, MAX_EPOCHS],
            "lr": [0.00001, 0.05],
            "threads": [1, max_threads()],
            "seconds": [1, MAX_SECONDS],
            "buckets": [1, 2, 4, 8],
            "inputs": crate::nnue::LAYOUT_PRESETS,
            "layers": {
                "l1": (8..=crate::nnue::MAX_L1).step_by(8).collect::<Vec<_>>(),
                "l2": [1, crate::nnue::deep::MAX_L2],
            },
        },
        "defaults": {
            "positions": DEFAULT_POSITIONS, "hidden": DEFAULT_HIDDEN, "epochs": DEFAULT_EPOCHS,
            "lr": DEFAULT_LR, "threads": max_threads(), "seconds": DEFAULT_SECONDS,
        },
    }))
    .into_response()
}

/// `POST /api/train`.
pub async fn handler(State(lab): State<Arc<Lab>>, headers: HeaderMap, body: Bytes) -> Response {
    let checked = parse_body::<TrainRequest>(&body).and_then(|r| r.check(&lab.makers.train_data));
    let (plan, set) = match checked {
        Ok(p) => p,
        Err(e) => return error_response(&e),
    };
    let nets = lab.makers.trained.clone();
    let (stop, claim) = match nets.claim() {
        Ok(c) => c,
        Err(e) => return error_response(&e),
    };
    events::run_holding(None, events::wants_events(&headers), stop, move |emitter| {
        let _claim = claim;
        run(&nets, &plan, &set, emitter)
    })
    .await
}

/// `POST /api/train/stop`.
pub async fn stop_handler(State(lab): State<Arc<Lab>>) -> Response {
    reply(Ok(json!({ "stopped": lab.makers.trained.stop() })))
}

/// `GET /api/train/nets`.
pub async fn nets_handler(State(lab): State<Arc<Lab>>) -> Response {
    reply(Ok(json!({ "nets": lab.makers.trained.list() })))
}

/// `GET /api/train/net/NAME`: the net file.
pub async fn net_handler(State(lab): State<Arc<Lab>>, UrlPath(name): UrlPath<String>) -> Response {
    let Some(kept) = lab.makers.trained.get(&name) else {
        return error_response(&ApiError {
            status: 404,
            message: format!(
                "no net is kept as '{name}' (the trained nets are {}; train one first)",
                TRAINED.join(", ")
            ),
        });
    };
    (
        [
            (header::CONTENT_TYPE, "application/octet-stream".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{}.nnue\"", kept.name),
            ),
        ],
        kept.net.to_bytes(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::kept::default_data_dir;

    #[test]
    fn requests_name_a_listed_set_and_stay_in_bounds() {
        let dir = default_data_dir();
        let sets = data_sets(&dir);
        assert!(
            sets.iter()
                .any(|s| s.name == "gen6-b" && s.positions > 100_000),
            "{sets:?}"
        );
        let ok = TrainRequest {
            set: "gen6-b".into(),
            ..TrainRequest::default()
        };
        let (plan, set) = ok.check(&dir).unwrap();
        assert_eq!(set.name, "gen6-b");
        assert_eq!(
            (plan.positions, plan.hidden, plan.epochs),
            (DEFAULT_POSITIONS, DEFAULT_HIDDEN, DEFAULT_EPOCHS)
        );
        assert!(plan.data[0].ends_with("gen6-b"));
        for (req, words) in [
            (
                TrainRequest {
                    set: "../selfplay/gen6-b".into(),
                    ..ok.clone()
                },
                "not a path",
            ),
            (
                TrainRequest {
                    set: "/etc".into(),
                    ..ok.clone()
                },
                "not a path",
            ),
            (
                TrainRequest {
                    set: "nothing".into(),
                    ..ok.clone()
                },
                "unknown data set 'nothing' (",
            ),
            (
                TrainRequest {
                    positions: Some(10),
                    ..ok.clone()
                },
                "positions must be",
            ),
            (
                TrainRequest {
                    positions: Some(MAX_POSITIONS + 1),
                    ..ok.clone()
                },
                "positions must be",
            ),
            (
                TrainRequest {
                    hidden: Some(0),
                    ..ok.clone()
                },
                "hidden must be",
            ),
            (
                TrainRequest {
                    epochs: Some(MAX_EPOCHS + 1),
                    ..ok.clone()
                },
                "epochs must be",
            ),
            (
                TrainRequest {
                    lr: Some(f32::INFINITY),
                    ..ok.clone()
                },
                "lr must be",
            ),
            (
                TrainRequest {
                    threads: Some(0),
                    ..ok.clone()
                },
                "threads must be",
            ),
            (
                TrainRequest {
                    seconds: Some(MAX_SECONDS + 1),
                    ..ok.clone()
                },
                "seconds must be",
            ),
        ] {
            let e = req.check(&dir).unwrap_err();
            assert_eq!(e.status, 400);
            assert!(e.message.contains(words), "{}", e.message);
        }
        let none = TrainRequest {
            set: "gen6-b".into(),
            ..ok
        };
        assert!(
            none.check(Path::new("/nonexistent"))
                .unwrap_err()
                .message
                .contains("has none")
        );
    }
}
