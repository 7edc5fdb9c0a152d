//! A mate solver for chess problems: no evaluation, only checkmate. It proves (or refutes) a
//! forced mate in N moves by trying every attacking move against every defence, as the
//! tutorial's alpha-beta did in its problem mode. Checks are tried first, then captures, which
//! finds most keys early; the proof itself is exhaustive.

use shakmaty::{Chess, Move, Position};

/// What the solver found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// Moves to mate (the shortest forced mate).
    pub moves: u32,
    /// The key move, then the longest defence and the attack's answers, ending in mate.
    pub line: Vec<Move>,
}

/// A solver that counts the positions it visits.
#[derive(Default)]
pub struct Solver {
    pub nodes: u64,
}

impl Solver {
    /// The shortest forced mate of the side to move within `max_moves`, or `None`.
    pub fn solve(&mut self, pos: &Chess, max_moves: u32) -> Option<Solution> {
        (1..=max_moves).find_map(|n| {
            let key = self.attack(pos, n)?;
            let mut line = vec![key];
            self.extend_line(pos, key, n, &mut line);
            Some(Solution { moves: n, line })
        })
    }

    /// A move that forces mate in `n`, if one exists.
    fn attack(&mut self, pos: &Chess, n: u32) -> Option<Move> {
        for m in ordered(pos) {
            self.nodes += 1;
            let mut after = pos.clone();
            after.play_unchecked(m);
            if after.is_checkmate() {
                return Some(m);
            }
            if n > 1 && self.every_defence_loses(&after, n - 1) {
                return Some(m);
            }
        }
        None
    }

    /// True if every reply (and there is one: stalemate is no mate) allows mate in `n`.
    fn every_defence_loses(&mut self, pos: &Chess, n: u32) -> bool {
        let replies = pos.legal_moves();
        if replies.is_empty() {
            return false;
        }
        replies.iter().all(|&r| {
            self.nodes += 1;
            let mut after = pos.clone();
            after.play_unchecked(r);
            self.attack(&after, n).is_some()
        })
    }

    /// After the attacker's `m` (which mates in `n`), appends the defence that lasts longest and
    /// the attacker's quickest answer, down to the mate.
    fn extend_line(&mut self, pos: &Chess, m: Move, n: u32, line: &mut Vec<Move>) {
        let mut after = pos.clone();
        after.play_unchecked(m);
        if after.is_checkmate() || n <= 1 {
            return;
        }
        // The defence after which the mate takes longest.
        let mut best: Option<(u32, Move, Move)> = None;
        for &r in &after.legal_moves() {
            let mut next = after.clone();
            next.play_unchecked(r);
            if let Some((k, answer)) = (1..n).find_map(|k| self.attack(&next, k).map(|a| (k, a)))
                && best.is_none_or(|(bk, _, _)| k > bk)
            {
                best = Some((k, r, answer));
            }
        }
        if let Some((k, r, answer)) = best {
            line.push(r);
            line.push(answer);
            let mut next = after.clone();
            next.play_unchecked(r);
            self.extend_line(&next, answer, k, line);
        }
    }
}

/// Legal moves, checks first, then captures and promotions, then the rest.
fn ordered(pos: &Chess) -> Vec<Move> {
    let mut moves: Vec<(u8, Move)> = pos
        .legal_moves()
        .into_iter()
        .map(|m| {
            let mut after = pos.clone();
            after.play_unchecked(m);
            let rank = if after.is_check() {
                0
            } else if m.is_capture() || m.is_promotion() {
                1
            } else {
                2
            };
            (rank, m)
        })
        .collect();
    moves.sort_by_key(|&(r, _)| r);
    moves.into_iter().map(|(_, m)| m).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::game::{parse_fen, uci};

    #[test]
    fn proves_mates_and_their_absence() {
        let mut s = Solver::default();
        let pos = parse_fen("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1").unwrap();
        let sol = s.solve(&pos, 3).unwrap();
        assert_eq!((sol.moves, uci(sol.line[0])), (1, "d1d8".to_string()));
        // The initial position has no mate in two.
        assert_eq!(s.solve(&Chess::default(), 2), None);
        assert!(s.nodes > 400);
    }
}
