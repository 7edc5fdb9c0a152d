//! Errors and answers, apart from HTTP routing: `ApiError` (a status and a sentence for the user),
//! the JSON reply every handler ends with, request bodies parsed with their mistakes in words,
//! and the range check every bounded setting passes. Every file of the Lab answers through here,
//! so every error reaches the client as `{"error": "..."}`.

use std::fmt::Display;
use std::ops::RangeInclusive;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::error::Error;

/// What a request that met a bug (a panic) is told.
pub const FAILED: &str =
    "the server failed on this request (a bug; please report it); other requests are not affected";

/// A request the server refuses: HTTP status and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: u16,
    pub message: String,
}

impl ApiError {
    pub fn bad(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 400,
            message: message.into(),
        }
    }

    pub fn busy(running: usize) -> ApiError {
        ApiError {
            status: 503,
            message: format!(
                "the server is busy: {running} searches are running, the most it allows at once; try again in a moment"
            ),
        }
    }

    /// A bug met while answering (a panic), told as `FAILED`.
    pub fn failed() -> ApiError {
        ApiError {
            status: 500,
            message: FAILED.into(),
        }
    }

    pub fn json(&self) -> Value {
        json!({ "error": self.message })
    }
}

impl From<Error> for ApiError {
    fn from(e: Error) -> ApiError {
        ApiError::bad(e.to_string())
    }
}

pub type ApiResult = Result<Value, ApiError>;

/// Parses a JSON body into `T`, with the reason in words when it does not fit.
pub fn parse_body<T: for<'de> Deserialize<'de>>(body: &[u8]) -> Result<T, ApiError> {
    let body = if body.iter().all(u8::is_ascii_whitespace) {
        b"{}".as_slice()
    } else {
        body
    };
    serde_json::from_slice(body).map_err(|e| ApiError::bad(format!("bad request body: {e}")))
}

/// `value` when it lies in `range`; else the 400 "WHAT must be LOW to HIGH\[UNIT\], got VALUE".
pub fn bounded<T: PartialOrd + Display>(
    what: &str,
    value: T,
    range: RangeInclusive<T>,
    unit: &str,
) -> Result<T, ApiError> {
    Error::bounded(what, value, range, unit).map_err(|e| ApiError::bad(e.to_string()))
}

/// The answer to a request: its JSON, or its error with the error's status.
pub fn reply(result: ApiResult) -> Response {
    match result {
        Ok(v) => axum::Json(v).into_response(),
        Err(e) => error_response(&e),
    }
}

pub fn error_response(e: &ApiError) -> Response {
    let status = StatusCode::from_u16(e.status).unwrap_or(StatusCode::BAD_REQUEST);
    (status, axum::Json(e.json())).into_response()
}

/// The answer to a path that is no route.
pub async fn not_found() -> Response {
    error_response(&ApiError {
        status: 404,
        message: "no such page or endpoint (the API is listed in docs/lab.md, \"The JSON API\")"
            .into(),
    })
}
