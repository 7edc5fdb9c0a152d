//! The evaluation as a sum over its parameters, for tuning: a trace of one position records how
//! often each parameter counts (White's minus Black's), the parts no parameter scales (material
//! values), the non-linear king danger (its exact value, and its derivative for the tuner), and
//! the taper. `Coefficients::rebuild` computes the evaluation back from them, exactly.
//!
//! The parameters as one vector (`current`, `param::COUNT` pairs) and back (`apply`), and the
//! Rust source of `tuned.rs` (`rust_source`).

use std::fmt::Write as _;

use shakmaty::{Board, Color};

use super::hce::{EvalTrace, PHASE_MAX, PawnTable, S, Terms, evaluate, param, psq_full};
use super::tuned;

/// One position's trace.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Coefficients {
    /// (parameter, count), each parameter once, no zero counts.
    pub counts: Vec<(u16, i32)>,
    /// Parts no parameter scales, White's view.
    pub fixed: S,
    /// Non-linear parts: parameter, exact value (White's view), derivative (mg, eg).
    pub nonlinear: Vec<(u16, S, (f64, f64))>,
    pub phase: i32,
    /// Endgame scale, 64ths.
    pub scale: i32,
}

impl EvalTrace for Coefficients {
    const COUNTS: bool = true;
    fn count(&mut self, p: usize, n: i32) {
        if n != 0 {
            self.counts.push((p as u16, n));
        }
    }
    fn fixed(&mut self, white: S) {
        self.fixed += white;
    }
    fn nonlinear(&mut self, p: usize, white: S, derivative: (f64, f64)) {
        self.nonlinear.push((p as u16, white, derivative));
    }
    fn taper(&mut self, phase: i32, scale: i32) {
        self.phase = phase;
        self.scale = scale;
    }
}

impl Coefficients {
    /// The trace of `board` with `turn` to move, and the evaluation (side to move's view).
    pub fn of(board: &Board, turn: Color) -> (Coefficients, i32) {
        let mut c = Coefficients::default();
        let (psq, phase) = psq_full(board);
        let v = evaluate(board, turn, psq, phase, &mut PawnTable::new(16), &mut c);
        c.counts.sort_unstable_by_key(|&(p, _)| p);
        let mut merged: Vec<(u16, i32)> = Vec::with_capacity(c.counts.len());
        for &(p, n) in &c.counts {
            match merged.last_mut() {
                Some(last) if last.0 == p => last.1 += n,
                _ => merged.push((p, n)),
            }
        }
        merged.retain(|&(_, n)| n != 0);
        c.counts = merged;
        (c, v)
    }

    /// The evaluation rebuilt from the trace with `params` (White's view), in the evaluation's own
    /// integer arithmetic: equal to `evaluate` when `params` are the values it ran with.
    pub fn rebuild(&self, params: &[S]) -> i32 {
        let mut total = self.fixed;
        for &(p, n) in &self.counts {
            total += params[p as usize] * n;
        }
        for &(_, v, _) in &self.nonlinear {
            total += v;
        }
        let eg = total.1 * self.scale / 64;
        (total.0 * self.phase + eg * (PHASE_MAX - self.phase)) / PHASE_MAX
    }
}

/// The parameters in force, as one vector.
pub fn current() -> Vec<S> {
    vector(&tuned::TERMS, &tuned::MG_TABLE, &tuned::EG_TABLE)
}

