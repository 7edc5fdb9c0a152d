//! The Evaluation view. `POST /api/eval`: the hand-crafted evaluation term by term, and the
//! built-in net's score beside it (a net has no terms to show). `POST /api/heatmap`: what each
//! square of a position is worth to the evaluation, as layers the page colours the board with.
//! All heatmap values are centipawns from White's point of view.
//!
//! - `table`: each piece's piece-square table value, `psq`: its material and table value together
//!   (both tapered by the position's phase, as the evaluation blends them);
//! - `contribution`: the evaluation with the piece minus the evaluation without it (kings are not
//!   removed; a removal that leaves an illegal position, the side not to move in check, is
//!   skipped). `contributions` does this for any scoring function, so another evaluation (a
//!   learned one) is one more arm in `scorer`;
//! - `term:NAME`: the same difference for one hand-crafted term (mobility, pawn structure, king
//!   safety, ...), for the terms that belong to squares.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value, json};
use shakmaty::{
    CastlingMode, Chess, Color, EnPassantMode, FromSetup, Piece, Position, PositionError, Square,
};

use super::api::{At, position_request};
use super::reply::{ApiError, ApiResult, parse_body, reply};
use super::state::{Lab, blocking};
use crate::core::Game;
use crate::eval::hce::{self, NoEvalTrace, PHASE_MAX, Parts, S};
use crate::eval::pesto;

/// The evaluations a heatmap can be drawn for.
pub const EVALS: &[&str] = &["hce", "net"];

position_request! {
    /// `POST /api/heatmap`.
    #[serde(default)]
    HeatmapRequest {} {
        /// The evaluation whose per-piece contribution is drawn: "hce" (the hand-crafted one) or
        /// "net" (the built-in learned net).
        pub eval: Option<String>,
    }
}

/// A scoring function: centipawns from White's point of view.
pub type Scorer = Box<dyn Fn(&Chess) -> i32 + Send>;

/// The hand-crafted evaluation, White's point of view.
pub fn hce_white(pos: &Chess) -> i32 {
    let v = hce::evaluate_board(pos.board(), pos.turn(), &mut NoEvalTrace);
    if pos.turn() == Color::White { v } else { -v }
}

/// The scoring function named `name`.
pub fn scorer(name: &str) -> Result<Scorer, ApiError> {
    match name {
        "hce" => Ok(Box::new(hce_white)),
        "net" => {
            let net = crate::nnue::Network::default_net();
            Ok(Box::new(move |pos: &Chess| {
                let v = net.evaluate_board(pos.board(), pos.turn());
                if pos.turn() == Color::White { v } else { -v }
            }))
        }
        other => Err(ApiError::bad(format!(
            "unknown evaluation '{other}' ({})",
            EVALS.join(", ")
        ))),
    }
}

/// `pos` without the piece on `sq`, if that is a legal position (castling rights and an en
/// passant square the removal spoils are dropped).
pub fn without(pos: &Chess, sq: Square) -> Option<Chess> {
    let mut setup = pos.to_setup(EnPassantMode::Legal);
    setup.board.remove_piece_at(sq)?;
    Chess::from_setup(setup, CastlingMode::Standard)
        .or_else(PositionError::ignore_invalid_castling_rights)
        .or_else(PositionError::ignore_invalid_ep_square)
        .or_else(PositionError::ignore_impossible_check)
        .ok()
}

/// What one piece is worth to a scoring function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Share {
    /// The score with the piece minus the score without it.
    Value(i32),
    /// Kings are not removed.
    King,
    /// The position without the piece is illegal.
    Illegal,
}

/// Each piece's contribution to `score` (White's point of view): the score with the piece minus
/// the score without it, square by square in board order.
pub fn contributions(pos: &Chess, score: impl Fn(&Chess) -> i32) -> Vec<(Square, Piece, Share)> {
    let full = score(pos);
    pos.board()
        .iter()
        .map(|(sq, piece)| {
            let share = if piece.role == shakmaty::Role::King {
                Share::King
            } else {
                match without(pos, sq) {
                    Some(p) => Share::Value(full - score(&p)),
                    None => Share::Illegal,
                }
            };
            (sq, piece, share)
        })
        .collect()
}

