//! The route table, the one list the router is made from (so `paths` names every route there is,
//! and the load test walks them all), and `start`, which serves it: the page's files from
//! `assets`, then each view's endpoints from the file of that view.

use std::sync::Arc;

use axum::Router;
use axum::routing::{MethodRouter, get, post};

use super::api::Makers;
use super::reply::not_found;
use super::server::{Server, ServerLimits, serve};
use super::state::Lab;
use super::{assets, heatmap, ladder, play, review, steps, tournament, train, tree};
use crate::error::Error;

/// Every route, path and handlers.
fn routes() -> Vec<(&'static str, MethodRouter<Arc<Lab>>)> {
    let api: Vec<(&'static str, MethodRouter<Arc<Lab>>)> = vec![
        ("/api/health", get(play::health)),
        ("/api/engines", get(play::engines)),
        ("/api/position", post(play::position)),
        ("/api/play", post(play::play)),
        ("/api/eval", post(heatmap::eval_handler)),
        ("/api/analyse", post(play::analyse)),
        ("/api/search", get(play::search)),
        ("/api/tree", post(tree::handler)),
        ("/api/ladder", post(ladder::handler)),
        ("/api/steps", post(steps::handler)),
        ("/api/heatmap", post(heatmap::handler)),
        ("/api/review", post(review::handler)),
        ("/api/tournament", post(tournament::handler)),
        (
            "/api/tournament/reference",
            get(tournament::reference_handler),
        ),
        ("/api/train", post(train::handler)),
        ("/api/train/sets", get(train::sets_handler)),
        ("/api/train/stop", post(train::stop_handler)),
        ("/api/train/nets", get(train::nets_handler)),
        ("/api/train/net/{name}", get(train::net_handler)),
    ];
    assets::routes().into_iter().chain(api).collect()
}

/// The path of every route the server has.
pub fn paths() -> Vec<&'static str> {
    routes().into_iter().map(|(path, _)| path).collect()
}

fn router(lab: Arc<Lab>) -> Router {
    routes()
        .into_iter()
        .fold(Router::new(), |r, (path, handlers)| r.route(path, handlers))
        .fallback(not_found)
        .with_state(lab)
}

/// Binds `host:port` (port 0: any free one) and serves the Lab on a thread of its own.
pub fn start(host: &str, port: u16, makers: Makers) -> Result<Server, Error> {
    start_with(host, port, makers, ServerLimits::default())
}

/// `start` with other limits on requests.
pub fn start_with(
    host: &str,
    port: u16,
    makers: Makers,
    limits: ServerLimits,
) -> Result<Server, Error> {
    crate::core::memory::return_large_blocks();
    serve(router(Arc::new(Lab::new(makers))), host, port, limits)
}
