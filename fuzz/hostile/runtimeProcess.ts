/**
 * The runtime side of the hostile-providers suite, in its own process (`node --import tsx`): a
 * real AgentRuntime on the suite's SQLite file runs the cases the suite sends over IPC against the
 * suite's hostile server, checks each run (terminal state, reason code, wall time, ledger
 * invariants, the case's expectation) and sends the outcome back. Its own process, so a run that
 * blocks the event loop (a synchronous hang no timer can cut) is seen and killed from outside.
 * Unhandled rejections and uncaught exceptions are reported, not fatal.
 */
import { performance } from "node:perf_hooks";
import { type AgentRunResult, type JsonValue, ReasonCode, TerminalState } from "../../src/domain/index.js";
import { AgentRuntime } from "../../src/runtime/AgentRuntime.js";
import { anthropicProvider } from "../../src/services/providers/anthropic.js";
import { openAIChatProvider } from "../../src/services/providers/openaiChat.js";
import { openAIResponsesProvider } from "../../src/services/providers/openaiResponses.js";
import type { Provider } from "../../src/services/providers/Provider.js";
import { fixtureTool } from "../../src/services/tools/fixtureTool.js";
import { AnyObjectInput, type AnyToolDefinition } from "../../src/services/tools/Tool.js";
import type { HostileCase } from "./catalogue.js";
import { RETRY, RUN_DEADLINE_MS, TIMING } from "./timing.js";
import type { WireApi } from "./wires.js";

/** What the runtime process needs of a case (the replies stay with the server). */
export type CaseSpec = Pick<HostileCase, "id" | "api" | "stream" | "expect" | "contract" | "input">;

export interface CaseOutcome {
  readonly index: number;
  readonly runId: string;
  readonly terminalState?: string;
  readonly terminalReason?: string;
  readonly wallMs: number;
  readonly hang: boolean;
  /** The run's ledger holds `[REDACTED]` (a planted secret reached it and was redacted). */
  readonly redacted: boolean;
  readonly violations: string[];
}

/** Suite → runtime process. */
export type ToRuntime =
  | {
      readonly type: "run";
      readonly index: number;
      readonly spec: CaseSpec;
      readonly origin: string;
      readonly prefix: string;
    }
  | { readonly type: "finish" };

/** Runtime process → suite. */
export type FromRuntime =
  | { readonly type: "ready" }
  | { readonly type: "result"; readonly outcome: CaseOutcome }
  | { readonly type: "crash"; readonly message: string }
  | { readonly type: "disposed" };

export const hostileRunId = (index: number) => `run_hostile_${String(index).padStart(4, "0")}`;

const TERMINAL_STATES: ReadonlySet<string> = new Set(TerminalState.options);
const REASON_CODES: ReadonlySet<string> = new Set(ReasonCode.options);
const API_KEY = "hostile-suite-client-key";
const MODELS: Record<WireApi, string> = {
  "openai-chat": "hostile-chat-model",
  "openai-responses": "hostile-responses-model",
  anthropic: "hostile-claude",
};

function makeProvider(origin: string, prefix: string, hostile: CaseSpec): Provider {
  const common = {
    apiKey: API_KEY,
    model: MODELS[hostile.api],
    stream: hostile.stream,
    timeoutMs: TIMING.idleMs,
    deadlineMs: TIMING.deadlineMs,
  };
  if (hostile.api === "openai-chat") return openAIChatProvider({ ...common, baseURL: `${origin}${prefix}/v1` });
  if (hostile.api === "openai-responses") {
    return openAIResponsesProvider({ ...common, baseURL: `${origin}${prefix}/v1` });
  }
  return anthropicProvider({ ...common, baseURL: `${origin}${prefix}` });
}

/** `lookup` (observe, always ok) and `echo` (returns its arguments: secrets in them reach tool results and receipts). */
function suiteTools(): AnyToolDefinition[] {
  const lookup = fixtureTool({
    name: "lookup",
    kind: "observe",
    outcomes: [{ status: "ok", output: { value: "item" } }],
  });
  const echo: AnyToolDefinition = {
    name: "echo",
    description: "returns its arguments",
    kind: "observe",
    input: AnyObjectInput,
    execute: async (args: Record<string, unknown>) => {
      const text = JSON.stringify(args);
      return {
        status: "ok",
        output: args as JsonValue,
        evidence: { echoed: text.slice(0, 512), bytes: text.length },
      };
    },
  };
  return [lookup, echo];
}

