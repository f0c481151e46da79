//! The pages' routes: `/` (to the systems), `/systems`, `/runs`,
//! `/runs/{id}`, `/compare`, `/history`, and the compiled-in scripts under
//! `/assets/`. Each page reads the same query string as its API answer
//! under `/api/` with the same data function, so that a page's URL is the
//! permalink of its filters and its figures are the API's.

use super::layout::{page, Frame, Section, Shown};
use super::{assets, compare, history, run, runs, systems};
use crate::serve::api::data_error;
use crate::serve::data::compare::{compare as compare_data, CompareQuery};
use crate::serve::data::history::{history as history_data, HistoryQuery, PAGE_POINTS};
use crate::serve::data::run::{run as run_data, RunQuery};
use crate::serve::data::runs::{runs as runs_data, RunsQuery};
use crate::serve::data::systems::{systems as systems_data, SystemsQuery};
use crate::serve::data::{Answer, DataError, Reader};
use crate::store::query::compare::system_names;
use crate::store::query::filters::Visible;
use axum::extract::{Extension, Path, RawQuery, State};
use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::Router;
use bytes::Bytes;
use std::sync::Arc;

/// The pages' routes, over `reader`.
pub fn routes(reader: Arc<Reader>) -> Router {
    Router::new()
        .route("/", get(|| async { Redirect::to(Section::Systems.path()) }))
        .route("/systems", get(systems_page))
        .route("/runs", get(runs_page))
        .route("/runs/{id}", get(run_page))
        .route("/compare", get(compare_page))
        .route("/history", get(history_page))
        .with_state(reader)
}

/// The routes open to anyone, token or not: the compiled-in scripts, and
/// a run shown by its share link (`/share/SECRET`, `mlb db share`).
pub fn open_routes(reader: Arc<Reader>) -> Router {
    Router::new().route("/assets/{name}", get(asset)).route("/share/{secret}", get(shared_page)).with_state(reader)
}

/// A page drawn: its status, title, part of the dashboard and content.
struct Drawn {
    status: StatusCode,
    title: String,
    section: Section,
    content: String,
}

impl Drawn {
    fn ok(title: impl Into<String>, section: Section, content: String) -> Drawn {
        Drawn { status: StatusCode::OK, title: title.into(), section, content }
    }
}

/// What a reader is told of `error`, and its status: the request's fault
/// (400), what the store does not hold (404), the store's failure (500,
/// its text only in the server's log).
fn told(error: &DataError) -> (StatusCode, String) {
    let status = data_error(error).status();
    let text =
        if error.is_store() { "The server failed to answer; its log says why.".into() } else { error.to_string() };
    (status, text)
}

/// Draws the page of the address `uri` on a blocking thread (the store's
/// calls block) and frames it; a page of the same address drawn a moment
/// ago, the store unchanged, is given again ([`crate::serve::data::shared`]).
async fn draw(reader: Reader, uri: Uri, work: impl Fn(&Reader) -> Drawn + Send + 'static) -> Response {
    const HTML: &str = "text/html; charset=utf-8";
    let drawn = tokio::task::spawn_blocking(move || {
        let framed = || {
            let drawn = work(&reader);
            let name = reader.store().location().to_string();
            let frame = Frame { title: &drawn.title, section: drawn.section, store: &name };
            Ok::<Answer, std::convert::Infallible>((
                drawn.status.as_u16(),
                HTML,
                Arc::from(page(&frame, &drawn.content).into_bytes()),
            ))
        };
        reader.answers().get(&format!("{:?} {uri}", reader.visible()), &reader.generation(), false, framed)
    })
    .await;
    match drawn {
        Ok(Ok((status, kind, body))) => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            (status, [(header::CONTENT_TYPE, kind)], Bytes::from_owner(body)).into_response()
        }
        Ok(Err(never)) => match never {},
        Err(e) => {
            let content = super::layout::empty(&format!("The page could not be drawn: {e}"));
            let frame = Frame { title: "Error", section: Section::Systems, store: "" };
            (StatusCode::INTERNAL_SERVER_ERROR, [(header::CONTENT_TYPE, HTML)], page(&frame, &content)).into_response()
        }
    }
}

/// A page whose query cannot be answered: the message, in the frame.
fn refused(error: &DataError, section: Section) -> Drawn {
    let (status, text) = told(error);
    Drawn { status, title: section.name().into(), section, content: super::layout::empty(&text) }
}

async fn asset(Path(name): Path<String>) -> Response {
    match assets::find(&format!("{}{name}", assets::PREFIX)) {
        Some(a) => (
            [
                (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
                (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
            ],
            a.body,
        )
            .into_response(),
        None => (StatusCode::NOT_FOUND, "no such asset").into_response(),
    }
}

/// The query's parameters as sent (the forms show them back as typed).
fn sent(query: &str) -> Vec<(String, String)> {
    form_urlencoded::parse(query.as_bytes()).into_owned().collect()
}

fn value<'a>(sent: &'a [(String, String)], name: &str) -> &'a str {
    sent.iter().find(|(k, _)| k == name).map_or("", |(_, v)| v.as_str())
}

/// The systems the store holds, for the pickers.
fn known(reader: &Reader) -> Result<Vec<String>, DataError> {
    Ok(system_names(reader.store(), reader.visible())?)
}

