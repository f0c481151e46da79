//! The pages of `mlb serve`: server-rendered HTML of the same data-layer
//! structs the JSON API serializes (so a page and its API answer cannot
//! differ), in one frame with navigation, with filter forms whose URL is
//! the page's permalink, a CSV link beside each table, and charts drawn by
//! the vendored charting library, which the server also carries: no page
//! makes a request outside the server, and no script runs but the two
//! compiled-in assets allowed by their hashes.

pub mod assets;
mod compare;
mod form;
mod history;
pub mod layout;
mod query;
pub mod routes;
mod run;
mod runs;
mod systems;
mod table;
