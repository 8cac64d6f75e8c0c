//! The `mergelens` binary: parse the command line, run the command, print the error chain,
//! and exit with a code documented in `exit`. The command line (`cli`), the orchestration of
//! each command (`commands`) and the exit codes (`exit`) are the binary's own; everything
//! they call is the `mergelens` library.

mod cli;
mod commands;
mod exit;

use std::process::ExitCode;

use clap::Parser;
use commands::{Outcome, automaton::Operation};
use mergelens::automaton::ops::BoolOp;

use mergelens::report::Format;

use cli::{AutomatonCommand, Cli, Command, HookCommand, ReportFormatArg};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return usage_error(&error),
    };
    mergelens::failure::install_quiet_panic_hook();
    // A panic is an internal failure (exit code 4), one line, no backtrace noise.
    let remote = commands::remote::RemoteFlags {
        remote: cli.remote.remote,
        remote_instance: cli.remote.remote_instance,
        remote_cache: cli.remote.remote_cache,
        remote_jobs: cli.remote.remote_jobs.map(usize::from),
    };
    let result = mergelens::failure::catch_panic(|| {
        commands::remote::setup(&remote)?;
        let result = run(cli.command);
        commands::remote::summary();
        result
    })
    .unwrap_or_else(|e| Err(e.into()));
    match result {
        Ok(Outcome::Success) => ExitCode::from(exit::SUCCESS),
        Ok(Outcome::Different) => ExitCode::from(exit::DIFFERENT),
        Ok(Outcome::Conflict) => ExitCode::from(exit::CONFLICT),
        Err(error) => {
            // One line: the outermost message, then each cause (each error says only its
            // own words, so each cause is said once), every control character escaped; only
            // explain's choice of an assertion lists one per line (the user's own program,
            // never a branch's text).
            let text = format!("{error:#}");
            let shown = if error
                .downcast_ref::<commands::explain::ExplainError>()
                .is_some()
            {
                mergelens::report::escape::terminal_lines(&text)
            } else {
                commands::term(&text)
            };
            eprintln!("mergelens: error: {shown}");
            ExitCode::from(exit::code_for(&error))
        }
    }
}

/// A command line clap refuses: its message on one line like every other error (what is
/// wrong, the values it accepts), exit code 2. Help and version go out as clap writes them.
fn usage_error(error: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        error.exit()
    }
    let text = error.render().to_string();
    let line = text
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more information")
        })
        .collect::<Vec<_>>()
        .join(" ");
    let line = line.strip_prefix("error: ").unwrap_or(&line);
    eprintln!("mergelens: error: {}", commands::term(line));
    ExitCode::from(exit::BAD_INPUT)
}

fn run(command: Command) -> anyhow::Result<Outcome> {
    match command {
        Command::Automaton(command) => run_automaton(command),
        Command::Report {
            input,
            format,
            output,
            html_report,
        } => {
            let format = match format {
                ReportFormatArg::Html => Format::Html,
                ReportFormatArg::Md => Format::Markdown,
                ReportFormatArg::Sarif => Format::Sarif,
            };
            let args = commands::report::ReportArgs {
                input,
                format,
                output,
                html_report,
            };
            commands::report::run(&args)?;
            Ok(Outcome::Success)
        }
        Command::Learn(args) => commands::learn::run(&args.into_args()),
        Command::Explain(args) => commands::explain::run(&args.into_args()?),
        Command::Review(args) => commands::review::run(&args.into_args()),
        Command::Diff(args) => commands::diff::run(&args.into_args()),
        Command::Audit(args) => commands::audit::run(&args.into_args()),
        Command::Init(args) => commands::init::run(&args.into_args()),
        Command::Hook(action) => commands::hook::run(match action {
            HookCommand::Install => commands::hook::HookAction::Install,
            HookCommand::Uninstall => commands::hook::HookAction::Uninstall,
        }),
        Command::Demo { out, cbmc, keep } => {
            commands::demo::run(&commands::demo::DemoArgs { out, cbmc, keep })
        }
        Command::Doctor { cbmc } => {
            commands::doctor::run(cbmc.as_deref())?;
            Ok(Outcome::Success)
        }
    }
}

fn run_automaton(command: AutomatonCommand) -> anyhow::Result<Outcome> {
    use AutomatonCommand as C;
    let product = |op, left, right| Operation::Product { op, left, right };
    let (operation, out) = match command {
        C::Show { file, words, out } => (Operation::Show { input: file, words }, out),
        C::Minimize { file, out } => (Operation::Minimize { input: file }, out),
        C::Complement { file, out } => (Operation::Complement { input: file }, out),
        C::Intersect { a, b, out } => (product(BoolOp::Intersection, a, b), out),
        C::Union { a, b, out } => (product(BoolOp::Union, a, b), out),
        C::Difference { a, b, out } => (product(BoolOp::Difference, a, b), out),
        C::Symdiff { a, b, out } => (product(BoolOp::SymmetricDifference, a, b), out),
        C::Equiv { a, b, out } => (Operation::Equiv { left: a, right: b }, out),
        C::Words {
            file,
            max_length,
            limit,
            out,
        } => (
            Operation::Words {
                input: file,
                max_length,
                limit,
            },
            out,
        ),
        C::Dot { file, out } => (Operation::Dot { input: file }, out),
        C::Svg { file, out } => (Operation::Svg { input: file }, out),
        C::Learn(args) => {
            commands::learn_target::run(&args.into_args())?;
            return Ok(Outcome::Success);
        }
        C::Separate {
            yes,
            no,
            minimal,
            max_length,
            time_budget,
            output,
        } => {
            let separate = commands::automaton::Separate {
                yes,
                no,
                minimal,
                max_length,
                time_budget: time_budget.map(std::time::Duration::from_secs_f64),
            };
            return commands::automaton::separate(&separate, output.as_deref());
        }
    };
    let options = commands::automaton::Options {
        output: out.output,
        raw: out.raw,
    };
    commands::automaton::run(&operation, &options)
}
