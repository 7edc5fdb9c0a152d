//! The search trees of the tutorial's max/min and negamax rungs, counted per depth or recorded
//! node by node: each node with its move, value and alpha-beta window, each move a cut-off skipped
//! with the reason. `rookery tree` prints and draws them; the Python package hands them to
//! notebooks as nested data.

use std::fmt::Write as _;

use clap::ValueEnum;
use shakmaty::{Chess, Color, Move, Position};

use crate::core::game::san_plain;
use crate::core::score::{INFINITY, format_score};
use crate::core::trace::Tracer;
use crate::core::{Game, Limits};
use crate::engine::Analysis;
use crate::error::Error;
use crate::ladder::{alphabeta, minimax, negamax};

/// The rungs whose tree can be shown.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeEngine {
    Minimax,
    Alphabeta,
    Negamax,
}

impl TreeEngine {
    pub const ALL: [TreeEngine; 3] = [
        TreeEngine::Minimax,
        TreeEngine::Alphabeta,
        TreeEngine::Negamax,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TreeEngine::Minimax => "minimax",
            TreeEngine::Alphabeta => "alphabeta",
            TreeEngine::Negamax => "negamax",
        }
    }

    /// The rung by name (any case); the error names the rungs that have a tree.
    pub fn parse(name: &str) -> Result<TreeEngine, Error> {
        let wanted = name.trim();
        TreeEngine::ALL
            .into_iter()
            .find(|e| e.name().eq_ignore_ascii_case(wanted))
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "no search tree for engine '{wanted}' (minimax, alphabeta, negamax)"
                ))
            })
    }

    /// Searches `game` to `depth`, telling `tracer` every step.
    pub fn search<T: Tracer>(self, game: &Game, depth: u32, tracer: &mut T) -> Analysis {
        let limits = Limits::depth(depth);
        match self {
            TreeEngine::Minimax => minimax::search(game, &limits, depth, tracer),
            TreeEngine::Alphabeta => alphabeta::search(game, &limits, depth, tracer),
            TreeEngine::Negamax => negamax::search(game, &limits, depth, tracer),
        }
    }
}

/// Positions per ply and moves pruned.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Size {
    /// `per_ply[d]`: positions visited `d` half-moves below the root (the root is ply 0).
    pub per_ply: Vec<u64>,
    /// Moves skipped by cut-offs.
    pub pruned: u64,
}

impl Tracer for Size {
    fn enter(&mut self, ply: u32, _: Option<Move>) {
        crate::core::trace::count_at(&mut self.per_ply, ply);
    }
    fn pruned(&mut self, skipped: &[Move]) {
        self.pruned += skipped.len() as u64;
    }
}

impl Size {
    /// Positions visited, as the engine counts its nodes.
    pub fn positions(&self) -> u64 {
        self.per_ply.iter().sum()
    }
    /// Nodes a drawing has: the positions and a marker for each pruned move.
    pub fn drawn(&self) -> u64 {
        self.positions() + self.pruned
    }
}

/// Counts the tree of `engine` on `game` at `depth` without keeping it.
pub fn count(engine: TreeEngine, game: &Game, depth: u32) -> (Size, Analysis) {
    let mut size = Size::default();
    let analysis = engine.search(game, depth.max(1), &mut size);
    (size, analysis)
}

/// One node of a recorded tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeNode {
    /// Index of the parent in `Tree::nodes`; `None` at the root.
    pub parent: Option<usize>,
    /// The move that leads here; `None` at the root.
    pub mv: Option<Move>,
    /// That move in SAN without check marks ("root" at the root).
    pub label: String,
    /// Half-moves below the root.
    pub ply: u32,
    /// The value found (White's point of view, centipawns); `None` for a pruned move.
    pub value: Option<i32>,
    /// The alpha-beta window it was searched with (White's point of view); `None` for minimax
    /// and pruned moves.
    pub window: Option<(i32, i32)>,
    /// Why the move was never searched, for a move skipped by a cut-off.
    pub pruned: Option<String>,
    /// Indices of the children, in the order searched (pruned moves last).
    pub children: Vec<usize>,
}

