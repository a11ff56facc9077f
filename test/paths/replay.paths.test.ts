import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnyMachineSnapshot, EventObject } from "xstate";
import type {
  AgentRunResult,
  CassetteModelStep,
  ExecutionReceipt,
  FixtureOutcome,
  TerminalPayload,
  ToolSettlement,
} from "../../src/domain/index.js";
import type { FinishRunInput, SampleOutcome, Verdict, VerifyInput } from "../../src/machines/protocol.js";
import { type RunInput, runMachine } from "../../src/machines/run.machine.js";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import { AgentRuntime } from "../../src/runtime/AgentRuntime.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { canonicalJson } from "../../src/services/tools/fingerprint.js";
import { fixtureTool } from "../../src/services/tools/fixtureTool.js";
import { verifyAnswer } from "../../src/services/verification.js";
import {
  buildGraph,
  closedLedgerViolations,
  completePaths,
  describeEvent,
  type GraphOptions,
  type GraphPath,
  invokeInput,
  isActorError,
  keyOf,
  type LedgerRow,
  ledgerWrite,
  type ModelLedger,
  OBSERVE_LOOKUP,
  runEvents,
  runInput,
  TOOL,
  TOOL_TIMEOUT_MS,
} from "./coverage.js";

/**
 * Replays a deterministic sample of run-machine paths through the real runtime (issues B, D): each
 * path's provider outcomes become a scripted provider's steps, its tool settlements a fixture
 * tool's outcomes; the live run must end where the path ends, with the ledger rows the model
 * predicts (a well-formed ledger, the same row types in the same order, the same correction rows).
 *
 * Only paths the live system can take on purpose are replayed: no ledger write failures or actor
 * crashes (error.actor.*), no CANCEL (see the dedicated test), and — the choice for issue D's
 * correction turn — only the verifier verdicts the real verifier gives for that input: a
 * `done.verifyAnswer` step is kept only when its modelled verdict equals (all fields: verdict,
 * reason, missing, correction) what src/services/verification.ts `verifyAnswer` returns for the
 * input the machine gives the verifier. The live runtime then decides exactly as the path does:
 * a path through `correcting` makes the live run take its correction turn, and the path's next
 * `done.sampleModel` is the scripted model step that answers it. (Mapping every modelled verdict
 * to the live one instead would change the path's later steps, so the sample would no longer be
 * paths of the model.)
 */

const INPUT = runInput(OBSERVE_LOOKUP);
const SAMPLE_SIZE = 24;
/** Longer than the tool's timeout: the fixture call times out. */
const SLOW_MS = 10 * TOOL_TIMEOUT_MS;

const DONE = "xstate.done.actor.";
const outputOf = <T>(event: EventObject) => (event as EventObject & { output: T }).output;

/** Whether the live system can take this step on purpose. */
function replayable(state: AnyMachineSnapshot, event: EventObject): boolean {
  if (isActorError(event) || event.type === "CANCEL") return false;
  if (event.type === `${DONE}verifyAnswer`) {
    const input = invokeInput<VerifyInput>(state, "verifyAnswer")!;
    const real = verifyAnswer({ ...input, capabilities: INPUT.capabilities });
    return canonicalJson(real) === canonicalJson(outputOf<Verdict>(event));
  }
  return true;
}

/**
 * The replay's graph offers only the steps the live system can take on purpose, plus CANCEL (for
 * the dedicated test): the rest of the run model's alphabet (actor errors, verdicts the live
 * verifier would not give) is declared impossible here, which keeps this graph small.
 */
const replayOptions = (input: RunInput): GraphOptions => ({
  input,
  events: (snapshot) => runEvents(snapshot).filter((event) => event.type === "CANCEL" || replayable(snapshot, event)),
  impossible: (snapshot) => {
    const events = runEvents(snapshot);
    const offered = new Set(
      events.filter((event) => event.type === "CANCEL" || replayable(snapshot, event)).map((event) => event.type),
    );
    return events.map((event) => event.type).filter((type) => !offered.has(type));
  },
});
const OPTIONS = replayOptions(INPUT);

const throughCorrection = (path: GraphPath) => path.steps.some((step) => step.event.type === `${DONE}recordCorrection`);

const describePath = (path: GraphPath) =>
  path.steps
    .map((step) => describeEvent(step.event))
    .filter((label) => label !== "CALL_STARTED" && !/^done:(openRun|record|finishRun)/.test(label))
    .join(" → ");

const outcomeOf = (path: GraphPath) => {
  const output = path.state.output as AgentRunResult;
  return `${output.terminalState}/${output.terminalReason}`;
};

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

