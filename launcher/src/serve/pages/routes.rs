//! The pages' routes: `/` (to the systems), `/systems`, `/runs`,
//! `/runs/{id}`, `/compare`, `/history`, and the compiled-in scripts under
//! `/assets/`. Each page takes the same query string as its API answer
//! under `/api/`, so that a page's URL is the permalink of its filters.

use super::layout::{page, Frame, Section};
use super::{assets, compare, history, run, runs, systems};
use crate::charts::embed;
use crate::store::query::args::{Filters, RunFilters};
use crate::store::Store;
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::Router;
use std::sync::Arc;

/// What the pages read: the store, and its name for the footer.
pub struct Pages {
    /// The store, opened read-only.
    pub store: Store,
    /// Its name as a reader may see it (no password).
    pub name: String,
}

type Shared = State<Arc<Pages>>;

/// The pages' router.
pub fn router(pages: Arc<Pages>) -> Router {
    Router::new()
        .route("/", get(|| async { Redirect::to(Section::Systems.path()) }))
        .route("/systems", get(systems_page))
        .route("/runs", get(runs_page))
        .route("/runs/{id}", get(run_page))
        .route("/compare", get(compare_page))
        .route("/history", get(history_page))
        .route("/assets/{name}", get(asset))
        .with_state(pages)
}

/// A page: HTML under the charts' Content-Security-Policy.
fn html(pages: &Pages, title: &str, section: Section, content: &str) -> Response {
    let frame = Frame { title, section, store: &pages.name };
    let policy = embed::content_security_policy();
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8"), (header::CONTENT_SECURITY_POLICY, policy.as_str())], page(&frame, content))
        .into_response()
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

/// The query's parameters, in order.
fn params(query: &Option<String>) -> Vec<(String, String)> {
    form_urlencoded::parse(query.as_deref().unwrap_or("").as_bytes()).into_owned().collect()
}

fn param<'a>(params: &'a [(String, String)], name: &str) -> &'a str {
    params.iter().find(|(k, _)| k == name).map_or("", |(_, v)| v.as_str())
}

fn some(text: &str) -> Option<String> {
    (!text.is_empty()).then(|| text.to_string())
}