/// A (middlegame, endgame) pair blended by `phase` (0 endgame ... 24 middlegame).
fn taper(s: S, phase: i32) -> i32 {
    let phase = phase.clamp(0, PHASE_MAX);
    (s.0 * phase + s.1 * (PHASE_MAX - phase)) / PHASE_MAX
}

fn phase_of(pos: &Chess) -> i32 {
    hce::psq_full(pos.board()).1
}

/// The hand-crafted terms that belong to squares, tapered, White's point of view.
fn terms(pos: &Chess) -> Vec<(&'static str, i32)> {
    let mut parts = Parts::default();
    hce::evaluate_board(pos.board(), pos.turn(), &mut parts);
    let phase = phase_of(pos);
    parts
        .0
        .iter()
        .filter(|(name, _)| !matches!(*name, "material and tables" | "tempo"))
        .map(|&(name, s)| (name, taper(s, phase)))
        .collect()
}

fn piece_char(p: Piece) -> String {
    p.char().to_string()
}

/// The heatmap of `game`'s position for the evaluation `eval`.
pub fn heatmap(game: &Game, eval: &str) -> ApiResult {
    let score = scorer(eval)?;
    let pos = game.position();
    let phase = phase_of(pos);
    let full_terms = terms(pos);
    let shares = contributions(pos, &score);
    let mut squares = Vec::new();
    for (sq, piece, share) in shares {
        let r = piece.role as usize - 1;
        let sign = if piece.color == Color::White { 1 } else { -1 };
        let material = taper(S(pesto::MG_VALUE[r], pesto::EG_VALUE[r]) * sign, phase);
        let psq = taper(hce::psq(piece, sq), phase);
        let mut values = Map::new();
        values.insert("table".into(), json!(psq - material));
        values.insert("psq".into(), json!(psq));
        let removed = match share {
            Share::Value(_) => without(pos, sq),
            _ => None,
        };
        values.insert(
            "contribution".into(),
            match share {
                Share::Value(v) => json!(v),
                _ => Value::Null,
            },
        );
        let after = removed.as_ref().map(terms);
        for (name, v) in &full_terms {
            let share = after
                .as_ref()
                .map(|t| v - t.iter().find(|(n, _)| n == name).map_or(0, |&(_, x)| x));
            values.insert(format!("term:{name}"), json!(share));
        }
        squares.push(json!({
            "square": sq.to_string(),
            "piece": piece_char(piece),
            "values": values,
            "skipped": match share {
                Share::Value(_) => Value::Null,
                Share::King => json!("kings are not removed"),
                Share::Illegal => json!("the position without this piece is illegal"),
            },
        }));
    }
    let mut layers = vec![
        json!({ "id": "table", "name": "piece-square table", "about": "each piece's table value, without its material, blended by the game phase" }),
        json!({ "id": "psq", "name": "material and table", "about": "each piece's material and table value, blended by the game phase" }),
        json!({ "id": "contribution", "name": format!("contribution to the evaluation ({eval})"), "about": "the evaluation with the piece minus the evaluation without it; kings are not removed, removals that leave an illegal position are skipped" }),
    ];
    for (name, _) in &full_terms {
        layers.push(json!({
            "id": format!("term:{name}"),
            "name": format!("term: {name}"),
            "about": format!("the {name} term with the piece minus without it"),
        }));
    }
    Ok(json!({
        "fen": game.fen(),
        "eval": eval,
        "evals": EVALS,
        "value": score(pos),
        "phase": phase,
        "layers": layers,
        "terms": full_terms.iter().map(|(n, v)| json!({ "name": n, "value": v })).collect::<Vec<_>>(),
        "squares": squares,
    }))
}

/// `POST /api/eval`: the hand-crafted evaluation term by term, and the built-in net's score
/// beside it (a net has no terms to show).
pub fn eval(at: &At) -> ApiResult {
    use crate::eval::hce::{Parts, evaluate_board};
    let game = at.game()?;
    let pos = game.position();
    let mut parts = Parts::default();
    let v = evaluate_board(pos.board(), pos.turn(), &mut parts);
    let white_view = |v: i32| if pos.turn() == Color::White { v } else { -v };
    let net = crate::nnue::Network::default_net();
    let nv = net.evaluate_board(pos.board(), pos.turn());
    Ok(json!({
        "fen": game.fen(),
        "value": v,
        "white": white_view(v),
        "terms": parts.0.iter().map(|(n, s)| json!({ "name": n, "mg": s.0, "eg": s.1 })).collect::<Vec<_>>(),
        "net": { "value": nv, "white": white_view(nv), "architecture": net.architecture() },
    }))
}

