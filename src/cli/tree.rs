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
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub depth: u32,
    /// The position [default: the initial position]
    #[arg(long)]
    pub fen: Option<String>,
    /// Write the tree in Graphviz DOT to this file
    #[arg(long, value_name = "FILE")]
    pub dot: Option<String>,
}

/// The most positions a count is let to visit, by the estimate: a few minutes of counting.
pub const MAX_ESTIMATE: f64 = 1e9;

/// About how many positions `engine` visits to `depth` where `moves` are legal a ply: every one
/// for minimax, about twice the square root of that with alpha-beta's cut-offs.
fn estimate(engine: TreeEngine, moves: f64, depth: u32) -> f64 {
    let b = moves.max(2.0);
    match engine {
        TreeEngine::Minimax => b.powi(depth as i32),
        _ => b.powi(depth.div_ceil(2) as i32) + b.powi((depth / 2) as i32),
    }
}

pub fn run(args: TreeArgs) -> Result<i32, Error> {
    let game = Game::from_optional_fen(args.fen.as_deref())?;
    let depth = args.depth;
    let moves = shakmaty::Position::legal_moves(game.position()).len() as f64;
    if estimate(args.engine, moves, depth) > MAX_ESTIMATE {
        let most = (1..depth)
            .take_while(|&d| estimate(args.engine, moves, d) <= MAX_ESTIMATE)
            .last()
            .unwrap_or(1);
        return Err(Error::Invalid(format!(
            "--depth {depth}: {} would visit about {:.0e} positions from here ({moves} moves a ply); \
             depth {most} or less counts in minutes",
            args.engine.name(),
            estimate(args.engine, moves, depth)
        )));
    }
    // A drawing is small or refused: before the count, so a refusal costs nothing.
    let drawing = match &args.dot {
        Some(path) => {
            super::args::check_output(path, "--dot")?;
            Some(
                tree::record(args.engine, &game, depth, MAX_DRAWN)
                    .map_err(|e| Error::Invalid(format!("{e} (the most a drawing can show)")))?,
            )
        }
        None => None,
    };
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
    if let (Some(path), Some(tree)) = (&args.dot, drawing) {
        std::fs::write(path, tree.to_dot()).map_err(|e| Error::io(path, e))?;
        println!("Tree written to {path} ({} nodes drawn)", tree.nodes.len());
    }
    Ok(0)
}
