import { Command, CommanderError, Option } from "commander";
import { PROVIDER_NAMES } from "../services/providers/names.js";
import { dbOption } from "./dbOption.js";
import { registerInspectCommands } from "./inspectCommands.js";
import { registerMemoryCommands } from "./memoryCommands.js";
import { registerObservabilityCommands } from "./observabilityCommands.js";
import { CliFailure, type CliIO, errorLine, processIO } from "./output.js";
import { type RunCommandOptions, registerRunCommand } from "./runCommand.js";
import { registerServeCommand } from "./serveCommand.js";
import { readPackageVersion } from "./version.js";
import { registerWorkspaceCommands } from "./workspaceCommands.js";

/**
 * Builds the command tree; each action resolves to the process exit code.
 *
 * Only commander and light modules are loaded here, so `--help`, `--version` and usage errors
 * start fast: every command's implementation (effect, SQLite, provider SDKs, …) is imported by
 * its action, when that command runs. test/cli/lazyLoad.test.ts keeps it so.
 */
export function buildProgram(io: CliIO, setExit: (code: number) => void): Command {
  const program = new Command("agentloop")
    .description("agent runs whose completion is asserted by evidence")
    .version(readPackageVersion(), "-V, --version", "print the agentloop version")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text.trimEnd()),
      writeErr: (text) => io.err(text.trimEnd()),
      outputError: (text, write) => write(errorLine(text.replace(/^error: /, ""))),
    })
    .showSuggestionAfterError(true)
    // `--db ""` would make SQLite open a temporary database and throw the run's ledger away.
    .hook("preAction", (_program, actionCommand) => {
      if (actionCommand.opts().db === "") {
        throw new CliFailure("--db needs a file name (an empty name would open a temporary database)", 2);
      }
    });

  const action =
    <T>(run: (options: T, args: string[]) => Promise<number>) =>
    async (...params: unknown[]) => {
      const command = params[params.length - 1] as Command;
      setExit(await run(command.opts() as T, command.args));
    };

  program
    .command("migrate")
    .description("create or migrate a ledger database (backs up an existing file first)")
    .requiredOption("--db <file>", "SQLite database file or postgres:// URL")
    .option("--json", "machine-readable output")
    .action(
      action<{ db: string; json?: boolean }>(async (options) => {
        const { migrateCommand } = await import("./dbCommands.js");
        return migrateCommand(io, options);
      }),
    );

  program
    .command("recover")
    .description("close runs left open by a crashed process as failed/interrupted, or with --resume continue them")
    .addOption(dbOption())
    .option("--json", "machine-readable output")
    .option("--resume", "continue each abandoned run from its ledger instead of closing it")
    .addOption(new Option("--provider <name>", "with --resume: the model provider").choices(PROVIDER_NAMES))
    .option("--model <model>", "with --resume: the model name")
    .option("--base-url <url>", "with --resume: the API base URL")
    .option("--workspace <dir>", "with --resume: the built-in tools act on this folder")
    .action(
      action<
        { db: string; json?: boolean; resume?: boolean; workspace?: string } & Pick<
          RunCommandOptions,
          "provider" | "model" | "baseUrl"
        >
      >(async (options) => {
        if (options.resume) {
          const { resumeCommand } = await import("./resumeCommand.js");
          return resumeCommand(io, options);
        }
        const { recoverCommand } = await import("./dbCommands.js");
        return recoverCommand(io, options);
      }),
    );

  program
    .command("approve")
    .description("approve a call that waits for approval in a run driven elsewhere (a ledger row it picks up)")
    .argument("<runId>", "the run")
    .argument("<callId>", "the waiting call")
    .addOption(dbOption())
    .addOption(
      new Option("--scope <scope>", "once, or every call of the tool in the run / session").choices([
        "once",
        "run",
        "session",
      ]),
    )
    .option("--arguments <json>", "run the call with these arguments instead (validated again)")
    .option("--by <name>", "who decided (default cli:<user>)")
    .option("--json", "machine-readable output")
    .action(
      action<{ db: string; scope?: string; arguments?: string; by?: string; json?: boolean }>(async (options, args) => {
        const { approveCommand } = await import("./approvalCommands.js");
        return approveCommand(io, args[0]!, args[1]!, options);
      }),
    );

  program
    .command("deny")
    .description("deny a call that waits for approval in a run driven elsewhere; the model is told")
    .argument("<runId>", "the run")
    .argument("<callId>", "the waiting call")
    .addOption(dbOption())
    .option("--message <text>", "why (the model is shown it)")
    .option("--by <name>", "who decided (default cli:<user>)")
    .option("--json", "machine-readable output")
    .action(
      action<{ db: string; message?: string; by?: string; json?: boolean }>(async (options, args) => {
        const { denyCommand } = await import("./approvalCommands.js");
        return denyCommand(io, args[0]!, args[1]!, options);
      }),
    );

  program
    .command("cancel")
    .description("cancel a run driven by any process on the ledger (a request it picks up; a queued run closes here)")
    .argument("<runId>", "the run")
    .addOption(dbOption())
    .option("--by <name>", "who asked (default cli:<user>)")
    .option("--json", "machine-readable output")
    .action(
      action<{ db: string; by?: string; json?: boolean }>(async (options, args) => {
        const { cancelCommand } = await import("./cancelCommand.js");
        return cancelCommand(io, args[0]!, options);
      }),
    );

  program
    .command("eval")
    .description("run evaluation cassettes through the real runtime (default: the built-in suite)")
    .argument("[paths...]", "cassette files or directories")
    .addOption(dbOption())
    .option("--json", "machine-readable output")
    .option("--report <dir>", "write a self-contained HTML report (summary, timelines, statechart paths)")
    .action(
      action<{ db: string; json?: boolean; report?: string }>(async (options, args) => {
        const { evalCommand } = await import("./evalCommand.js");
        return evalCommand(io, args, options);
      }),
    );

  program
    .command("visualize")
    .description("regenerate visualizations/ (Stately export, JSON config, Mermaid, SVG) from the machines")
    .option("--dir <dir>", "output folder", "visualizations")
    .action(
      action<{ dir: string }>(async (options) => {
        const { writeVisualizations } = await import("./visualize.js");
        for (const path of await writeVisualizations(options.dir)) io.out(path);
        return 0;
      }),
    );

  registerWorkspaceCommands(program, io, setExit);
  registerMemoryCommands(program, io, setExit);
  registerObservabilityCommands(program, io, setExit);
  registerRunCommand(program, io, setExit);
  registerInspectCommands(program, io, setExit);
  registerServeCommand(program, io, setExit);

  return program;
}

export async function main(argv: ReadonlyArray<string>, io: CliIO = processIO): Promise<number> {
  let exitCode = 0;
  try {
    const program = buildProgram(io, (code) => {
      exitCode = code;
    });
    await program.parseAsync([...argv], { from: "user" });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are exits with code 0; usage errors were already printed as one line.
      return error.exitCode === 0 ? 0 : 2;
    }
    io.err(errorLine(error));
    return error instanceof CliFailure ? error.exitCode : 1;
  }
}
