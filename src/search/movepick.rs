//! Move ordering. shakmaty generates all legal moves at once, so the stages of a classical
//! picker (hash move, good captures by SEE and MVV-LVA, killers, counter move, quiets by history,
//! bad captures) become score bands, and `next` hands out the best remaining move (selection sort:
//! a cut-off usually comes early, so sorting the rest would be wasted).

use shakmaty::{Color, Move, MoveList, Role, Square};

use super::board::SearchBoard;
use super::see::{see, see_value};
use crate::core::moves::mvv_lva;

/// History scores live in -HISTORY_MAX..=HISTORY_MAX.
pub const HISTORY_MAX: i32 = 16_384;

/// Quiet-move statistics of one search thread.
pub struct Histories {
    /// Butterfly history: [side][from][to].
    pub butterfly: Box<[[[i32; 64]; 64]; 2]>,
    /// Killer moves per ply.
    pub killers: Vec<[Option<Move>; 2]>,
    /// The quiet move that refuted a move, by the refuted move's [side][piece][to].
    pub counter: Box<[[[Option<Move>; 64]; 7]; 2]>,
}

impl Histories {
    pub fn new(max_ply: usize) -> Histories {
        Histories {
            butterfly: Box::new([[[0; 64]; 64]; 2]),
            killers: vec![[None; 2]; max_ply + 2],
            counter: Box::new([[[None; 64]; 7]; 2]),
        }
    }

    pub fn clear(&mut self) {
        *self.butterfly = [[[0; 64]; 64]; 2];
        self.killers.iter_mut().for_each(|k| *k = [None; 2]);
        *self.counter = [[[None; 64]; 7]; 2];
    }

    pub fn quiet_score(&self, side: Color, m: Move) -> i32 {
        let (from, to) = from_to(m);
        self.butterfly[side as usize][from as usize][to as usize]
    }

    /// Moves the history toward `bonus` (positive or negative), saturating at HISTORY_MAX.
    pub fn update_quiet(&mut self, side: Color, m: Move, bonus: i32) {
        let (from, to) = from_to(m);
        let h = &mut self.butterfly[side as usize][from as usize][to as usize];
        *h += bonus - *h * bonus.abs() / HISTORY_MAX;
    }

    pub fn add_killer(&mut self, ply: usize, m: Move) {
        let k = &mut self.killers[ply];
        if k[0] != Some(m) {
            k[1] = k[0];
            k[0] = Some(m);
        }
    }

    pub fn counter_move(&self, side: Color, previous: Option<Move>) -> Option<Move> {
        previous.map(|p| self.counter[side as usize][p.role() as usize][p.to() as usize])?
    }

    pub fn set_counter(&mut self, side: Color, previous: Option<Move>, m: Move) {
        if let Some(p) = previous {
            self.counter[side as usize][p.role() as usize][p.to() as usize] = Some(m);
        }
    }
}

fn from_to(m: Move) -> (Square, Square) {
    (m.from().unwrap_or(m.to()), m.to())
}

/// True for captures and promotions ("noisy" moves); everything else is quiet.
pub fn is_noisy(m: Move) -> bool {
    m.is_capture() || m.is_promotion()
}

const TT_BAND: i32 = 4_000_000;
const GOOD_NOISY_BAND: i32 = 3_000_000;
const KILLER_BAND: i32 = 2_000_000;
const COUNTER_BAND: i32 = 1_900_000;
const BAD_NOISY_BAND: i32 = -2_000_000;

/// The order of play of a move, for the search's decisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    HashMove,
    GoodNoisy,
    Killer,
    Counter,
    Quiet,
    BadNoisy,
}

pub struct Picker {
    moves: MoveList,
    scores: [i32; 256],
    next: usize,
}

/// Captures by SEE value of the victim, then the cheaper attacker.
#[inline]
fn capture_key(m: Move) -> i32 {
    mvv_lva(m, see_value, |r| see_value(r) / 100)
}

