import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SqlClient } from "@effect/sql";
import { Effect, Exit, FiberMap, ManagedRuntime, Scope } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnyMachineSnapshot, type createActor, type EventObject, toPromise } from "xstate";
import type {
  AgentRunResult,
  BatchReply,
  CassetteModelStep,
  FixtureOutcome,
  RunCommand,
  RunReply,
  SampleOutcome,
  TerminalPayload,
  ToolSettlement,
} from "../../src/domain/index.js";
import type { RunInput } from "../../src/machines/run/context.js";
import { runMachine } from "../../src/machines/run/machine.js";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import * as Ledger from "../../src/persistence/ledger.js";
import { ApprovalDesk } from "../../src/runtime/approvalDesk.js";
import { createRunActor } from "../../src/runtime/commandBridge.js";
import { type CommandHandlers, commandHandlers } from "../../src/runtime/commandHandlers.js";
import { makeTranscriptStore } from "../../src/runtime/stores.js";
import { passthroughObserver } from "../../src/services/observability/tracing.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { canonicalJson } from "../../src/services/tools/fingerprint.js";
import { fixtureTool } from "../../src/services/tools/fixtureTool.js";
import { verifyAnswer } from "../../src/services/verification.js";
import { ledgerViolations, type RunLedger } from "../support/runtimeHarness.js";
import { buildGraph, completePaths, type GraphOptions, type GraphPath, keyOf, shortestPath } from "./coverage.js";
import {
  batchOf,
  CALL_TIMEOUT_EVENT,
  describeEvent,
  LEDGER_DOWN,
  type LedgerRow,
  ledgerWrite,
  type ModelLedger,
  OBSERVE_LOOKUP,
  pendingOf,
  runEvents,
  runImpossible,
  runInput,
  runOptions,
  singleCallOf,
  TOOL,
  TOOL_TIMEOUT_MS,
  WRITE_DONE,
} from "./runModel.js";

/**
 * Replays a deterministic sample of run-machine paths on live actors through the real runtime
 * bridge (issues B, D and M): the run machine provided with the runtime's I/O actor
 * (`createRunActor`) performing `runOperations` against a real SQLite ledger file. Each
 * path's SAMPLED answers become a scripted provider's steps, its tool batch's settlements a fixture
 * tool's outcomes; the live run must end where the path ends, with the ledger rows the model
 * predicts and a well-formed ledger (one terminal, last; contiguous sequence; no result before
 * its call; one receipt per call).
 *
 * Only paths the live system can take on purpose are replayed: no crash of the verifier or the
 * batch, no CANCEL (see the dedicated test), a refused ledger write only where the test makes the
 * I/O refuse it (see the failure tests), and only the verdicts the real verifier gives: a
 * VERIFIED step is kept only when its modelled verdict equals (all fields) what
 * src/services/verification.ts `verifyAnswer` returns for the VERIFY command the machine sent.
 */

const INPUT = runInput(OBSERVE_LOOKUP);
const SAMPLE_SIZE = 24;
/** Longer than the tool's timeout: the fixture call times out. */
const SLOW_MS = 10 * TOOL_TIMEOUT_MS;

/** Whether the live system can take this step on purpose (a refused write: only where injected). */
function replayable(state: AnyMachineSnapshot, event: EventObject): boolean {
  if (event.type === "VERIFY_FAILED" || event.type === "xstate.error.actor.toolBatch" || event.type === "CANCEL") {
    return false;
  }
  // A call the run executes alone reports its start before its result (a refused start aside).
  if (event.type === "CALL_SETTLED" && singleCallOf(state) === "starting") return false;
  if (event.type === "VERIFIED") {
    const command = pendingOf(state);
    if (command?.type !== "VERIFY") return false;
    const { type: _, ...input } = command;
    const real = verifyAnswer({ ...input, capabilities: INPUT.capabilities });
    return canonicalJson(real) === canonicalJson((event as Extract<RunReply, { type: "VERIFIED" }>).verdict);
  }
  return true;
}

/**
 * The replay's graph offers only what the live system can do (plus LEDGER_FAILED and a CANCEL
 * while the batch runs, for the dedicated tests): the rest of the run model's alphabet is declared impossible here, which
 * keeps this graph small.
 */
