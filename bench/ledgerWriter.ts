/**
 * `npx tsx bench/ledgerWriter.ts [--rounds N] [--runs N] [--quick]`
 *
 * CPU per W10-like ledger step of the SQLite client fork's synchronous writer (the reference copy
 * in bench/lib/forkLedger.ts) against the writer over @effect/sql's SqlClient on
 * @effect/sql-sqlite-node's SqliteClient (src/persistence). A step is two write batches: two
 * tool_call rows, then two tool_result rows with their two receipts.
 *
 * Both write files migrated to the same (latest) schema, with the same pragmas, in this process,
 * interleaved: every round measures each implementation once (alternating which goes first) on
 * fresh runs of 10 steps, so drift and noise of the machine fall on both alike. Reported: process
 * CPU (user + system) per step, the median over rounds, and the new/old ratio (median of the
 * per-round ratios). Two call styles: a block of steps inside one Effect, and one
 * `ManagedRuntime.runPromise` per batch (as the runtime's actors call the store).
 *
 * `--close` instead times `agent_runs_close_once` (the closing UPDATE) on runs of 1 and 9,100
 * events under the 0002 trigger (schema 4) and 0005's (schema 5).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import Sqlite from "better-sqlite3";
import { Effect, type Layer, ManagedRuntime } from "effect";
import type { ExecutionReceipt } from "../src/domain/index.js";
import type { EventToAppend, LedgerError, NewRun, RunClosure } from "../src/persistence/AgentRunStore.js";
import * as SqliteLayer from "../src/persistence/engine/sqlite/client.js";
import * as Ledger from "../src/persistence/ledger.js";
import { MIGRATIONS } from "../src/persistence/migrations/index.js";
import { DEFAULT_PAYLOAD_CAP_BYTES, sha256Hex } from "../src/persistence/payloadHygiene.js";
import * as SqlAgentRunStore from "../src/persistence/SqlAgentRunStore.js";
import { makeForkWrites, sqliteClientLayer } from "./lib/forkLedger.js";
import { stat } from "./lib/measure.js";
import { W10_CONTRACT } from "./workloads/w10.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "30" },
    runs: { type: "string", default: "40" },
    quick: { type: "boolean", default: false },
    close: { type: "boolean", default: false },
  },
});

/** The write side both implementations offer. */
interface Writes {
  readonly createRun: (run: NewRun, events?: ReadonlyArray<EventToAppend>) => Effect.Effect<void, LedgerError>;
  readonly appendEvents: (
    runId: string,
    events: ReadonlyArray<EventToAppend>,
    receipts?: ReadonlyArray<ExecutionReceipt>,
  ) => Effect.Effect<void, LedgerError>;
  readonly finishRun: (runId: string, closure: RunClosure) => Effect.Effect<void, LedgerError>;
}

const STEPS_PER_RUN = 10;
const now = () => new Date().toISOString();

// --- W10-like rows: 2 calls per step, as the runtime writes them ---------------------------------

const newRun = (runId: string): NewRun => ({
  runId,
  sessionId: "bench",
  traceId: runId.replaceAll("-", ""),
  contract: W10_CONTRACT,
  providerId: "w10",
  model: "w10-scripted",
  apiFamily: "scripted",
});

interface Step {
  readonly calls: ReadonlyArray<EventToAppend>;
  readonly results: ReadonlyArray<EventToAppend>;
  readonly receipts: ReadonlyArray<ExecutionReceipt>;
}

/** Step `step` (1-based) of `runId`: sequences 4·step−2 … 4·step+1 (sequence 1 is the user input). */
function stepRows(runId: string, step: number): Step {
  const base = 4 * step - 2;
  const ids = [0, 1].map((k) => ({ callId: `call_${step}_${k}`, i: 2 * step + k }));
  const at = now();
  const calls = ids.map(
    ({ callId, i }, k): EventToAppend => ({
      sequence: base + k,
      type: "tool_call",
      payload: {
        step,
        callId,
        toolName: "lookup",
        arguments: { i },
        inputFingerprint: sha256Hex(JSON.stringify({ arguments: { i }, name: "lookup" })),
      },
    }),
  );
  const outputs = ids.map(({ i }) => JSON.stringify({ i, ok: true, value: `item-${i}` }));
  const results = ids.map(
    ({ callId, i }, k): EventToAppend => ({
      sequence: base + 2 + k,
      type: "tool_result",
      payload: {
        step,
        callId,
        toolName: "lookup",
        status: "ok",
        output: { i, value: `item-${i}`, ok: true },
        outputHash: sha256Hex(outputs[k]!),
      },
    }),
  );
  const receipts = ids.map(
    ({ callId, i }, k): ExecutionReceipt => ({
      receiptId: `${runId}:${callId}`,
      runId,
      callId,
      toolName: "lookup",
      status: "ok",
      startedAt: at,
      finishedAt: at,
      inputFingerprint: sha256Hex(JSON.stringify({ arguments: { i }, name: "lookup" })),
      evidence: { output_sha256: sha256Hex(outputs[k]!), output_bytes: Buffer.byteLength(outputs[k]!) },
      verificationStatus: "verified",
    }),
  );
  return { calls, results, receipts };
}

