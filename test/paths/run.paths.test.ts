import { beforeAll, describe, expect, it } from "vitest";
import { type AnyMachineSnapshot, type EventObject, enqueueActions } from "xstate";
import {
  AgentRunResult,
  type CompletionContract,
  type ExecutionReceipt,
  evidenceGap,
  type Outcome,
  type ReceiptVerificationMode,
  type RunCommand,
  type ToolChoice,
  type Verdict,
} from "../../src/domain/index.js";
import { MAX_CORRECTION_TURNS, type RunContext } from "../../src/machines/run/context.js";
import { classifyVerdict, type RunDecision } from "../../src/machines/run/decisions.js";
import type { RunEvent } from "../../src/machines/run/events.js";
import { RUN_WAITING_FOR_APPROVAL, runMachine } from "../../src/machines/run/machine.js";
import type { SamplingPhase } from "../../src/machines/toolChoice.js";
import { canonicalJson } from "../../src/services/tools/fingerprint.js";
import {
  buildGraph,
  completePathCount,
  coverageOf,
  emittedIn,
  endingPathCounts,
  finalNodes,
  type Graph,
  type GraphOptions,
  graphEdges,
  graphNodes,
  keyOf,
  nodeAt,
  type Path,
  rootOf,
  shortestPaths,
  shortestTrail,
  stateNodesOf,
  stepInto,
  topologicalKeys,
} from "./coverage.js";
import {
  approvalRegionOf,
  batchOf,
  cancelRequestedIn,
  closedLedgerViolations,
  describeEvent,
  ioCommands,
  isFailureEvent,
  LEDGER_WRITES,
  ledgerWrite,
  type ModelLedger,
  NONE,
  needingApproval,
  OBSERVE_LOOKUP,
  pendingOf,
  plannedCall,
  repliesTo,
  runInput,
  runOptions,
  singleCallOf,
  TOOL,
  WRITE_DONE,
  workOf,
} from "./runModel.js";

/**
 * Model-based paths of the run machine (issues B, D and M). The machine decides; its one I/O actor
 * (`io`) performs each command and answers with a named event. The graph covers the machine's full
 * event alphabet: CANCEL, every answer the I/O actor may give to the command it is working on
 * (computed from that command — see runModel.ts), and while the tool batch runs its reports, its
 * done event and its crash. Provider outcomes are representative (answers and empty turns for
 * every finish reason, a tool finish without calls, two calls with different fingerprints, provider
 * failures); the verifier gives one of three verdicts (`correct` with its correction message).
 *
 * The input bounds the graph: maxSteps 2–3, doomLoopThreshold 2, maxProtocolRepairs 1, one call per
 * step (a correction turn is a sampling step too, so maxSteps bounds it as well).
 *
 * Four graphs: the observe contract under each receiptVerification mode (enforce — the runtime's
 * default — with maxSteps 3; observe and off with maxSteps 2) and the none contract under enforce
 * (maxSteps 2). Coverage is computed over all four: a correction is only taken under enforce, an
 * `unverified` ending only under enforce.
 */

interface ModelGraph {
  readonly name: string;
  readonly contract: CompletionContract;
  readonly mode: ReceiptVerificationMode;
  readonly options: GraphOptions;
  /** The ledger the run starts on (a resumed run's rows); empty otherwise. */
  readonly ledger?: ModelLedger;
}

const modelGraph = (contract: CompletionContract, mode: ReceiptVerificationMode, maxSteps: number): ModelGraph => ({
  name: `${contract.evidenceMode} contract, ${mode}, maxSteps ${maxSteps}`,
  contract,
  mode,
  options: runOptions(runInput(contract, { receiptVerification: mode, maxSteps })),
});

/** The main model: three steps allow a tool step, an answer and a correction turn in one run. */
const ENFORCE = modelGraph(OBSERVE_LOOKUP, "enforce", 3);
// The others differ from it only where the contract or the mode matters (verifying and what
// follows): two steps suffice there and keep the suite fast.
const NONE_ENFORCE = modelGraph(NONE, "enforce", 2);
const OBSERVE_MODE = modelGraph(OBSERVE_LOOKUP, "observe", 2);
const OFF_MODE = modelGraph(OBSERVE_LOOKUP, "off", 2);
/**
 * Issue P: a run resumed from its ledger after step 1, whose durable call never reported and may
 * run again: it goes from `opening` straight to `executingTools` (or, cancelled while opening,
 * ends with the call's closing receipt).
 */
const RESUMED: ModelGraph = {
  name: "observe contract, enforce, resumed after step 1 with a call to run again, maxSteps 2",
  contract: OBSERVE_LOOKUP,
  mode: "enforce",
  options: runOptions(
    runInput(OBSERVE_LOOKUP, {
      maxSteps: 2,
      resume: {
        step: 1,
        lastSequence: 2,
        receipts: [],
        callLog: [],
        protocolRepairs: 0,
        correctionTurns: 0,
        rerun: [plannedCall(1, "a")],
      },
    }),
  ),
  ledger: {
    rows: [
      { sequence: 1, type: "user_input", payload: { text: "What is the answer?", origin: "user" } },
      { sequence: 2, type: "tool_call", payload: { step: 1, callId: plannedCall(1, "a").call.id } },
    ],
    receipts: [],
  },
};
/**
 * Issue Q: the resumed run's calls wait for approval first — the `approval` region goes to
 * `awaitingApproval` once its request is durable and back when the wait ends; the batch may end
 * with the call denied or expired.
 */
