//! `POST /api/ladder`: every rung of the ladder on one position, side by side: fixed-depth rungs
//! to the depth asked for (minimax to at most 4), the deepening rungs for the time asked for, each
//! with its move, score, nodes and time.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::response::Response;
use serde_json::json;

use super::api::{Makers, analysis_json, fixed_depth, game_on, position_request};
use super::reply::{ApiError, ApiResult, bounded, parse_body, reply};
use super::state::{Lab, StopOnDrop, blocking};
use crate::core::{Game, Limits};
use crate::registry;

position_request! {
    /// `POST /api/ladder`: every rung on one position.
    #[serde(default)]
    LadderRequest {} {
        /// Depth of the fixed-depth rungs (minimax at most 4).
        pub depth: Option<u32>,
        /// Milliseconds for the iterative rungs.
        pub movetime: Option<u64>,
    }
}

impl LadderRequest {
    pub fn check(&self) -> Result<(Game, u32, Duration), ApiError> {
        let (depth, ms) = (self.depth.unwrap_or(3), self.movetime.unwrap_or(200));
        bounded("ladder depth", depth, 1..=6, "")?;
        bounded("ladder movetime", ms, 1..=2_000, " ms")?;
        let game = self.game()?;
        game_on(&game)?;
        Ok((game, depth, Duration::from_millis(ms)))
    }
}

/// Runs every rung on `game` (fixed-depth rungs to `depth`, minimax to at most 4; the others for
/// `movetime`), stopping early when `stop` is raised.
pub fn ladder(
    makers: &Makers,
    game: &Game,
    depth: u32,
    movetime: Duration,
    stop: &Arc<AtomicBool>,
) -> ApiResult {
    let pos = game.position();
    let mut rows = Vec::new();
    for info in registry::ENGINES {
        let mut engine = makers.engine(info.name, None)?;
        let mut limits = if fixed_depth(info.name) {
            let d = if info.name == "minimax" {
                depth.min(4)
            } else {
                depth
            };
            Limits {
                depth: Some(d),
                movetime: Some(Duration::from_secs(10)),
                ..Limits::default()
            }
        } else {
            Limits {
                movetime: Some(movetime),
                ..Limits::default()
            }
        };
        limits.stop = Some(stop.clone());
        let a = engine.analyse(game, &limits);
        let mut row = analysis_json(pos, &a);
        row["name"] = json!(info.name);
        row["idea"] = json!(info.idea);
        row["limit"] = json!(match info.name {
            "random" | "book" => "no search".to_string(),
            "greedy" | "greedy-incremental" => "one ply".to_string(),
            _ if fixed_depth(info.name) => format!("depth {}", limits.depth.unwrap_or(depth)),
            _ => format!("{} ms", movetime.as_millis()),
        });
        if let Some(obj) = row.as_object_mut() {
            obj.remove("moves");
        }
        rows.push(row);
    }
    Ok(json!({ "fen": game.fen(), "rungs": rows }))
}

pub async fn handler(State(lab): State<Arc<Lab>>, body: Bytes) -> Response {
    let result = async {
        let req: LadderRequest = parse_body(&body)?;
        let (game, depth, movetime) = req.check()?;
        let stop = Arc::new(AtomicBool::new(false));
        let _guard = StopOnDrop(stop.clone());
        let makers = lab.makers.clone();
        blocking(&lab, move || ladder(&makers, &game, depth, movetime, &stop)).await
    }
    .await;
    reply(result)
}
