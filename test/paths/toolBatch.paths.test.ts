import { beforeAll, describe, expect, it } from "vitest";
import { type AnyMachineSnapshot, type EventObject, initialTransition } from "xstate";
import type { PlannedCall, ReceiptStatus, ToolSettlement } from "../../src/domain/index.js";
import {
  callActorId,
  type ToolBatchEvent,
  type ToolBatchInput,
  toolBatchMachine,
} from "../../src/machines/toolBatch.machine.js";
import {
  actionsOf,
  buildGraph,
  coverageOf,
  type ExecutedAction,
  endingPathCounts,
  finalNodes,
  type Graph,
  type GraphOptions,
  graphEdges,
  graphNodes,
  keyOf,
  nodeAt,
  plannedCall,
  reachableKeys,
  settlementOf,
  simplePaths,
  TOOL_TIMEOUT_MS,
  withoutEvents,
} from "./coverage.js";

/**
 * Model-based paths of one step's tool batch (issue B). The calls are actors the batch spawns;
 * during traversal they never run, so their reports are the batch's events: CALL_STARTED for a
 * call that was started and is running, the call actor's done event (its settlement as output) for
 * a call that is still unsettled and could settle now, CANCEL from the run.
 *
 * The batch forwards CALL_STARTED with `sendParent`; a traversed snapshot has no parent, so that
 * action is replaced by a no-op (the tests still see it run). States, transitions and guards are
 * unchanged.
 */
const machine = toolBatchMachine.provide({ actions: { forwardStarted: () => {} } });

interface BatchContext extends ToolBatchInput {
  readonly settlements: ReadonlyArray<ToolSettlement | null>;
  readonly nextIndex: number;
  readonly running: number;
  readonly cancelRequested: boolean;
}
const contextOf = (snapshot: AnyMachineSnapshot) => snapshot.context as BatchContext;

const refused: PlannedCall = {
  call: { id: "call-1-c", name: "missing_tool", arguments: {} },
  disposition: "unknown_tool",
  inputFingerprint: plannedCall(1, "a").inputFingerprint,
  timeoutMs: TOOL_TIMEOUT_MS,
  problem: "there is no tool named missing_tool",
};
const CALLS: ReadonlyArray<PlannedCall> = [plannedCall(1, "a"), plannedCall(1, "b"), refused];

const batchInput = (concurrency: number, cancelled: boolean, calls = CALLS): ToolBatchInput => ({
  runId: "run-model",
  step: 1,
  calls,
  concurrency,
  cancelled,
});

/** How the call at `index` may settle now. */
function settleStatuses(context: BatchContext, index: number): ReceiptStatus[] {
  const started = index < context.nextIndex;
  // A call the batch never started settles only by being cancelled.
  if (!started) return context.cancelRequested ? ["cancelled"] : [];
  // A refused call settles as an error the moment it is started, before any CANCEL can reach it.
  if (CALLS_BY_ID.get(context.calls[index]!.call.id)?.disposition !== "run") return ["error"];
  return context.cancelRequested ? ["ok", "error", "timed_out", "cancelled"] : ["ok", "error", "timed_out"];
}
const CALLS_BY_ID = new Map(CALLS.map((planned) => [planned.call.id, planned]));

const refusedSettlement = (planned: PlannedCall): ToolSettlement => ({
  ...settlementOf(planned, "error"),
  reason: "unknown_tool",
  output: { error: planned.problem ?? "refused" },
  startedAt: null,
  finishedAt: null,
});

const isRunning = (context: BatchContext, index: number) =>
  index < context.nextIndex && context.calls[index]!.disposition === "run" && context.settlements[index] === null;

function batchEvents(snapshot: AnyMachineSnapshot): EventObject[] {
  const context = contextOf(snapshot);
  const events: ToolBatchEvent[] = [{ type: "CANCEL" }];
  context.calls.forEach((planned, index) => {
    if (context.settlements[index] !== null) return;
    if (isRunning(context, index)) {
      events.push({ type: "CALL_STARTED", index, callId: planned.call.id, toolName: planned.call.name });
    }
    for (const status of settleStatuses(context, index)) {
      const settlement =
        planned.disposition !== "run" && status === "error"
          ? refusedSettlement(planned)
          : settlementOf(planned, status);
      events.push({ type: `xstate.done.actor.${callActorId(index)}`, output: settlement });
    }
  });
  return events;
}