const APPROVAL: ModelGraph = {
  ...RESUMED,
  name: "observe contract, enforce, resumed after step 1 with two calls that wait for approval, maxSteps 2",
  options: runOptions(
    runInput(OBSERVE_LOOKUP, {
      maxSteps: 2,
      resume: {
        step: 1,
        lastSequence: 3,
        receipts: [],
        callLog: [],
        protocolRepairs: 0,
        correctionTurns: 0,
        rerun: [needingApproval(plannedCall(1, "a")), needingApproval(plannedCall(1, "b"))],
      },
    }),
  ),
  ledger: {
    rows: [
      ...(RESUMED.ledger?.rows ?? []),
      { sequence: 3, type: "tool_call", payload: { step: 1, callId: plannedCall(1, "b").call.id } },
    ],
    receipts: [],
  },
};
const MODELS: ReadonlyArray<ModelGraph> = [ENFORCE, NONE_ENFORCE, OBSERVE_MODE, OFF_MODE, RESUMED, APPROVAL];

/** The enforce model with maxSteps 2: enough for the faulty variants below to show their fault, and small. */
const SMALL = runOptions(runInput(OBSERVE_LOOKUP, { maxSteps: 2 }));
const TOOL_KINDS = runInput(OBSERVE_LOOKUP).toolKinds;

const contextOf = (snapshot: AnyMachineSnapshot) => snapshot.context as RunContext;
const outputOf = (snapshot: AnyMachineSnapshot) => snapshot.output as AgentRunResult;
const endingOf = (snapshot: AnyMachineSnapshot) =>
  `${outputOf(snapshot).terminalState}/${outputOf(snapshot).terminalReason}`;
const trailText = (events: ReadonlyArray<EventObject> | undefined) =>
  events ? events.map(describeEvent).join(" → ") : "(none)";
/** Where a snapshot is, in short: the work state, finalizing or the final state. */
const placeOf = (snapshot: AnyMachineSnapshot) => workOf(snapshot) ?? String(snapshot.value);
/** The decision events the transition into `snapshot` raised. */
const decisionsInto = (snapshot: AnyMachineSnapshot) =>
  stepInto(snapshot)
    .actions.filter((action) => action.type === "xstate.raise")
    .map((action) => (action.params as { event: RunDecision | EventObject }).event);

const graphs = new Map<ModelGraph, Graph>();
const graphOf = (model: ModelGraph) => graphs.get(model)!;

beforeAll(() => {
  for (const model of MODELS) graphs.set(model, buildGraph(runMachine, model.options));
});

/**
 * For every node, the endings (terminalState/reason) reachable from it over the edges `keep`
 * accepts; a node whose set is empty cannot end that way.
 */
function endingsFrom(
  graph: Graph,
  options: GraphOptions,
  keep: (state: AnyMachineSnapshot, event: EventObject) => boolean,
): Map<string, ReadonlySet<string>> {
  const key = keyOf(options);
  const endings = new Map<string, ReadonlySet<string>>();
  for (const node of topologicalKeys(graph, key).reverse()) {
    const value = nodeAt(graph, node);
    const reached = new Set<string>(value.state.status === "done" ? [endingOf(value.state)] : []);
    for (const next of Object.values(value.transitions)) {
      const nextKey = key(next.state);
      if (nextKey === node || !keep(value.state, next.event)) continue;
      for (const ending of endings.get(nextKey) ?? []) reached.add(ending);
    }
    endings.set(node, reached);
  }
  return endings;
}

describe("run machine: coverage", () => {
  it("takes every state node and every transition of the run machine on some edge", () => {
    const coverage = coverageOf(
      runMachine,
      MODELS.map((model) => graphOf(model)),
    );
    const describeGraph = (model: ModelGraph) => {
      const graph = graphOf(model);
      const own = coverageOf(runMachine, [graph]);
      const paths = completePathCount(graph, keyOf(model.options));
      return `${model.name}: ${own.nodeCount} nodes, ${own.edgeCount} edges, ${paths} complete paths`;
    };
    console.log(
      `run: ${coverage.stateCount} states, ${coverage.transitionCount} transitions, ` +
        `${coverage.nodeCount} graph nodes, ${coverage.edgeCount} edges in all; ${MODELS.map(describeGraph).join("; ")}`,
    );
    expect({ states: coverage.uncoveredStates, transitions: coverage.uncoveredTransitions }).toEqual({
      states: [],
      transitions: [],
    });
  });

  it("invokes only the I/O actor under an id (a tool batch is spawned, under its id, only for the steps that need one)", () => {
    const invoked = stateNodesOf(runMachine)
      .flatMap((node) => node.invoke)
      .map((invoke) => `${invoke.id}:${typeof invoke.src === "string" ? invoke.src : "(inline)"}`)
      .sort();
    expect(invoked).toEqual(["io:runIO"]);
  });

  it("sends the I/O actor only commands the model answers, and every command it answers is sent", () => {
    const sent = new Map<string, RunCommand>();
    for (const model of MODELS) {
      const graph = graphOf(model);
      for (const command of ioCommands(stepInto(nodeAt(graph, rootOf(graph)).state))) sent.set(command.type, command);
      for (const edge of graphEdges(graph)) {
        for (const command of ioCommands(stepInto(edge.nextState))) sent.set(command.type, command);
      }
    }
    // STOP_SAMPLE interrupts the provider call and ABORT a call the run gave up: neither has an
    // answer. EXECUTE and ABORT come from the run for a step's one call it runs alone (from the batch otherwise).
    const unanswered = [...sent.values()].filter((command) => repliesTo(command).length === 0).map((c) => c.type);
    expect([...sent.keys()].sort()).toEqual(
      [
        "ABORT",
        "EXECUTE",
        "FINISH",
        "OPEN",
        "RECORD_CALLS",
        "RECORD_RESULTS",
        "RECORD_TURN",
        "SAMPLE",
        "STOP_SAMPLE",
        "VERIFY",
      ].sort(),
    );
    expect(unanswered.sort()).toEqual(["ABORT", "STOP_SAMPLE"]);
  });

  it("hands the tool batch the step's calls, the run's concurrency and the run's own I/O actor", () => {
    const wrong: string[] = [];
    let batches = 0;
    for (const model of MODELS) {
      for (const snapshot of graphNodes(graphOf(model)).filter(
        (node) => workOf(node) === "executingTools" && !singleCallOf(node),
      )) {
        batches += 1;
        const batch = batchOf(snapshot);
        const context = contextOf(snapshot);
        if (
          !batch ||
          canonicalJson(batch.calls.map((call) => call.planned)) !== canonicalJson(context.stepCalls) ||
          batch.step !== context.step ||
          batch.concurrency !== context.toolConcurrency
        ) {
          wrong.push(`${model.name}: step ${context.step}`);
        }
      }
    }
    expect(batches).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });
});