const closureOf = (): RunClosure => ({
  sequence: 4 * STEPS_PER_RUN + 2,
  terminal: {
    terminalState: "completed",
    reason: "receipts_satisfied",
    finalText: "done",
    steps: 11,
    correctionTurns: 0,
  },
});

// --- the two implementations ------------------------------------------------------------------

interface Subject {
  readonly name: "old" | "new";
  readonly run: <A>(effect: Effect.Effect<A, unknown>) => Promise<A>;
  readonly dispose: () => Promise<void>;
  readonly writes: Writes;
}

/** A runtime over `layer` (one connection) and the writes made inside it. */
async function subject<R>(
  name: Subject["name"],
  layer: Layer.Layer<R, unknown>,
  make: Effect.Effect<Writes, unknown, R>,
): Promise<Subject> {
  const runtime = ManagedRuntime.make(layer);
  return {
    name,
    run: (effect) => runtime.runPromise(effect),
    dispose: () => runtime.dispose(),
    writes: await runtime.runPromise(make),
  };
}

async function openSubjects(dir: string): Promise<Subject[]> {
  const oldFile = join(dir, "old.db");
  const newFile = join(dir, "new.db");
  await Effect.runPromise(Ledger.migrate(oldFile));
  await Effect.runPromise(Ledger.migrate(newFile));
  return [
    await subject("old", sqliteClientLayer({ filename: oldFile }), makeForkWrites(DEFAULT_PAYLOAD_CAP_BYTES, now)),
    await subject("new", SqliteLayer.layer({ filename: newFile }), SqlAgentRunStore.make()),
  ];
}

type Style = "oneEffect" | "perBatch";

/** Opens `runs` runs (untimed), times their 10 steps each, closes them (untimed). CPU µs and wall µs per step. */
async function measureRound(s: Subject, style: Style, round: string, runs: number) {
  const { writes, run } = s;
  const ids = Array.from({ length: runs }, (_, i) => `${s.name}-${style}-${round}-${i}`);
  await run(
    Effect.forEach(
      ids,
      (id) => writes.createRun(newRun(id), [{ sequence: 1, type: "user_input", payload: { text: "go" } }]),
      {
        discard: true,
      },
    ),
  );
  const rows = ids.map((id) => Array.from({ length: STEPS_PER_RUN }, (_, k) => stepRows(id, k + 1)));
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  if (style === "oneEffect") {
    await run(
      Effect.gen(function* () {
        for (let r = 0; r < ids.length; r++) {
          for (const step of rows[r]!) {
            yield* writes.appendEvents(ids[r]!, step.calls);
            yield* writes.appendEvents(ids[r]!, step.results, step.receipts);
          }
        }
      }),
    );
  } else {
    for (let r = 0; r < ids.length; r++) {
      for (const step of rows[r]!) {
        await run(writes.appendEvents(ids[r]!, step.calls));
        await run(writes.appendEvents(ids[r]!, step.results, step.receipts));
      }
    }
  }
  const wallUs = (performance.now() - started) * 1000;
  const cpu = process.cpuUsage(cpuBefore);
  await run(Effect.forEach(ids, (id) => writes.finishRun(id, closureOf()), { discard: true }));
  const steps = runs * STEPS_PER_RUN;
  return { cpuUs: (cpu.user + cpu.system) / steps, wallUs: wallUs / steps };
}

const fmt = (n: number) => n.toFixed(1).padStart(7);

