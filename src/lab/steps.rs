//! `POST /api/steps`: alpha-beta and minimax walked node by node over a small tree, for the Lab's
//! step-by-step view. The tree is either a chess position searched a few plies deep with a few
//! moves at each node (leaves valued by the Simplified Evaluation Function, White's view), or an
//! abstract tree of leaf values as a textbook draws it (nested lists, the root a max node).
//!
//! The tree is built whole first, then each search walks it and writes down every event: a node
//! entered (with its window), a leaf valued, a child's value coming back (and the window it
//! narrows), a cut-off (the children it skips and the positions that saves), a node left. The same
//! tree searched with its best moves first and with its best moves last shows what move ordering
//! does to alpha-beta; minimax visits every node in every order.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::response::Response;
use serde::Serialize;
use serde_json::{Value, json};
use shakmaty::{Chess, Color, Position};

use super::api::{game_on, position_request};
use super::reply::{ApiError, ApiResult, bounded, parse_body, reply};
use super::state::{Lab, blocking};
use crate::core::game::{san_plain, uci};
use crate::core::score::MATE;

/// The deepest chess tree, and the most moves kept at each of its nodes.
pub const MAX_CHESS_DEPTH: u32 = 3;
pub const MAX_WIDTH: u32 = 5;
/// The largest abstract tree: levels below the root, nodes, and the size of a leaf value.
pub const MAX_TREE_LEVELS: usize = 8;
pub const MAX_TREE_NODES: usize = 1_000;
pub const MAX_LEAF: i64 = 1_000_000;

/// The textbook's tree (a max root over three min nodes), shown when the page opens.
pub const TEXTBOOK_TREE: &str = "[[3, 12, 8], [2, 4, 6], [14, 5, 2]]";

position_request! {
    /// `POST /api/steps`.
    #[serde(default)]
    StepsRequest {} {
        /// Plies below the chess position (1 to 3; 2 when absent).
        pub depth: Option<u32>,
        /// Moves kept at each node of the chess tree (1 to 5; 3 when absent).
        pub width: Option<u32>,
        /// An abstract tree instead of a position: nested lists, numbers at the leaves.
        pub tree: Option<Value>,
        /// "given" (the order the tree has), "best-first" or "best-last".
        pub order: Option<String>,
    }
}

/// One node of the tree walked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// The move that leads here (SAN) or the node's letter.
    pub label: String,
    pub uci: Option<String>,
    /// True where the side choosing takes the highest value (White, or the textbook's Max).
    pub max: bool,
    /// The value of a leaf (White's view for chess).
    pub leaf: Option<i64>,
    pub ply: u32,
}

/// A small tree, root first.
#[derive(Clone, Debug)]
pub struct StepTree {
    pub nodes: Vec<Node>,
    pub chess: bool,
}

/// One thing a search does; as JSON, an object with its `kind` and fields.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Step {
    /// The search comes to `node` with the window `alpha..beta` (`None`: infinite).
    Enter {
        node: usize,
        alpha: Option<i64>,
        beta: Option<i64>,
    },
    /// A leaf is valued.
    Leaf { node: usize, value: i64 },
    /// `child`'s value comes back to `node`; `best` is the node's best so far, the window as it
    /// stands after it.
    Back {
        node: usize,
        child: usize,
        value: i64,
        best: i64,
        alpha: Option<i64>,
        beta: Option<i64>,
    },
    /// The window closed at `node`: `skipped` children are never searched, `saved` positions in all.
    Cut {
        node: usize,
        alpha: Option<i64>,
        beta: Option<i64>,
        skipped: Vec<usize>,
        saved: usize,
    },
    /// `node` is done with `value`.
    Leave { node: usize, value: i64 },
}

/// The order children are searched in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Given,
    BestFirst,
    BestLast,
}

impl Order {
    pub const ALL: [Order; 3] = [Order::Given, Order::BestFirst, Order::BestLast];

