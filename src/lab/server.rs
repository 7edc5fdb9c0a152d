//! The HTTP server and the guard every request passes: a body over `ServerLimits::max_body` is
//! refused with 413, one that does not arrive in `body_timeout` with 408, headers that do not
//! arrive in `header_timeout` close the connection, and a handler that panics (a bug) answers 500
//! while the server and every other request go on. Every error, whoever raised it (a handler,
//! axum's extractors, the router's 405), reaches the client as JSON `{"error": "..."}`. The Lab's
//! routes are one app served here; tests serve others through the same guard.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use serde_json::json;
use tokio_stream::StreamExt;

use super::reply::{ApiError, error_response};
use super::state::MAX_SEARCHES;
use crate::error::Error;

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
        Err(()) => error_response(&ApiError::failed()),
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