/// `terms` and the tables as one vector.
pub fn vector(terms: &Terms, mg: &[[i32; 64]; 6], eg: &[[i32; 64]; 6]) -> Vec<S> {
    let mut v = vec![S::default(); param::COUNT];
    let t = terms;
    v[param::MOBILITY..param::MOBILITY + 4].copy_from_slice(&t.mobility);
    v[param::PASSED..param::PASSED + 8].copy_from_slice(&t.passed);
    v[param::PASSED_FREE..param::PASSED_FREE + 8].copy_from_slice(&t.passed_free);
    v[param::PASSED_KING_DISTANCE..param::PASSED_KING_DISTANCE + 8]
        .copy_from_slice(&t.passed_king_distance);
    v[param::ISOLATED] = t.isolated;
    v[param::DOUBLED] = t.doubled;
    v[param::BACKWARD] = t.backward;
    v[param::CONNECTED..param::CONNECTED + 8].copy_from_slice(&t.connected);
    v[param::KING_DANGER] = t.king_danger;
    v[param::SHIELD_NEAR] = t.shield_near;
    v[param::SHIELD_FAR] = t.shield_far;
    v[param::SHIELD_MISSING] = t.shield_missing;
    v[param::STORM] = t.storm;
    v[param::BISHOP_PAIR] = t.bishop_pair;
    v[param::ROOK_OPEN] = t.rook_open;
    v[param::ROOK_HALF_OPEN] = t.rook_half_open;
    v[param::QUEEN_OPEN] = t.queen_open;
    v[param::QUEEN_HALF_OPEN] = t.queen_half_open;
    v[param::THREAT_BY_PAWN] = t.threat_by_pawn;
    v[param::THREAT_BY_MINOR] = t.threat_by_minor;
    v[param::THREAT_BY_ROOK] = t.threat_by_rook;
    v[param::HANGING] = t.hanging;
    v[param::TEMPO] = t.tempo;
    for r in 0..6 {
        for sq in 0..64 {
            v[param::PSQ + r * 64 + sq] = S(mg[r][sq], eg[r][sq]);
        }
    }
    v
}

/// The terms and tables a vector holds (the terms not tuned, such as `mobility_base` and
/// `king_attack_weight`, from the terms in force).
pub fn apply(v: &[S]) -> (Terms, [[i32; 64]; 6], [[i32; 64]; 6]) {
    let mut t = tuned::TERMS.clone();
    t.mobility
        .copy_from_slice(&v[param::MOBILITY..param::MOBILITY + 4]);
    t.passed
        .copy_from_slice(&v[param::PASSED..param::PASSED + 8]);
    t.passed_free
        .copy_from_slice(&v[param::PASSED_FREE..param::PASSED_FREE + 8]);
    t.passed_king_distance
        .copy_from_slice(&v[param::PASSED_KING_DISTANCE..param::PASSED_KING_DISTANCE + 8]);
    t.isolated = v[param::ISOLATED];
    t.doubled = v[param::DOUBLED];
    t.backward = v[param::BACKWARD];
    t.connected
        .copy_from_slice(&v[param::CONNECTED..param::CONNECTED + 8]);
    t.king_danger = v[param::KING_DANGER];
    t.shield_near = v[param::SHIELD_NEAR];
    t.shield_far = v[param::SHIELD_FAR];
    t.shield_missing = v[param::SHIELD_MISSING];
    t.storm = v[param::STORM];
    t.bishop_pair = v[param::BISHOP_PAIR];
    t.rook_open = v[param::ROOK_OPEN];
    t.rook_half_open = v[param::ROOK_HALF_OPEN];
    t.queen_open = v[param::QUEEN_OPEN];
    t.queen_half_open = v[param::QUEEN_HALF_OPEN];
    t.threat_by_pawn = v[param::THREAT_BY_PAWN];
    t.threat_by_minor = v[param::THREAT_BY_MINOR];
    t.threat_by_rook = v[param::THREAT_BY_ROOK];
    t.hanging = v[param::HANGING];
    t.tempo = v[param::TEMPO];
    let mut mg = [[0; 64]; 6];
    let mut eg = [[0; 64]; 6];
    for r in 0..6 {
        for sq in 0..64 {
            let s = v[param::PSQ + r * 64 + sq];
            mg[r][sq] = s.0;
            eg[r][sq] = s.1;
        }
    }
    (t, mg, eg)
}

fn pairs(list: &[S]) -> String {
    let items: Vec<String> = list
        .iter()
        .map(|s| format!("S({}, {})", s.0, s.1))
        .collect();
    format!("[{}]", items.join(", "))
}

fn table(out: &mut String, name: &str, t: &[[i32; 64]; 6]) {
    let _ = writeln!(
        out,
        "#[rustfmt::skip]\npub const {name}: [[i32; 64]; 6] = ["
    );
    for (r, piece) in ["pawn", "knight", "bishop", "rook", "queen", "king"]
        .iter()
        .enumerate()
    {
        let _ = writeln!(out, "    [ // {piece}");
        for row in t[r].chunks(8) {
            let cells: Vec<String> = row.iter().map(|v| format!("{v:4}")).collect();
            let _ = writeln!(out, "        {},", cells.join(","));
        }
        let _ = writeln!(out, "    ],");
    }
    let _ = writeln!(out, "];");
}