fn filters(p: &[(String, String)]) -> Filters {
    let tags = p.iter().filter(|(k, v)| k == "tag" && !v.is_empty()).filter_map(|(_, v)| v.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Filters {
        system: some(param(p, "system")),
        runs: RunFilters { tags, since: some(param(p, "since")), until: some(param(p, "until")), config: some(param(p, "bench")) },
    }
}

async fn systems_page(State(pages): Shared, RawQuery(query): RawQuery) -> Response {
    tokio::task::block_in_place(|| systems_page_now(&pages, query))
}

fn systems_page_now(pages: &Arc<Pages>, query: Option<String>) -> Response {
    let pages = pages.clone();
    let found = crate::store::query::systems::systems(&pages.store, &Filters::default()).unwrap_or_default();
    html(&pages, "Systems", Section::Systems, &systems::content(&found, query.as_deref().unwrap_or("")))
}

async fn runs_page(State(pages): Shared, RawQuery(query): RawQuery) -> Response {
    tokio::task::block_in_place(|| runs_page_now(&pages, query))
}

fn runs_page_now(pages: &Arc<Pages>, query: Option<String>) -> Response {
    let pages = pages.clone();
    let p = params(&query);
    let mut found = crate::store::query::runs::runs(&pages.store, &filters(&p)).unwrap_or_default();
    found.reverse();
    let asked = runs::Asked {
        system: param(&p, "system"),
        bench: param(&p, "bench"),
        since: param(&p, "since"),
        until: param(&p, "until"),
        tag: param(&p, "tag"),
        outcome: param(&p, "outcome"),
    };
    let paging = runs::Paging { page: param(&p, "page").parse().unwrap_or(1), more: false };
    html(&pages, "Runs", Section::Runs, &runs::content(&asked, &found, &paging, query.as_deref().unwrap_or("")))
}

async fn run_page(State(pages): Shared, Path(id): Path<i64>) -> Response {
    tokio::task::block_in_place(|| run_page_now(&pages, id))
}

fn run_page_now(pages: &Arc<Pages>, id: i64) -> Response {
    let found = crate::store::query::runs::runs(&pages.store, &Filters::default()).unwrap_or_default();
    let Some(row) = found.into_iter().find(|r| r.id == id) else {
        return (StatusCode::NOT_FOUND, "no such run").into_response();
    };
    let opts = crate::report::Options {
        suite: None, targets: None, price: None, gpu_total: None, rule: Default::default(), grouping: Default::default(), force: false,
    };
    let report = crate::report::build(std::path::Path::new(&row.folder), None, &opts).ok();
    let title = format!("Run {id} of {}", row.system);
    html(&pages, &title, Section::Runs, &run::content(&row, report.as_ref(), &[]))
}

fn parse_db<T>(args: &[&str], pick: impl Fn(crate::store::query::command::QueryCommand) -> Option<T>) -> Option<T> {
    use clap::Parser;
    let cli = crate::cli::Cli::try_parse_from([&["mlb", "db"], args].concat()).ok()?;
    match cli.command {
        Some(crate::cli::Command::Db { command: crate::store::command::DbCommand::Query(q) }) => pick(q),
        _ => None,
    }
}

async fn compare_page(State(pages): Shared, RawQuery(query): RawQuery) -> Response {
    tokio::task::block_in_place(|| compare_page_now(&pages, query))
}

fn compare_page_now(pages: &Arc<Pages>, query: Option<String>) -> Response {
    let pages = pages.clone();
    let p = params(&query);
    let asked = compare::Asked { systems: param(&p, "systems"), benches: param(&p, "benches"), metric: param(&p, "metric"), reference: param(&p, "reference") };
    let known = crate::store::query::compare::system_names(&pages.store).unwrap_or_default();
    let mut args = vec!["compare", "--systems", asked.systems];
    if !asked.metric.is_empty() { args.extend(["--metric", asked.metric]); }
    if !asked.reference.is_empty() { args.extend(["--reference", asked.reference]); }
    let matrix = if asked.systems.is_empty() { None } else {
        parse_db(&args, |q| match q { crate::store::query::command::QueryCommand::Compare(c) => Some(c), _ => None })
            .and_then(|c| crate::store::query::compare::compare(&pages.store, &c).ok())
    };
    html(&pages, "Compare", Section::Compare, &compare::content(&asked, &known, matrix.as_ref(), query.as_deref().unwrap_or("")))
}

async fn history_page(State(pages): Shared, RawQuery(query): RawQuery) -> Response {
    tokio::task::block_in_place(|| history_page_now(&pages, query))
}

fn history_page_now(pages: &Arc<Pages>, query: Option<String>) -> Response {
    let pages = pages.clone();
    let p = params(&query);
    let asked = history::Asked { system: param(&p, "system"), bench: param(&p, "bench"), config: param(&p, "config"), metric: param(&p, "metric"), last: param(&p, "last") };
    let known = crate::store::query::compare::system_names(&pages.store).unwrap_or_default();
    let mut args = vec!["history", "--system", asked.system];
    if !asked.metric.is_empty() { args.extend(["--metric", asked.metric]); }
    if !asked.bench.is_empty() { args.extend(["--bench", asked.bench]); }
    let found = if asked.system.is_empty() { None } else {
        parse_db(&args, |q| match q { crate::store::query::command::QueryCommand::History(h) => Some(h), _ => None })
            .and_then(|h| crate::store::query::history::fetch(&pages.store, &h).ok())
    };
    let no_regression = |_: usize, _: usize| None;
    html(&pages, "History", Section::History, &history::content(&asked, &known, found.as_ref(), &no_regression, query.as_deref().unwrap_or("")))
}
