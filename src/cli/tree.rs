//! `rookery tree`: the search tree of the max/min and negamax rungs. Prints how many positions each
//! depth holds and the total; with `--dot`, writes the tree for Graphviz, each node with its move
//! and value (White's point of view, in pawns), moves skipped by a cut-off drawn dashed as pruned.

use clap::Args;

use crate::core::Game;
use crate::core::game::san_plain;
use crate::core::score::format_score;
use crate::error::Error;
use crate::tree::{self, TreeEngine};

/// Most nodes (pruned markers included) a drawing may have.
pub const MAX_DRAWN: usize = 2_000;

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

pub fn run(args: TreeArgs) -> Result<i32, Error> {
    let game = Game::from_optional_fen(args.fen.as_deref())?;
    let depth = args.depth.max(1);
    let (size, analysis) = tree::count(args.engine, &game, depth);
    let name = args.engine.name();
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
        let tree = tree::record(args.engine, &game, depth, MAX_DRAWN)
            .map_err(|e| Error::Invalid(format!("{e} (the most a drawing can show)")))?;
        std::fs::write(path, tree.to_dot()).map_err(|e| Error::io(path, e))?;
        println!("Tree written to {path} ({} nodes drawn)", tree.nodes.len());
    }
    Ok(0)
}