/** The cassette a path stands for: model steps from sampleModel outputs, fixture outcomes from settlements. */
function cassetteOf(path: GraphPath): { steps: CassetteModelStep[]; outcomes: FixtureOutcome[] } {
  const steps: CassetteModelStep[] = [];
  const outcomes: FixtureOutcome[] = [];
  for (const { event } of path.steps) {
    if (event.type === `${DONE}sampleModel`) {
      const outcome = outputOf<SampleOutcome>(event);
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
    if (event.type === `${DONE}toolBatch`) {
      for (const settlement of outputOf<ReadonlyArray<ToolSettlement>>(event)) {
        if (settlement.status === "timed_out") outcomes.push({ status: "ok", output: null, delayMs: SLOW_MS });
        else if (settlement.status === "ok" || settlement.status === "error") {
          outcomes.push({ status: settlement.status, output: settlement.output });
        } else throw new Error(`a replayed path cannot settle a call as ${settlement.status}`);
      }
    }
  }
  return { steps, outcomes };
}

/** The ledger the model says the path writes: each actor's write, from the input the machine gave it. */
function modelledLedger(path: GraphPath): ModelLedger {
  let ledger: ModelLedger = { rows: [], receipts: [] };
  for (const { state, event } of path.steps) {
    if (!event.type.startsWith(DONE)) continue;
    const written = ledgerWrite(state, event.type.slice(DONE.length), ledger);
    if (written?.refused !== undefined) throw new Error(`the model's ledger refuses ${event.type}: ${written.refused}`);
    if (written) ledger = written.ledger;
  }
  return ledger;
}

/** The runtime-owned correction messages a ledger holds (user_input rows of origin runtime_correction). */
const correctionRows = (rows: ReadonlyArray<LedgerRow>) =>
  rows
    .filter(
      (row) =>
        row.type === "user_input" && (row.payload as { origin?: string } | null)?.origin === "runtime_correction",
    )
    .map((row) => row.payload);

const graph = buildGraph(runMachine, OPTIONS);
const replayablePaths = completePaths(graph, keyOf(OPTIONS), replayable);
const SAMPLE = samplePaths(
  replayablePaths.filter((path) => path.state.status === "done"),
  SAMPLE_SIZE,
);

/** The rollout switch at `observe`: the same model, reporting as `off` would. */
const OBSERVE_INPUT = runInput(OBSERVE_LOOKUP, { receiptVerification: "observe" });

let dir: string;
let runtime: AgentRuntime;
let observeRuntime: AgentRuntime;

const makeRuntime = (input: RunInput, file: string) =>
  AgentRuntime.make({
    database: join(dir, file),
    retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    doomLoopThreshold: input.doomLoopThreshold,
    maxProtocolRepairs: input.maxProtocolRepairs,
    toolConcurrency: input.toolConcurrency,
    receiptVerification: input.receiptVerification,
  });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agentloop-paths-"));
  runtime = await makeRuntime(INPUT, "ledger.db");
  observeRuntime = await makeRuntime(OBSERVE_INPUT, "observe.db");
});

