/**
 * Test support for the runtime: a temp SQLite file per test, a runtime factory with fast
 * retries (runtimes are disposed after each test), ledger readers and a ledger-invariant checker.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect } from "effect";
import { afterEach, beforeEach } from "vitest";
import type {
  AgentRunResult,
  CassetteModelStep,
  CassetteTool,
  ExecutionReceipt,
  JsonValue,
  LedgerEvent,
  LoopEvent,
  RunRecord,
} from "../../src/domain/index.js";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import { AgentRuntime, type AgentRuntimeConfig, type RunHandle } from "../../src/runtime/AgentRuntime.js";
import type { Provider } from "../../src/services/providers/Provider.js";
import type { RetryPolicy } from "../../src/services/providers/retry.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { fixtureTool } from "../../src/services/tools/fixtureTool.js";
import type { AnyToolDefinition } from "../../src/services/tools/Tool.js";

export const FAST_RETRY: RetryPolicy = { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 };

export interface RuntimeHarness {
  /** The SQLite file of the current test (not created until a runtime opens it). */
  readonly dbFile: () => string;
  /** A path inside the current test's directory. */
  readonly path: (name: string) => string;
  /** A runtime on the current test's file with fast retries; disposed after the test. */
  readonly makeRuntime: (overrides?: Partial<AgentRuntimeConfig>) => Promise<AgentRuntime>;
}

/** Registers hooks: each test of the calling file gets its own directory and its runtimes are disposed. */
export function useRuntimeHarness(prefix = "agentloop-runtime-"): RuntimeHarness {
  let dir: string | undefined;
  let runtimes: AgentRuntime[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    const open = runtimes;
    runtimes = [];
    for (const runtime of open) await runtime.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  const path = (name: string) => {
    if (!dir) throw new Error("useRuntimeHarness: no test is running");
    return join(dir, name);
  };
  const dbFile = () => path("ledger.db");
  const makeRuntime = async (overrides: Partial<AgentRuntimeConfig> = {}) => {
    const runtime = await AgentRuntime.make({ database: dbFile(), retry: FAST_RETRY, ...overrides });
    runtimes.push(runtime);
    return runtime;
  };
  return { dbFile, path, makeRuntime };
}

export interface RunLedger {
  readonly run: RunRecord | undefined;
  readonly events: ReadonlyArray<LedgerEvent>;
  readonly receipts: ReadonlyArray<ExecutionReceipt>;
}

/** The run row, its events (by sequence) and its receipts, read through the runtime's store. */
export function readLedger(runtime: AgentRuntime, runId: string): Promise<RunLedger> {
  return runtime.run(
    Effect.flatMap(AgentRunStore, (store) =>
      Effect.all({
        run: store.getRun(runId),
        events: store.listRunEvents(runId),
        receipts: store.listReceipts(runId),
      }),
    ),
  );
}

export const eventTypes = (ledger: RunLedger) => ledger.events.map((event) => event.type);
export const receiptSummary = (ledger: RunLedger) =>
  ledger.receipts.map((receipt) => ({
    toolName: receipt.toolName,
    status: receipt.status,
    ...(receipt.reason ? { reason: receipt.reason } : {}),
  }));

const callIdOf = (event: LedgerEvent): string | undefined =>
  (event.payload as { callId?: unknown } | null)?.callId as string | undefined;

/**
 * Every way the ledger of one run breaks its invariants, as readable strings (empty when it holds):
 * sequences 1..n contiguous; exactly one terminal and it is last; no tool_result before its
 * tool_call; each tool_call has exactly one receipt (and each receipt a tool_call).
 */
export function ledgerViolations(ledger: RunLedger): string[] {
  const problems: string[] = [];
  ledger.events.forEach((event, index) => {
    if (event.sequence !== index + 1)
      problems.push(`row ${index} has sequence ${event.sequence}, expected ${index + 1}`);
  });
  const terminals = ledger.events.filter((event) => event.type === "terminal");
  if (terminals.length !== 1) problems.push(`${terminals.length} terminal rows`);
  if (ledger.events.length > 0 && ledger.events[ledger.events.length - 1]!.type !== "terminal") {
    problems.push("the last row is not the terminal");
  }
  const called = new Set<string>();
  for (const event of ledger.events) {
    const callId = callIdOf(event);
    if (event.type === "tool_call" && callId) called.add(callId);
    if (event.type === "tool_result" && (!callId || !called.has(callId))) {
      problems.push(`tool_result ${callId} at ${event.sequence} before its tool_call`);
    }
  }
  for (const callId of called) {
    const count = ledger.receipts.filter((receipt) => receipt.callId === callId).length;
    if (count !== 1) problems.push(`tool_call ${callId} has ${count} receipts`);
  }
  for (const receipt of ledger.receipts) {
    if (!called.has(receipt.callId)) problems.push(`receipt ${receipt.callId} has no tool_call`);
  }
  if (ledger.run && ledger.run.terminalState === "running") problems.push("the run row is still running");
  const terminal = terminals[0]?.payload as { terminalState?: string } | undefined;
  if (ledger.run && terminal && ledger.run.terminalState !== terminal.terminalState) {
    problems.push(`run row says ${ledger.run.terminalState}, terminal says ${terminal.terminalState}`);
  }
  return problems;
}

/** Drains a run's host-facing events (single consumer). */
export async function collectEvents(handle: RunHandle): Promise<LoopEvent[]> {
  const events: LoopEvent[] = [];
  for await (const event of handle.events) events.push(event);
  return events;
}

/** Runs to the end and returns the result with the ledger. */
export async function finish(
  runtime: AgentRuntime,
  handle: RunHandle,
): Promise<{ result: AgentRunResult } & RunLedger> {
  const result = await handle.result;
  return { result, ...(await readLedger(runtime, result.runId)) };
}

/** A scripted provider that counts how often it was asked (retries included). */
export function countingProvider(steps: ReadonlyArray<CassetteModelStep>): Provider & { readonly calls: () => number } {
  const inner = scriptedProvider(steps);
  let calls = 0;
  return {
    ...inner,
    sample: (request) =>
      Effect.suspend(() => {
        calls += 1;
        return inner.sample(request);
      }),
    calls: () => calls,
  };
}

/** A fixture tool (the cassette kind) from its spec. */
export const fixture = (spec: CassetteTool): AnyToolDefinition => fixtureTool(spec);

/** A fixture `lookup` observe tool that always answers ok. */
export const lookupTool = (overrides: Partial<CassetteTool> = {}) =>
  fixtureTool({
    name: "lookup",
    kind: "observe",
    outcomes: [{ status: "ok", output: { value: "item" } }],
    ...overrides,
  });

/** One model step calling `name` with `args`. */
export const callStep = (
  id: string,
  name: string,
  args: Record<string, JsonValue> | string = {},
  text?: string,
): CassetteModelStep => ({
  ...(text ? { text } : {}),
  toolCalls: [{ id, name, arguments: args }],
  finishReason: "tool_calls",
});

export const textStep = (
  text: string,
  finishReason: CassetteModelStep["finishReason"] = "stop",
): CassetteModelStep => ({
  text,
  finishReason,
});
