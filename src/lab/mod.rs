//! Rookery Lab (`rookery serve`): a local web application to play, watch and take apart every
//! engine. One binary: an HTTP server (axum on tokio) with the page (HTML, CSS, JS) embedded, and
//! a JSON API under `/api/` that the page uses and scripts can use too (README, "The Lab").
//!
//! Searches run on blocking threads, at most `MAX_SEARCHES` at once (a request waits up to two
//! seconds for a turn, then gets 503); each is bounded in time and nodes (`api::MAX_*`) and stops
//! when its client goes away (a closed tab ends its stream). Bad input gets a 400 with a JSON
//! error; nothing a request sends can end the server.

pub mod api;
mod assets;
mod events;
pub mod heatmap;
pub mod review;
pub mod steps;
pub mod tournament;

use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_stream::wrappers::ReceiverStream;

use crate::engine::Report;
use crate::error::Error;
use crate::tree::Tree;
use api::{
    ApiError, ApiResult, At, LadderRequest, Makers, PlayRequest, SearchRequest, TreeRequest,
};

/// Searches (analyses, streams, trees, ladders) running at once.
pub const MAX_SEARCHES: usize = 2;
/// Recorded trees kept for expanding their nodes.
const TREE_CACHE: usize = 4;

const INDEX_HTML: &str = include_str!("page/index.html");
const APP_JS: &str = include_str!("page/app.js");
const APP_CSS: &str = include_str!("page/app.css");

/// The server's state: how to make engines, the search slots, recorded trees.
struct Lab {
    makers: Makers,
    searches: Arc<Semaphore>,
    trees: Mutex<VecDeque<(String, Arc<Tree>)>>,
}

impl Lab {
    /// A search slot, waiting up to two seconds for one.
    async fn permit(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        match tokio::time::timeout(
            Duration::from_secs(2),
            self.searches.clone().acquire_owned(),
        )
        .await
        {
            Ok(Ok(p)) => Ok(p),
            _ => Err(ApiError::busy(MAX_SEARCHES)),
        }
    }

    fn cached_tree(&self, key: &str) -> Option<Arc<Tree>> {
        let trees = self.trees.lock().unwrap_or_else(|e| e.into_inner());
        trees.iter().find(|(k, _)| k == key).map(|(_, t)| t.clone())
    }

    fn keep_tree(&self, key: String, tree: Arc<Tree>) {
        let mut trees = self.trees.lock().unwrap_or_else(|e| e.into_inner());
        trees.retain(|(k, _)| *k != key);
        trees.push_front((key, tree));
        trees.truncate(TREE_CACHE);
    }
}

/// Raises the flag when dropped: a request whose client went away stops its search.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

fn reply(result: ApiResult) -> Response {
    match result {
        Ok(v) => axum::Json(v).into_response(),
        Err(e) => error_response(&e),
    }
}

fn error_response(e: &ApiError) -> Response {
    let status = StatusCode::from_u16(e.status).unwrap_or(StatusCode::BAD_REQUEST);
    (status, axum::Json(e.json())).into_response()
}

/// Runs `work` on a blocking thread holding a search slot.
async fn blocking<T: Send + 'static>(
    lab: &Lab,
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let permit = lab.permit().await?;
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        work()
    })
    .await
    .unwrap_or_else(|_| {
        Err(ApiError {
            status: 500,
            message: "the search failed (a bug; please report it)".into(),
        })
    })
}

async fn engines() -> Response {
    axum::Json(api::engines()).into_response()
}

async fn position(body: Bytes) -> Response {
    reply(api::parse_body::<At>(&body).and_then(|at| Ok(api::position_json(&at.game()?))))
}

async fn play(body: Bytes) -> Response {
    reply(api::parse_body::<PlayRequest>(&body).and_then(|r| api::play(&r)))
}

async fn eval(body: Bytes) -> Response {
    reply(api::parse_body::<At>(&body).and_then(|at| api::eval(&at)))
}

/// Checks a search request and makes its engine.
fn prepare(
    lab: &Lab,
    req: &SearchRequest,
) -> Result<(crate::core::Game, Box<dyn crate::engine::Engine>), ApiError> {
    req.check()?;
    let game = req.game()?;
    if let Some(end) = crate::driver::rules_end(&game) {
        return Err(ApiError::bad(format!("the game is over: {}", end.reason)));
    }
    let engine = lab.makers.engine(&req.engine, req.elo)?;
    Ok((game, engine))
}

async fn analyse(State(lab): State<Arc<Lab>>, body: Bytes) -> Response {
    let result = async {
        let req: SearchRequest = api::parse_body(&body)?;
        let (game, mut engine) = prepare(&lab, &req)?;
        let stop = Arc::new(AtomicBool::new(false));
        let _guard = StopOnDrop(stop.clone());
        let limits = req.limits(engine.as_ref(), stop);
        blocking(&lab, move || {
            let a = engine.analyse(&game, &limits);
            let mut v = api::analysis_json(game.position(), &a);
            v["engine"] = json!(engine.name());
            Ok(v)
        })
        .await
    }
    .await;
    reply(result)
}