/// `tuned.rs` for the parameters `v`, with `note` (how they were made) in its header.
pub fn rust_source(v: &[S], note: &str) -> String {
    let (t, mg, eg) = apply(v);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "//! The evaluation's values in force, written by `rookery tune` (docs/training.md): every term of\n\
         //! `hce::Terms` and the piece-square tables (the material values stay PeSTO's, in `pesto.rs`).\n//!"
    );
    for line in note.lines() {
        let _ = writeln!(out, "//! {line}");
    }
    let _ = writeln!(out, "\nuse super::terms::{{S, Terms}};\n");
    let _ = writeln!(out, "#[rustfmt::skip]\npub const TERMS: Terms = Terms {{");
    let _ = writeln!(out, "    mobility: {},", pairs(&t.mobility));
    let _ = writeln!(out, "    mobility_base: {:?},", t.mobility_base);
    let _ = writeln!(out, "    passed: {},", pairs(&t.passed));
    let _ = writeln!(out, "    passed_free: {},", pairs(&t.passed_free));
    let _ = writeln!(
        out,
        "    passed_king_distance: {},",
        pairs(&t.passed_king_distance)
    );
    for (name, s) in [
        ("isolated", t.isolated),
        ("doubled", t.doubled),
        ("backward", t.backward),
    ] {
        let _ = writeln!(out, "    {name}: S({}, {}),", s.0, s.1);
    }
    let _ = writeln!(out, "    connected: {},", pairs(&t.connected));
    let _ = writeln!(out, "    king_attack_weight: {:?},", t.king_attack_weight);
    let _ = writeln!(
        out,
        "    king_danger: S({}, {}),",
        t.king_danger.0, t.king_danger.1
    );
    let _ = writeln!(
        out,
        "    king_danger_cap: S({}, {}),",
        t.king_danger_cap.0, t.king_danger_cap.1
    );
    for (name, s) in [
        ("shield_near", t.shield_near),
        ("shield_far", t.shield_far),
        ("shield_missing", t.shield_missing),
        ("storm", t.storm),
        ("bishop_pair", t.bishop_pair),
        ("rook_open", t.rook_open),
        ("rook_half_open", t.rook_half_open),
        ("queen_open", t.queen_open),
        ("queen_half_open", t.queen_half_open),
        ("threat_by_pawn", t.threat_by_pawn),
        ("threat_by_minor", t.threat_by_minor),
        ("threat_by_rook", t.threat_by_rook),
        ("hanging", t.hanging),
        ("tempo", t.tempo),
    ] {
        let _ = writeln!(out, "    {name}: S({}, {}),", s.0, s.1);
    }
    for (name, v) in [
        ("scale_bare_minor", t.scale_bare_minor),
        ("scale_minor_ahead", t.scale_minor_ahead),
        ("scale_opposite_bishops", t.scale_opposite_bishops),
    ] {
        let _ = writeln!(out, "    {name}: {v},");
    }
    let _ = writeln!(out, "}};\n");
    table(&mut out, "MG_TABLE", &mg);
    out.push('\n');
    table(&mut out, "EG_TABLE", &eg);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Rng;
    use shakmaty::{Chess, Position};

    /// Positions from random games: every kind of material, pawn structure and king position.
    fn positions(n: usize) -> Vec<Chess> {
        let mut rng = Rng::new(11);
        let mut out = Vec::new();
        while out.len() < n {
            rng.playout(200, |_, pos| out.push(pos.clone()));
        }
        out.truncate(n);
        out
    }

    #[test]
    fn the_trace_rebuilds_the_evaluation_exactly() {
        let params = current();
        for pos in positions(4_000) {
            let (c, v) = Coefficients::of(pos.board(), pos.turn());
            let white = c.rebuild(&params);
            let stm = if pos.turn() == Color::White {
                white
            } else {
                -white
            };
            assert_eq!(stm, v, "{}", crate::core::game::fen_of(&pos));
        }
    }

    #[test]
    fn parameters_round_trip() {
        let v = current();
        let (t, mg, eg) = apply(&v);
        assert_eq!(vector(&t, &mg, &eg), v);
        let source = rust_source(&v, "test");
        assert!(source.contains("pub const TERMS: Terms") && source.contains("EG_TABLE"));
    }
}