const replayOptions = (input: RunInput): GraphOptions => {
  const options = runOptions(input);
  const known = new WeakMap<AnyMachineSnapshot, EventObject[]>();
  const offered = (snapshot: AnyMachineSnapshot) => {
    let events = known.get(snapshot);
    if (!events) {
      // CANCEL only while a tool runs (the dedicated test cancels mid-tool).
      events = runEvents(snapshot).filter((event) =>
        event.type === "CANCEL"
          ? batchOf(snapshot) !== undefined || singleCallOf(snapshot) === "running"
          : event.type === "LEDGER_FAILED" || replayable(snapshot, event),
      );
      known.set(snapshot, events);
    }
    return events;
  };
  return {
    ...options,
    events: offered,
    impossible: (snapshot) => {
      const types = new Set(offered(snapshot).map((event) => event.type));
      return [
        ...runImpossible(snapshot),
        ...runEvents(snapshot)
          .map((e) => e.type)
          .filter((t) => !types.has(t)),
      ];
    },
  };
};
const OPTIONS = replayOptions(INPUT);

const NOISE = new Set(["OPENED", "CALLS_RECORDED", "RESULTS_RECORDED", "TURN_RECORDED", "FINISHED"]);
const describePath = (path: GraphPath) =>
  path.steps
    .map((step) => describeEvent(step.event))
    .filter((label) => !NOISE.has(label.replace(/\(.*$/, "")))
    .join(" → ");

const outputOf = (path: GraphPath) => path.state.output as AgentRunResult;
const outcomeOf = (path: GraphPath) => `${outputOf(path).terminalState}/${outputOf(path).terminalReason}`;
const throughCorrection = (path: GraphPath) => outputOf(path).correctionTurns > 0;

/**
 * A deterministic sample: the shortest path of every distinct ending (state/reason), the shortest
 * path through a correction turn of every distinct ending, then paths spread evenly over the rest,
 * all in a stable order (length, then description).
 */
function samplePaths(paths: ReadonlyArray<GraphPath>, size: number): GraphPath[] {
  const ordered = [...paths].sort(
    (a, b) => a.steps.length - b.steps.length || describePath(a).localeCompare(describePath(b)),
  );
  const chosen: GraphPath[] = [];
  const endings = new Set<string>();
  for (const path of ordered) {
    const ending = `${throughCorrection(path) ? "corrected " : ""}${outcomeOf(path)}`;
    if (!endings.has(ending)) {
      endings.add(ending);
      chosen.push(path);
    }
  }
  const rest = ordered.filter((path) => !chosen.includes(path));
  const stride = Math.max(1, Math.floor(rest.length / Math.max(1, size - chosen.length)));
  for (let index = 0; index < rest.length && chosen.length < size; index += stride) chosen.push(rest[index]!);
  return chosen;
}

/**
 * The cassette a path stands for: model steps from SAMPLED answers, fixture outcomes from the
 * batch's settlements or from the results of a call the run executes alone.
 */
function cassetteOf(path: GraphPath): { steps: CassetteModelStep[]; outcomes: FixtureOutcome[] } {
  const steps: CassetteModelStep[] = [];
  const outcomes: FixtureOutcome[] = [];
  for (const { state, event } of path.steps) {
    if (event.type === "CALL_SETTLED") {
      const { result } = event as Extract<BatchReply, { type: "CALL_SETTLED" }>;
      outcomes.push({ status: result.status as "ok" | "error", output: result.output });
    }
    // A call that timed out, or that a CANCEL settled, is one that runs long.
    if (singleCallOf(state) !== undefined && (event.type === "CANCEL" || event.type === CALL_TIMEOUT_EVENT.type)) {
      outcomes.push({ status: "ok", output: null, delayMs: SLOW_MS });
    }
    if (event.type === "SAMPLED") {
      const outcome: SampleOutcome = (event as Extract<RunReply, { type: "SAMPLED" }>).outcome;
      if (outcome.type === "failure") {
        // script_exhausted: the script simply has no step left.
        if (outcome.reason === "provider_error") steps.push({ error: { status: 500 } });
        continue;
      }
      steps.push({
        text: outcome.text,
        finishReason: outcome.finishReason,
        ...(outcome.calls.length > 0
          ? {
              toolCalls: outcome.calls.map((planned) => ({
                id: planned.call.id,
                name: planned.call.name,
                arguments: planned.call.arguments as Record<string, never>,
              })),
            }
          : {}),
      });
    }
    if (event.type === "xstate.done.actor.toolBatch") {
      for (const settlement of (event as EventObject & { output: ReadonlyArray<ToolSettlement> }).output) {
        // A call that timed out, or that a CANCEL settled, is one that runs long.
        if (settlement.status === "timed_out" || settlement.status === "cancelled") {
          outcomes.push({ status: "ok", output: null, delayMs: SLOW_MS });
        } else if (settlement.status === "ok" || settlement.status === "error") {
          outcomes.push({ status: settlement.status, output: settlement.output });
        }
      }
    }
  }
  return { steps, outcomes };
}

/** The ledger the model says the path writes: each write the I/O actor reports done, from the command it answers. */
function modelledLedger(path: GraphPath): ModelLedger {
  let ledger: ModelLedger = { rows: [], receipts: [] };
  for (const { state, event } of path.steps) {
    if (!WRITE_DONE.has(event.type)) continue;
    const written = ledgerWrite(pendingOf(state)!, ledger);
    if (written?.refused !== undefined) throw new Error(`the model's ledger refuses ${event.type}: ${written.refused}`);
    if (written) ledger = written.ledger;
  }
  return ledger;
}

/** The runtime-owned correction messages a ledger holds (user_input rows of origin runtime_correction). */
const correctionRows = (rows: ReadonlyArray<Pick<LedgerRow, "type" | "payload">>) =>
  rows
    .filter(
      (row) =>
        row.type === "user_input" && (row.payload as { origin?: string } | null)?.origin === "runtime_correction",
    )
    .map((row) => row.payload);

const graph = buildGraph(runMachine, OPTIONS);
const key = keyOf(OPTIONS);
const calmPaths = completePaths(
  graph,
  key,
  (state, event) => event.type !== "LEDGER_FAILED" && replayable(state, event),
);
const SAMPLE = samplePaths(calmPaths, SAMPLE_SIZE);

/** The writes a test can make the I/O refuse once (OPEN: the run would not exist at all). */
type RefusableWrite = "RECORD_CALLS" | "RECORD_TURN" | "RECORD_RESULTS" | "FINISH";
const REFUSABLE: ReadonlyArray<RefusableWrite> = ["RECORD_CALLS", "RECORD_RESULTS", "RECORD_TURN", "FINISH"];

/** For each write, a shortest path that closes the run (FINISHED) after refusing that write, and only that one, once. */
const refusalPaths = REFUSABLE.map((write) => {
  const path = shortestPath(
    graph,
    key,
    (state, event) =>
      replayable(state, event) &&
      (event.type !== "LEDGER_FAILED" ||
        (pendingOf(state)?.type === write &&
          (state.context as { outcome: { reason: string } | null }).outcome?.reason !== "ledger_write_failed")),
    (snapshot, last) =>
      last.type === "FINISHED" && (snapshot.output as AgentRunResult).terminalReason === "ledger_write_failed",
  );
  return [write, path] as const;
});

/** The rollout switch at `observe`: the same model, reporting as `off` would. */
const OBSERVE_INPUT = runInput(OBSERVE_LOOKUP, { receiptVerification: "observe", maxSteps: 2 });

let dir: string;
let managed: ManagedRuntime.ManagedRuntime<AgentRunStore | SqlClient.SqlClient, unknown>;
let runs = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agentloop-paths-"));
  managed = ManagedRuntime.make(Ledger.layer({ filename: join(dir, "ledger.db") })) as ManagedRuntime.ManagedRuntime<
    AgentRunStore | SqlClient.SqlClient,
    unknown
  >;
  await managed.runtime();
});

