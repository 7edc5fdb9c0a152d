//! The handlers of the Play and Watch views: the position and a move played on it, the engine
//! list and the server's health, and the searches: `POST /api/analyse` answered when it ends,
//! `GET /api/search` streamed as server-sent events, one `info` an iteration. A search stops when
//! its client goes away (a closed tab ends its stream).

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio_stream::wrappers::ReceiverStream;

use super::api::{self, At, PlayRequest, SearchRequest};
use super::events;
use super::reply::{ApiError, FAILED, error_response, parse_body, reply};
use super::state::{Lab, MAX_SEARCHES, StopOnDrop, blocking};
use crate::core::Game;
use crate::driver::rules_end;
use crate::engine::{Engine, Report};

/// `GET /api/health`: the server answers, and how many searches run.
pub async fn health(State(lab): State<Arc<Lab>>) -> Response {
    let running = lab.running();
    axum::Json(json!({ "ok": true, "searches": running, "max_searches": MAX_SEARCHES }))
        .into_response()
}

/// `GET /api/engines`.
pub async fn engines() -> Response {
    axum::Json(api::engines()).into_response()
}

/// `POST /api/position`.
pub async fn position(body: Bytes) -> Response {
    reply(parse_body::<At>(&body).and_then(|at| Ok(api::position_json(&at.game()?))))
}

/// `POST /api/play`.
pub async fn play(body: Bytes) -> Response {
    reply(parse_body::<PlayRequest>(&body).and_then(|r| api::play(&r)))
}

/// Checks a search request and makes its engine.
fn prepare(lab: &Lab, req: &SearchRequest) -> Result<(Game, Box<dyn Engine>), ApiError> {
    req.check()?;
    let game = req.game()?;
    if let Some(end) = rules_end(&game) {
        return Err(ApiError::bad(format!("the game is over: {}", end.reason)));
    }
    let engine = lab.makers.engine(&req.engine, req.elo)?;
    Ok((game, engine))
}

/// `POST /api/analyse`: one search, answered when it ends.
pub async fn analyse(State(lab): State<Arc<Lab>>, body: Bytes) -> Response {
    let result = async {
        let req: SearchRequest = parse_body(&body)?;
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
pub async fn search(
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
