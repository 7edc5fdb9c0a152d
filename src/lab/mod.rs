//! Rookery Lab (`rookery serve`): a local web application to play, watch and take apart every
//! engine. One binary: an HTTP server (axum on tokio) with the page (HTML, CSS, JS) embedded, and
//! a JSON API under `/api/` that the page uses and scripts can use too (docs/lab.md, "The JSON
//! API").
//!
//! Searches run on blocking threads, at most `MAX_SEARCHES` at once (a request waits up to two
//! seconds for a turn, then gets 503); each is bounded in time and nodes (`api::MAX_*`) and stops
//! when its client goes away (a closed tab ends its stream). The cheap endpoints never wait for
//! a search slot, so they answer while the searches are saturated. Every request passes one
//! guard (`server.rs`): bodies and headers bounded, a handler's panic answered 500, every error
//! JSON, bad input a 4xx, never a 5xx.
//!
//! The files, each a part of one kind: `state` (engines, search slots, the tree cache), `server`
//! (listening and the guard), `reply` (errors and JSON answers), `routes` (the one route table and
//! `start`), `assets` (the page's files), `events` (long jobs streamed), and one file a view with
//! its handlers: `play` (Play and Watch), `api` (the board's requests and answers), `tree`,
//! `steps`, `tournament`, `ladder`, `heatmap` (Evaluation), `review` and `train` (Train a net,
//! with the nets it keeps in `kept`). Views import what they share from those files, never from
//! this one.

pub mod api;
mod assets;
mod events;
pub mod heatmap;
pub mod kept;
pub mod ladder;
mod play;
pub mod reply;
pub mod review;
mod routes;
mod server;
mod state;
pub mod steps;
pub mod tournament;
pub mod train;
pub mod tree;

pub use routes::{paths, start, start_with};
pub use server::{MAX_BODY, Server, ServerLimits, serve};
pub use state::MAX_SEARCHES;
