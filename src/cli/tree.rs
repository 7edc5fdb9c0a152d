//! `rookery tree`: the search tree of the max/min and negamax rungs. Prints how many positions each
//! depth holds and the total; with `--dot`, writes the tree for Graphviz, each node with its move
//! and value (White's point of view, in pawns), moves skipped by a cut-off drawn dashed as pruned.

use std::fmt::Write as _;

use clap::{Args, ValueEnum};
use shakmaty::{Chess, Move, Position};

use crate::core::game::san_plain;
use crate::core::score::format_score;
use crate::core::trace::Tracer;
use crate::core::{Game, Limits};
use crate::error::Error;
use crate::ladder::{alphabeta, minimax, negamax};

/// Most nodes (pruned markers included) a drawing may have.
pub const MAX_DRAWN: usize = 2_000;

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeEngine {
    Minimax,
    Alphabeta,
    Negamax,
}

#[derive(Args, Debug)]
pub struct TreeArgs {
    /// The search whose tree to show
    #[arg(long, value_enum)]
    pub engine: TreeEngine,
    /// Depth in plies
    #[arg(long)]
    pub depth: u32,
    /// The position [default: the initial position]
    #[arg(long)]
    pub fen: Option<String>,
    /// Write the tree in Graphviz DOT to this file
    #[arg(long, value_name = "FILE")]
    pub dot: Option<String>,
}

/// Counts positions per ply and moves pruned.
#[derive(Default)]
struct Size {
    per_ply: Vec<u64>,
    pruned: u64,
}

impl Tracer for Size {
    fn enter(&mut self, ply: u32, _: Option<Move>) {
        let ply = ply as usize;
        if self.per_ply.len() <= ply {
            self.per_ply.resize(ply + 1, 0);
        }
        self.per_ply[ply] += 1;
    }
    fn pruned(&mut self, skipped: &[Move]) {
        self.pruned += skipped.len() as u64;
    }
}

impl Size {
    fn positions(&self) -> u64 {
        self.per_ply.iter().sum()
    }
    fn drawn(&self) -> u64 {
        self.positions() + self.pruned
    }
}

struct DrawnNode {
    parent: Option<usize>,
    label: String,
    value: Option<i32>,
    pruned: bool,
}

/// Records the whole tree, with each node's position so moves can be written in SAN.
struct Recorder {
    nodes: Vec<DrawnNode>,
    stack: Vec<(usize, Chess)>,
    root: Chess,
}

impl Tracer for Recorder {
    fn enter(&mut self, _ply: u32, mv: Option<Move>) {
        let (parent, pos) = match (self.stack.last(), mv) {
            (Some((p, parent_pos)), Some(m)) => {
                let mut pos = parent_pos.clone();
                let label = san_plain(parent_pos, m);
                pos.play_unchecked(m);
                self.nodes.push(DrawnNode {
                    parent: Some(*p),
                    label,
                    value: None,
                    pruned: false,
                });
                (self.nodes.len() - 1, pos)
            }
            _ => {
                self.nodes.push(DrawnNode {
                    parent: None,
                    label: "root".into(),
                    value: None,
                    pruned: false,
                });
                (self.nodes.len() - 1, self.root.clone())
            }
        };
        self.stack.push((parent, pos));
    }
    fn leave(&mut self, value: i32) {
        if let Some((i, _)) = self.stack.pop() {
            self.nodes[i].value = Some(value);
        }
    }
    fn pruned(&mut self, skipped: &[Move]) {
        if let Some((p, pos)) = self.stack.last() {
            for &m in skipped {
                self.nodes.push(DrawnNode {
                    parent: Some(*p),
                    label: san_plain(pos, m),
                    value: None,
                    pruned: true,
                });
            }
        }
    }
}

fn search<T: Tracer>(
    engine: TreeEngine,
    game: &Game,
    depth: u32,
    tracer: &mut T,
) -> crate::Analysis {
    let limits = Limits::depth(depth);
    match engine {
        TreeEngine::Minimax => minimax::search(game, &limits, depth, tracer),
        TreeEngine::Alphabeta => alphabeta::search(game, &limits, depth, tracer),
        TreeEngine::Negamax => negamax::search(game, &limits, depth, tracer),
    }
}

/// The tree in Graphviz DOT.
fn to_dot(nodes: &[DrawnNode], title: &str) -> String {
    let mut dot = String::new();
    let _ = writeln!(dot, "digraph tree {{");
    let _ = writeln!(dot, "  label=\"{title}\"; labelloc=t;");
    let _ = writeln!(
        dot,
        "  node [shape=box, fontname=\"Helvetica\", fontsize=10];"
    );
    for (i, n) in nodes.iter().enumerate() {
        if n.pruned {
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
            let style = if n.pruned {
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

pub fn run(args: TreeArgs) -> Result<i32, Error> {
    let game = Game::from_optional_fen(args.fen.as_deref())?;
    let depth = args.depth.max(1);
    let mut size = Size::default();
    let analysis = search(args.engine, &game, depth, &mut size);
    let name = format!("{:?}", args.engine).to_lowercase();
    println!("Search tree of {name} at depth {depth} from {}", game.fen());
    for (ply, n) in size.per_ply.iter().enumerate() {
        println!("depth {ply}: {n}");
    }
    if size.pruned > 0 {
        println!("moves pruned: {}", size.pruned);
    }
    if let Some(best) = analysis.best {
        println!(
            "best move {} with value {}",
            san_plain(game.position(), best),
            analysis.score.map_or("-".to_string(), format_score)
        );
    }
    println!("Nodes: {}", size.positions());
    if let Some(path) = &args.dot {
        if size.drawn() > MAX_DRAWN as u64 {
            let fits = (1..depth)
                .rev()
                .map(|d| {
                    let mut s = Size::default();
                    search(args.engine, &game, d, &mut s);
                    (d, s.drawn())
                })
                .find(|&(_, n)| n <= MAX_DRAWN as u64);
            let advice = match fits {
                Some((d, n)) => format!("depth {d} ({n} nodes) would fit"),
                None => "no depth of this position fits; try a position with fewer moves".into(),
            };
            return Err(Error::Invalid(format!(
                "the tree has {} nodes with pruned moves, more than the {MAX_DRAWN} a drawing can show: {advice}",
                size.drawn()
            )));
        }
        let mut recorder = Recorder {
            nodes: Vec::new(),
            stack: Vec::new(),
            root: game.position().clone(),
        };
        search(args.engine, &game, depth, &mut recorder);
        let title = format!("{name}, depth {depth}: {} positions", size.positions());
        std::fs::write(path, to_dot(&recorder.nodes, &title)).map_err(|e| Error::io(path, e))?;
        println!(
            "Tree written to {path} ({} nodes drawn)",
            recorder.nodes.len()
        );
    }
    Ok(0)
}
