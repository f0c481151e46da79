//! `mlb serve`.

pub mod pages;
