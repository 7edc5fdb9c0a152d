//! The page's scripts for the teaching views, one file a view (the page itself, `app.js` and
//! `app.css` are served by `lab`): each embedded in the binary and served with its content type.

use std::sync::Arc;

use axum::routing::{MethodRouter, get};

use super::{Lab, asset};

const SCRIPTS: &[(&str, &str)] = &[
    ("/tree.js", include_str!("page/tree.js")),
    ("/steps.js", include_str!("page/steps.js")),
    ("/tournament.js", include_str!("page/tournament.js")),
    ("/review.js", include_str!("page/review.js")),
];

/// The routes of the scripts above, as (path, handler) pairs for the server's route table.
pub(super) fn routes() -> Vec<(&'static str, MethodRouter<Arc<Lab>>)> {
    SCRIPTS
        .iter()
        .map(|&(path, body)| {
            let handler: MethodRouter<Arc<Lab>> =
                get(move || async move { asset("text/javascript; charset=utf-8", body) });
            (path, handler)
        })
        .collect()
}
