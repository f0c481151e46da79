//! Hostile input, as a user who means harm (or makes every mistake) would
//! give it: each case here reproduced a fault first, and now shows mlb
//! refusing it, recording it or surviving it. One module per area.

mod concurrent;
mod full_disk;
mod fuzz;
mod input_files;
mod jobs_input;
mod logs;
mod plugin_trust;
mod prepare_input;
mod report_page;
mod scene;
mod signals;
mod stale_groups;