async fn systems_page(
    State(reader): State<Arc<Reader>>,
    Extension(seen): Extension<Visible>,
    uri: Uri,
    RawQuery(query): RawQuery,
) -> Response {
    let query = query.unwrap_or_default();
    draw(reader.seen_by(seen), uri, move |r| match SystemsQuery::parse(&query).and_then(|q| systems_data(r, &q)) {
        Ok(data) => Drawn::ok("Systems", Section::Systems, systems::content(&data, &query)),
        Err(e) => refused(&e, Section::Systems),
    })
    .await
}

async fn runs_page(
    State(reader): State<Arc<Reader>>,
    Extension(seen): Extension<Visible>,
    uri: Uri,
    RawQuery(query): RawQuery,
) -> Response {
    let query = query.unwrap_or_default();
    draw(reader.seen_by(seen), uri, move |r| {
        let p = sent(&query);
        let asked = runs::Asked {
            system: value(&p, "system"),
            bench: value(&p, "bench"),
            since: value(&p, "since"),
            until: value(&p, "until"),
            tag: value(&p, "tag"),
            outcome: value(&p, "outcome"),
        };
        match RunsQuery::parse(&query).and_then(|q| runs_data(r, &q)) {
            Ok(data) => Drawn::ok("Runs", Section::Runs, runs::content(&asked, Ok(&data), &query)),
            Err(e) if e.is_store() => refused(&e, Section::Runs),
            Err(e) => {
                let (status, why) = told(&e);
                Drawn { status, ..Drawn::ok("Runs", Section::Runs, runs::content(&asked, Err(&why), &query)) }
            }
        }
    })
    .await
}

async fn run_page(
    State(reader): State<Arc<Reader>>,
    Extension(seen): Extension<Visible>,
    uri: Uri,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    let query = query.unwrap_or_default();
    draw(reader.seen_by(seen), uri, move |r| match RunQuery::parse(&id, &query).and_then(|q| run_data(r, &q)) {
        Ok(data) => Drawn::ok(run::title(&data), Section::Runs, run::content(&data)),
        Err(e) => refused(&e, Section::Runs),
    })
    .await
}

/// The run a share link shows, whatever its embargo (who made the link
/// chose to show it); a link unknown or revoked shows nothing (404).
async fn shared_page(State(reader): State<Arc<Reader>>, uri: Uri, Path(secret): Path<String>) -> Response {
    draw(reader.seen_by(Visible::All), uri, move |r| match r.store().shared_run(&secret) {
        Ok(Some(id)) => match RunQuery::parse(&id.to_string(), "").and_then(|q| run_data(r, &q)) {
            Ok(data) => Drawn::ok(run::title(&data), Section::Runs, run::content(&data)),
            Err(e) => refused(&e, Section::Runs),
        },
        Ok(None) => Drawn {
            status: StatusCode::NOT_FOUND,
            ..Drawn::ok(
                "Not shared",
                Section::Runs,
                super::layout::empty("This link shows nothing: it was revoked, or never made."),
            )
        },
        Err(e) => refused(&DataError::Store(e), Section::Runs),
    })
    .await
}

/// A page with pickers: `asked` when its query names what to show, then
/// `fetch` gives the data; `render` draws the pickers (which list the
/// systems the store holds) and the data or why there is none.
fn picked<T>(
    r: &Reader,
    section: Section,
    asked: bool,
    fetch: impl FnOnce() -> Result<T, DataError>,
    render: impl FnOnce(&[String], Shown<T>) -> String,
) -> Drawn {
    let known = match known(r) {
        Ok(k) => k,
        Err(e) => return refused(&e, section),
    };
    let (status, content) = match asked.then(fetch) {
        None => (StatusCode::OK, render(&known, Shown::Nothing)),
        Some(Ok(data)) => (StatusCode::OK, render(&known, Shown::Data(&data))),
        Some(Err(e)) => {
            let (status, why) = told(&e);
            (status, render(&known, Shown::Refused(&why)))
        }
    };
    Drawn { status, ..Drawn::ok(section.name(), section, content) }
}

async fn compare_page(
    State(reader): State<Arc<Reader>>,
    Extension(seen): Extension<Visible>,
    uri: Uri,
    RawQuery(query): RawQuery,
) -> Response {
    let query = query.unwrap_or_default();
    draw(reader.seen_by(seen), uri, move |r| {
        let p = sent(&query);
        let asked = compare::Asked {
            systems: value(&p, "systems"),
            benches: value(&p, "benches"),
            metric: value(&p, "metric"),
            reference: value(&p, "reference"),
        };
        let fetch = || CompareQuery::parse(&query).and_then(|q| compare_data(r, &q));
        let render = |known: &[String], shown: Shown<_>| compare::content(&asked, known, shown, &query);
        picked(r, Section::Compare, !asked.systems.is_empty(), fetch, render)
    })
    .await
}

async fn history_page(
    State(reader): State<Arc<Reader>>,
    Extension(seen): Extension<Visible>,
    uri: Uri,
    RawQuery(query): RawQuery,
) -> Response {
    let query = query.unwrap_or_default();
    draw(reader.seen_by(seen), uri, move |r| {
        let p = sent(&query);
        let asked = history::Asked {
            system: value(&p, "system"),
            bench: value(&p, "bench"),
            config: value(&p, "config"),
            metric: value(&p, "metric"),
            last: value(&p, "last"),
            scale: value(&p, "scale"),
        };
        let fetch = || HistoryQuery::parse(&query).and_then(|q| history_data(r, &q, Some(PAGE_POINTS)));
        let render = |known: &[String], shown: Shown<_>| history::content(&asked, known, shown, &query);
        picked(r, Section::History, !asked.system.is_empty(), fetch, render)
    })
    .await
}
