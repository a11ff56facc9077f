import { type Command, Option } from "commander";
import { TerminalState } from "../domain/terminal.js";
import { dbOption } from "./dbOption.js";
import type { CliIO } from "./output.js";

/**
 * `agentloop inspect RUN_ID` and `agentloop runs`: the ledger, read-only. Only the commands'
 * definitions; src/cli/inspectImpl.ts is imported when one of them runs.
 */
export function registerInspectCommands(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command("inspect")
    .description("a run's timeline from the ledger: events, receipts, terminal state")
    .argument("<runId>", "run id")
    .addOption(dbOption())
    .option("--json", "machine-readable output")
    .action(async (runId: string, options: { db: string; json?: boolean }) => {
      const { inspectCommand } = await import("./inspectImpl.js");
      setExit(await inspectCommand(io, runId, options));
    });

  program
    .command("runs")
    .description("list runs with state, reason, steps and duration")
    .addOption(dbOption())
    .option("--session <id>", "only this session")
    .addOption(new Option("--state <state>", "only this state").choices(["running", ...TerminalState.options]))
    .option("--limit <n>", "at most this many (newest first)", "50")
    .option("--json", "machine-readable output")
    .action(async (options: { db: string; session?: string; state?: string; limit: string; json?: boolean }) => {
      const { runsCommand } = await import("./inspectImpl.js");
      setExit(await runsCommand(io, options));
    });
}
