/**
 * `ledger.append`: AgentRunStore append throughput for W10-shaped rows against raw better-sqlite3
 * writing the same rows with the same commit pattern (the runtime's: createRun autocommit,
 * user_input, per tool step tool_call then tool_result + receipt, finishRun) — 21 commits per run.
 */
import { join } from "node:path";
import { Effect, ManagedRuntime } from "effect";
import { AgentRunStore, type AgentRunStoreShape } from "../../src/persistence/AgentRunStore.js";
import * as Ledger from "../../src/persistence/ledger.js";
import { type LoopMeasurement, loopFields, loopPlan, measureSequential } from "../lib/measure.js";
import { countEvents, migrateFile, openRawLedger, type RawLedger } from "../lib/rawLedger.js";
import type { BenchOptions, BenchResult } from "../lib/types.js";
import { closingRows, newW10Run, toolCallRow, toolResultRows, userInputEvent } from "../lib/w10Rows.js";
import { lookup, W10_ROWS_PER_RUN, W10_STEPS, W10_TOOL_STEPS } from "./w10.js";

const now = () => new Date().toISOString();

/** One run's writes through the store, as one Effect. */
const storeRun = (runId: string) =>
  Effect.gen(function* () {
    const store = yield* AgentRunStore;
    yield* store.createRun(newW10Run(runId, "bench"));
    yield* store.appendEvents(runId, [userInputEvent()]);
    for (let step = 1; step <= W10_TOOL_STEPS; step++) {
      const call = toolCallRow(step);
      yield* store.appendEvents(runId, [call.event]);
      const at = now();
      const rows = toolResultRows(runId, step, call, lookup(step), at, at);
      yield* store.appendEvents(runId, [rows.event], [rows.receipt]);
    }
    const closing = closingRows();
    yield* store.finishRun(runId, {
      sequence: closing.terminalSequence,
      events: [closing.answer],
      terminal: closing.terminal,
    });
  });

/** The same writes, one `runPromise` per write batch, as the runtime's actors call the store. */
async function storeRunPerBatch(runtime: ManagedRuntime.ManagedRuntime<AgentRunStore, never>, runId: string) {
  const run = <A>(f: (store: AgentRunStoreShape) => Effect.Effect<A, unknown>) =>
    runtime.runPromise(Effect.flatMap(AgentRunStore, f));
  await run((store) =>
    Effect.zipRight(store.createRun(newW10Run(runId, "bench")), store.appendEvents(runId, [userInputEvent()])),
  );
  for (let step = 1; step <= W10_TOOL_STEPS; step++) {
    const call = toolCallRow(step);
    await run((store) => store.appendEvents(runId, [call.event]));
    const at = now();
    const rows = toolResultRows(runId, step, call, lookup(step), at, at);
    await run((store) => store.appendEvents(runId, [rows.event], [rows.receipt]));
  }
  const closing = closingRows();
  await run((store) =>
    store.finishRun(runId, {
      sequence: closing.terminalSequence,
      events: [closing.answer],
      terminal: closing.terminal,
    }),
  );
}

/** The same rows and commits through raw prepared statements. */
function rawRun(ledger: RawLedger, runId: string): void {
  const startedAt = now();
  ledger.createRun(newW10Run(runId, "bench"), startedAt);
  ledger.transaction(() => ledger.appendEvents(runId, [userInputEvent()], startedAt));
  for (let step = 1; step <= W10_TOOL_STEPS; step++) {
    const call = toolCallRow(step);
    ledger.transaction(() => ledger.appendEvents(runId, [call.event], now()));
    const at = now();
    const rows = toolResultRows(runId, step, call, lookup(step), at, at);
    ledger.transaction(() => {
      ledger.appendEvents(runId, [rows.event], at);
      ledger.insertReceipts([rows.receipt]);
    });
  }
  const closing = closingRows();
  const endedAt = now();
  ledger.transaction(() => {
    ledger.appendEvents(
      runId,
      [closing.answer, { sequence: closing.terminalSequence, type: "terminal", payload: closing.terminal }],
      endedAt,
    );
    ledger.closeRun(runId, closing.terminal, endedAt);
  });
}

const eventRowsPerSec = (measured: LoopMeasurement) => ({
  min: measured.runsPerSec.min * W10_ROWS_PER_RUN,
  median: measured.runsPerSec.median * W10_ROWS_PER_RUN,
});

function assertRows(filename: string, runs: number): void {
  const rows = countEvents(filename, "run-r0-");
  if (rows !== runs * W10_ROWS_PER_RUN) {
    throw new Error(`${filename}: ${rows} rows for the first repetition, expected ${runs * W10_ROWS_PER_RUN}`);
  }
}

export async function benchLedgerAppend(options: BenchOptions): Promise<BenchResult> {
  const plan = (raw: boolean) => loopPlan(options.quick, raw ? 300 : 100, W10_STEPS);

  const rawFile = join(options.dir, "raw.db");
  await migrateFile(rawFile);
  const ledger = openRawLedger(rawFile);
  const rawPlan = plan(true);
  const raw = await measureSequential(rawPlan, async (label) => rawRun(ledger, `run-${label}`));
  ledger.close();
  assertRows(rawFile, raw.runs);

  const storeFile = join(options.dir, "store.db");
  const runtime = ManagedRuntime.make(Ledger.layer({ filename: storeFile })) as ManagedRuntime.ManagedRuntime<
    AgentRunStore,
    never
  >;
  const storePlan = plan(false);
  let store: LoopMeasurement;
  let perBatch: LoopMeasurement;
  try {
    store = await options.measured(() =>
      measureSequential(storePlan, (label) => runtime.runPromise(storeRun(`run-${label}`))),
    );
    assertRows(storeFile, store.runs);
    perBatch = await measureSequential(storePlan, (label) => storeRunPerBatch(runtime, `batch-${label}`));
  } finally {
    await runtime.dispose();
  }

  return {
    id: "ledger.append",
    what: "AgentRunStore (createRun, appendEvents ×19, finishRun) for one W10 run's rows, one Effect per run; µs per W10 step = per run / 10",
    ...loopFields(store),
    eventRowsPerSec: eventRowsPerSec(store),
    raw: {
      what: "raw better-sqlite3 prepared statements, same rows, same 21 commits per run",
      usPerStep: { min: raw.usPerStep.min, median: raw.usPerStep.median },
      cpuUsPerStep: { min: raw.cpuUsPerStep.min, median: raw.cpuUsPerStep.median },
      runsPerSec: { min: raw.runsPerSec.min, median: raw.runsPerSec.median, max: raw.runsPerSec.max },
      eventRowsPerSec: eventRowsPerSec(raw),
      runs: raw.runs,
    },
    perBatchRunPromise: {
      what: "the store again, one ManagedRuntime.runPromise per write batch (as the runtime's actors call it)",
      usPerStep: { min: perBatch.usPerStep.min, median: perBatch.usPerStep.median },
      cpuUsPerStep: { min: perBatch.cpuUsPerStep.min, median: perBatch.cpuUsPerStep.median },
      eventRowsPerSec: eventRowsPerSec(perBatch),
    },
  };
}