/// A whole search tree, root first (`nodes[0]`).
#[derive(Clone, Debug)]
pub struct Tree {
    pub engine: TreeEngine,
    pub depth: u32,
    pub fen: String,
    pub nodes: Vec<TreeNode>,
    pub size: Size,
    pub analysis: Analysis,
}

/// Records every node, with each node's position so moves can be written in SAN.
struct Recorder {
    nodes: Vec<TreeNode>,
    /// Entered and not yet left: node index, position.
    stack: Vec<(usize, Chess)>,
    root: Chess,
}

impl Recorder {
    fn push(&mut self, parent: Option<usize>, node: TreeNode) -> usize {
        let i = self.nodes.len();
        self.nodes.push(node);
        if let Some(p) = parent {
            self.nodes[p].children.push(i);
        }
        i
    }
}

impl Tracer for Recorder {
    fn enter(&mut self, ply: u32, mv: Option<Move>) {
        let (parent, label, pos) = match (self.stack.last(), mv) {
            (Some((p, parent_pos)), Some(m)) => {
                let mut pos = parent_pos.clone();
                let label = san_plain(parent_pos, m);
                pos.play_unchecked(m);
                (Some(*p), label, pos)
            }
            _ => (None, "root".to_string(), self.root.clone()),
        };
        let i = self.push(
            parent,
            TreeNode {
                parent,
                mv,
                label,
                ply,
                value: None,
                window: None,
                pruned: None,
                children: Vec::new(),
            },
        );
        self.stack.push((i, pos));
    }

    fn window(&mut self, alpha: i32, beta: i32) {
        if let Some(&(i, _)) = self.stack.last() {
            self.nodes[i].window = Some((alpha, beta));
        }
    }

    fn leave(&mut self, value: i32) {
        let Some((i, pos)) = self.stack.pop() else {
            return;
        };
        self.nodes[i].value = Some(value);
        // The cut-off's reason, now that the node's value is known: White (to move here) already
        // has a value the opponent will not allow, or Black has one White will not allow.
        let reason = match (pos.turn(), self.nodes[i].window) {
            (Color::White, Some((_, beta))) => format!(
                "cut-off: White already has {} here, at least the {} Black is sure of elsewhere (beta)",
                format_score(value),
                bound_text(beta)
            ),
            (Color::Black, Some((alpha, _))) => format!(
                "cut-off: Black already holds White to {} here, at most the {} White is sure of elsewhere (alpha)",
                format_score(value),
                bound_text(alpha)
            ),
            (_, None) => "cut-off".to_string(),
        };
        for k in 0..self.nodes[i].children.len() {
            let c = self.nodes[i].children[k];
            if self.nodes[c].pruned.as_deref() == Some("") {
                self.nodes[c].pruned = Some(reason.clone());
            }
        }
    }

    fn pruned(&mut self, skipped: &[Move]) {
        let Some((p, pos)) = self.stack.last().map(|(p, pos)| (*p, pos.clone())) else {
            return;
        };
        let ply = self.nodes[p].ply + 1;
        for &m in skipped {
            self.push(
                Some(p),
                TreeNode {
                    parent: Some(p),
                    mv: Some(m),
                    label: san_plain(&pos, m),
                    ply,
                    value: None,
                    window: None,
                    // Filled in with the reason when the parent is left.
                    pruned: Some(String::new()),
                    children: Vec::new(),
                },
            );
        }
    }
}

fn bound_text(bound: i32) -> String {
    if bound >= INFINITY {
        "+inf".into()
    } else if bound <= -INFINITY {
        "-inf".into()
    } else {
        format_score(bound)
    }
}

/// Records the tree of `engine` on `game` at `depth`, refusing (with the tree's size and a depth
/// that fits) one of more than `max_nodes` nodes, pruned moves included.
pub fn record(
    engine: TreeEngine,
    game: &Game,
    depth: u32,
    max_nodes: usize,
) -> Result<Tree, Error> {
    let depth = depth.max(1);
    let (size, _) = count(engine, game, depth);
    if size.drawn() > max_nodes as u64 {
        let fits = (1..depth)
            .rev()
            .map(|d| (d, count(engine, game, d).0.drawn()))
            .find(|&(_, n)| n <= max_nodes as u64);
        let advice = match fits {
            Some((d, n)) => format!("depth {d} ({n} nodes) would fit"),
            None => "no depth of this position fits; try a position with fewer moves".into(),
        };
        return Err(Error::Invalid(format!(
            "the tree has {} nodes with pruned moves, more than the {max_nodes} allowed: {advice}",
            size.drawn()
        )));
    }
    let mut recorder = Recorder {
        nodes: Vec::with_capacity(size.drawn() as usize),
        stack: Vec::new(),
        root: game.position().clone(),
    };
    let analysis = engine.search(game, depth, &mut recorder);
    Ok(Tree {
        engine,
        depth,
        fen: game.fen(),
        nodes: recorder.nodes,
        size,
        analysis,
    })
}