afterAll(async () => {
  await runtime?.dispose();
  await observeRuntime?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function ledgerOf(
  runId: string,
  on: AgentRuntime = runtime,
): Promise<{ rows: LedgerRow[]; receipts: ReadonlyArray<ExecutionReceipt> }> {
  const rows = await on.run(Effect.flatMap(AgentRunStore, (store) => store.listRunEvents(runId)));
  const receipts = await on.run(Effect.flatMap(AgentRunStore, (store) => store.listReceipts(runId)));
  return { rows: rows.map((row) => ({ sequence: row.sequence, type: row.type, payload: row.payload })), receipts };
}

const toolSpec = (outcomes: FixtureOutcome[]) =>
  fixtureTool({
    name: TOOL,
    kind: "observe",
    timeoutMs: TOOL_TIMEOUT_MS,
    ...(outcomes.length > 0 ? { outcomes } : {}),
  });

describe("run paths replayed through the runtime", () => {
  it("samples replayable paths that end in every reachable terminal state", () => {
    const states = new Set(SAMPLE.map((path) => (path.state.output as AgentRunResult).terminalState));
    console.log(
      `replay: ${replayablePaths.length} replayable complete paths, ${SAMPLE.length} sampled, ` +
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
      const expected = path.state.output as AgentRunResult;
      const { steps, outcomes } = cassetteOf(path);
      const handle = runtime.startRun({
        sessionId: "paths",
        input: INPUT.input,
        contract: OBSERVE_LOOKUP,
        tools: [toolSpec(outcomes)],
        provider: scriptedProvider(steps, { capabilities: INPUT.capabilities }),
        maxSteps: INPUT.maxSteps,
      });
      const result = await handle.result;
      const ledger = await ledgerOf(handle.runId);
      const modelled = modelledLedger(path);
      expect({
        terminal: `${result.terminalState}/${result.terminalReason}`,
        correctionTurns: result.correctionTurns,
        receipts: result.receipts.map((receipt) => `${receipt.toolName}:${receipt.status}`),
        violations: closedLedgerViolations(
          ledger.rows,
          ledger.receipts.map((receipt) => receipt.callId),
        ),
        rowTypes: ledger.rows.map((row) => row.type),
        corrections: correctionRows(ledger.rows),
        terminalRow: (ledger.rows.find((row) => row.type === "terminal")?.payload as { terminalState?: string })
          ?.terminalState,
      }).toEqual({
        terminal: `${expected.terminalState}/${expected.terminalReason}`,
        correctionTurns: expected.correctionTurns,
        receipts: expected.receipts.map((receipt) => `${receipt.toolName}:${receipt.status}`),
        violations: [],
        rowTypes: modelled.rows.map((row) => row.type),
        corrections: correctionRows(modelled.rows),
        terminalRow: expected.terminalState,
      });
    },
  );

  it("ends cancelled, with a cancelled receipt for the call in flight, when CANCEL arrives mid-tool", async () => {
    // The model's path: the call starts, CANCEL, the batch settles it as cancelled → cancelled.
    const modelled = completePaths(
      graph,
      keyOf(OPTIONS),
      (_, event) =>
        !isActorError(event) &&
        (event.type !== `${DONE}sampleModel` || outputOf<SampleOutcome>(event).type === "response"),
    ).find((path) => describePath(path) === "done:sampleModel(tool_calls,1 call) → CANCEL → done:toolBatch(cancelled)");
    expect((modelled?.state.output as AgentRunResult | undefined)?.terminalState).toBe("cancelled");

    const handle = runtime.startRun({
      sessionId: "paths",
      input: INPUT.input,
      contract: OBSERVE_LOOKUP,
      tools: [
        fixtureTool({
          name: TOOL,
          kind: "observe",
          timeoutMs: 60_000,
          outcomes: [{ status: "ok", output: { found: "alpha" }, delayMs: 5_000 }],
        }),
      ],
      provider: scriptedProvider([{ toolCalls: [{ id: "call-1-a", name: TOOL, arguments: { q: "alpha" } }] }]),
      maxSteps: INPUT.maxSteps,
    });
    for await (const event of handle.events) {
      if (event.type === "tool_started") handle.actor.send({ type: "CANCEL" });
    }
    const result = await handle.result;
    const ledger = await ledgerOf(handle.runId);
    expect({
      terminal: result.terminalState,
      receipts: ledger.receipts.map((receipt) => `${receipt.callId}:${receipt.status}`),
      violations: closedLedgerViolations(
        ledger.rows,
        ledger.receipts.map((receipt) => receipt.callId),
      ),
    }).toEqual({ terminal: "cancelled", receipts: ["call-1-a:cancelled"], violations: [] });
  });
  it("completes under observe without any receipt, as off would, and records the verdict in the terminal row", async () => {
    // The model's path under observe: an answer without a tool call, the verifier asks for a
    // correction, the run reports completed/answered anyway and hands finishRun the verdict.
    const options = replayOptions(OBSERVE_INPUT);
    const modelled = completePaths(buildGraph(runMachine, options), keyOf(options), replayable).find(
      (path) => describePath(path) === "done:sampleModel(stop) → done:verifyAnswer(correct)",
    );
    const closing = modelled?.steps.find((step) => step.event.type === `${DONE}finishRun`);
    const terminal = closing && invokeInput<FinishRunInput>(closing.state, "finishRun")?.terminal;
    expect(terminal).toMatchObject({ terminalState: "completed", reason: "answered" });
    expect(terminal?.verification).toMatchObject({ mode: "observe", verdict: "correct" });

    const handle = observeRuntime.startRun({
      sessionId: "paths",
      input: OBSERVE_INPUT.input,
      contract: OBSERVE_LOOKUP,
      tools: [toolSpec([])],
      provider: scriptedProvider(cassetteOf(modelled!).steps, { capabilities: OBSERVE_INPUT.capabilities }),
      maxSteps: OBSERVE_INPUT.maxSteps,
    });
    const result = await handle.result;
    const ledger = await ledgerOf(handle.runId, observeRuntime);
    const row = ledger.rows.find((r) => r.type === "terminal")?.payload as TerminalPayload | undefined;
    expect({
      terminal: `${result.terminalState}/${result.terminalReason}`,
      receipts: result.receipts.length,
      verification: row?.verification,
      rowTypes: ledger.rows.map((r) => r.type),
    }).toEqual({
      terminal: "completed/answered",
      receipts: 0,
      verification: terminal?.verification,
      rowTypes: modelledLedger(modelled!).rows.map((r) => r.type),
    });
  });
});
