//! The strong engine's static evaluation is symmetric: a position and its colour-flipped mirror
//! (board flipped top to bottom, colours swapped, the other side to move) score the same for the
//! side to move.

use rookery::core::game::parse_fen;
use rookery::eval::hce::{NoEvalTrace, Parts, evaluate_board};
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

fn mirrored(pos: &Chess) -> Chess {
    let setup = pos.to_setup(EnPassantMode::Legal).into_mirrored();
    match setup.position::<Chess>(CastlingMode::Chess960) {
        Ok(p) => p,
        Err(e) => e
            .ignore_impossible_check()
            .expect("the mirror of a legal position is legal"),
    }
}

fn suite_fens(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split(';').next().unwrap().trim().to_string())
        .collect()
}

#[test]
fn evaluation_is_colour_symmetric() {
    let mut fens = suite_fens(include_str!("data/standard.epd"));
    fens.extend(suite_fens(include_str!("data/cpw.epd")));
    fens.extend(
        suite_fens(include_str!("data/fischer.epd"))
            .into_iter()
            .take(150),
    );
    // Positions from real play: the first moves of every perft position's legal replies.
    let mut positions: Vec<Chess> = fens.iter().map(|f| parse_fen(f).unwrap()).collect();
    let children: Vec<Chess> = positions
        .iter()
        .take(60)
        .flat_map(|p| {
            p.legal_moves().into_iter().take(3).map(move |m| {
                let mut c = p.clone();
                c.play_unchecked(m);
                c
            })
        })
        .collect();
    positions.extend(children);
    assert!(positions.len() >= 300, "{}", positions.len());
    let mut nonzero = 0;
    for pos in &positions {
        let flip = mirrored(pos);
        let a = evaluate_board(pos.board(), pos.turn(), &mut NoEvalTrace);
        let b = evaluate_board(flip.board(), flip.turn(), &mut NoEvalTrace);
        assert_eq!(a, b, "{}", rookery::core::game::fen_of(pos));
        nonzero += usize::from(a != 0);
    }
    assert!(
        nonzero > positions.len() / 2,
        "the evaluation says something"
    );
}

#[test]
fn parts_add_up_and_material_dominates() {
    // A queen up is worth more than everything else together.
    let pos = parse_fen("4k3/8/8/8/8/8/8/3QK3 w - - 0 1").unwrap();
    let v = evaluate_board(pos.board(), pos.turn(), &mut NoEvalTrace);
    assert!(v > 800, "{v}");
    let mut parts = Parts::default();
    let traced = evaluate_board(pos.board(), pos.turn(), &mut parts);
    assert_eq!(v, traced, "tracing does not change the result");
    assert!(parts.0.iter().any(|(n, _)| *n == "material and tables"));
    // Bare kings and king-and-minor endings are scaled to (almost) nothing.
    let pos = parse_fen("4k3/8/8/8/8/8/8/3NK3 w - - 0 1").unwrap();
    assert!(evaluate_board(pos.board(), pos.turn(), &mut NoEvalTrace).abs() < 30);
}
