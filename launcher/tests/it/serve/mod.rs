//! `mlb serve`: the JSON and CSV API against `mlb db` on a known store
//! (imported from generated reports), and its safety: the token, the
//! read-only store, hostile requests, 200 requests at once, a clean stop;
//! the pages in a headless Chromium (browser tier).

mod api;
mod frame;
mod pages;
pub mod pages_store;
mod readable;
mod safety;
pub mod server;