/** The ledger invariants of one run (as strings; empty when they hold). */
async function ledgerProblems(runtime: AgentRuntime, runId: string, result: AgentRunResult): Promise<string[]> {
  const [run, events, receipts] = await Promise.all([
    runtime.ledger.getRun(runId),
    runtime.ledger.listEvents(runId),
    runtime.ledger.listReceipts(runId),
  ]);
  const problems: string[] = [];
  if (!run) return ["no agent_runs row"];
  if (run.terminalState !== result.terminalState) {
    problems.push(`run row says ${run.terminalState}, the result says ${result.terminalState}`);
  }
  events.forEach((event, index) => {
    if (event.sequence !== index + 1) problems.push(`event ${index} has sequence ${event.sequence}`);
  });
  const terminals = events.filter((event) => event.type === "terminal");
  if (terminals.length !== 1) problems.push(`${terminals.length} terminal events`);
  if (events.at(-1)?.type !== "terminal") problems.push("the last event is not the terminal");
  const terminal = terminals[0]?.payload as { terminalState?: string; reason?: string } | undefined;
  if (terminal && terminal.terminalState !== result.terminalState) {
    problems.push(`terminal event says ${terminal.terminalState}, the result says ${result.terminalState}`);
  }
  const called = new Set<string>();
  for (const event of events) {
    const callId = (event.payload as { callId?: unknown } | null)?.callId;
    if (event.type === "tool_call") {
      if (typeof callId !== "string") problems.push(`tool_call at ${event.sequence} has no callId`);
      else if (called.has(callId)) problems.push(`tool_call ${callId} recorded twice`);
      else called.add(callId);
    }
    if (event.type === "tool_result" && (typeof callId !== "string" || !called.has(callId))) {
      problems.push(`tool_result ${String(callId)} at ${event.sequence} before its tool_call`);
    }
  }
  for (const callId of called) {
    const count = receipts.filter((receipt) => receipt.callId === callId).length;
    if (count !== 1) problems.push(`tool_call ${callId} has ${count} receipts`);
  }
  for (const receipt of receipts) {
    if (!called.has(receipt.callId)) problems.push(`receipt ${receipt.callId} has no tool_call`);
  }
  if (result.receipts.length !== receipts.length) {
    problems.push(`the result has ${result.receipts.length} receipts, the ledger ${receipts.length}`);
  }
  return problems;
}

async function ledgerMentions(runtime: AgentRuntime, runId: string, text: string): Promise<boolean> {
  const [run, events, receipts] = await Promise.all([
    runtime.ledger.getRun(runId),
    runtime.ledger.listEvents(runId),
    runtime.ledger.listReceipts(runId),
  ]);
  return JSON.stringify([run, events, receipts]).includes(text);
}

function expectationProblem(hostile: CaseSpec, result: AgentRunResult): string | undefined {
  const state = result.terminalState;
  switch (hostile.expect) {
    case "completed":
      return state === "completed" ? undefined : `expected completed, got ${state}/${result.terminalReason}`;
    case "not_completed":
      return state !== "completed" ? undefined : `a broken response ended completed/${result.terminalReason}`;
    case "failed":
      return state === "failed" ? undefined : `expected failed, got ${state}/${result.terminalReason}`;
    default:
      return undefined;
  }
}

