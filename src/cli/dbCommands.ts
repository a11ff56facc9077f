import * as Effect from "effect/Effect";
import * as Logger from "effect/Logger";
import * as LogLevel from "effect/LogLevel";
import { AgentRunStore } from "../persistence/AgentRunStore.js";
import * as Ledger from "../persistence/ledger.js";
import { describeStray, endStrayToolProcesses } from "../services/processes/processLedger.js";
import { type CliIO, terminalText } from "./output.js";
import { runEffect } from "./runEffect.js";

export async function migrateCommand(io: CliIO, options: { db: string; json?: boolean }): Promise<number> {
  const report = await runEffect(Ledger.migrate(options.db));
  if (options.json) {
    io.out(JSON.stringify(report));
    return 0;
  }
  io.out(`${report.filename}: schema version ${report.toVersion}`);
  io.out(report.applied.length > 0 ? `applied: ${report.applied.join(", ")}` : "already up to date");
  if (report.backupPath) io.out(`backup: ${report.backupPath}`);
  return 0;
}

export async function recoverCommand(io: CliIO, options: { db: string; json?: boolean }): Promise<number> {
  const { recovered, live, processes, parked, queued } = await runEffect(
    Effect.flatMap(AgentRunStore, (store) =>
      Effect.all({
        recovered: store.recoverInterrupted(),
        live: store.findLiveRuns(),
        // The commands the dead processes left running: ended here, each named below.
        processes: endStrayToolProcesses().pipe(Logger.withMinimumLogLevel(LogLevel.Error)),
        // Open with nobody driving them, after recovery: runs that wait for a person's decision.
        parked: Effect.map(store.findAbandonedRuns(), (runs) =>
          runs.map(({ run }) => ({ runId: run.runId, sessionId: run.sessionId })),
        ),
        queued: Effect.map(store.findQueuedRuns(1_000), (runs) => runs.length),
      }),
    ).pipe(
      Effect.provide(Ledger.layer({ filename: options.db, owner: false })),
      // Warnings (a run that could not be closed) go to stderr: stdout stays the report (or JSON).
      Effect.provide(
        Logger.replace(
          Logger.defaultLogger,
          Logger.make(({ message }) => io.err(`warning: ${String(message)}`)),
        ),
      ),
    ),
  );
  if (options.json) {
    io.out(JSON.stringify({ recovered, live, processes, parked, queued }));
    return 0;
  }
  if (recovered.length === 0) io.out("no interrupted runs");
  for (const run of parked) {
    io.out(
      `left ${terminalText(run.runId)} (session ${terminalText(run.sessionId)}) open: it waits for an approval and no runtime drives it (resume it: agentloop recover --resume; end it: agentloop cancel ${terminalText(run.runId)})`,
    );
  }
  if (queued > 0) io.out(`${queued} run(s) wait in the queue for a worker`);
  for (const run of recovered) {
    const calls = run.cancelledCallIds.length;
    io.out(
      `closed ${terminalText(run.runId)} (session ${terminalText(run.sessionId)}) as failed/interrupted; ${calls} dangling call(s) cancelled`,
    );
  }
  for (const stray of processes) io.out(describeStray(stray));
  for (const run of live) {
    io.out(
      `left ${terminalText(run.runId)} (session ${terminalText(run.sessionId)}) open: process ${run.pid} on ${terminalText(run.host)} still drives it (heartbeat ${run.heartbeatAt})`,
    );
  }
  return 0;
}