afterAll(async () => {
  await managed?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const readLedger = (runId: string): Promise<RunLedger> =>
  managed.runPromise(
    Effect.flatMap(AgentRunStore, (store) =>
      Effect.all({ run: store.getRun(runId), events: store.listRunEvents(runId), receipts: store.listReceipts(runId) }),
    ),
  );

/** Makes the first `write` command answer LEDGER_FAILED without writing anything (as a refused write does). */
function refusingOnce(handlers: CommandHandlers, write: RefusableWrite): CommandHandlers {
  let refused = false;
  const handle = handlers[write] as (...args: Parameters<CommandHandlers[typeof write]>) => Effect.Effect<unknown>;
  const once = (...args: Parameters<CommandHandlers[typeof write]>) => {
    if (refused) return handle.apply(handlers, args);
    refused = true;
    return Effect.succeed({ type: "LEDGER_FAILED", detail: LEDGER_DOWN });
  };
  // The other handlers stay the run's own (they may be methods of its table).
  return Object.assign(Object.create(handlers), { [write]: once }) as CommandHandlers;
}

interface Replay {
  readonly steps: ReadonlyArray<CassetteModelStep>;
  readonly outcomes: ReadonlyArray<FixtureOutcome>;
  readonly input?: RunInput;
  readonly toolTimeoutMs?: number;
  readonly refuse?: RefusableWrite;
  /** Called with the live actor once it runs (to send it CANCEL …). */
  readonly drive?: (actor: ReturnType<typeof createActor<typeof runMachine>>) => void;
}

/** Runs one live run through the real I/O actor and ledger; returns its result and its ledger. */
async function replay({ steps, outcomes, input = INPUT, toolTimeoutMs = TOOL_TIMEOUT_MS, refuse, drive }: Replay) {
  runs += 1;
  const runId = `replay-${runs}`;
  const tool = fixtureTool({
    name: TOOL,
    kind: "observe",
    timeoutMs: toolTimeoutMs,
    ...(outcomes.length > 0 ? { outcomes: [...outcomes] } : {}),
  });
  const tools = new Map([[TOOL, tool]]);
  const now = () => new Date().toISOString();
  const handlers = commandHandlers({
    runId,
    provider: scriptedProvider(steps, { capabilities: input.capabilities }),
    tools,
    allowedTools: new Set([TOOL]),
    transcript: makeTranscriptStore([]),
    retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    defaultToolTimeoutMs: toolTimeoutMs,
    now,
    receiptVerification: input.receiptVerification,
    approvals: new ApprovalDesk({ runId, now, tools }),
  });
  const scope = managed.runSync(Scope.make());
  const fibers = managed.runSync(FiberMap.make<string>().pipe(Scope.extend(scope)));
  try {
    const actor = createRunActor(
      {
        runtime: managed,
        handlers: refuse ? refusingOnce(handlers, refuse) : handlers,
        observer: passthroughObserver(),
        fibers,
      },
      { input: { ...input, runId } },
    );
    drive?.(actor as unknown as ReturnType<typeof createActor<typeof runMachine>>);
    actor.start();
    const result = await toPromise(actor);
    return { result, ledger: await readLedger(runId) };
  } finally {
    await managed.runPromise(Scope.close(scope, Exit.void));
  }
}

/** What a live run and a modelled path are compared on. */
function comparable(result: AgentRunResult, rows: ReadonlyArray<Pick<LedgerRow, "type" | "payload">>) {
  return {
    terminal: `${result.terminalState}/${result.terminalReason}`,
    correctionTurns: result.correctionTurns,
    receipts: result.receipts.map((receipt) => `${receipt.callId}:${receipt.status}:${receipt.reason ?? ""}`),
    rowTypes: rows.map((row) => row.type),
    corrections: correctionRows(rows),
    terminalRow: (rows.find((row) => row.type === "terminal")?.payload as TerminalPayload | undefined)?.terminalState,
  };
}

describe("run paths replayed live through the runtime's I/O actor and a real ledger", () => {
  it("samples replayable paths that end in every reachable terminal state", () => {
    const states = new Set(SAMPLE.map((path) => outputOf(path).terminalState));
    console.log(
      `replay: ${calmPaths.length} replayable complete paths, ${SAMPLE.length} sampled, ` +
        `endings: ${[...new Set(SAMPLE.map(outcomeOf))].join(", ")}`,
    );
    expect(SAMPLE.length).toBeGreaterThanOrEqual(10);
    expect([...states].sort()).toEqual(["completed", "failed", "incomplete", "unverified"]);
    // Correction turns are replayed too: a corrected run that completes, and one that stays unverified.
    const corrected = new Set(SAMPLE.filter(throughCorrection).map(outcomeOf));
    expect(corrected.has("completed/receipts_satisfied")).toBe(true);
    expect(corrected.has("unverified/receipt_missing")).toBe(true);
  });

  it.each(SAMPLE.map((path) => [`${describePath(path)} ⇒ ${outcomeOf(path)}`, path] as const))(
    "replays %s live with the same ending and the ledger rows the model predicts",
    async (_, path) => {
      const { result, ledger } = await replay(cassetteOf(path));
      expect({ ...comparable(result, ledger.events), violations: ledgerViolations(ledger) }).toEqual({
        ...comparable(outputOf(path), modelledLedger(path).rows),
        violations: [],
      });
    },
  );

  it.each(REFUSABLE.map((write) => [write] as const))(
    "ends failed/ledger_write_failed with a well-formed ledger when the I/O refuses a %s write",
    async (write) => {
      const path = refusalPaths.find(([refused]) => refused === write)?.[1];
      expect(path, `a model path whose one refused write is ${write}`).toBeDefined();
      const { result, ledger } = await replay({ ...cassetteOf(path!), refuse: write });
      expect({ ...comparable(result, ledger.events), violations: ledgerViolations(ledger) }).toEqual({
        ...comparable(outputOf(path!), modelledLedger(path!).rows),
        violations: [],
      });
      expect(result.terminalReason).toBe("ledger_write_failed");
    },
  );

  it("ends cancelled, with a cancelled receipt for the call in flight, when CANCEL arrives mid-tool", async () => {
    // The model's path: the call starts, CANCEL, the run settles it as cancelled → cancelled.
    // (CANCEL only once the call started: the live test cancels on tool_started.)
    const cancelled = shortestPath(
      graph,
      key,
      (state, event) =>
        event.type !== "LEDGER_FAILED" &&
        (event.type === "CANCEL" ? singleCallOf(state) === "running" : replayable(state, event)) &&
        (event.type !== "SAMPLED" || describeEvent(event) === "SAMPLED(empty,tool_calls,1 call)") &&
        (event.type !== "xstate.done.actor.toolBatch" || describeEvent(event) === "done:toolBatch(cancelled)"),
      (snapshot) => (snapshot.output as AgentRunResult).terminalState === "cancelled",
    );
    expect(cancelled && describePath(cancelled)).toBe("SAMPLED(empty,tool_calls,1 call) → CALL_STARTED → CANCEL");

    const { result, ledger } = await replay({
      ...cassetteOf(cancelled!),
      toolTimeoutMs: 60_000,
      drive: (actor) => actor.on("tool_started", () => actor.send({ type: "CANCEL" })),
    });
    expect({
      ...comparable(result, ledger.events),
      receiptReasons: ledger.receipts.map((receipt) => `${receipt.callId}:${receipt.status}:${receipt.reason}`),
      violations: ledgerViolations(ledger),
    }).toEqual({
      ...comparable(outputOf(cancelled!), modelledLedger(cancelled!).rows),
      receiptReasons: ["call-1-a:cancelled:cancelled_by_user"],
      violations: [],
    });
  });

  it("completes under observe without any receipt, as off would, and records the verdict in the terminal row", async () => {
    // The model's path under observe: an answer without a tool call, the verifier asks for a
    // correction, the run reports completed/answered anyway and hands FINISH the verdict.
    const options = replayOptions(OBSERVE_INPUT);
    const modelled = completePaths(
      buildGraph(runMachine, options),
      keyOf(options),
      (state, event) => event.type !== "LEDGER_FAILED" && replayable(state, event),
    ).find((path) => describePath(path) === "SAMPLED(stop) → VERIFIED(correct)");
    const closing = modelled?.steps.find((step) => step.event.type === "FINISHED");
    const finish = closing && (pendingOf(closing.state) as Extract<RunCommand, { type: "FINISH" }> | null);
    expect(finish?.terminal).toMatchObject({ terminalState: "completed", reason: "answered" });
    expect(finish?.terminal.verification).toMatchObject({ mode: "observe", verdict: "correct" });
    const verdict = (
      modelled!.steps.find((step) => step.event.type === "VERIFIED")!.event as Extract<RunReply, { type: "VERIFIED" }>
    ).verdict;
    expect(finish?.terminal.verification).toEqual({
      mode: "observe",
      verdict: verdict.verdict,
      reason: verdict.reason,
      missing: verdict.missing,
    });

    const { result, ledger } = await replay({ ...cassetteOf(modelled!), input: OBSERVE_INPUT });
    const row = ledger.events.find((r) => r.type === "terminal")?.payload as TerminalPayload | undefined;
    expect({
      ...comparable(result, ledger.events),
      verification: row?.verification,
      violations: ledgerViolations(ledger),
    }).toEqual({
      ...comparable(outputOf(modelled!), modelledLedger(modelled!).rows),
      verification: finish?.terminal.verification,
      violations: [],
    });
  });
});