/** A call's done event (its settlement as output), as the batch's wildcard transition names it. */
const CALL_DONE = "xstate.done.actor.*";

/** CALL_STARTED cannot occur when no call is running (nothing was started, or all have settled). */
const impossible = (snapshot: AnyMachineSnapshot) => {
  const context = contextOf(snapshot);
  const running = context.calls.some((_, index) => isRunning(context, index));
  const settling = context.calls.some(
    (_, index) => context.settlements[index] === null && settleStatuses(context, index).length > 0,
  );
  return [...(running ? [] : ["CALL_STARTED"]), ...(settling ? [] : [CALL_DONE])];
};

const INPUTS: ReadonlyArray<ToolBatchInput> = [
  batchInput(1, false),
  batchInput(2, false),
  batchInput(1, true),
  batchInput(1, false, [refused, plannedCall(1, "a")]),
];
const optionsFor = (input: ToolBatchInput): GraphOptions => ({ input, events: batchEvents, impossible });

const graphs: Graph[] = [];
const pathsByInput: Array<ReturnType<typeof simplePaths>> = [];
beforeAll(() => {
  for (const input of INPUTS) {
    graphs.push(buildGraph(machine, optionsFor(input)));
    pathsByInput.push(simplePaths(machine, optionsFor(input)));
  }
});

const sentTo = (actions: ReadonlyArray<ExecutedAction>, type: string) =>
  actions
    .filter((action) => action.type === "xstate.sendTo")
    .map((action) => action.params as { to: { id: string } | string; event: EventObject })
    .filter((params) => params.event.type === type)
    .map((params) => (typeof params.to === "string" ? params.to : params.to.id))
    .sort();

const range = (from: number, to: number) =>
  Array.from({ length: Math.max(0, to - from) }, (_, offset) => callActorId(from + offset)).sort();

