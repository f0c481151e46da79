//! The `mlb` binary: parses the command line, runs the subcommand and ends
//! the process through the error edge (`mlb::edge`): one exit status per
//! outcome, user errors as one plain block, panics through color-eyre. All
//! logic lives in the library.

use mlb::cli::generate::{self, GenerateCommand};
use mlb::cli::{deprecated, Cli, Command};
use mlb::commands::containers::ContainersCommand;
use mlb::commands::output::OutputArgs;
use mlb::console::Console;
use mlb::edge::{self, ExitError, MlbError};
use mlb_record::exit::{EXIT_INTERRUPTED, EXIT_OK};

/// mimalloc for everything the binary allocates (not the workloads' own
/// libraries, which keep theirs): much faster than glibc's malloc when the
/// reading threads of `mlb report` allocate entries and another frees them.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let color = edge::stderr_color();
    install_panic_hook(color);
    let (cli, notes) = deprecated::parse_from(std::env::args_os()).unwrap_or_else(|e| e.exit());
    for note in notes {
        Console::Err.line(&note);
    }
    let code = match run(cli) {
        Ok(code) => code,
        Err(failure) => {
            Console::Err.print(&failure.render(color));
            failure.exit_code()
        }
    };
    std::process::exit(code)
}

/// Reports panics (bugs) through color-eyre: message, location, and the
/// backtrace when `RUST_BACKTRACE` asks for it; coloured only when `color`.
fn install_panic_hook(color: bool) {
    let theme = if color { color_eyre::config::Theme::dark() } else { color_eyre::config::Theme::new() };
    let (panic_hook, _) = color_eyre::config::HookBuilder::default().theme(theme).into_hooks();
    panic_hook.install();
}

/// Runs what the command line asks for; returns the exit status.
fn run(cli: Cli) -> Result<i32, ExitError> {
    match cli.command {
        None => Ok(mlb::commands::launch::run(&cli.launch, &cli.plugin_dir)?),
        Some(Command::Detect(args)) => {
            deliver(Some(&args.output), &mlb::commands::detect::run(&args))?;
            Ok(EXIT_OK)
        }
        Some(Command::Doctor(args)) => {
            let (text, code) = mlb::commands::doctor::doctor(&args, &cli.plugin_dir)?;
            deliver(Some(&args.output), &text)?;
            Ok(code)
        }
        Some(Command::Plugins { command }) => {
            deliver(command.output(), &mlb::commands::plugins::run(&command, &cli.plugin_dir)?)?;
            Ok(EXIT_OK)
        }
        Some(Command::Report(args)) => {
            deliver(Some(&args.output), &mlb::commands::report::run(&args)?)?;
            Ok(EXIT_OK)
        }
        Some(Command::Burn(args)) => {
            let (text, code) = mlb::commands::burn::run(&args, &cli.plugin_dir)?;
            deliver(Some(&args.output), &text)?;
            Ok(code)
        }
        Some(Command::Interfere(args)) => {
            let (text, code) = mlb::commands::interfere::run(&args, &cli.plugin_dir)?;
            deliver(Some(&args.output), &text)?;
            Ok(code)
        }
        Some(Command::Accept(args)) => {
            let (text, code) = mlb::commands::accept::run(&args)?;
            print_stdout(&text)?;
            Ok(code)
        }
        Some(Command::Targets { command }) => {
            deliver(command.output(), &mlb::commands::targets::run(&command)?)?;
            Ok(EXIT_OK)
        }
        Some(Command::Db { command }) => {
            let (text, code) = mlb::commands::db::run(&command)?;
            deliver(command.output(), &text)?;
            Ok(code)
        }
        Some(Command::Serve(args)) => {
            mlb::commands::serve::run(&args)?;
            Ok(EXIT_OK)
        }
        Some(Command::Prepare(args)) => {
            let (text, stopped) = mlb::commands::prepare::run(&args)?;
            print_stdout(&text)?;
            let Some(stopped) = stopped else { return Ok(EXIT_OK) };
            Console::Err.line(&format!("mlb: {stopped}"));
            Ok(EXIT_INTERRUPTED)
        }
        Some(Command::Worker(args)) => Ok(mlb::worker::main(*args)),
        Some(Command::Slurm { command }) => Ok(mlb::commands::slurm::run(&command)?),
        Some(Command::Containers { command: ContainersCommand::Build(args) }) => {
            let image = mlb::commands::containers::run(&args, &mut |line| Console::Out.line(line))?;
            print_stdout(&format!("built {} ({})\n", image.name, image.id))?;
            Ok(EXIT_OK)
        }
        Some(Command::Generate { command: GenerateCommand::Man { dir } }) => {
            generate::man_pages(&dir)?;
            Ok(EXIT_OK)
        }
        Some(Command::Generate { command: GenerateCommand::Complete { shell } }) => {
            // mlb's own text, printed as it is (no escaping of what a file said).
            Console::Out.write(&generate::completion(shell)).map_err(MlbError::Stdout)?;
            Ok(EXIT_OK)
        }
    }
}

/// Puts `text` where `--output` of `output` says: into its file, whole, or
/// on stdout (also without `output`: a command that prints what it did).
fn deliver(output: Option<&OutputArgs>, text: &str) -> Result<(), MlbError> {
    match output.and_then(OutputArgs::path) {
        None => print_stdout(text),
        Some(path) => mlb_record::contract::record::write_output(path, text.as_bytes())
            .map_err(|source| MlbError::Output { path: path.to_path_buf(), source }),
    }
}

/// Prints `text`, its control characters but line breaks and tabs escaped
/// (a name read from a file never sends an escape sequence to the
/// terminal: `mlb_record::untrusted::printable`); a closed pipe (`mlb ... | head`)
/// is not an error.
fn print_stdout(text: &str) -> Result<(), MlbError> {
    Console::Out.write(&mlb_record::untrusted::printable(text)).map_err(MlbError::Stdout)
}
