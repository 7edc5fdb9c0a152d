//! Rookery Lab (`rookery serve`): a local web application to play, watch and take apart every
//! engine. One binary: an HTTP server (axum on tokio) with the page (HTML, CSS, JS) embedded, and
//! a JSON API under `/api/` that the page uses and scripts can use too (README, "The Lab").
//!
//! Searches run on blocking threads, at most `MAX_SEARCHES` at once (a request waits up to two
//! seconds for a turn, then gets 503); each is bounded in time and nodes (`api::MAX_*`) and stops
//! when its client goes away (a closed tab ends its stream). The cheap endpoints never wait for
//! a search slot, so they answer while the searches are saturated.
//!
//! Every request passes one guard (`guard`): a body over `ServerLimits::max_body` is refused
//! with 413, one that does not arrive in `body_timeout` with 408, headers that do not arrive in
//! `header_timeout` close the connection, and a handler that panics (a bug) answers 500 while
//! the server and every other request go on. Every error, whoever raised it (a handler, axum's
//! extractors, the router's 405), reaches the client as JSON `{"error": "..."}`; bad input is a
//! 4xx, never a 5xx. The routes are one table (`routes`), so the load test walks every one.

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

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Query, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get, post};
use serde_json::{Value, json};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;

use crate::engine::Report;
use crate::error::Error;
use crate::tree::Tree;
use api::{
    ApiError, ApiResult, At, LadderRequest, Makers, PlayRequest, SearchRequest, TreeRequest,
};

/// Searches (analyses, streams, trees, ladders) running at once.
pub const MAX_SEARCHES: usize = 2;
/// The largest request body the server reads (a game of a thousand moves is about 6 kB).
pub const MAX_BODY: usize = 1 << 20;

/// What the server allows one request.
#[derive(Clone, Copy, Debug)]
pub struct ServerLimits {
    /// The most bytes a request body may have (413 above).
    pub max_body: usize,
    /// How long a request's headers may take to arrive, and an idle connection may stay open.
    pub header_timeout: Duration,
    /// How long a request's body may take to arrive (408 after).
    pub body_timeout: Duration,
}

impl Default for ServerLimits {
    fn default() -> Self {
        ServerLimits {
            max_body: MAX_BODY,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
        }
    }
}
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
            message: FAILED.into(),
        })
    })
}

/// What a request that met a bug (a panic) is told.
const FAILED: &str =
    "the server failed on this request (a bug; please report it); other requests are not affected";

/// `GET /api/health`: the server answers, and how many searches run.
async fn health(State(lab): State<Arc<Lab>>) -> Response {
    let running = MAX_SEARCHES - lab.searches.available_permits().min(MAX_SEARCHES);
    axum::Json(json!({ "ok": true, "searches": running, "max_searches": MAX_SEARCHES }))
        .into_response()
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
    events::stop_when_closed(&tx, stop.clone());
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let pos = game.position().clone();
        let name = engine.name();
        // A client that does not read (its connection full) neither holds the search nor
        // grows the queue: progress it cannot take is dropped, and the final answer waits for
        // it ten seconds at most.
        let info = |data: Value| {
            let e = Event::default().event("info").data(data.to_string());
            if let Err(tokio::sync::mpsc::error::TrySendError::Closed(_)) = tx.try_send(Ok(e)) {
                stop.store(true, Ordering::Relaxed);
            }
        };
        let last = |event: &str, data: Value| {
            let mut e = Ok(Event::default().event(event).data(data.to_string()));
            for _ in 0..1000 {
                match tx.try_send(e) {
                    Ok(()) | Err(tokio::sync::mpsc::error::TrySendError::Closed(_)) => return,
                    Err(tokio::sync::mpsc::error::TrySendError::Full(back)) => e = back,
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        };
        let searched = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            engine.search(&game, &limits, &mut |r| {
                if let Report::Iteration(a) = r {
                    let mut v = api::analysis_json(&pos, a);
                    if let Some(o) = v.as_object_mut() {
                        o.remove("moves");
                    }
                    info(v);
                }
            })
        }));
        match searched {
            Ok(a) => {
                let mut v = api::analysis_json(&pos, &a);
                v["engine"] = json!(name);
                last("done", v);
            }
            Err(_) => last("error", json!({ "error": FAILED })),
        }
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

/// Every route, path and handlers: the router is made from this table alone, so `paths` lists
/// every route there is (the load test walks them all).
fn routes() -> Vec<(&'static str, MethodRouter<Arc<Lab>>)> {
    vec![
        (
            "/",
            get(|| async { asset("text/html; charset=utf-8", INDEX_HTML) }),
        ),
        (
            "/app.js",
            get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }),
        ),
        (
            "/app.css",
            get(|| async { asset("text/css; charset=utf-8", APP_CSS) }),
        ),
        ("/favicon.ico", get(|| async { StatusCode::NO_CONTENT })),
        ("/api/health", get(health)),
        ("/api/engines", get(engines)),
        ("/api/position", post(position)),
        ("/api/play", post(play)),
        ("/api/eval", post(eval)),
        ("/api/analyse", post(analyse)),
        ("/api/search", get(search)),
        ("/api/tree", post(tree)),
        ("/api/ladder", post(ladder)),
        ("/api/steps", post(steps::handler)),
        ("/api/heatmap", post(heatmap::handler)),
        ("/api/review", post(review::handler)),
        ("/api/tournament", post(tournament::handler)),
        (
            "/api/tournament/reference",
            get(tournament::reference_handler),
        ),
    ]
    .into_iter()
    .chain(assets::routes())
    .collect()
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

/// A future that turns a panic while it is polled into `Err`.
struct CatchPanic<F>(Pin<Box<F>>);