describe("tool batch machine", () => {
  it("takes every state node and every transition of the tool batch machine on some edge", () => {
    const coverage = coverageOf(machine, graphs);
    const paths = pathsByInput.flat();
    const ending = paths.filter((path) => path.state.status !== "active").length;
    console.log(
      `toolBatch: ${coverage.stateCount} states, ${coverage.transitionCount} transitions, ` +
        `${coverage.nodeCount} graph nodes, ${coverage.edgeCount} edges, ${ending} ending simple paths ` +
        `(${INPUTS.length} inputs)`,
    );
    expect({ states: coverage.uncoveredStates, transitions: coverage.uncoveredTransitions }).toEqual({
      states: [],
      transitions: [],
    });
  });

  it("ends every path in done with one settlement per call, in call order", () => {
    const wrong: string[] = [];
    for (const [position, input] of INPUTS.entries()) {
      for (const path of pathsByInput[position]!) {
        if (path.state.status === "active") continue;
        const output = path.state.output as ReadonlyArray<ToolSettlement | null> | undefined;
        const finals = finalNodes(path.state);
        const ids = output?.map((settlement) => settlement?.callId ?? null);
        if (
          path.state.status !== "done" ||
          finals.length !== 1 ||
          finals[0] !== "toolBatch.done" ||
          JSON.stringify(ids) !== JSON.stringify(input.calls.map((planned) => planned.call.id))
        ) {
          wrong.push(path.steps.map((step) => step.event.type).join(" → "));
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it("never runs more runnable calls at once than its concurrency", () => {
    const wrong = graphs.flatMap(graphNodes).filter((snapshot) => {
      const context = contextOf(snapshot);
      const running = context.calls.filter((_, index) => isRunning(context, index)).length;
      return context.running !== running || running > context.concurrency;
    });
    expect(wrong.map((snapshot) => JSON.stringify(contextOf(snapshot).settlements))).toEqual([]);
  });

  it("sends START to each call once, in order, and to none when cancelled at start", () => {
    const wrong: string[] = [];
    for (const input of INPUTS) {
      const [initial, actions] = initialTransition(machine, input);
      const first = sentTo(actionsOfInitial(actions), "START");
      if (JSON.stringify(first) !== JSON.stringify(range(0, contextOf(initial).nextIndex)))
        wrong.push(`initial: ${first}`);
      if (input.cancelled && first.length > 0) wrong.push("started calls although cancelled at start");
    }
    for (const graph of graphs) {
      for (const edge of graphEdges(graph)) {
        const started = sentTo(actionsOf(machine, edge.state, edge.event), "START");
        const expected = range(contextOf(edge.state).nextIndex, contextOf(edge.nextState).nextIndex);
        if (JSON.stringify(started) !== JSON.stringify(expected)) wrong.push(`${edge.event.type}: ${started}`);
        if (contextOf(edge.state).cancelRequested && started.length > 0) wrong.push("started a call after CANCEL");
      }
    }
    expect(wrong).toEqual([]);
  });

  it("starts every call and ends without any CANCEL: no state waits forever", () => {
    const stuck = INPUTS.flatMap((input, position) => (input.cancelled ? [] : stuckStates(graphs[position]!, input)));
    expect(stuck).toEqual([]);
  });

  it("still starts its calls when configured with concurrency 0", () => {
    // AgentRuntime passes `toolConcurrency` through unchecked; with 0 no runnable call ever starts
    // (and a call that never runs never times out), so the run would wait until someone cancels.
    const input = batchInput(0, false, [plannedCall(1, "a")]);
    const stuck = stuckStates(buildGraph(machine, optionsFor(input)), input);
    expect(stuck).toEqual([]);
  });

  it("forwards CANCEL to exactly the calls that have not settled", () => {
    const wrong: string[] = [];
    for (const graph of graphs) {
      for (const edge of graphEdges(graph).filter((e) => e.event.type === "CANCEL")) {
        const cancelled = sentTo(actionsOf(machine, edge.state, edge.event), "CANCEL");
        const unsettled = contextOf(edge.state)
          .settlements.map((settlement, index) => (settlement === null ? callActorId(index) : null))
          .filter((id): id is string => id !== null)
          .sort();
        if (JSON.stringify(cancelled) !== JSON.stringify(unsettled)) wrong.push(`${cancelled} vs ${unsettled}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("forwards every CALL_STARTED report to the run", () => {
    const edges = graphs.flatMap(graphEdges).filter((edge) => edge.event.type === "CALL_STARTED");
    const forwarded = edges.filter((edge) =>
      actionsOf(machine, edge.state, edge.event).some(
        (action) => action.type === "forwardStarted" && JSON.stringify(action.params) === JSON.stringify(edge.event),
      ),
    );
    expect(edges.length).toBeGreaterThan(0);
    expect(forwarded.length).toBe(edges.length);
  });
});

function actionsOfInitial(actions: ReadonlyArray<unknown>): ExecutedAction[] {
  return (actions as ReadonlyArray<{ type: string; params?: unknown; info?: { context?: unknown } }>).map((action) => ({
    type: action.type,
    params: action.params,
    context: action.info?.context,
  }));
}

/** States of a batch that cannot end on its own (without a CANCEL), or end with calls never started. */
function stuckStates(graph: Graph, input: ToolBatchInput): string[] {
  const key = keyOf(optionsFor(input));
  // The graph without CANCEL edges: what the batch does on its own.
  const own = withoutEvents(graph, (event) => event.type === "CANCEL");
  const reachable = reachableKeys(own, key);
  const counts = endingPathCounts(own, key);
  const stuck: string[] = [];
  for (const node of reachable) {
    const context = contextOf(nodeAt(own, node).state);
    if (counts.get(node) === 0)
      stuck.push(`stuck: settlements ${JSON.stringify(context.settlements)}, nextIndex ${context.nextIndex}`);
    if (nodeAt(own, node).state.status === "done" && context.nextIndex !== input.calls.length) {
      stuck.push(`done with calls never started: nextIndex ${context.nextIndex}`);
    }
  }
  return stuck;
}