describe("run machine: endings", () => {
  it("ends every path in exactly one final state with exactly one output, whose terminalState names it", () => {
    // A path ends in a node of the graph that is no longer active; checking every such node checks
    // the end of every complete path (endingPathCounts counts them without listing them).
    const wrong: string[] = [];
    let endedPaths = 0;
    for (const model of MODELS) {
      const graph = graphOf(model);
      const key = keyOf(model.options);
      endedPaths += completePathCount(graph, key);
      for (const snapshot of graphNodes(graph).filter((node) => node.status !== "active")) {
        const finals = finalNodes(snapshot);
        const parsed = AgentRunResult.safeParse(snapshot.output);
        if (
          snapshot.status !== "done" ||
          finals.length !== 1 ||
          typeof snapshot.value !== "string" ||
          finals[0] !== `run.${snapshot.value}` ||
          !parsed.success ||
          parsed.data.terminalState !== snapshot.value ||
          parsed.data.terminalReason !== contextOf(snapshot).outcome?.reason
        ) {
          const example = shortestTrail(graph, key, (_, __, next) => key(next) === key(snapshot));
          wrong.push(`${model.name}: ${trailText(example)} ends in ${JSON.stringify(snapshot.value)}`);
        }
      }
    }
    console.log(`run: ${endedPaths} complete paths over the ${MODELS.length} graphs`);
    expect(endedPaths).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });

  it("reaches each of the five final states (getShortestPaths)", () => {
    const shortest = new Map<string, Path>();
    for (const path of shortestPaths(runMachine, SMALL)) {
      if (path.state.status !== "done") continue;
      const ending = String(path.state.value);
      const known = shortest.get(ending);
      if (!known || known.steps.length > path.steps.length) shortest.set(ending, path);
    }
    const describe = (path: Path) =>
      path.steps
        .slice(1)
        .map((step) => describeEvent(step.event))
        .join(" → ");
    console.log(
      `run: shortest paths to each final state (maxSteps 2): ${[...shortest]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([ending, path]) => `${ending}: ${describe(path)}`)
        .join("; ")}`,
    );
    expect([...shortest.keys()].sort()).toEqual(["cancelled", "completed", "failed", "incomplete", "unverified"]);
  });

  it("emits exactly one final and one done event on every path, on the step that enters the final state", () => {
    // Per edge: `done` is emitted iff the edge enters a final state. Every path into a final
    // state therefore emits exactly one, on its last step (and a path never leaves a final state).
    const wrong: string[] = [];
    for (const model of MODELS) {
      for (const edge of graphEdges(graphOf(model))) {
        const emitted = emittedIn(stepInto(edge.nextState));
        const done = emitted.filter((event) => event.type === "done") as Array<EventObject & { terminalState: string }>;
        const finals = emitted.filter((event) => event.type === "final");
        const ends = edge.nextState.status === "done";
        const expected = ends ? 1 : 0;
        if (done.length !== expected || finals.length !== expected) {
          wrong.push(`${JSON.stringify(edge.state.value)} + ${describeEvent(edge.event)}: ${done.length} done`);
        } else if (ends && done[0]!.terminalState !== edge.nextState.value) {
          wrong.push(`${describeEvent(edge.event)}: done names ${done[0]!.terminalState} in ${edge.nextState.value}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it.each(MODELS.map((model) => [model.name, model] as const))(
    "leaves no state stuck (%s): every reachable state can still reach a final state",
    (_, model) => {
      const key = keyOf(model.options);
      const graph = graphOf(model);
      const counts = endingPathCounts(graph, key);
      const stuck = graphNodes(graph)
        .filter((snapshot) => snapshot.status === "active" && counts.get(key(snapshot)) === 0)
        .map((snapshot) => JSON.stringify(snapshot.value));
      expect(stuck).toEqual([]);
    },
  );

  it("never samples the model more than maxSteps times, and numbers its samples 1, 2, …", () => {
    const wrong: string[] = [];
    for (const model of MODELS) {
      for (const edge of graphEdges(graphOf(model))) {
        const before = contextOf(edge.state);
        for (const command of ioCommands(stepInto(edge.nextState))) {
          if (command.type !== "SAMPLE") continue;
          if (command.step !== before.step + 1 || command.step > before.maxSteps) {
            wrong.push(`${model.name}: SAMPLE step ${command.step} after step ${before.step}`);
          }
        }
      }
      for (const snapshot of graphNodes(graphOf(model))) {
        if (contextOf(snapshot).step > contextOf(snapshot).maxSteps) wrong.push(`step ${contextOf(snapshot).step}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("turns each answer of the I/O actor into at most one decision", () => {
    const wrong: string[] = [];
    for (const model of MODELS) {
      for (const edge of graphEdges(graphOf(model))) {
        // CANCEL_REQUESTED is the cancellation region's notice to the work in progress, not a
        // decision: the work's answer to it (the batch told, or the run's own call given up) is.
        const decisions = decisionsInto(edge.nextState).filter((decision) => decision.type !== "CANCEL_REQUESTED");
        if (decisions.length > 1) {
          wrong.push(`${placeOf(edge.state)} + ${describeEvent(edge.event)}: ${decisions.map((d) => d.type)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe("run machine: completion needs evidence", () => {
  const unsupportedCompletions = (graph: Graph) =>
    graphNodes(graph).filter(
      (snapshot) =>
        snapshot.value === "completed" &&
        !evidenceGap(OBSERVE_LOOKUP, contextOf(snapshot).receipts, TOOL_KINDS).satisfied,
    );

  it("reaches completed only when the observe contract's receipts are there", () => {
    const completed = graphNodes(graphOf(ENFORCE)).filter((snapshot) => snapshot.value === "completed");
    console.log(`run: ${completed.length} completed nodes under the observe contract (enforce)`);
    expect(completed.length).toBeGreaterThan(0);
    expect(unsupportedCompletions(graphOf(ENFORCE)).length).toBe(0);
  });

  it("ends unverified when the verifier says completed but the receipts are missing", () => {
    const overruled = graphEdges(graphOf(ENFORCE)).filter(
      (edge) =>
        edge.event.type === "VERIFIED" &&
        (edge.event as EventObject & { verdict: Verdict }).verdict.verdict === "completed" &&
        !evidenceGap(OBSERVE_LOOKUP, contextOf(edge.state).receipts, TOOL_KINDS).satisfied,
    );
    expect(overruled.length).toBeGreaterThan(0);
    expect(new Set(overruled.map((edge) => `${contextOf(edge.nextState).outcome?.state}`))).toEqual(
      new Set(["unverified"]),
    );
    expect(new Set(overruled.map((edge) => contextOf(edge.nextState).outcome?.reason))).toEqual(
      new Set(["receipt_missing"]),
    );
  });

  it("reaches completed without any receipt under the none contract", () => {
    const completed = graphNodes(graphOf(NONE_ENFORCE)).filter(
      (snapshot) => snapshot.value === "completed" && contextOf(snapshot).receipts.length === 0,
    );
    expect(completed.length).toBeGreaterThan(0);
  });

  it("catches a machine whose verdict decision trusts the verifier", () => {
    const trusting = runMachine.provide({
      actions: {
        decideVerdict: enqueueActions(({ context, event, enqueue }) => {
          const reply = event as RunEvent;
          if (reply.type !== "VERIFIED") return;
          enqueue.assign({ verdict: reply.verdict });
          const decision: RunDecision =
            reply.verdict.verdict === "completed"
              ? { type: "STOP", outcome: { state: "completed", reason: reply.verdict.reason, detail: null } }
              : classifyVerdict(reply.verdict, context as RunContext);
          enqueue.raise(decision);
        }) as never,
      },
    });
    const graph = buildGraph(trusting, SMALL);
    const unsupported = unsupportedCompletions(graph);
    const example = shortestTrail(
      graph,
      keyOf(SMALL),
      (_, __, next) =>
        next.value === "completed" && !evidenceGap(OBSERVE_LOOKUP, contextOf(next).receipts, TOOL_KINDS).satisfied,
    );
    console.log(
      `run (trusting verdict decision): ${unsupported.length} completed nodes without receipts; ` +
        `shortest: ${trailText(example)}`,
    );
    expect(unsupported.length).toBeGreaterThan(0);
  });

  it("catches a machine whose completed guard lets an unverified outcome through", () => {
    const leaky = runMachine.provide({
      guards: {
        outcomeCompleted: ({ context }) =>
          (context as RunContext).outcome?.state === "completed" ||
          (context as RunContext).outcome?.state === "unverified",
      },
    });
    const graph = buildGraph(leaky, SMALL);
    expect(unsupportedCompletions(graph).length).toBeGreaterThan(0);
  });
});

/** Nodes and ended paths with more correction turns than the machine allows. */
function correctionOverruns(graph: Graph): string[] {
  const overrun = (turns: number | undefined) => (turns ?? 0) > MAX_CORRECTION_TURNS;
  const nodes = graphNodes(graph)
    .filter((snapshot) => overrun(contextOf(snapshot).correctionTurns))
    .map(
      (snapshot) => `node ${JSON.stringify(snapshot.value)}: correctionTurns ${contextOf(snapshot).correctionTurns}`,
    );
  // Every complete path ends in a final node: checking their outputs checks every path's output.
  const outputs = graphNodes(graph)
    .filter((snapshot) => snapshot.status === "done" && overrun(outputOf(snapshot).correctionTurns))
    .map((snapshot) => `output of ${String(snapshot.value)}: correctionTurns ${outputOf(snapshot).correctionTurns}`);
  return [...nodes, ...outputs];
}

/** Whether the transition into `next` took the correction (the verifier's CORRECT decision). */
const corrects = (next: AnyMachineSnapshot) => decisionsInto(next).some((decision) => decision.type === "CORRECT");

/** Edges that take a correction from a node that has already used its correction turn. */
const secondCorrections = (graph: Graph) =>
  graphEdges(graph).filter(
    (edge) => corrects(edge.nextState) && contextOf(edge.state).correctionTurns >= MAX_CORRECTION_TURNS,
  );

describe("run machine: at most one correction turn", () => {
  it.each(MODELS.map((model) => [model.name, model] as const))(
    "never reaches correctionTurns > 1 (%s): in no node of the graph, in no path's output",
    (_, model) => {
      expect(correctionOverruns(graphOf(model))).toEqual([]);
    },
  );

  it("does take its one correction turn under enforce", () => {
    const corrected = graphNodes(graphOf(ENFORCE)).filter((snapshot) => contextOf(snapshot).correctionTurns === 1);
    const endings = new Set(
      corrected.filter((snapshot) => snapshot.status === "done").map((snapshot) => String(snapshot.value)),
    );
    console.log(`run: ${corrected.length} nodes after a correction turn, ending ${[...endings].sort().join(", ")}`);
    expect(corrected.length).toBeGreaterThan(0);
    // A corrected answer can still be completed (the model called the tool after the correction).
    expect(endings.has("completed")).toBe(true);
  });

  it("corrects only under enforce, and never a second time", () => {
    for (const model of MODELS) {
      const graph = graphOf(model);
      const entries = graphEdges(graph).filter((edge) => corrects(edge.nextState));
      // Only enforce corrects: observe and off report the answer as off would.
      if (model.mode === "enforce") expect(entries.length).toBeGreaterThan(0);
      else expect(entries.length).toBe(0);
      expect(entries.every((edge) => workOf(edge.nextState) === "recordingTurn")).toBe(true);
      expect(secondCorrections(graph).map((edge) => describeEvent(edge.event))).toEqual([]);
    }
  });

  it("catches a machine that allows a second correction turn", () => {
    // The same checks against a machine whose verdict decision forgets the corrections taken:
    // bounded by maxSteps (each correction turn is a sampling step), it reaches correctionTurns 2.
    const recorrecting = runMachine.provide({
      actions: {
        decideVerdict: enqueueActions(({ context, event, enqueue }) => {
          const reply = event as RunEvent;
          if (reply.type !== "VERIFIED") return;
          enqueue.assign({ verdict: reply.verdict });
          enqueue.raise(classifyVerdict(reply.verdict, { ...(context as RunContext), correctionTurns: 0 }));
        }) as never,
      },
    });
    const graph = buildGraph(recorrecting, SMALL);
    const key = keyOf(SMALL);
    const overruns = correctionOverruns(graph);
    const second = secondCorrections(graph);
    const example = shortestTrail(
      graph,
      key,
      (state, _, next) => corrects(next) && contextOf(state).correctionTurns >= MAX_CORRECTION_TURNS,
    );
    console.log(
      `run (corrections forgotten): ${graphNodes(graph).length} nodes, ${overruns.length} overruns, ` +
        `${second.length} second corrections; shortest: ${trailText(example)}`,
    );
    expect(overruns.some((overrun) => overrun.startsWith("node") && overrun.endsWith("correctionTurns 2"))).toBe(true);
    expect(overruns.some((overrun) => overrun.startsWith("output") && overrun.endsWith("correctionTurns 2"))).toBe(
      true,
    );
    expect(second.length).toBeGreaterThan(0);
  });
});

/** The tool choice a sampling step must get: the contract's one tool on the first step and after a correction. */
function expectedToolChoice(contract: CompletionContract, phase: SamplingPhase): ToolChoice {
  if (contract.evidenceMode === "none" || phase === "continue") return { mode: "auto" };
  return { mode: "specific", toolName: TOOL };
}

/** Which sampling phase follows the state an edge leaves, from the rows it wrote (not the machine's own phase). */
function phaseAfter(state: AnyMachineSnapshot): SamplingPhase {
  const work = workOf(state);
  if (work === "opening") return "first";
  const pending = pendingOf(state);
  if (work === "recordingTurn" && pending?.type === "RECORD_TURN") {
    const correction = pending.events.some(
      (event) => event.type === "user_input" && (event.payload as { origin?: string }).origin === "runtime_correction",
    );
    return correction ? "correction" : "continue";
  }
  return "continue";
}

describe("run machine: sampling phases", () => {
  it("samples after a correction in phase correction, forcing the contract's tool", () => {
    const wrong: string[] = [];
    let afterCorrection = 0;
    for (const model of [ENFORCE, NONE_ENFORCE]) {
      for (const edge of graphEdges(graphOf(model))) {
        const sample = ioCommands(stepInto(edge.nextState)).find((command) => command.type === "SAMPLE");
        if (!sample) continue;
        const phase = phaseAfter(edge.state);
        if (phase === "correction") afterCorrection += 1;
        const expected = expectedToolChoice(model.contract, phase);
        if (
          contextOf(edge.nextState).samplingPhase !== phase ||
          canonicalJson(sample.toolChoice) !== canonicalJson(expected)
        ) {
          wrong.push(
            `${model.name}: ${placeOf(edge.state)} + ${describeEvent(edge.event)} → phase ` +
              `${contextOf(edge.nextState).samplingPhase}, toolChoice ${canonicalJson(sample.toolChoice)} ` +
              `(expected ${phase}, ${canonicalJson(expected)})`,
          );
        }
      }
    }
    expect(afterCorrection).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });
});

describe("run machine: the receiptVerification rollout switch", () => {
  const completedWithoutReceipts = (model: ModelGraph) =>
    graphNodes(graphOf(model)).filter(
      (snapshot) =>
        snapshot.value === "completed" &&
        !evidenceGap(model.contract, contextOf(snapshot).receipts, contextOf(snapshot).toolKinds).satisfied,
    );

  it("reaches completed without the contract's receipts under observe and off, never under enforce", () => {
    const counts = Object.fromEntries(
      [ENFORCE, OBSERVE_MODE, OFF_MODE].map((model) => [model.mode, completedWithoutReceipts(model).length]),
    );
    console.log(`run: completed nodes without the observe contract's receipts: ${JSON.stringify(counts)}`);
    expect(counts.enforce).toBe(0);
    expect(counts.observe).toBeGreaterThan(0);
    expect(counts.off).toBeGreaterThan(0);
    // Without receipts the report is the old loop's: the answer, completed.
    const reasons = new Set(completedWithoutReceipts(OBSERVE_MODE).map((node) => contextOf(node).outcome?.reason));
    expect(reasons.has("answered")).toBe(true);
  });

  it("reports under observe exactly as under off: the same graph, up to the mode", () => {
    // The mode is only in the context (and in what FINISH records); with it blanked, both graphs
    // must have the same nodes (value and context) and the same number of edges.
    const normalized = (model: ModelGraph) =>
      graphNodes(graphOf(model))
        .map((snapshot) =>
          JSON.stringify({ value: snapshot.value, context: { ...contextOf(snapshot), receiptVerification: null } }),
        )
        .sort();
    const observe = normalized(OBSERVE_MODE);
    const off = normalized(OFF_MODE);
    expect(observe.length).toBe(off.length);
    expect(observe.filter((node, index) => node !== off[index]).length).toBe(0);
    expect(graphEdges(graphOf(OBSERVE_MODE)).length).toBe(graphEdges(graphOf(OFF_MODE)).length);
  });

  it.each([OBSERVE_MODE, ENFORCE, OFF_MODE].map((model) => [model.name, model] as const))(
    "hands FINISH the recorded verdict whenever the verifier ran, unless off (%s)",
    (_, model) => {
      // Propagates, in topological order, which verdict the verifier last returned on the paths into
      // each node (none before the first); every FINISH must carry exactly that verdict (none under off).
      const graph = graphOf(model);
      const key = keyOf(model.options);
      const NO_VERDICT = "(no verdict)";
      const recorded = (verdict: Verdict) =>
        model.mode === "off"
          ? NO_VERDICT
          : canonicalJson({
              mode: model.mode,
              verdict: verdict.verdict,
              reason: verdict.reason,
              missing: verdict.missing,
            });
      const last = new Map<string, Set<string>>([[rootOf(graph), new Set([NO_VERDICT])]]);
      const wrong: string[] = [];
      let finishes = 0;
      for (const node of topologicalKeys(graph, key)) {
        const value = nodeAt(graph, node);
        const verdicts = last.get(node) ?? new Set<string>();
        const finish = pendingOf(value.state);
        if (finish?.type === "FINISH") {
          finishes += 1;
          const carried = finish.terminal.verification ? canonicalJson(finish.terminal.verification) : NO_VERDICT;
          for (const verdict of verdicts) {
            if (verdict !== carried) wrong.push(`${JSON.stringify(value.state.value)}: ${carried} after ${verdict}`);
          }
        }
        for (const next of Object.values(value.transitions)) {
          const nextKey = key(next.state);
          if (nextKey === node) continue;
          const incoming =
            next.event.type === "VERIFIED"
              ? new Set([recorded((next.event as EventObject & { verdict: Verdict }).verdict)])
              : verdicts;
          const known = last.get(nextKey) ?? new Set<string>();
          for (const verdict of incoming) known.add(verdict);
          last.set(nextKey, known);
        }
      }
      expect(finishes).toBeGreaterThan(0);
      expect(wrong.slice(0, 5)).toEqual([]);
    },
  );
});

describe("run machine: the ledger it writes", () => {
  it.each(MODELS.map((model) => [model.name, model] as const))(
    "makes only ledger writes the ledger accepts, and leaves every closed run with a well-formed ledger (%s)",
    (_, model) => {
      // Walks every complete path, replaying each write the I/O actor reports done (the pending
      // command's rows, numbered as the command handlers number them) against a model of the ledger's
      // triggers. A refused write (LEDGER_FAILED) writes nothing; a terminal write after a ledger
      // failure that the ledger refuses uses the FINISH handler's fallback. A closed run's output
      // receipts must be exactly the receipts the ledger holds.
      const graph = graphOf(model);
      const key = keyOf(model.options);
      const refusals = new Map<string, string[]>();
      const malformed = new Map<string, string[]>();
      const note = (map: Map<string, string[]>, kind: string, path: string[]) => {
        const known = map.get(kind);
        if (!known || known.length > path.length) map.set(kind, path);
      };
      let closed = 0;
      let unclosed = 0;
      const walk = (node: string, ledger: ModelLedger, trail: string[]) => {
        const value = nodeAt(graph, node);
        for (const next of Object.values(value.transitions)) {
          const nextKey = key(next.state);
          if (nextKey === node) continue;
          const event = next.event;
          const path = [...trail, describeEvent(event)];
          let nextLedger = ledger;
          if (WRITE_DONE.has(event.type)) {
            const command = pendingOf(value.state);
            const written = command ? ledgerWrite(command, ledger) : undefined;
            if (!written) {
              note(malformed, `${event.type} answers no ledger write`, path);
              continue;
            }
            if (written.refused !== undefined) {
              note(refusals, `${command!.type}: ${written.refused.replace(/ \([^)]*\)/g, "")}`, path);
              continue;
            }
            nextLedger = written.ledger;
          }
          if (next.state.status !== "active") {
            if (event.type === "FINISHED") {
              closed += 1;
              for (const violation of closedLedgerViolations(nextLedger.rows, nextLedger.receipts)) {
                note(malformed, violation, path);
              }
              const output = outputOf(next.state).receipts.map((receipt: ExecutionReceipt) => receipt.callId);
              if (canonicalJson([...output].sort()) !== canonicalJson([...nextLedger.receipts].sort())) {
                note(malformed, "the output's receipts are not the ledger's", path);
              }
            } else {
              // The terminal write failed twice: the run stays open for start-up recovery.
              unclosed += 1;
              if (endingOf(next.state) !== "failed/ledger_write_failed")
                note(malformed, "ended without FINISHED", path);
            }
            continue;
          }
          walk(nextKey, nextLedger, path);
        }
      };
      walk(rootOf(graph), model.ledger ?? { rows: [], receipts: [] }, []);
      console.log(
        `run (${model.name}): ${closed + unclosed} complete paths replayed against the ledger model ` +
          `(${unclosed} left open by a second failed terminal write)`,
      );
      const report = (map: Map<string, string[]>) =>
        [...map].map(([kind, path]) => `${kind} — shortest example: ${path.join(" → ")}`);
      expect({ refused: report(refusals), malformed: report(malformed) }).toEqual({ refused: [], malformed: [] });
    },
  );
});

const WORK_STATES = [
  "opening",
  "sampling",
  "recordingCalls",
  "executingTools",
  "recordingResults",
  "verifying",
  "recordingTurn",
];

describe("run machine: cancel", () => {
  it.each(MODELS.map((model) => [model.name, model] as const))(
    "ends cancelled after a CANCEL in every work state unless a failure intervenes (%s)",
    (_, model) => {
      // From the node each CANCEL leads to, every path that takes no failure answer (LEDGER_FAILED,
      // VERIFY_FAILED, the batch's crash) ends cancelled/cancelled_by_user — and such paths exist.
      const graph = graphOf(model);
      const key = keyOf(model.options);
      const calm = endingsFrom(graph, model.options, (_, event) => !isFailureEvent(event));
      const any = endingsFrom(graph, model.options, () => true);
      const wrong: string[] = [];
      const cancelledIn = new Set<string>();
      let longest = 0;
      const depth = new Map<string, number>();
      const stepsToEnd = (node: string): number => {
        const known = depth.get(node);
        if (known !== undefined) return known;
        const value = nodeAt(graph, node);
        let most = 0;
        for (const next of Object.values(value.transitions)) {
          const nextKey = key(next.state);
          if (nextKey !== node && !isFailureEvent(next.event)) most = Math.max(most, 1 + stepsToEnd(nextKey));
        }
        depth.set(node, most);
        return most;
      };
      for (const edge of graphEdges(graph)) {
        if (edge.event.type !== "CANCEL" || cancelRequestedIn(edge.state)) continue;
        const place = placeOf(edge.state);
        cancelledIn.add(place);
        const after = key(edge.nextState);
        const endings = [...(calm.get(after) ?? [])];
        if (endings.length !== 1 || endings[0] !== "cancelled/cancelled_by_user") {
          wrong.push(`CANCEL in ${place}: ends ${endings.join(", ") || "(never)"} without a failure`);
        }
        const failed = [...(any.get(after) ?? [])].filter((ending) => ending !== "cancelled/cancelled_by_user");
        if (failed.some((ending) => !ending.startsWith("failed/"))) {
          wrong.push(`CANCEL in ${place}: may end ${failed.join(", ")}`);
        }
        longest = Math.max(longest, 1 + stepsToEnd(after));
      }
      console.log(`run (${model.name}): CANCEL ends the run within ${longest} events from any work state`);
      expect([...cancelledIn].sort()).toEqual([...WORK_STATES].sort());
      expect(wrong).toEqual([]);
    },
  );

  it("ignores CANCEL while finalizing: the decided outcome is written", () => {
    const finalizing = graphNodes(graphOf(ENFORCE)).find((snapshot) => snapshot.value === "finalizing")!;
    expect(finalizing.can({ type: "CANCEL" })).toBe(false);
  });

  it("never samples or starts a tool once a CANCEL came, and stops the sample in flight", () => {
    const wrong: string[] = [];
    let stopped = 0;
    let aborted = 0;
    for (const model of MODELS) {
      for (const edge of graphEdges(graphOf(model))) {
        const cancelled = cancelRequestedIn(edge.state) || edge.event.type === "CANCEL";
        const commands = ioCommands(stepInto(edge.nextState)).map((command) => command.type);
        const entered = workOf(edge.nextState);
        if (cancelled && entered !== workOf(edge.state) && (entered === "sampling" || entered === "executingTools")) {
          wrong.push(`${placeOf(edge.state)} + ${describeEvent(edge.event)} enters ${entered}`);
        }
        if (cancelled && commands.includes("SAMPLE")) wrong.push(`${placeOf(edge.state)}: SAMPLE after CANCEL`);
        if (edge.event.type === "CANCEL" && workOf(edge.state) === "sampling") {
          stopped += 1;
          if (!commands.includes("STOP_SAMPLE")) wrong.push("CANCEL in sampling without STOP_SAMPLE");
        }
        if (edge.event.type === "CANCEL" && workOf(edge.state) === "executingTools" && batchOf(edge.state)) {
          const told = stepInto(edge.nextState).actions.some(
            (action) =>
              action.type === "xstate.sendTo" && (action.params as { event: EventObject }).event.type === "CANCEL",
          );
          if (!told) wrong.push("CANCEL in executingTools not sent to the batch");
        }
        // The step's one call the run executes itself: its fiber is interrupted, its result recorded as cancelled.
        if (edge.event.type === "CANCEL" && singleCallOf(edge.state)) {
          aborted += 1;
          if (!commands.includes("ABORT") || !commands.includes("RECORD_RESULTS"))
            wrong.push(`CANCEL in executingTools (no batch) sent ${commands.join(", ")}`);
        }
      }
    }
    expect(stopped).toBeGreaterThan(0);
    expect(aborted).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });

  it("records a cancelled result for every call when the CANCEL came while the calls were being recorded", () => {
    const wrong: string[] = [];
    let seen = 0;
    for (const edge of graphEdges(graphOf(ENFORCE))) {
      if (edge.event.type !== "CALLS_RECORDED" || !cancelRequestedIn(edge.state)) continue;
      seen += 1;
      const record = ioCommands(stepInto(edge.nextState)).find((command) => command.type === "RECORD_RESULTS");
      const calls = contextOf(edge.state).stepCalls.map((planned) => planned.call.id);
      if (
        workOf(edge.nextState) !== "recordingResults" ||
        !record ||
        canonicalJson(record.settlements.map((s) => [s.callId, s.status, s.evidence])) !==
          canonicalJson(calls.map((id) => [id, "cancelled", { started: false }]))
      ) {
        wrong.push(`${JSON.stringify(record)}`);
      }
    }
    expect(seen).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });
});

describe("run machine: failures", () => {
  it.each(MODELS.map((model) => [model.name, model] as const))(
    "ends failed/ledger_write_failed after a refused write, whichever write it was (%s)",
    (_, model) => {
      const graph = graphOf(model);
      const key = keyOf(model.options);
      const any = endingsFrom(graph, model.options, () => true);
      const refusedWrites = new Set<string>();
      const wrong: string[] = [];
      for (const edge of graphEdges(graph)) {
        if (edge.event.type !== "LEDGER_FAILED") continue;
        const write = pendingOf(edge.state)?.type ?? "(none)";
        refusedWrites.add(write);
        const outcome: Outcome | null = contextOf(edge.nextState).outcome;
        const endings = [...(any.get(key(edge.nextState)) ?? [])];
        if (
          outcome?.state !== "failed" ||
          outcome.reason !== "ledger_write_failed" ||
          endings.length !== 1 ||
          endings[0] !== "failed/ledger_write_failed"
        ) {
          wrong.push(
            `${write} refused in ${placeOf(edge.state)}: ${outcome?.state}/${outcome?.reason}, ends ${endings}`,
          );
        }
        // A refused terminal write is retried once, as failed/ledger_write_failed; a second refusal ends the run.
        const finish = ioCommands(stepInto(edge.nextState)).find((command) => command.type === "FINISH");
        const retried = contextOf(edge.state).outcome?.reason === "ledger_write_failed";
        const wrongly = retried ? finish !== undefined || edge.nextState.value !== "failed" : finish === undefined;
        if (wrongly) {
          wrong.push(`${write} refused in ${placeOf(edge.state)}: FINISH ${finish ? "sent" : "not sent"}`);
        }
        if (finish && finish.terminal.reason !== "ledger_write_failed")
          wrong.push(`FINISH as ${finish.terminal.reason}`);
      }
      expect([...refusedWrites].sort()).toEqual([...LEDGER_WRITES].sort());
      expect(wrong).toEqual([]);
    },
  );

  it("ends failed/internal_error when the verifier or the tool batch crashes", () => {
    const endings = new Map<string, Set<string>>();
    for (const edge of graphEdges(graphOf(ENFORCE))) {
      if (edge.event.type !== "VERIFY_FAILED" && edge.event.type !== "xstate.error.actor.toolBatch") continue;
      const outcome = contextOf(edge.nextState).outcome;
      const known = endings.get(edge.event.type) ?? new Set<string>();
      known.add(`${edge.nextState.value}:${outcome?.state}/${outcome?.reason}`);
      endings.set(edge.event.type, known);
    }
    expect(Object.fromEntries([...endings].map(([type, set]) => [type, [...set]]))).toEqual({
      VERIFY_FAILED: ["finalizing:failed/internal_error"],
      "xstate.error.actor.toolBatch": ["finalizing:failed/internal_error"],
    });
  });
});

describe("run machine: approval", () => {
  it("shows a wait from the batch's first notice until it says none waits, announcing each notice once", () => {
    const wrong: string[] = [];
    let announced = 0;
    for (const edge of graphEdges(graphOf(APPROVAL))) {
      const { state, nextState, event } = edge;
      const before = approvalRegionOf(state);
      const after = approvalRegionOf(nextState);
      const requests = emittedIn(stepInto(nextState)).filter((emitted) => emitted.type === "approval_requested");
      announced += requests.length;
      const waiting = nextState.hasTag(RUN_WAITING_FOR_APPROVAL);
      if (after !== undefined && waiting !== (after === "awaitingApproval")) wrong.push(`tag ${waiting} in ${after}`);
      if (event.type === "APPROVAL_WAITING") {
        const { callId } = event as EventObject & { callId: string };
        if (requests.length !== 1 || (requests[0] as { callId?: string }).callId !== callId)
          wrong.push(`${requests.length} announcements for ${callId}`);
        if (after !== "awaitingApproval") wrong.push(`${after} after the notice for ${callId}`);
      } else {
        if (requests.length > 0) wrong.push(`announced on ${describeEvent(event)}`);
        if (event.type === "NO_APPROVAL_WAITING" && after !== "idle") wrong.push(`${after} after none waits`);
        if (event.type !== "NO_APPROVAL_WAITING" && before === "awaitingApproval" && after === "idle")
          wrong.push(`left the wait on ${describeEvent(event)}`);
      }
    }
    expect(announced).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });

  it("leaves the tool step only after the batch said no call waits", () => {
    const early = graphEdges(graphOf(APPROVAL)).filter(
      (edge) =>
        workOf(edge.state) === "executingTools" &&
        workOf(edge.nextState) !== "executingTools" &&
        approvalRegionOf(edge.nextState) === "awaitingApproval",
    );
    expect(early.map((edge) => describeEvent(edge.event))).toEqual([]);
  });
});