impl<F: Future> Future for CatchPanic<F> {
    type Output = Result<F::Output, ()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.get_mut().0.as_mut();
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(_) => Poll::Ready(Err(())),
        }
    }
}

fn too_large(max: usize) -> ApiError {
    ApiError {
        status: 413,
        message: format!("the request body is larger than the {max} bytes the server reads"),
    }
}

/// A body larger than the limit is still read, and dropped, up to this many times the limit:
/// a connection closed with data unread is reset, and the client would lose the 413.
const DRAIN_FACTOR: usize = 16;

/// Reads a body of at most `max` bytes; a larger one is drained (see `DRAIN_FACTOR`) and
/// refused.
async fn read_body(body: Body, max: usize) -> Result<Bytes, ApiError> {
    let mut stream = body.into_data_stream();
    let mut buf = Vec::new();
    let mut seen = 0usize;
    while let Some(chunk) = stream.next().await {
        let chunk =
            chunk.map_err(|e| ApiError::bad(format!("the request body could not be read: {e}")))?;
        seen = seen.saturating_add(chunk.len());
        if seen > max.saturating_mul(DRAIN_FACTOR) {
            break;
        }
        if seen <= max {
            buf.extend_from_slice(&chunk);
        }
    }
    if seen > max {
        return Err(too_large(max));
    }
    Ok(Bytes::from(buf))
}

/// Every request passes here: its body read within the limits, its handler's panic caught, and
/// an error answer that is not JSON (from axum's extractors or the router) made JSON.
async fn guard(State(limits): State<ServerLimits>, req: Request, next: Next) -> Response {
    let (parts, body) = req.into_parts();
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > (limits.max_body as u64).saturating_mul(DRAIN_FACTOR as u64)) {
        return error_response(&too_large(limits.max_body));
    }
    let bytes =
        match tokio::time::timeout(limits.body_timeout, read_body(body, limits.max_body)).await {
            Ok(Ok(b)) => b,
            Ok(Err(e)) => return error_response(&e),
            Err(_) => {
                return error_response(&ApiError {
                    status: 408,
                    message: format!(
                        "the request body did not arrive within {} s",
                        limits.body_timeout.as_secs_f64()
                    ),
                });
            }
        };
    let req = Request::from_parts(parts, Body::from(bytes));
    let response = match CatchPanic(Box::pin(next.run(req))).await {
        Ok(r) => r,
        Err(()) => error_response(&ApiError {
            status: 500,
            message: FAILED.into(),
        }),
    };
    json_errors(response).await
}

/// An error answer with a body that is not JSON, made `{"error": "..."}`.
async fn json_errors(response: Response) -> Response {
    let status = response.status();
    let json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || json {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let text = read_body(body, 4096)
        .await
        .ok()
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .filter(|t| !t.is_empty());
    let message = match (status, parts.headers.get(header::ALLOW)) {
        (StatusCode::METHOD_NOT_ALLOWED, Some(allow)) => format!(
            "this endpoint does not take that method; it takes {}",
            allow.to_str().unwrap_or("others")
        ),
        _ => text.unwrap_or_else(|| {
            status
                .canonical_reason()
                .unwrap_or("the request failed")
                .to_lowercase()
        }),
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    Response::from_parts(parts, Body::from(json!({ "error": message }).to_string()))
}

/// A running Lab server.
pub struct Server {
    pub addr: SocketAddr,
    pub thread: std::thread::JoinHandle<()>,
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
    let lab = Arc::new(Lab {
        makers,
        searches: Arc::new(Semaphore::new(MAX_SEARCHES)),
        trees: Mutex::new(VecDeque::new()),
    });
    serve(router(lab), host, port, limits)
}

/// Serves `app` behind the guard every Lab request passes (limits on bodies and headers, panics
/// caught, errors as JSON) on `host:port`, on a thread of its own. The Lab's own routes are one
/// such app; tests serve others through the same guard.
pub fn serve(app: Router, host: &str, port: u16, limits: ServerLimits) -> Result<Server, Error> {
    let cannot = |e: std::io::Error| Error::Invalid(format!("cannot listen on {host}:{port}: {e}"));
    let listener = std::net::TcpListener::bind((host, port)).map_err(cannot)?;
    listener.set_nonblocking(true).map_err(cannot)?;
    let addr = listener.local_addr().map_err(cannot)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(MAX_SEARCHES + 4)
        .enable_all()
        .build()
        .map_err(|e| Error::Invalid(format!("cannot start the server: {e}")))?;
    // Around the whole app (a layer on `app` itself would sit inside each route, before the
    // router adds its `Allow` header to a 405).
    let app = Router::new()
        .fallback_service(app)
        .layer(axum::middleware::from_fn_with_state(limits, guard));
    let thread = std::thread::spawn(move || {
        runtime.block_on(async move {
            match tokio::net::TcpListener::from_std(listener) {
                Ok(listener) => accept(listener, app, limits).await,
                Err(e) => eprintln!("error: cannot listen: {e}"),
            }
        });
    });
    Ok(Server { addr, thread })
}

/// Accepts connections for ever, each served on a task of its own (HTTP/1.1 with keep-alive),
/// with a deadline for each request's headers. A failed accept (out of file descriptors, say)
/// waits a moment and goes on.
async fn accept(listener: tokio::net::TcpListener, app: Router, limits: ServerLimits) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    use hyper_util::service::TowerToHyperService;
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(TokioTimer::new())
                .header_read_timeout(limits.header_timeout);
            // A connection that fails (reset, timed out) ends alone.
            let _ = http.serve_connection(TokioIo::new(stream), service).await;
        });
    }
}
