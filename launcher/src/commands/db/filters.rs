//! The filters every `mlb db` query takes, as options of the command line,
//! into the store's [`Filters`].

use clap::Args;
use mlb_store::store::query::filters::{day_or_time, end_of_day_or_time, tag, Filters, RunFilters, Visible};

/// Which runs a query reads: every filter given must hold.
#[derive(Clone, Debug, Default, Args)]
pub struct FilterArgs {
    /// Only runs of this system (its name in `mlb db systems`).
    #[arg(long, value_name = "NAME")]
    pub system: Option<String>,
    /// The other filters.
    #[command(flatten)]
    pub runs: RunFilterArgs,
}

/// Which runs of a system a query reads.
#[derive(Clone, Debug, Default, Args)]
pub struct RunFilterArgs {
    /// Only runs carrying this label `KEY=VALUE` (repeatable: every one must be there).
    #[arg(long = "label", value_name = "KEY=VALUE", value_parser = tag)]
    pub labels: Vec<(String, String)>,
    /// Only runs started on or after this day or time (`2026-01-31`, or RFC 3339).
    #[arg(long, value_name = "DATE", value_parser = day_or_time)]
    pub since: Option<String>,
    /// Only runs started before the end of this day, or before this time.
    #[arg(long, value_name = "DATE", value_parser = end_of_day_or_time)]
    pub until: Option<String>,
    /// Only runs holding this bench or config (`convnet`, `convnet[arch=resnet18]`).
    #[arg(long, value_name = "NAME")]
    pub config: Option<String>,
    /// Also the runs pushed under embargo whose date has not come (left
    /// out unless asked, so that nothing is published early).
    #[arg(long)]
    pub embargoed: bool,
}

impl FilterArgs {
    /// The filters given.
    pub fn filters(&self) -> Filters {
        Filters { system: self.system.clone(), runs: self.runs.filters() }
    }
}

impl RunFilterArgs {
    /// The filters given.
    pub fn filters(&self) -> RunFilters {
        RunFilters {
            tags: self.labels.clone(),
            since: self.since.clone(),
            until: self.until.clone(),
            config: self.config.clone(),
            run: None,
            visible: if self.embargoed { Visible::All } else { Visible::Public },
        }
    }
}
