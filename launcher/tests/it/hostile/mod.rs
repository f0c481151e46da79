//! Hostile input, as a user who means harm (or makes every mistake) would
//! give it: each case here reproduced a fault first, and now shows mlb
//! refusing it, recording it or surviving it. One module per area.

mod accept_trust;
mod closed_stdout;
mod concurrent;
mod docker;
mod file_names;
pub(crate) mod full_disk;
mod fuzz;
mod host_lock;
mod input_files;
mod jobs_input;
mod leftovers;
mod logs;
mod long_lines;
mod outputs_trust;
mod plugin_trust;
mod prepare_input;
mod prepare_links;
mod prepare_locks;
mod prepare_signals;
mod probe;
mod report_page;
mod scene;
mod serve_trust;
mod signals;
mod silent_exit;
mod stale_groups;
mod store_trust;
mod values;
