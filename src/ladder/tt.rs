//! Rung 9, `tt`: remember what was found. A transposition table, indexed by the position's
//! Zobrist hash, stores each searched position's value, how deep it was searched, whether the
//! value is exact or only a bound (it caused a cut-off, or nothing beat alpha), and its best move.
//! A position met again, by another move order or in the next iteration, is answered from the
//! table when the stored search was deep enough, and otherwise its stored best move is tried
//! first. Replacement is depth-preferred: a deeper entry is kept over a shallower one.

use shakmaty::{Chess, Move, MoveList};

use crate::core::Bound;
use crate::core::pv::MAX_PLY;
use crate::core::score::{INFINITY, from_table, to_table};
use crate::core::{Game, Limits};
use crate::engine::{Analysis, Engine, Reporter, ScoredMove};
use crate::ladder::iterative::deepen;
use crate::ladder::negamax::material_stm;
use crate::ladder::{Ctx, Node, search_root};

/// Entries in the table (a power of two): 2^20 entries of 24 bytes, 24 MB.
const TABLE_ENTRIES: usize = 1 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub key: u64,
    pub best: Option<Move>,
    /// Relative to the node (mate scores adjusted by ply), see `score::to_table`.
    pub value: i32,
    pub depth: u8,
    pub bound: Bound,
    /// Which search stored it: entries of older searches are replaced first.
    pub generation: u8,
}

pub struct Table {
    slots: Vec<Option<Entry>>,
    generation: u8,
}

impl Table {
    pub fn new(entries: usize) -> Table {
        Table {
            slots: vec![None; entries.next_power_of_two()],
            generation: 0,
        }
    }

    fn index(&self, key: u64) -> usize {
        (key as usize) & (self.slots.len() - 1)
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.slots[self.index(key)].filter(|e| e.key == key)
    }

    /// Depth-preferred: an entry of this search is replaced only by one searched at least as deep.
    pub fn store(&mut self, mut entry: Entry) {
        entry.generation = self.generation;
        let i = self.index(entry.key);
        let replace = match self.slots[i] {
            None => true,
            Some(old) => old.generation != self.generation || entry.depth >= old.depth,
        };
        if replace {
            self.slots[i] = Some(entry);
        }
    }

    /// A new search begins: what earlier searches stored may now be overwritten.
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = None);
    }
}

/// What a search does at its horizon (depth 0): the `tt` rung counts material; the next rung
/// searches captures first.
pub trait Leaf: Send {
    /// The value of `pos` for the side to move; `moves` are its legal moves.
    fn value(
        &self,
        pos: &Chess,
        moves: &MoveList,
        alpha: i32,
        beta: i32,
        ply: u32,
        ctx: &mut Ctx,
    ) -> i32;
}

/// Material count at the horizon.
pub struct MaterialLeaf;

impl Leaf for MaterialLeaf {
    fn value(&self, pos: &Chess, _: &MoveList, _: i32, _: i32, _: u32, _: &mut Ctx) -> i32 {
        material_stm(pos)
    }
}

/// Negamax with a transposition table, inside iterative deepening, with `L` at the horizon.
pub struct TtSearch<L: Leaf> {
    name: &'static str,
    pub table: Table,
    pub leaf: L,
}

impl<L: Leaf> TtSearch<L> {
    /// A rung called `name` with `leaf` at its horizon.
    pub fn with_leaf(name: &'static str, leaf: L) -> TtSearch<L> {
        TtSearch {
            name,
            table: Table::new(TABLE_ENTRIES),
            leaf,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn node(
        &mut self,
        pos: &Chess,
        depth: u32,
        ply: u32,
        mut alpha: i32,
        beta: i32,
        ctx: &mut Ctx,
    ) -> i32 {
        if ctx.stop() {
            return 0;
        }
        let moves = match ctx.visit(pos, ply) {
            Node::Over(v) => return v,
            Node::Moves(moves) => moves,
        };
        if depth == 0 || ply as usize >= MAX_PLY / 2 {
            return self.leaf.value(pos, &moves, alpha, beta, ply, ctx);
        }
        let key = ctx.current_hash();
        let mut hash_move = None;
        if let Some(e) = self.table.probe(key) {
            hash_move = e.best.filter(|m| moves.contains(m));
            if u32::from(e.depth) >= depth {
                let v = from_table(e.value, ply);
                let usable = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => v >= beta,
                    Bound::Upper => v <= alpha,
                };
                if usable {
                    return v;
                }
            }
        }
        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move = None;
        // The stored best move first, then the rest in generation order.
        let ordered = hash_move
            .into_iter()
            .chain(moves.iter().copied().filter(|&m| Some(m) != hash_move));
        for m in ordered {
            let child = ctx.play(pos, m);
            let v = -self.node(&child, depth - 1, ply + 1, -beta, -alpha, ctx);
            ctx.back();
            if ctx.stopper.stopped() {
                return 0;
            }
            if v > best {
                best = v;
                best_move = Some(m);
                ctx.pv.update(ply, m);
            }
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        let bound = Bound::from_window(best, original_alpha, beta);
        self.table.store(Entry {
            key,
            best: best_move,
            value: to_table(best, ply),
            depth: depth.min(255) as u8,
            bound,
            generation: 0,
        });
        best
    }

    /// The root, through the shared loop, with the table search below it.
    fn root(
        &mut self,
        ctx: &mut Ctx,
        pos: &Chess,
        moves: &[Move],
        depth: u32,
        all: bool,
    ) -> Option<Vec<ScoredMove>> {
        search_root(ctx, pos, moves, all, |ctx, _, child, alpha| {
            -self.node(child, depth - 1, 1, -INFINITY, -alpha, ctx)
        })
    }
}

impl<L: Leaf> Engine for TtSearch<L> {
    fn name(&self) -> &'static str {
        self.name
    }

    /// Iterative deepening over the table search, reporting each iteration.
    fn search(&mut self, game: &Game, limits: &Limits, report: Reporter<'_>) -> Analysis {
        self.table.new_search();
        let all = limits.score_all_moves;
        deepen(game, limits, report, |ctx, pos, moves, depth| {
            self.root(ctx, pos, moves, depth, all)
        })
    }

    fn new_game(&mut self) {
        self.table.clear();
    }

    fn default_limits(&self) -> Limits {
        Limits::movetime_ms(1000)
    }
}

/// The `tt` rung: the table search counting material at the horizon.
pub fn engine() -> TtSearch<MaterialLeaf> {
    TtSearch::with_leaf("tt", MaterialLeaf)
}