impl Picker {
    /// Orders `moves` for the main search.
    pub fn new(
        b: &SearchBoard,
        moves: MoveList,
        tt_move: Option<Move>,
        killers: [Option<Move>; 2],
        counter: Option<Move>,
        hist: &Histories,
    ) -> Picker {
        let side = b.turn();
        let mut scores = [0; 256];
        for (i, &m) in moves.iter().enumerate() {
            scores[i] = if Some(m) == tt_move {
                TT_BAND
            } else if is_noisy(m) {
                // Under-promotions are rarely good: with the bad captures.
                let under = m.promotion().is_some_and(|p| p != Role::Queen);
                if !under && see(b, m) >= 0 {
                    GOOD_NOISY_BAND + capture_key(m)
                } else {
                    BAD_NOISY_BAND + capture_key(m)
                }
            } else if Some(m) == killers[0] {
                KILLER_BAND + 1
            } else if Some(m) == killers[1] {
                KILLER_BAND
            } else if Some(m) == counter {
                COUNTER_BAND
            } else {
                hist.quiet_score(side, m)
            };
        }
        Picker {
            moves,
            scores,
            next: 0,
        }
    }

    /// Orders captures and promotions for quiescence (most valuable victim first).
    pub fn noisy(moves: MoveList, tt_move: Option<Move>) -> Picker {
        let mut scores = [0; 256];
        for (i, &m) in moves.iter().enumerate() {
            scores[i] = if Some(m) == tt_move {
                TT_BAND
            } else {
                capture_key(m)
            };
        }
        Picker {
            moves,
            scores,
            next: 0,
        }
    }
}

impl Iterator for Picker {
    type Item = (Move, Stage);

    /// The best move not yet handed out, with its stage.
    fn next(&mut self) -> Option<(Move, Stage)> {
        let n = self.moves.len();
        if self.next >= n {
            return None;
        }
        let mut best = self.next;
        for i in self.next + 1..n {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        self.moves.swap(self.next, best);
        self.scores.swap(self.next, best);
        let (m, s) = (self.moves[self.next], self.scores[self.next]);
        self.next += 1;
        let stage = match s {
            s if s >= TT_BAND => Stage::HashMove,
            s if s >= GOOD_NOISY_BAND => Stage::GoodNoisy,
            s if s >= KILLER_BAND => Stage::Killer,
            s if s >= COUNTER_BAND => Stage::Counter,
            s if s > BAD_NOISY_BAND / 2 => Stage::Quiet,
            _ => Stage::BadNoisy,
        };
        Some((m, stage))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::game::{parse_fen, uci};
    use shakmaty::Position;

    #[test]
    fn picker_yields_every_legal_move_once_in_stage_order() {
        let b = SearchBoard::new(
            parse_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
                .unwrap(),
        );
        let moves = b.pos.legal_moves();
        let tt = moves.iter().copied().find(|m| uci(*m) == "a2a3");
        let killer = moves.iter().copied().find(|m| uci(*m) == "g2g3");
        let picker = Picker::new(
            &b,
            moves.clone(),
            tt,
            [killer, None],
            None,
            &Histories::new(8),
        );
        let mut seen = Vec::new();
        let mut stages = Vec::new();
        for (m, s) in picker {
            seen.push(m);
            stages.push(s);
        }
        assert_eq!(seen.len(), moves.len());
        for m in &moves {
            assert_eq!(seen.iter().filter(|x| *x == m).count(), 1);
        }
        assert_eq!(seen[0], tt.unwrap());
        assert_eq!(stages[0], Stage::HashMove);
        // Stages never go back.
        let rank = |s: &Stage| *s as u8;
        assert!(
            stages.windows(2).all(|w| rank(&w[0]) <= rank(&w[1])),
            "{stages:?}"
        );
        assert!(stages.contains(&Stage::GoodNoisy) && stages.contains(&Stage::Killer));
    }

    #[test]
    fn history_saturates() {
        let mut h = Histories::new(4);
        let m = first_move();
        for _ in 0..1000 {
            h.update_quiet(Color::White, m, 1200);
        }
        assert!(h.quiet_score(Color::White, m) <= HISTORY_MAX);
        assert!(h.quiet_score(Color::White, m) > HISTORY_MAX / 2);
    }

    fn first_move() -> Move {
        shakmaty::Chess::default().legal_moves()[0]
    }
}
