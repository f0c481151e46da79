//! The `mlb` binary: parses the command line and reports errors with
//! color-eyre. All logic lives in the library.

use clap::Parser;
use mlb::cli::{Cli, Command, PluginsCommand};

fn main() -> color_eyre::Result<()> {
    color_eyre::install()?;
    let cli = Cli::parse();
    match cli.command {
        Command::Plugins { command: PluginsCommand::List { json } } => {
            let search = mlb::plugins::SearchPath::from_env(&cli.plugin_dir)?;
            let entries = mlb::plugins::list(&search);
            if json {
                println!("{}", mlb::plugins::listing::to_json(&entries));
            } else {
                println!("{}", mlb::plugins::listing::to_table(&entries, &search));
            }
            Ok(())
        }
        Command::Report(args) => match mlb::report::run(&args) {
            Ok(text) => {
                print!("{text}");
                Ok(())
            }
            Err(e) => {
                eprintln!("mlb report: {e}");
                std::process::exit(1)
            }
        },
        Command::Worker(args) => std::process::exit(mlb::worker::main(args)),
    }
}
