//! The `mlb` binary: parses the command line and reports errors with
//! color-eyre. All logic lives in the library.

use clap::Parser;
use mlb::cli::{Cli, Command, PluginsCommand};

fn main() -> color_eyre::Result<()> {
    color_eyre::install()?;
    let cli = Cli::parse();
    match cli.command {
        None => std::process::exit(mlb::launch::run(&cli.launch, &cli.plugin_dir)?),
        Some(Command::Detect { json, host, root }) => {
            let found = mlb::host::detect(&mlb::host::Probe::under(root)).with_kind(host);
            if json {
                println!("{}", mlb::host::show::json(&found));
            } else {
                print!("{}", mlb::host::show::human(&found));
            }
            Ok(())
        }
        Some(Command::Plugins { command: PluginsCommand::List { json } }) => {
            let search = mlb::plugins::SearchPath::from_env(&cli.plugin_dir)?;
            let entries = mlb::plugins::list(&search);
            if json {
                println!("{}", mlb::plugins::listing::to_json(&entries));
            } else {
                println!("{}", mlb::plugins::listing::to_table(&entries, &search));
            }
            Ok(())
        }
        Some(Command::Worker(args)) => std::process::exit(mlb::worker::main(args)),
    }
}
