//! Long jobs (a game review, a tournament) answer either with server-sent events as they go, for
//! a request that accepts `text/event-stream`, or with one JSON value at the end. Either way the
//! job holds one search slot on a blocking thread and stops when its client goes away.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::Value;
use tokio_stream::wrappers::ReceiverStream;

use super::reply::{ApiError, error_response, reply};
use super::state::{Lab, StopOnDrop};

/// Where a job tells what it did: an event stream, or nowhere (the JSON answer comes at the end).
pub struct Emitter {
    tx: Option<tokio::sync::mpsc::Sender<Result<Event, Infallible>>>,
    /// Raised when the client went away (or the job must stop): the job checks it between steps
    /// and hands it to its searches.
    pub stop: Arc<AtomicBool>,
}

impl Emitter {
    /// An emitter nobody listens to (a job run for its final value alone).
    pub fn silent() -> Emitter {
        Emitter {
            tx: None,
            stop: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Sends an event; false once nobody listens any more. The data goes through a JSON value,
    /// so its object keys come out in the one (sorted) order every answer has.
    pub fn send(&self, event: &str, data: &impl Serialize) -> bool {
        let Some(tx) = &self.tx else {
            return !self.stopped();
        };
        let data = serde_json::to_value(data).unwrap_or(Value::Null);
        let e = Event::default().event(event).data(data.to_string());
        if tx.blocking_send(Ok(e)).is_err() {
            self.stop.store(true, Ordering::Relaxed);
            return false;
        }
        true
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Why a job started at `started` must stop now, if it must: its client went away, or it
    /// has run past `limit` (told as `limit_reason`).
    pub fn halt(
        &self,
        started: Instant,
        limit: Duration,
        limit_reason: &'static str,
    ) -> Option<&'static str> {
        if self.stopped() {
            Some("the client went away")
        } else if started.elapsed() > limit {
            Some(limit_reason)
        } else {
            None
        }
    }
}

/// Raises `stop` once the event stream's client has gone away, checking every 100 ms (no event
/// may come for a while, so a failed send alone would notice too late). The watch ends by
/// itself when the stream ends.
pub fn stop_when_closed(
    tx: &tokio::sync::mpsc::Sender<Result<Event, Infallible>>,
    stop: Arc<AtomicBool>,
) {
    let weak = tx.downgrade();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_millis(100)).await;
            match weak.upgrade() {
                None => break,
                Some(tx) if tx.is_closed() => {
                    stop.store(true, Ordering::Relaxed);
                    break;
                }
                Some(_) => {}
            }
        }
    });
}

/// True when the request asks for server-sent events.
pub fn wants_events(headers: &HeaderMap) -> bool {
    headers
        .get_all(axum::http::header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.contains("text/event-stream"))
}

/// Runs `job` holding a search slot: as a stream of its events (`done` with the final value, or
/// `error`) when `events`, else as one JSON answer.
pub async fn run(
    lab: &Arc<Lab>,
    events: bool,
    job: impl FnOnce(&Emitter) -> Result<Value, ApiError> + Send + 'static,
) -> Response {
    let permit = match lab.permit().await {
        Ok(p) => p,
        Err(e) => return error_response(&e),
    };
    run_holding(Some(permit), events, Arc::new(AtomicBool::new(false)), job).await
}

/// Runs `job` as `run` does, holding `permit` (if any) until it ends, with `stop` as its flag:
/// raised when its client goes away, and by anyone else who holds it.
pub async fn run_holding(
    permit: Option<tokio::sync::OwnedSemaphorePermit>,
    events: bool,
    stop: Arc<AtomicBool>,
    job: impl FnOnce(&Emitter) -> Result<Value, ApiError> + Send + 'static,
) -> Response {
    if !events {
        // A request dropped by its client drops this future, and the guard stops the job.
        let _guard = StopOnDrop(stop.clone());
        let emitter = Emitter {
            tx: None,
            stop: stop.clone(),
        };
        let result = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            job(&emitter)
        })
        .await
        .unwrap_or_else(|_| {
            Err(ApiError {
                status: 500,
                message: "the job failed (a bug; please report it)".into(),
            })
        });
        return reply(result);
    }
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<Event, Infallible>>(64);
    // Watches for the page going away while the job runs (no event may come for a while).
    stop_when_closed(&tx, stop.clone());
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let emitter = Emitter { tx: Some(tx), stop };
        match job(&emitter) {
            Ok(v) => emitter.send("done", &v),
            Err(e) => emitter.send("error", &e.json()),
        };
    });
    Sse::new(ReceiverStream::new(rx))
        .keep_alive(KeepAlive::default())
        .into_response()
}
