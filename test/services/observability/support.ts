/**
 * Test support for the observability tests: reading one sample out of Prometheus text, so tests
 * can compare a metric before and after a run (metrics are process-global: compare deltas), and
 * crafting a ledger file of closed runs (for health and the CLI) through the real store.
 */
import { Effect } from "effect";
import type {
  CompletionContractInput,
  ExecutionReceipt,
  JsonValue,
  ReasonCode,
  TerminalPayload,
  TerminalState,
} from "../../../src/domain/index.js";
import { CompletionContract } from "../../../src/domain/index.js";
import { AgentRunStore, type EventToAppend } from "../../../src/persistence/AgentRunStore.js";
import * as Ledger from "../../../src/persistence/ledger.js";

/** Parses `name{labels} value` lines (comments skipped) into [name, labels, value] samples. */
export function samples(text: string): Array<{ name: string; labels: Record<string, string>; value: number }> {
  const out: Array<{ name: string; labels: Record<string, string>; value: number }> = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("#") || line.trim() === "") continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1]!] = pair[2]!.replace(/\\n/g, "\n").replace(/\\"/g, '"').replace(/\\\\/g, "\\");
    }
    const value = match[3] === "+Inf" ? Number.POSITIVE_INFINITY : Number(match[3]);
    out.push({ name: match[1]!, labels, value });
  }
  return out;
}

/** The sum of every sample of `name` whose labels include `labels` (0 when there is none). */
export function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number {
  return samples(text)
    .filter((sample) => sample.name === name)
    .filter((sample) => Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}

/** Reads `names` (with labels) from `read()` before and after `act`, and returns the deltas. */
export async function deltas<K extends string>(
  read: () => string,
  series: Readonly<Record<K, readonly [name: string, labels?: Record<string, string>]>>,
  act: () => Promise<unknown>,
): Promise<Record<K, number>> {
  const before = read();
  await act();
  const after = read();
  const result = {} as Record<K, number>;
  for (const [key, [name, labels]] of Object.entries(series) as Array<
    [K, readonly [string, Record<string, string>?]]
  >) {
    result[key] = sampleValue(after, name, labels ?? {}) - sampleValue(before, name, labels ?? {});
  }
  return result;
}

// --- Crafted ledgers ---------------------------------------------------------------------------

export interface CraftedCall {
  readonly callId: string;
  readonly toolName?: string;
  /** false: no tool_result row (a dangling call). */
  readonly result?: boolean;
  /** false: no receipt; an object: the receipt's evidence. */
  readonly receipt?: false | Record<string, JsonValue>;
}

export interface CraftedRun {
  readonly runId: string;
  readonly endedAt: Date;
  readonly state?: TerminalState;
  readonly reason?: ReasonCode;
  readonly contract?: CompletionContractInput;
  readonly anomalies?: number;
  readonly calls?: ReadonlyArray<CraftedCall>;
  readonly verification?: TerminalPayload["verification"];
  readonly steps?: number;
  readonly correctionTurns?: number;
}

const FINGERPRINT = "c".repeat(64);

/** Writes `runs` through the real store, each ending at its `endedAt` (one second after it started). */
export function craftRuns(filename: string, runs: ReadonlyArray<CraftedRun>) {
  let clock = new Date(0).toISOString();
  return Effect.gen(function* () {
    const store = yield* AgentRunStore;
    for (const run of runs) {
      yield* store.createRun({
        runId: run.runId,
        sessionId: "crafted",
        traceId: `trace-${run.runId}`,
        contract: CompletionContract.parse(run.contract ?? { evidenceMode: "none" }),
        // As a rollout in `observe` writes them: a fixture may hold a completed run the
        // database refuses under `enforce` (what the health checks exist to find in old ledgers).
        verificationMode: "observe",
        providerId: "scripted",
        model: "cassette",
        apiFamily: "scripted",
        startedAt: new Date(run.endedAt.getTime() - 1000).toISOString(),
      });
      const events: EventToAppend[] = [{ sequence: 1, type: "user_input", payload: { text: "task", origin: "user" } }];
      const push = (type: EventToAppend["type"], payload: JsonValue) =>
        events.push({ sequence: events.length + 1, type, payload });
      for (let index = 0; index < (run.anomalies ?? 0); index++) {
        push("provider_anomaly", { step: 1, code: "tool_finish_without_parsed_calls", detail: "finish tool_calls" });
      }
      const receipts: ExecutionReceipt[] = [];
      for (const call of run.calls ?? []) {
        const toolName = call.toolName ?? "lookup";
        push("tool_call", { step: 1, callId: call.callId, toolName, arguments: {}, inputFingerprint: FINGERPRINT });
        if (call.result !== false) {
          push("tool_result", {
            step: 1,
            callId: call.callId,
            toolName,
            status: "ok",
            output: "ok",
            outputHash: "d".repeat(64),
          });
        }
        if (call.receipt !== false) {
          receipts.push({
            receiptId: `${run.runId}:${call.callId}`,
            runId: run.runId,
            callId: call.callId,
            toolName,
            status: "ok",
            startedAt: run.endedAt.toISOString(),
            finishedAt: run.endedAt.toISOString(),
            inputFingerprint: FINGERPRINT,
            evidence: call.receipt ?? {},
            verificationStatus: "verified",
          });
        }
      }
      yield* store.appendEvents(run.runId, events, receipts);
      clock = run.endedAt.toISOString();
      const state = run.state ?? "completed";
      yield* store.finishRun(run.runId, {
        sequence: events.length + 1,
        terminal: {
          terminalState: state,
          reason: run.reason ?? (state === "completed" ? "answered" : "internal_error"),
          finalText: "done",
          steps: run.steps ?? 1,
          correctionTurns: run.correctionTurns ?? 0,
          ...(run.verification ? { verification: run.verification } : {}),
        },
      });
    }
  }).pipe(Effect.provide(Ledger.layer({ filename, now: () => clock })));
}

/** `craftRuns` for the Promise-side tests (the CLI run as a child process). */
export const craftLedger = (filename: string, runs: ReadonlyArray<CraftedRun>): Promise<void> =>
  Effect.runPromise(craftRuns(filename, runs));
