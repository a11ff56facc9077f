/**
 * `hygiene.redact`: every ledger payload is redacted (and capped) before it is written, so the
 * secret rules sit on the write path of every step. Reports µs per payload for W10's own rows
 * (no secret hint: the rules are skipped), for a 2 KB tool output whose text has a hint but no
 * secret (every rule runs), for each shape of the secret corpus, and ms per MB of a log with a hint.
 */
import { performance } from "node:perf_hooks";
import type { JsonValue } from "../../src/domain/index.js";
import { sanitizedJson } from "../../src/persistence/payloadHygiene.js";
import { SECRET_SHAPES } from "../../test/fixtures/secrets.js";
import { stat } from "../lib/measure.js";
import type { BenchOptions, BenchResult } from "../lib/types.js";
import { closingRows, toolCallRow, toolResultRows } from "../lib/w10Rows.js";
import { W10_STEPS } from "./w10.js";

/** µs per call of `fn`, min and median over repetitions of `calls` calls each. */
function usPerCall(fn: () => unknown, calls: number, reps: number) {
  for (let i = 0; i < calls; i++) fn(); // warm-up
  const us: number[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const started = performance.now();
    for (let i = 0; i < calls; i++) fn();
    us.push(((performance.now() - started) * 1000) / calls);
  }
  return stat(us);
}

function w10Payloads(): JsonValue[] {
  const payloads: JsonValue[] = [];
  const at = new Date(0).toISOString();
  for (let step = 1; step < W10_STEPS; step++) {
    const call = toolCallRow(step);
    payloads.push(call.event.payload as JsonValue);
    const result = toolResultRows("run_bench", step, call, { i: step, value: `item-${step}`, ok: true }, at, at);
    payloads.push(result.event.payload as JsonValue, result.receipt.evidence as JsonValue);
  }
  payloads.push(closingRows().answer.payload as JsonValue);
  return payloads;
}

const PROSE = "The build finished in 41 s. The token budget of the summary step was 1,200; the cache key was rebuilt, ";

export async function benchHygiene(options: BenchOptions): Promise<BenchResult> {
  const reps = options.quick ? 2 : 5;
  const calls = options.quick ? 20 : 2_000;
  const w10 = w10Payloads();
  const hinted = { output: { stdout: PROSE.repeat(Math.ceil(2048 / PROSE.length)).slice(0, 2048) } };
  const shapes = SECRET_SHAPES.map((entry) => ({ output: { stdout: entry.text } }));
  const log = { output: { stdout: PROSE.repeat(Math.ceil(1_048_576 / PROSE.length)).slice(0, 1_048_576) } };
  const w10Us = await options.measured(async () =>
    usPerCall(
      () => {
        for (const payload of w10) sanitizedJson(payload);
      },
      calls,
      reps,
    ),
  );
  const hintedUs = usPerCall(() => sanitizedJson(hinted), calls, reps);
  const shapesUs = usPerCall(
    () => {
      for (const payload of shapes) sanitizedJson(payload);
    },
    Math.max(1, Math.floor(calls / 10)),
    reps,
  );
  const logUs = usPerCall(() => sanitizedJson(log), options.quick ? 1 : 5, reps);
  return {
    id: "hygiene.redact",
    what: "sanitizedJson (redaction + cap) on W10's rows, a 2 KB hinted output, each secret shape, a 1 MB hinted log",
    usPerW10Payload: { median: w10Us.median / w10.length, min: w10Us.min / w10.length },
    usPer2KbHintedOutput: hintedUs,
    usPerSecretShape: { median: shapesUs.median / shapes.length, min: shapesUs.min / shapes.length },
    secretShapes: shapes.length,
    msPerHintedMb: { median: logUs.median / 1000, min: logUs.min / 1000 },
    reps,
  };
}
