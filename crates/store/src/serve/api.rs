//! The JSON API under `/api/`: each route reads its page's query, runs the
//! page's data function on a blocking thread (the store's calls block) and
//! writes the result as JSON, or CSV with `?format=csv`. Errors are JSON
//! `{"error": "..."}` with a 4xx or 5xx status; a store failure is logged
//! on the server's stderr and answered without its text (no SQL, no store
//! address).

use super::data::compare::{compare, CompareQuery};
use super::data::history::{history, HistoryQuery};
use super::data::run::{run, RunQuery};
use super::data::runs::{runs, RunsQuery};
use super::data::systems::{systems, SystemsQuery};
use super::data::{Answer, DataError, Page, Reader};
use crate::store::query::filters::Visible;
use axum::extract::{Extension, Path, RawQuery, State};
use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use bytes::Bytes;
use std::sync::Arc;

/// How an answer is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// JSON (the default).
    Json,
    /// CSV, as a download.
    Csv,
}

impl Format {
    /// The `format` parameter of `query`: `json` (or none) or `csv`.
    pub fn of(query: &str) -> Result<Format, DataError> {
        let mut formats = form_urlencoded::parse(query.as_bytes()).filter(|(k, _)| k == "format");
        match formats.next().as_ref().map(|(_, v)| v.as_ref()) {
            None | Some("json") | Some("") => Ok(Format::Json),
            Some("csv") => Ok(Format::Csv),
            Some(other) => Err(DataError::bad("format", other, "pass json or csv")),
        }
    }
}

/// The routes of the API, over `reader`.
pub fn routes(reader: Arc<Reader>) -> Router {
    Router::new()
        .route("/api/systems", get(systems_route))
        .route("/api/runs", get(runs_route))
        .route("/api/runs/{id}", get(run_route))
        .route("/api/runs/{id}/archive", get(archive_route))
        .route("/api/compare", get(compare_route))
        .route("/api/history", get(history_route))
        .with_state(reader)
}

async fn systems_route(
    State(reader): State<Arc<Reader>>,
    Extension(seen): Extension<Visible>,
    uri: Uri,
    RawQuery(query): RawQuery,
) -> Response {
    answer(reader.seen_by(seen), uri, query, "systems", |r, q| systems(r, &SystemsQuery::parse(q)?)).await
}

async fn runs_route(
    State(reader): State<Arc<Reader>>,
    Extension(seen): Extension<Visible>,
    uri: Uri,
    RawQuery(query): RawQuery,
) -> Response {
    answer(reader.seen_by(seen), uri, query, "runs", |r, q| runs(r, &RunsQuery::parse(q)?)).await
}

async fn run_route(
    State(reader): State<Arc<Reader>>,
    Extension(seen): Extension<Visible>,
    uri: Uri,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    answer(reader.seen_by(seen), uri, query, "run", move |r, q| run(r, &RunQuery::parse(&id, q)?)).await
}

async fn compare_route(
    State(reader): State<Arc<Reader>>,
    Extension(seen): Extension<Visible>,
    uri: Uri,
    RawQuery(query): RawQuery,
) -> Response {
    answer(reader.seen_by(seen), uri, query, "compare", |r, q| compare(r, &CompareQuery::parse(q)?)).await
}

async fn history_route(
    State(reader): State<Arc<Reader>>,
    Extension(seen): Extension<Visible>,
    uri: Uri,
    RawQuery(query): RawQuery,
) -> Response {
    answer(reader.seen_by(seen), uri, query, "history", |r, q| history(r, &HistoryQuery::parse(q)?, None)).await
}