async function writerBench(): Promise<void> {
  const rounds = values.quick ? 4 : Number(values.rounds);
  const runs = values.quick ? 5 : Number(values.runs);
  const warmupRounds = values.quick ? 1 : 5;
  const dir = mkdtempSync(join(tmpdir(), "agentloop-ledger-writer-"));
  const subjects: Subject[] = [];
  try {
    subjects.push(...(await openSubjects(dir)));
    for (const style of ["oneEffect", "perBatch"] as const) {
      const cpu = { old: [] as number[], new: [] as number[] };
      const wall = { old: [] as number[], new: [] as number[] };
      const ratios: number[] = [];
      for (let round = 0; round < warmupRounds + rounds; round++) {
        const order = round % 2 === 0 ? subjects : [...subjects].reverse();
        const measured: Record<string, { cpuUs: number; wallUs: number }> = {};
        // No forced gc() between rounds: it flushes compiled code, and the next round would pay for
        // recompiling it — more for the implementation that runs more JavaScript (see lib/measure.ts).
        for (const s of order) measured[s.name] = await measureRound(s, style, `r${round}`, runs);
        if (round < warmupRounds) continue;
        for (const name of ["old", "new"] as const) {
          cpu[name].push(measured[name]!.cpuUs);
          wall[name].push(measured[name]!.wallUs);
        }
        ratios.push(measured.new!.cpuUs / measured.old!.cpuUs);
      }
      const line = (name: "old" | "new") => {
        const c = stat(cpu[name]);
        const w = stat(wall[name]);
        return `  ${name}: CPU µs/step median ${fmt(c.median)} (min ${fmt(c.min)}, max ${fmt(c.max)}); wall µs/step median ${fmt(w.median)}`;
      };
      const r = stat(ratios);
      process.stdout.write(
        [
          `${style === "oneEffect" ? "one Effect per block of steps" : "one runPromise per batch"}: ${rounds} rounds × ${runs} runs × ${STEPS_PER_RUN} steps each`,
          line("old"),
          line("new"),
          `  new/old CPU per step: median of per-round ratios ${r.median.toFixed(2)} (min ${r.min.toFixed(2)}, max ${r.max.toFixed(2)}); ratio of medians ${(stat(cpu.new).median / stat(cpu.old).median).toFixed(2)}`,
          "",
        ].join("\n"),
      );
    }
  } finally {
    for (const s of subjects) await s.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

// --- the close check ------------------------------------------------------------------------------

async function closeBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "agentloop-close-check-"));
  const { "0005_ledger_exact_checks": _exactChecks, ...upTo4 } = MIGRATIONS;
  const reps = values.quick ? 200 : 2_000;
  try {
    for (const [label, migrations] of [
      ["schema 4 (0002 trigger)", upTo4],
      ["schema 5 (0005 trigger)", MIGRATIONS],
    ] as const) {
      const file = join(dir, `${label.slice(0, 8).replace(" ", "")}.db`);
      await Effect.runPromise(Ledger.migrate(file, { migrations }));
      const db = new Sqlite(file);
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      const insertRun = db.prepare(
        `INSERT INTO agent_runs (run_id, session_id, terminal_state, completion_contract_json, trace_id, started_at)
         VALUES (?, 's', 'running', '{}', ?, 'now')`,
      );
      const insertEvent = db.prepare(
        "INSERT INTO agent_run_events (run_id, sequence, event_type, payload_json, created_at) VALUES (?, ?, ?, ?, 'now')",
      );
      const results: string[] = [];
      for (const length of [1, 9_100]) {
        const runId = `run-${length}`;
        db.transaction(() => {
          insertRun.run(runId, runId);
          for (let sequence = 1; sequence < length; sequence++)
            insertEvent.run(runId, sequence, "user_input", '{"text":"x"}');
          insertEvent.run(runId, length, "terminal", '{"terminalState":"completed"}');
        })();
        const close = db.prepare(
          "UPDATE agent_runs SET terminal_state = 'completed', ended_at = 'now' WHERE run_id = ?",
        );
        const begin = db.prepare("BEGIN");
        const rollback = db.prepare("ROLLBACK");
        const samples: number[] = [];
        for (let i = 0; i < reps; i++) {
          begin.run();
          const started = performance.now();
          close.run(runId);
          samples.push((performance.now() - started) * 1000);
          rollback.run();
        }
        results.push(`${length} event(s): median ${stat(samples).median.toFixed(1)} µs`);
      }
      db.close();
      process.stdout.write(`closing UPDATE, ${label}: ${results.join("; ")}\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await (values.close ? closeBench() : writerBench());
