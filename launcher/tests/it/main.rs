//! mlb's integration tests: one binary, one module per area, so the crate is
//! linked once for all of them. Run with `cargo test -p mlb --test it`, or one
//! area with a filter (`cargo test -p mlb --test it report_cli::`).
//!
//! Some areas need more than a build: real cgroups (root), a Docker daemon,
//! the two-node Slurm test cluster or a headless Chromium. `.config/nextest.toml`
//! sorts the tests into tiers by module path; docs/testing.md says how to run
//! each tier and what it needs.

mod accept;
mod common;
mod report_gen;

mod accept_record;
mod accept_runs;
mod burn_runs;
mod cli;
mod collect;
mod determinism_vote;
mod deterministic;
mod dist_install;
mod docker_runtime;
mod faults;
mod flags;
mod host_detect;
mod hostile;
mod interfere;
mod launch_cgroups;
mod launch_docker;
mod libtorch_release;
mod original_data;
mod plugin_eval;
mod plugin_libtorch;
mod plugin_listing;
mod plugin_manifest;
mod preflight;
mod prepare;
mod quality_rcp;
mod quality_suite;
mod rcp_report;
mod reference_jobs;
mod report_cli;
mod report_compat;
mod report_html;
mod report_original;
mod report_schema;
mod report_telemetry;
mod serve;
mod singularity_standin;
mod slurm_cluster;
mod store;
mod targets;
mod telemetry_amdsmi;
mod telemetry_nvml;
mod telemetry_slot;
mod to_quality;
mod widths;
mod worker_faults;