/// The run's folder as a gzipped tar (`mlb db pull` reads it): its report
/// files as stored, its documents and `system.json`.
async fn archive_route(
    State(reader): State<Arc<Reader>>,
    Extension(seen): Extension<Visible>,
    Path(id): Path<String>,
) -> Response {
    let Ok(id) = id.parse::<i64>() else {
        return data_error(&DataError::bad("id", &id, "pass the id of a run the runs page lists"));
    };
    let reader = reader.seen_by(seen);
    let packed =
        tokio::task::spawn_blocking(move || crate::collect::stored::archive_of(reader.store(), id, reader.visible()))
            .await;
    match packed {
        Ok(Ok(Some(bytes))) => {
            let disposition = format!("attachment; filename=\"run-{id}.tar.gz\"");
            (
                [(header::CONTENT_TYPE, "application/gzip".to_string()), (header::CONTENT_DISPOSITION, disposition)],
                bytes,
            )
                .into_response()
        }
        Ok(Ok(None)) => data_error(&DataError::NoRun { id }),
        Ok(Err(e)) => data_error(&DataError::Store(e)),
        Err(e) => internal(&format!("the archive of run {id} stopped: {e}")),
    }
}

/// Runs `page` (the page's data from its query string) on a blocking
/// thread and writes what it gives in the format asked (an answer to the
/// same address `uri` for the same reader of the last moment, the store
/// unchanged, is given again, [`super::data::shared`]); `name` names the
/// CSV file.
async fn answer<P: Page + Send + 'static>(
    reader: Reader,
    uri: Uri,
    query: Option<String>,
    name: &'static str,
    page: impl Fn(&Reader, &str) -> Result<P, DataError> + Send + 'static,
) -> Response {
    let query = query.unwrap_or_default();
    let format = match Format::of(&query) {
        Ok(f) => f,
        Err(e) => return data_error(&e),
    };
    let done = tokio::task::spawn_blocking(move || {
        let write = || {
            let data = page(&reader, &query).map_err(|e| Box::new(data_error(&e)))?;
            let (body, kind) = match format {
                Format::Json => (serde_json::to_vec(&data), "application/json"),
                Format::Csv => (Ok(data.csv().into_bytes()), "text/csv; charset=utf-8"),
            };
            let body =
                body.map_err(|why| Box::new(internal(&format!("cannot write the {name} page as JSON: {why}"))))?;
            Ok::<Answer, Box<Response>>((StatusCode::OK.as_u16(), kind, Arc::from(body)))
        };
        reader.answers().get(&format!("{:?} {uri}", reader.visible()), &reader.generation(), false, write)
    })
    .await;
    match done {
        Ok(Ok((_, kind, body))) => {
            let mut response =
                (StatusCode::OK, [(header::CONTENT_TYPE, kind)], Bytes::from_owner(body)).into_response();
            if format == Format::Csv {
                let disposition = format!("attachment; filename=\"{name}.csv\"");
                if let Ok(value) = disposition.parse() {
                    response.headers_mut().insert(header::CONTENT_DISPOSITION, value);
                }
            }
            response
        }
        Ok(Err(response)) => *response,
        Err(e) => internal(&format!("the {name} page's work stopped: {e}")),
    }
}

/// The answer to `error`: 400 for the request's fault, 404 for what the
/// store does not hold, 500 (logged, not echoed) for the store's failure.
pub fn data_error(error: &DataError) -> Response {
    if let DataError::Store(e) = error {
        return internal(&e.to_string());
    }
    let status = if error.is_not_found() { StatusCode::NOT_FOUND } else { StatusCode::BAD_REQUEST };
    error_response(status, &error.to_string())
}

/// A 500 answer: `why` goes to the server's stderr (the store's address
/// with its password written as `***`), the client reads a plain sentence.
fn internal(why: &str) -> Response {
    mlb_run::console::Console::Err.line(&format!("mlb serve: {why}"));
    error_response(StatusCode::INTERNAL_SERVER_ERROR, "the server failed to answer; its log says why")
}

/// `{"error": message}` with `status`.
pub fn error_response(status: StatusCode, message: &str) -> Response {
    (status, axum::Json(serde_json::json!({ "error": message }))).into_response()
}