async function runCase(
  runtime: AgentRuntime,
  origin: string,
  prefix: string,
  hostile: CaseSpec,
  index: number,
): Promise<CaseOutcome> {
  const violations: string[] = [];
  const runId = hostileRunId(index);
  const started = performance.now();
  const handle = runtime.startRun({
    runId,
    sessionId: `hostile:${hostile.id}`,
    input: hostile.input,
    provider: makeProvider(origin, prefix, hostile),
    tools: suiteTools(),
    maxSteps: TIMING.maxSteps,
    ...(hostile.contract ? { contract: hostile.contract } : {}),
  });
  // The host-facing stream is drained as a host would; it must end.
  const drained = (async () => {
    for await (const _event of handle.events) {
      // consumed
    }
  })();
  type Settled = { result: AgentRunResult } | { error: unknown } | { hang: true };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const settled = await Promise.race<Settled>([
    handle.result.then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    ),
    new Promise<Settled>((resolve) => {
      timer = setTimeout(() => resolve({ hang: true }), RUN_DEADLINE_MS);
    }),
  ]);
  clearTimeout(timer);
  const wallMs = Math.round(performance.now() - started);
  let result: AgentRunResult | undefined;
  let hang = false;
  if ("hang" in settled) {
    hang = true;
    violations.push(`${hostile.id}: hang: no terminal state within ${RUN_DEADLINE_MS} ms`);
    handle.cancel();
    const late = await Promise.race([
      handle.result.catch(() => undefined),
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 10_000)),
    ]);
    if (!late) violations.push(`${hostile.id}: the run did not end even after a cancel`);
  } else if ("error" in settled) {
    const message = settled.error instanceof Error ? settled.error.message : String(settled.error);
    violations.push(`${hostile.id}: the run's result rejected: ${message.slice(0, 300)}`);
  } else {
    result = settled.result;
  }
  await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 2_000))]);

  let redacted = false;
  if (result) {
    if (!TERMINAL_STATES.has(result.terminalState)) {
      violations.push(`${hostile.id}: terminal state ${String(result.terminalState)} is not one of the five`);
    }
    if (!REASON_CODES.has(result.terminalReason)) {
      violations.push(`${hostile.id}: reason ${String(result.terminalReason)} is not a reason code`);
    }
    const expected = expectationProblem(hostile, result);
    if (expected) {
      const detail = (await runtime.ledger.getRun(runId).catch(() => undefined))?.failureDetail ?? "";
      violations.push(`${hostile.id}: ${expected}${detail ? ` (${detail.slice(0, 200)})` : ""}`);
    }
    try {
      for (const problem of await ledgerProblems(runtime, runId, result)) {
        violations.push(`${hostile.id}: ledger: ${problem}`);
      }
      redacted = await ledgerMentions(runtime, runId, "[REDACTED]");
    } catch (error) {
      violations.push(
        `${hostile.id}: reading the ledger failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  return {
    index,
    runId,
    ...(result ? { terminalState: result.terminalState, terminalReason: result.terminalReason } : {}),
    wallMs,
    hang,
    redacted,
    violations,
  };
}

/** The process: opens the runtime, runs what it is sent, disposes on `finish`. */
async function main(): Promise<void> {
  const send = (message: FromRuntime) => process.send?.(message);
  const database = process.argv[2];
  if (!database || !process.send) throw new Error("usage: a forked child with the SQLite file as its argument");
  const inFlight = new Set<string>();
  const report = (kind: string, error: unknown) => {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    send({ type: "crash", message: `${kind} during [${[...inFlight].join(", ")}]: ${message.slice(0, 300)}` });
  };
  process.on("unhandledRejection", (reason) => report("unhandled rejection", reason));
  process.on("uncaughtException", (error) => report("uncaught exception", error));
  const runtime = await AgentRuntime.make({
    database,
    retry: RETRY,
    maxSteps: TIMING.maxSteps,
    defaultToolTimeoutMs: TIMING.toolTimeoutMs,
  });
  process.on("message", (message: ToRuntime) => {
    if (message.type === "finish") {
      void runtime.dispose().then(() => {
        send({ type: "disposed" });
        process.disconnect?.();
      });
      return;
    }
    inFlight.add(message.spec.id);
    void runCase(runtime, message.origin, message.prefix, message.spec, message.index)
      .catch(
        (error: unknown): CaseOutcome => ({
          index: message.index,
          runId: hostileRunId(message.index),
          wallMs: 0,
          hang: false,
          redacted: false,
          violations: [
            `${message.spec.id}: the case could not run: ${error instanceof Error ? error.message : String(error)}`,
          ],
        }),
      )
      .then((outcome) => {
        inFlight.delete(message.spec.id);
        send({ type: "result", outcome });
      });
  });
  send({ type: "ready" });
}

if (process.send && process.argv[1] && /runtimeProcess\.[cm]?[jt]s$/.test(process.argv[1])) {
  main().catch((error: unknown) => {
    process.send?.({ type: "crash", message: `the runtime process could not start: ${String(error)}` });
    process.exit(1);
  });
}
