//! `POST /api/tree`: the search tree of `minimax`, `alphabeta` or `negamax`, recorded whole once
//! (on a search slot, at most `MAX_TREE_NODES` nodes) and kept in the server's cache, then answered
//! one node at a time with its children, so the page expands a tree of any size on click.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::response::Response;
use serde_json::{Value, json};

use super::api::{MAX_TREE_DEPTH, MAX_TREE_NODES, position_request, uci_standard};
use super::reply::{ApiError, ApiResult, bounded, parse_body, reply};
use super::state::{Lab, blocking};
use crate::core::Game;
use crate::tree::{Tree, TreeEngine, TreeNode};

position_request! {
    /// `POST /api/tree`.
    TreeRequest {} {
        pub engine: String,
        pub depth: u32,
        /// The node to expand (0, the root, when absent).
        #[serde(default)]
        pub node: Option<usize>,
    }
}

impl TreeRequest {
    /// The game and the tree engine, checked; and the key the recorded tree is cached under.
    pub fn check(&self) -> Result<(Game, TreeEngine, String), ApiError> {
        let engine = TreeEngine::parse(&self.engine)?;
        bounded("tree depth", self.depth, 1..=MAX_TREE_DEPTH, "")?;
        let game = self.game()?;
        let key = format!(
            "{}|{}|{}|{}",
            engine.name(),
            self.depth,
            crate::core::game::fen_of(game.start()),
            game.moves()
                .iter()
                .map(|&m| uci_standard(m))
                .collect::<Vec<_>>()
                .join(" ")
        );
        Ok((game, engine, key))
    }
}

fn node_json(n: &TreeNode, id: usize) -> Value {
    json!({
        "id": id,
        "san": n.label,
        "uci": n.mv.map(uci_standard),
        "ply": n.ply,
        "value": n.value,
        "alpha": n.window.map(|w| w.0),
        "beta": n.window.map(|w| w.1),
        "pruned": n.pruned,
        "children": n.children.len(),
    })
}

/// One node of a recorded tree with its children (each with its own child count), and the tree's
/// totals.
pub fn tree_json(tree: &Tree, node: usize) -> ApiResult {
    let n = tree.nodes.get(node).ok_or_else(|| {
        ApiError::bad(format!(
            "no node {node}: the tree has nodes 0 to {}",
            tree.nodes.len().saturating_sub(1)
        ))
    })?;
    let mut path = Vec::new();
    let mut at = Some(node);
    while let Some(i) = at {
        path.push(i);
        at = tree.nodes[i].parent;
    }
    path.reverse();
    Ok(json!({
        "engine": tree.engine.name(),
        "depth": tree.depth,
        "fen": tree.fen,
        "positions": tree.size.positions(),
        "pruned": tree.size.pruned,
        "per_depth": tree.size.per_ply,
        "best": tree.analysis.best.map(uci_standard),
        "score": tree.analysis.score,
        "path": path.iter().map(|&i| json!({ "id": i, "san": tree.nodes[i].label })).collect::<Vec<_>>(),
        "node": node_json(n, node),
        "children": n.children.iter().map(|&c| node_json(&tree.nodes[c], c)).collect::<Vec<_>>(),
    }))
}

pub async fn handler(State(lab): State<Arc<Lab>>, body: Bytes) -> Response {
    let result = async {
        let req: TreeRequest = parse_body(&body)?;
        let (game, engine, key) = req.check()?;
        let node = req.node.unwrap_or(0);
        let tree = match lab.cached_tree(&key) {
            Some(t) => t,
            None => {
                let depth = req.depth;
                let tree = blocking(&lab, move || {
                    Ok(Arc::new(crate::tree::record(
                        engine,
                        &game,
                        depth,
                        MAX_TREE_NODES,
                    )?))
                })
                .await?;
                lab.keep_tree(key, tree.clone());
                tree
            }
        };
        tree_json(&tree, node)
    }
    .await;
    reply(result)
}
