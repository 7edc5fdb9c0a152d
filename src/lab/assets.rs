//! The page: its HTML, stylesheet and scripts (`app.js`, then one script a teaching view), each
//! embedded in the binary and served with its content type and `no-cache`, so a rebuilt binary
//! serves the page it was built with.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get};

/// Every file of the page: path, content type, text.
const FILES: &[(&str, &str, &str)] = &[
    (
        "/",
        "text/html; charset=utf-8",
        include_str!("page/index.html"),
    ),
    (
        "/app.js",
        "text/javascript; charset=utf-8",
        include_str!("page/app.js"),
    ),
    (
        "/app.css",
        "text/css; charset=utf-8",
        include_str!("page/app.css"),
    ),
    (
        "/tree.js",
        "text/javascript; charset=utf-8",
        include_str!("page/tree.js"),
    ),
    (
        "/steps.js",
        "text/javascript; charset=utf-8",
        include_str!("page/steps.js"),
    ),
    (
        "/tournament.js",
        "text/javascript; charset=utf-8",
        include_str!("page/tournament.js"),
    ),
    (
        "/review.js",
        "text/javascript; charset=utf-8",
        include_str!("page/review.js"),
    ),
    (
        "/train.js",
        "text/javascript; charset=utf-8",
        include_str!("page/train.js"),
    ),
];

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

/// The page's routes, as (path, handler) pairs for the server's route table: the files above,
/// and an empty favicon.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Vec<(&'static str, MethodRouter<S>)> {
    let mut out: Vec<(&'static str, MethodRouter<S>)> = FILES
        .iter()
        .map(|&(path, content_type, body)| {
            let handler: MethodRouter<S> = get(move || async move { asset(content_type, body) });
            (path, handler)
        })
        .collect();
    out.push(("/favicon.ico", get(|| async { StatusCode::NO_CONTENT })));
    out
}
