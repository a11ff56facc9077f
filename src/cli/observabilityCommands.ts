import type { Command } from "commander";
import { type AgentloopFlags, ROLLOUT_STAGES } from "../config/rollout.js";
import { dbOption } from "./dbOption.js";
import { CliFailure, type CliIO } from "./output.js";

// --- flags ----------------------------------------------------------------------------------

function flagsLines(flags: AgentloopFlags): string[] {
  return Object.entries(flags).map(([key, value]) => `${key.padEnd(22)} ${String(value)}`);
}

/**
 * `agentloop metrics|health|trace|flags`: the operator's observability surface. Everything is computed from the ledger file, opened read-only. Only the commands'
 * definitions: metrics, health and trace import src/cli/observabilityImpl.ts when they run;
 * `flags` imports src/config/flags.ts (which loads effect for its FlagsError) when it runs; its
 * `--stage` help needs only the stage names of src/config/rollout.ts.
 */
export function registerObservabilityCommands(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command("metrics")
    .description("print the run metrics in Prometheus text format, computed from the ledger")
    .addOption(dbOption())
    .action(async (options: { db: string }) => {
      const { metricsCommand } = await import("./observabilityImpl.js");
      setExit(await metricsCommand(io, options));
    });

  program
    .command("health")
    .description("check the alert conditions over a time window; exits 1 when one fires")
    .addOption(dbOption())
    .option("--window <duration>", "time window, e.g. 30m, 1h, 1d", "1h")
    .option("--json", "machine-readable output")
    .action(async (options: { db: string; window: string; json?: boolean }) => {
      const { healthCommand } = await import("./observabilityImpl.js");
      setExit(await healthCommand(io, options));
    });

  program
    .command("trace")
    .description("everything the ledger holds about one run, found by its trace id (or run id)")
    .argument("<traceId>", "the run's trace id (a run id works too)")
    .addOption(dbOption())
    .option("--json", "machine-readable output")
    .action(async (traceId: string, options: { db: string; json?: boolean }) => {
      const { traceCommand } = await import("./observabilityImpl.js");
      setExit(await traceCommand(io, traceId, options));
    });

  program
    .command("flags")
    .description("print the effective rollout flags (defaults < --stage < --file < AGENTLOOP_* environment)")
    .option("--file <file>", "JSON file of flags")
    .option("--stage <stage>", `start from a rollout stage (${ROLLOUT_STAGES.map((stage) => stage.name).join(", ")})`)
    .option("--json", "machine-readable output")
    .action(async (options: { file?: string; stage?: string; json?: boolean }) => {
      const { AgentloopFlags, DEFAULT_FLAGS, FlagsError, loadFlags, rolloutStage } = await import("../config/flags.js");
      let flags: AgentloopFlags;
      try {
        const base = options.stage === undefined ? DEFAULT_FLAGS : rolloutStage(options.stage).flags;
        flags = loadFlags({ file: options.file, base });
      } catch (error) {
        if (error instanceof FlagsError) throw new CliFailure(error.message, 2);
        throw error;
      }
      const keys = Object.keys(AgentloopFlags.shape) as Array<keyof AgentloopFlags>;
      const matching = ROLLOUT_STAGES.filter((stage) => keys.every((key) => stage.flags[key] === flags[key]));
      if (options.json) io.out(JSON.stringify({ flags, stages: matching.map((stage) => stage.name) }));
      else {
        for (const line of flagsLines(flags)) io.out(line);
        io.out(
          matching.length > 0
            ? `rollout stage: ${matching.map((stage) => `${stage.stage} ${stage.name}`).join(", ")}`
            : "rollout stage: none (a custom combination)",
        );
      }
      setExit(0);
    });
}
