//! The `mlb` binary: parses the command line and reports errors with
//! color-eyre. All logic lives in the library.

use clap::Parser;
use mlb::cli::{Cli, Command, ContainersCommand, PluginsCommand};
use std::io::Write;

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
        Some(Command::Plugins { command: PluginsCommand::List { json, verify } }) => {
            let search = mlb::plugins::SearchPath::from_env(&cli.plugin_dir)?;
            let entries = if verify { mlb::plugins::verify(&search) } else { mlb::plugins::list(&search) };
            let text = if json {
                mlb::plugins::listing::to_json(&entries)
            } else {
                mlb::plugins::listing::to_table(&entries, &search)
            };
            print_stdout(&text)
        }
        Some(Command::Report(args)) => match mlb::report::run(&args) {
            Ok(text) => {
                print!("{text}");
                Ok(())
            }
            Err(e) => {
                eprintln!("mlb report: {e}");
                std::process::exit(1)
            }
        },
        Some(Command::Worker(args)) => std::process::exit(mlb::worker::main(*args)),
        Some(Command::Containers { command: ContainersCommand::Build(args) }) => {
            let image = mlb::runtime::build_cmd::run(&args, &mut |line| println!("{line}"))?;
            print_stdout(&format!("built {} ({})", image.name, image.id))
        }
    }
}

/// Prints `text` and a newline; a closed pipe (`mlb ... | head`) is not an error.
fn print_stdout(text: &str) -> color_eyre::Result<()> {
    match writeln!(std::io::stdout().lock(), "{text}") {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}