    pub fn parse(s: Option<&str>) -> Result<Order, ApiError> {
        match s.map(str::trim) {
            None | Some("given") => Ok(Order::Given),
            Some("best-first") => Ok(Order::BestFirst),
            Some("best-last") => Ok(Order::BestLast),
            Some(other) => Err(ApiError::bad(format!(
                "unknown order '{other}' (given, best-first, best-last)"
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Order::Given => "given",
            Order::BestFirst => "best-first",
            Order::BestLast => "best-last",
        }
    }
}

/// Builds an abstract tree from nested lists: numbers at the leaves, the root a max node, the
/// levels alternating. Nodes are lettered in breadth-first order (A, B, ..., Z, AA, ...).
pub fn abstract_tree(v: &Value) -> Result<StepTree, ApiError> {
    let mut nodes: Vec<Node> = Vec::new();
    // Breadth first, so the letters read level by level.
    let mut queue = std::collections::VecDeque::new();
    nodes.push(Node {
        parent: None,
        children: Vec::new(),
        label: "root".into(),
        uci: None,
        max: true,
        leaf: None,
        ply: 0,
    });
    queue.push_back((0usize, v));
    while let Some((i, v)) = queue.pop_front() {
        let ply = nodes[i].ply;
        match v {
            Value::Number(n) => {
                let x = n.as_i64().filter(|x| x.abs() <= MAX_LEAF).ok_or_else(|| {
                    ApiError::bad(format!(
                        "tree: leaf values must be whole numbers from -{MAX_LEAF} to {MAX_LEAF}, got {n}"
                    ))
                })?;
                if i == 0 {
                    return Err(ApiError::bad(
                        "tree: the root must be a list of children, e.g. [[3, 12], [2, 4]]",
                    ));
                }
                nodes[i].leaf = Some(x);
            }
            Value::Array(children) => {
                if children.is_empty() {
                    return Err(ApiError::bad("tree: a node's list of children is empty"));
                }
                if ply as usize >= MAX_TREE_LEVELS {
                    return Err(ApiError::bad(format!(
                        "tree: at most {MAX_TREE_LEVELS} levels below the root"
                    )));
                }
                for c in children {
                    if nodes.len() >= MAX_TREE_NODES {
                        return Err(ApiError::bad(format!(
                            "tree: at most {MAX_TREE_NODES} nodes"
                        )));
                    }
                    let k = nodes.len();
                    nodes.push(Node {
                        parent: Some(i),
                        children: Vec::new(),
                        label: letters(k),
                        uci: None,
                        max: ply % 2 == 1,
                        leaf: None,
                        ply: ply + 1,
                    });
                    nodes[i].children.push(k);
                    queue.push_back((k, c));
                }
            }
            other => {
                return Err(ApiError::bad(format!(
                    "tree: a node is a number (a leaf) or a list of nodes, got {other}"
                )));
            }
        }
    }
    Ok(StepTree {
        nodes,
        chess: false,
    })
}

/// The node's letter: 1 is A, 26 is Z, 27 is AA.
fn letters(mut k: usize) -> String {
    let mut s = Vec::new();
    while k > 0 {
        k -= 1;
        s.push(b'A' + (k % 26) as u8);
        k /= 26;
    }
    s.reverse();
    String::from_utf8(s).unwrap_or_default()
}

/// The value of a finished game for the tree: mate far beyond any material, a draw 0.
fn over_value(pos: &Chess, ply: u32) -> Option<i64> {
    if !pos.legal_moves().is_empty() && !pos.is_insufficient_material() {
        return None;
    }
    if pos.is_checkmate() {
        let v = i64::from(MATE) - i64::from(ply);
        return Some(if pos.turn() == Color::White { -v } else { v });
    }
    Some(0)
}

/// Builds the chess tree: `depth` plies from `pos`, keeping at each node the `width` moves the
/// side to move likes best one ply deep (in the order the move generator gives them).
pub fn chess_tree(pos: &Chess, depth: u32, width: u32) -> StepTree {
    let eval = |p: &Chess| i64::from(crate::eval::pst::evaluate(p.board()));
    let mut nodes = vec![Node {
        parent: None,
        children: Vec::new(),
        label: "root".into(),
        uci: None,
        max: pos.turn() == Color::White,
        leaf: None,
        ply: 0,
    }];
    let mut positions = vec![pos.clone()];
    let mut i = 0;
    while i < nodes.len() {
        let p = positions[i].clone();
        let ply = nodes[i].ply;
        if let Some(v) = over_value(&p, ply) {
            nodes[i].leaf = Some(v);
        } else if ply >= depth {
            nodes[i].leaf = Some(eval(&p));
        } else {
            let white = p.turn() == Color::White;
            let mut scored: Vec<(usize, i64, shakmaty::Move)> = p
                .legal_moves()
                .iter()
                .enumerate()
                .map(|(k, &m)| {
                    let mut q = p.clone();
                    q.play_unchecked(m);
                    let v = over_value(&q, ply + 1).unwrap_or_else(|| eval(&q));
                    (k, if white { v } else { -v }, m)
                })
                .collect();
            scored.sort_by_key(|&(k, v, _)| (std::cmp::Reverse(v), k));
            scored.truncate(width as usize);
            scored.sort_by_key(|&(k, _, _)| k);
            for (_, _, m) in scored {
                let mut q = p.clone();
                q.play_unchecked(m);
                let k = nodes.len();
                nodes.push(Node {
                    parent: Some(i),
                    children: Vec::new(),
                    label: san_plain(&p, m),
                    uci: Some(uci(m)),
                    max: q.turn() == Color::White,
                    leaf: None,
                    ply: ply + 1,
                });
                nodes[i].children.push(k);
                positions.push(q);
            }
        }
        i += 1;
    }
    StepTree { nodes, chess: true }
}

impl StepTree {
    /// Every node's minimax value.
    pub fn values(&self) -> Vec<i64> {
        let mut v = vec![0i64; self.nodes.len()];
        // Children always come after their parent: fill from the back.
        for i in (0..self.nodes.len()).rev() {
            let n = &self.nodes[i];
            v[i] = match n.leaf {
                Some(x) => x,
                None => {
                    let it = n.children.iter().map(|&c| v[c]);
                    if n.max {
                        it.max().unwrap_or(0)
                    } else {
                        it.min().unwrap_or(0)
                    }
                }
            };
        }
        v
    }

    /// The children of every node in the order `order` searches them.
    pub fn ordered(&self, order: Order) -> Vec<Vec<usize>> {
        let values = self.values();
        self.nodes
            .iter()
            .map(|n| {
                let mut c = n.children.clone();
                if order != Order::Given {
                    // Best for the side choosing first; stable, so equal values keep their order.
                    c.sort_by_key(|&k| if n.max { -values[k] } else { values[k] });
                    if order == Order::BestLast {
                        c.reverse();
                    }
                }
                c
            })
            .collect()
    }

    /// Nodes in the subtree under `node`, itself included.
    fn subtree_size(&self, node: usize) -> usize {
        1 + self.nodes[node]
            .children
            .iter()
            .map(|&c| self.subtree_size(c))
            .sum::<usize>()
    }
}

/// Minimax's walk: every node, in `children` order, no window.
pub fn minimax_walk(tree: &StepTree, children: &[Vec<usize>]) -> Vec<Step> {
    walk(tree, children, false)
}

/// Alpha-beta's walk, max/min form as the ladder's `alphabeta` searches: a node whose window
/// closes (`alpha >= beta`) skips its remaining children.
pub fn alphabeta_walk(tree: &StepTree, children: &[Vec<usize>]) -> Vec<Step> {
    walk(tree, children, true)
}

/// The walk of both searches: with `prune`, each node narrows its window with every child's
/// value and cuts when it closes; without, the window stays infinite and every node is visited
/// (minimax).
fn walk(tree: &StepTree, children: &[Vec<usize>], prune: bool) -> Vec<Step> {
    struct Walk<'a> {
        tree: &'a StepTree,
        children: &'a [Vec<usize>],
        prune: bool,
        out: Vec<Step>,
    }
    impl Walk<'_> {
        fn node(&mut self, i: usize, mut alpha: Option<i64>, mut beta: Option<i64>) -> i64 {
            self.out.push(Step::Enter {
                node: i,
                alpha,
                beta,
            });
            let n = &self.tree.nodes[i];
            if let Some(v) = n.leaf {
                self.out.push(Step::Leaf { node: i, value: v });
                self.out.push(Step::Leave { node: i, value: v });
                return v;
            }
            let mut best: Option<i64> = None;
            let order = &self.children[i];
            for (k, &c) in order.iter().enumerate() {
                let v = self.node(c, alpha, beta);
                if best.is_none_or(|b| if n.max { v > b } else { v < b }) {
                    best = Some(v);
                }
                if self.prune {
                    if n.max {
                        alpha = Some(alpha.map_or(v, |a| a.max(v)));
                    } else {
                        beta = Some(beta.map_or(v, |b| b.min(v)));
                    }
                }
                self.out.push(Step::Back {
                    node: i,
                    child: c,
                    value: v,
                    best: best.unwrap_or(v),
                    alpha,
                    beta,
                });
                if let (Some(a), Some(b)) = (alpha, beta)
                    && a >= b
                    && k + 1 < order.len()
                {
                    let skipped = order[k + 1..].to_vec();
                    let saved = skipped.iter().map(|&s| self.tree.subtree_size(s)).sum();
                    self.out.push(Step::Cut {
                        node: i,
                        alpha,
                        beta,
                        skipped,
                        saved,
                    });
                    break;
                }
            }
            let v = best.unwrap_or(0);
            self.out.push(Step::Leave { node: i, value: v });
            v
        }
    }
    let mut w = Walk {
        tree,
        children,
        prune,
        out: Vec::new(),
    };
    w.node(0, None, None);
    w.out
}

/// Positions a walk visits (nodes entered).
pub fn visited(walk: &[Step]) -> usize {
    walk.iter()
        .filter(|s| matches!(s, Step::Enter { .. }))
        .count()
}

fn cutoffs(walk: &[Step]) -> usize {
    walk.iter()
        .filter(|s| matches!(s, Step::Cut { .. }))
        .count()
}

/// Checks the request and builds its tree.
pub fn build(req: &StepsRequest) -> Result<(StepTree, Order), ApiError> {
    let order = Order::parse(req.order.as_deref())?;
    if let Some(t) = &req.tree {
        if req.fen.is_some() || !req.moves.is_empty() || req.depth.is_some() || req.width.is_some()
        {
            return Err(ApiError::bad(
                "give either a tree or a position (fen, moves, depth, width), not both",
            ));
        }
        return Ok((abstract_tree(t)?, order));
    }
    let (depth, width) = (req.depth.unwrap_or(2), req.width.unwrap_or(3));
    bounded("steps depth", depth, 1..=MAX_CHESS_DEPTH, "")?;
    bounded("steps width", width, 1..=MAX_WIDTH, "")?;
    let game = req.game()?;
    game_on(&game)?;
    Ok((chess_tree(game.position(), depth, width), order))
}

/// The answer: the tree, both walks in the order asked for, and what each order costs.
pub fn steps(req: &StepsRequest) -> ApiResult {
    let (tree, order) = build(req)?;
    let values = tree.values();
    let children = tree.ordered(order);
    let ab = alphabeta_walk(&tree, &children);
    let mm = minimax_walk(&tree, &children);
    let orders: Vec<Value> = Order::ALL
        .iter()
        .map(|&o| {
            let c = tree.ordered(o);
            let w = alphabeta_walk(&tree, &c);
            json!({
                "order": o.name(),
                "alphabeta": visited(&w),
                "cutoffs": cutoffs(&w),
                "minimax": tree.nodes.len(),
            })
        })
        .collect();
    Ok(json!({
        "kind": if tree.chess { "chess" } else { "abstract" },
        "units": if tree.chess { "centipawns, White's view" } else { "points, Max's view" },
        "order": order.name(),
        "value": values[0],
        "nodes": tree.nodes.iter().enumerate().map(|(i, n)| json!({
            "id": i,
            "parent": n.parent,
            "children": children[i],
            "label": n.label,
            "uci": n.uci,
            "max": n.max,
            "leaf": n.leaf,
            "ply": n.ply,
            "value": values[i],
        })).collect::<Vec<_>>(),
        "alphabeta": ab,
        "minimax": mm,
        "visited": { "alphabeta": visited(&ab), "minimax": visited(&mm) },
        "orders": orders,
        "textbook": TEXTBOOK_TREE,
    }))
}

pub async fn handler(State(lab): State<Arc<Lab>>, body: Bytes) -> Response {
    let result = async {
        let req: StepsRequest = parse_body(&body)?;
        // The trees are small (at most 5^3 leaves or 1,000 nodes), yet they take a slot like
        // every search, so the server's bound on work at once holds.
        blocking(&lab, move || steps(&req)).await
    }
    .await;
    reply(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn textbook() -> StepTree {
        abstract_tree(&serde_json::from_str(TEXTBOOK_TREE).unwrap()).unwrap()
    }

    #[test]
    fn the_textbook_tree_cuts_where_the_textbook_does() {
        let t = textbook();
        assert_eq!(t.nodes.len(), 13);
        assert_eq!(t.values()[0], 3);
        assert_eq!(
            (t.nodes[1].label.as_str(), t.nodes[4].label.as_str()),
            ("A", "D")
        );
        let c = t.ordered(Order::Given);
        let ab = alphabeta_walk(&t, &c);
        // Min's second node (B) sees 2 <= alpha 3 after its first leaf and skips 4 and 6.
        let cut = ab
            .iter()
            .find_map(|s| match s {
                Step::Cut {
                    node,
                    alpha,
                    beta,
                    skipped,
                    saved,
                } => Some((*node, *alpha, *beta, skipped.clone(), *saved)),
                _ => None,
            })
            .unwrap();
        assert_eq!(cut, (2, Some(3), Some(2), vec![8, 9], 2));
        assert_eq!(visited(&ab), 11);
        assert_eq!(visited(&minimax_walk(&t, &c)), 13);
        // Every walk enters and leaves each node it visits once, and ends at the root's value.
        for w in [&ab, &minimax_walk(&t, &c)] {
            let leaves = w.iter().filter(|s| matches!(s, Step::Leave { .. })).count();
            assert_eq!(leaves, visited(w));
            assert_eq!(w.last(), Some(&Step::Leave { node: 0, value: 3 }));
        }
    }

    #[test]
    fn best_first_cuts_more_than_best_last() {
        let t = textbook();
        let best = visited(&alphabeta_walk(&t, &t.ordered(Order::BestFirst)));
        let worst = visited(&alphabeta_walk(&t, &t.ordered(Order::BestLast)));
        assert!(best < worst, "{best} {worst}");
        assert_eq!(worst, 13, "worst first, alpha-beta cuts nothing here");
        // Every order finds the same value.
        for o in Order::ALL {
            let w = alphabeta_walk(&t, &t.ordered(o));
            assert_eq!(w.last(), Some(&Step::Leave { node: 0, value: 3 }));
        }
    }

    #[test]
    fn chess_trees_keep_the_best_looking_moves_and_agree_with_minimax() {
        let pos = crate::core::game::parse_fen("6k1/5ppp/8/8/8/8/q4PPP/3R2K1 w - - 0 1").unwrap();
        let t = chess_tree(&pos, 2, 3);
        assert_eq!(t.nodes[0].children.len(), 3);
        // Back-rank mate is the best-looking move one ply deep.
        let labels: Vec<&str> = t.nodes[0]
            .children
            .iter()
            .map(|&c| t.nodes[c].label.as_str())
            .collect();
        assert!(labels.contains(&"Rd8"), "{labels:?}");
        let v = t.values()[0];
        assert!(v > i64::from(MATE) - 10, "{v}");
        let ab = alphabeta_walk(&t, &t.ordered(Order::Given));
        assert_eq!(ab.last(), Some(&Step::Leave { node: 0, value: v }));
    }

    #[test]
    fn bad_trees_and_settings_say_what_is_wrong() {
        for (text, wanted) in [
            ("[]", "empty"),
            ("5", "root must be a list"),
            ("[[1, \"x\"]]", "a number (a leaf) or a list"),
            ("[[1.5]]", "whole numbers"),
            ("[[1, 2000000]]", "whole numbers"),
            ("[[[[[[[[[[1]]]]]]]]]]", "at most 8 levels"),
        ] {
            let err = abstract_tree(&serde_json::from_str(text).unwrap()).unwrap_err();
            assert!(err.message.contains(wanted), "{text}: {}", err.message);
        }
        let big = format!("[{}]", vec!["1"; 1001].join(","));
        assert!(
            abstract_tree(&serde_json::from_str(&big).unwrap())
                .unwrap_err()
                .message
                .contains("at most 1000 nodes")
        );
        let req = StepsRequest {
            depth: Some(4),
            ..StepsRequest::default()
        };
        assert!(build(&req).unwrap_err().message.contains("depth"));
        let req = StepsRequest {
            order: Some("random".into()),
            ..StepsRequest::default()
        };
        assert!(build(&req).unwrap_err().message.contains("unknown order"));
        assert_eq!(letters(1), "A");
        assert_eq!(letters(26), "Z");
        assert_eq!(letters(27), "AA");
    }
}
