//! Hostile input, as a user who means harm (or makes every mistake) would
//! give it: each case here reproduced a fault first, and now shows mlb
//! refusing it, recording it or surviving it. One module per area.

#[path = "../common/mod.rs"]
mod common;

mod plugin_trust;