impl Tree {
    /// The tree in Graphviz DOT: each node with its move and value (White's view, in pawns),
    /// moves skipped by a cut-off dashed and grey.
    pub fn to_dot(&self) -> String {
        let title = format!(
            "{}, depth {}: {} positions",
            self.engine.name(),
            self.depth,
            self.size.positions()
        );
        let mut dot = String::new();
        let _ = writeln!(dot, "digraph tree {{");
        let _ = writeln!(dot, "  label=\"{title}\"; labelloc=t;");
        let _ = writeln!(
            dot,
            "  node [shape=box, fontname=\"Helvetica\", fontsize=10];"
        );
        for (i, n) in self.nodes.iter().enumerate() {
            if n.pruned.is_some() {
                let _ = writeln!(
                    dot,
                    "  n{i} [label=\"{}\\npruned\", style=dashed, color=gray, fontcolor=gray];",
                    n.label
                );
            } else {
                let value = n.value.map_or("?".to_string(), format_score);
                let _ = writeln!(dot, "  n{i} [label=\"{}\\n{value}\"];", n.label);
            }
            if let Some(p) = n.parent {
                let style = if n.pruned.is_some() {
                    " [style=dashed, color=gray]"
                } else {
                    ""
                };
                let _ = writeln!(dot, "  n{p} -> n{i}{style};");
            }
        }
        dot.push_str("}\n");
        dot
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIDDLEGAME: &str = "r1bqrnk1/pp2bppp/2p2n2/3p2B1/3P4/2NBPN2/PPQ2PPP/R4RK1 w - - 7 11";

    #[test]
    fn recorded_tree_matches_the_counts_and_the_values() {
        let game = Game::from_fen(MIDDLEGAME).unwrap();
        for engine in TreeEngine::ALL {
            let tree = record(engine, &game, 2, 100_000).unwrap();
            let visited = tree.nodes.iter().filter(|n| n.pruned.is_none()).count();
            assert_eq!(visited as u64, tree.size.positions());
            assert_eq!(visited as u64, tree.analysis.nodes, "{engine:?}");
            let pruned = tree.nodes.iter().filter(|n| n.pruned.is_some()).count();
            assert_eq!(pruned as u64, tree.size.pruned);
            // Every parent's value is the best of its searched children's for the side to move.
            let root = &tree.nodes[0];
            let values: Vec<i32> = root
                .children
                .iter()
                .filter_map(|&c| tree.nodes[c].value)
                .collect();
            assert_eq!(root.value, values.iter().copied().max(), "{engine:?}");
            for n in &tree.nodes {
                if let Some(reason) = &n.pruned {
                    assert!(reason.starts_with("cut-off"), "{reason}");
                    assert!(n.value.is_none() && n.children.is_empty());
                }
                if engine != TreeEngine::Minimax && n.pruned.is_none() {
                    let (a, b) = n.window.unwrap();
                    assert!(a < b, "window {a}..{b}");
                }
            }
        }
        assert_eq!(count(TreeEngine::Minimax, &game, 3).0.positions(), 70_119);
    }

    #[test]
    fn too_large_a_tree_is_refused_with_a_depth_that_fits() {
        let game = Game::from_fen(MIDDLEGAME).unwrap();
        let err = record(TreeEngine::Minimax, &game, 3, 2_000)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("70119 nodes") && err.contains("depth 2"),
            "{err}"
        );
        assert!(TreeEngine::parse("AlphaBeta").is_ok());
        assert!(
            TreeEngine::parse("pst")
                .unwrap_err()
                .to_string()
                .contains("minimax")
        );
    }
}