/// `GET /api/search?...`: the search as server-sent events, `info` for each iteration, then
/// `done` with the final analysis (or `error`).
async fn search(
    State(lab): State<Arc<Lab>>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> Response {
    let prepared = SearchRequest::from_query(&pairs)
        .and_then(|req| prepare(&lab, &req).map(|(g, e)| (req, g, e)));
    let (req, game, mut engine) = match prepared {
        Ok(p) => p,
        Err(e) => return error_response(&e),
    };
    let permit = match lab.permit().await {
        Ok(p) => p,
        Err(e) => return error_response(&e),
    };
    let stop = Arc::new(AtomicBool::new(false));
    let limits = req.limits(engine.as_ref(), stop.clone());
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<Event, Infallible>>(256);
    // Watches for the page going away while the search runs (no report may come for a while).
    let weak = tx.downgrade();
    let watch_stop = stop.clone();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_millis(100)).await;
            match weak.upgrade() {
                None => break,
                Some(tx) if tx.is_closed() => {
                    watch_stop.store(true, Ordering::Relaxed);
                    break;
                }
                Some(_) => {}
            }
        }
    });
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let pos = game.position().clone();
        let name = engine.name();
        let send = |event: &str, data: Value| {
            let e = Event::default().event(event).data(data.to_string());
            if tx.blocking_send(Ok(e)).is_err() {
                stop.store(true, Ordering::Relaxed);
            }
        };
        let a = engine.search(&game, &limits, &mut |r| {
            if let Report::Iteration(a) = r {
                let mut v = api::analysis_json(&pos, a);
                if let Some(o) = v.as_object_mut() {
                    o.remove("moves");
                }
                send("info", v);
            }
        });
        let mut v = api::analysis_json(&pos, &a);
        v["engine"] = json!(name);
        send("done", v);
    });
    Sse::new(ReceiverStream::new(rx))
        .keep_alive(KeepAlive::default())
        .into_response()
}

async fn tree(State(lab): State<Arc<Lab>>, body: Bytes) -> Response {
    let result = async {
        let req: TreeRequest = api::parse_body(&body)?;
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
                        api::MAX_TREE_NODES,
                    )?))
                })
                .await?;
                lab.keep_tree(key, tree.clone());
                tree
            }
        };
        api::tree_json(&tree, node)
    }
    .await;
    reply(result)
}

async fn ladder(State(lab): State<Arc<Lab>>, body: Bytes) -> Response {
    let result = async {
        let req: LadderRequest = api::parse_body(&body)?;
        let (game, depth, movetime) = req.check()?;
        let stop = Arc::new(AtomicBool::new(false));
        let _guard = StopOnDrop(stop.clone());
        let makers = lab.makers.clone();
        blocking(&lab, move || {
            api::ladder(&makers, &game, depth, movetime, &stop)
        })
        .await
    }
    .await;
    reply(result)
}

async fn not_found() -> Response {
    error_response(&ApiError {
        status: 404,
        message: "no such page or endpoint (the API is listed in the README, \"The Lab\")".into(),
    })
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

fn router(lab: Arc<Lab>) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", INDEX_HTML) }),
        )
        .route(
            "/app.js",
            get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }),
        )
        .route(
            "/app.css",
            get(|| async { asset("text/css; charset=utf-8", APP_CSS) }),
        )
        .route("/favicon.ico", get(|| async { StatusCode::NO_CONTENT }))
        .merge(assets::routes())
        .route("/api/engines", get(engines))
        .route("/api/position", post(position))
        .route("/api/play", post(play))
        .route("/api/eval", post(eval))
        .route("/api/analyse", post(analyse))
        .route("/api/search", get(search))
        .route("/api/tree", post(tree))
        .route("/api/ladder", post(ladder))
        .route("/api/steps", post(steps::handler))
        .route("/api/heatmap", post(heatmap::handler))
        .route("/api/review", post(review::handler))
        .route("/api/tournament", post(tournament::handler))
        .route(
            "/api/tournament/reference",
            get(tournament::reference_handler),
        )
        .fallback(not_found)
        .with_state(lab)
}

/// A running Lab server.
pub struct Server {
    pub addr: SocketAddr,
    pub thread: std::thread::JoinHandle<()>,
}

/// Binds `host:port` (port 0: any free one) and serves the Lab on a thread of its own.
pub fn start(host: &str, port: u16, makers: Makers) -> Result<Server, Error> {
    let listener = std::net::TcpListener::bind((host, port))
        .map_err(|e| Error::Invalid(format!("cannot listen on {host}:{port}: {e}")))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| Error::Invalid(format!("cannot listen on {host}:{port}: {e}")))?;
    let addr = listener
        .local_addr()
        .map_err(|e| Error::Invalid(format!("cannot listen on {host}:{port}: {e}")))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(MAX_SEARCHES + 4)
        .enable_all()
        .build()
        .map_err(|e| Error::Invalid(format!("cannot start the server: {e}")))?;
    let lab = Arc::new(Lab {
        makers,
        searches: Arc::new(Semaphore::new(MAX_SEARCHES)),
        trees: Mutex::new(VecDeque::new()),
    });
    let thread = std::thread::spawn(move || {
        runtime.block_on(async move {
            match tokio::net::TcpListener::from_std(listener) {
                Ok(listener) => {
                    if let Err(e) = axum::serve(listener, router(lab)).await {
                        eprintln!("error: the Lab server stopped: {e}");
                    }
                }
                Err(e) => eprintln!("error: cannot listen: {e}"),
            }
        });
    });
    Ok(Server { addr, thread })
}