pub async fn eval_handler(body: Bytes) -> Response {
    reply(parse_body::<At>(&body).and_then(|at| eval(&at)))
}

pub async fn handler(State(lab): State<Arc<Lab>>, body: Bytes) -> Response {
    let result = async {
        let req: HeatmapRequest = parse_body(&body)?;
        let eval = req.eval.clone().unwrap_or_else(|| "hce".into());
        // Checked before the slot is taken, so a wrong name is a quick 400.
        scorer(&eval).map(drop)?;
        let game = req.game()?;
        blocking(&lab, move || heatmap(&game, &eval)).await
    }
    .await;
    reply(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contributions_remove_each_piece_but_the_kings() {
        // Material only: each piece is worth its value, with its sign.
        let pos = crate::core::game::parse_fen("4k3/8/8/8/8/8/3PN3/4K3 w - - 0 1").unwrap();
        let shares = contributions(&pos, |p| crate::eval::material::evaluate(p.board()));
        let find = |s: &str| {
            shares
                .iter()
                .find(|(sq, _, _)| sq.to_string() == s)
                .unwrap()
                .2
        };
        assert_eq!(find("d2"), Share::Value(100));
        assert_eq!(find("e2"), Share::Value(300));
        assert_eq!(find("e1"), Share::King);
        assert_eq!(find("e8"), Share::King);
    }

    #[test]
    fn a_removal_that_leaves_the_other_side_in_check_is_skipped() {
        // White to move; the knight on e4 blocks the rook's check on Black's king: without it,
        // Black would be in check with White to move.
        let pos = crate::core::game::parse_fen("4k3/8/8/8/4N3/8/8/K3R3 w - - 0 1").unwrap();
        let shares = contributions(&pos, hce_white);
        let knight = shares.iter().find(|(sq, _, _)| *sq == Square::E4).unwrap();
        assert_eq!(knight.2, Share::Illegal);
        let rook = shares.iter().find(|(sq, _, _)| *sq == Square::E1).unwrap();
        assert!(matches!(rook.2, Share::Value(v) if v > 300), "{:?}", rook.2);
    }

    #[test]
    fn the_heatmap_has_every_piece_and_layer() {
        let game =
            Game::from_fen("r1bqrnk1/pp2bppp/2p2n2/3p2B1/3P4/2NBPN2/PPQ2PPP/R4RK1 w - - 7 11")
                .unwrap();
        let v = heatmap(&game, "hce").unwrap();
        let squares = v["squares"].as_array().unwrap();
        assert_eq!(squares.len(), 30);
        assert_eq!(v["value"], hce_white(game.position()));
        let layers: Vec<&str> = v["layers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["id"].as_str().unwrap())
            .collect();
        assert!(layers.contains(&"term:mobility") && layers.contains(&"contribution"));
        // The white queen on c2: material and table near a queen's worth, positive for White;
        // the black queen on d8 the same for Black.
        let at = |s: &str| squares.iter().find(|q| q["square"] == s).unwrap();
        assert!(at("c2")["values"]["psq"].as_i64().unwrap() > 900);
        assert!(at("d8")["values"]["psq"].as_i64().unwrap() < -900);
        assert!(at("c2")["values"]["contribution"].as_i64().unwrap() > 500);
        assert!(at("g1")["values"]["contribution"].is_null());
        assert_eq!(at("g1")["skipped"], "kings are not removed");
        assert!(at("c3")["values"]["term:mobility"].as_i64().is_some());
        assert!(
            heatmap(&game, "nnue")
                .unwrap_err()
                .message
                .contains("unknown evaluation")
        );
        // The net's contributions: a queen is worth a lot to it too, and the total is its score.
        let v = heatmap(&game, "net").unwrap();
        let squares = v["squares"].as_array().unwrap();
        let at = |s: &str| squares.iter().find(|q| q["square"] == s).unwrap();
        assert!(at("c2")["values"]["contribution"].as_i64().unwrap() > 300);
        assert!(at("d8")["values"]["contribution"].as_i64().unwrap() < -300);
        let net = crate::nnue::Network::default_net();
        let pos = game.position();
        assert_eq!(v["value"], net.evaluate_board(pos.board(), pos.turn()));
    }
}
