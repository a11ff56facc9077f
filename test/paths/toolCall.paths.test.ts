import { beforeAll, describe, expect, it } from "vitest";
import { type AnyMachineSnapshot, type EventObject, initialTransition } from "xstate";
import type { CallDisposition, ExecutorResult, PlannedCall, ToolSettlement } from "../../src/domain/index.js";
import { type ToolCallInput, toolCallMachine } from "../../src/machines/toolCall.machine.js";
import {
  ACTOR_CRASH,
  actionsOf,
  buildGraph,
  coverageOf,
  doneActor,
  errorActor,
  FIXED_TIME,
  finalNodes,
  type Graph,
  type GraphOptions,
  graphEdges,
  graphNodes,
  plannedCall,
  simplePaths,
} from "./coverage.js";

/**
 * Model-based paths of one tool call (issue B): `pending → running → ok | error | timed_out |
 * cancelled`, for a runnable call and for each refused disposition.
 *
 * The call reports to its batch with `sendParent`; a traversed snapshot has no parent, so those two
 * actions are replaced by no-ops. The machine's states, transitions and guards are unchanged, and
 * the tests still see every time an action would run (xstate's pure `transition` lists them).
 */
const machine = toolCallMachine.provide({ actions: { reportStarted: () => {} } });

/** The delayed transition's event type, read from the definition rather than guessed. */
const running = machine.root.states.running!;
const TIMEOUT_EVENT = running.after[0]!.eventType;

const DISPOSITIONS: ReadonlyArray<CallDisposition> = [
  "run",
  "executor_missing",
  "not_allowed",
  "unknown_tool",
  "invalid_arguments",
];

const plannedWith = (disposition: CallDisposition): PlannedCall => ({
  ...plannedCall(1, "a"),
  disposition,
  ...(disposition === "run" ? {} : { problem: `refused: ${disposition}` }),
});

const inputFor = (disposition: CallDisposition): ToolCallInput => ({
  runId: "run-model",
  step: 1,
  index: 0,
  planned: plannedWith(disposition),
});

const executorResult = (status: "ok" | "error"): ExecutorResult => ({
  status,
  ...(status === "error" ? { reason: "tool_error" as const } : {}),
  output: status === "ok" ? { found: 1 } : { error: "no such entry" },
  evidence: status === "ok" ? { rows: 1 } : {},
  startedAt: FIXED_TIME,
  finishedAt: FIXED_TIME,
});

/** The call's full alphabet: START, CANCEL, the executor's results and crash, the timeout. */
const callEvents = (): EventObject[] => [
  { type: "START" },
  { type: "CANCEL" },
  doneActor("executor", executorResult("ok")),
  doneActor("executor", executorResult("error")),
  errorActor("executor", new Error(ACTOR_CRASH)),
  { type: TIMEOUT_EVENT },
];

const optionsFor = (disposition: CallDisposition): GraphOptions => ({
  input: inputFor(disposition),
  events: callEvents,
});

const settlementOf = (snapshot: AnyMachineSnapshot) =>
  (snapshot.context as { settlement: ToolSettlement | null }).settlement;

const graphs = new Map<CallDisposition, Graph>();
beforeAll(() => {
  for (const disposition of DISPOSITIONS) graphs.set(disposition, buildGraph(machine, optionsFor(disposition)));
});
const allGraphs = () => [...graphs.values()];

describe("tool call machine", () => {
  it("takes every state node and every transition of the tool call machine on some edge", () => {
    const coverage = coverageOf(machine, allGraphs());
    const paths = DISPOSITIONS.map((disposition) => simplePaths(machine, optionsFor(disposition)));
    const ending = paths.flat().filter((path) => path.state.status !== "active").length;
    console.log(
      `toolCall: ${coverage.stateCount} states, ${coverage.transitionCount} transitions, ` +
        `${coverage.nodeCount} graph nodes, ${coverage.edgeCount} edges, ${ending} ending simple paths ` +
        `(${DISPOSITIONS.length} inputs: ${DISPOSITIONS.join(", ")})`,
    );
    expect({ states: coverage.uncoveredStates, transitions: coverage.uncoveredTransitions }).toEqual({
      states: [],
      transitions: [],
    });
  });

  it("ends every path in exactly one final state, and the settlement's status names it", () => {
    const wrong: string[] = [];
    for (const disposition of DISPOSITIONS) {
      for (const path of simplePaths(machine, optionsFor(disposition))) {
        if (path.state.status === "active") continue;
        const finals = finalNodes(path.state);
        const output = path.state.output as ToolSettlement | undefined;
        if (
          path.state.status !== "done" ||
          finals.length !== 1 ||
          finals[0] !== `toolCall.${String(path.state.value)}` ||
          output?.status !== path.state.value ||
          output?.callId !== plannedWith(disposition).call.id
        ) {
          wrong.push(`${disposition}: ${path.steps.map((step) => step.event.type).join(" → ")}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it("ends with its settlement as output, whose status is the final state it entered", () => {
    const wrong: string[] = [];
    let ended = 0;
    for (const graph of allGraphs()) {
      for (const edge of graphEdges(graph)) {
        if (edge.nextState.status !== "done") continue;
        ended += 1;
        const output = edge.nextState.output as ToolSettlement | undefined;
        if (output?.status !== edge.nextState.value) {
          wrong.push(`${edge.state.value} + ${edge.event.type}: output ${output?.status} in ${edge.nextState.value}`);
        }
      }
    }
    expect(ended).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });

  it("reports a start only when a runnable call begins running", () => {
    const starts: string[] = [];
    for (const [disposition, graph] of graphs) {
      for (const edge of graphEdges(graph)) {
        const started = actionsOf(machine, edge.state, edge.event).some((action) => action.type === "reportStarted");
        const begins = edge.state.value === "pending" && edge.nextState.value === "running";
        if (started !== begins || (started && disposition !== "run")) {
          starts.push(`${disposition}: ${edge.state.value} + ${edge.event.type}`);
        }
      }
    }
    expect(starts).toEqual([]);
  });

  it("never runs a refused call: START settles it as an error naming the refusal", () => {
    for (const disposition of DISPOSITIONS.filter((d) => d !== "run")) {
      const graph = graphs.get(disposition)!;
      expect(graphNodes(graph).some((snapshot) => snapshot.value === "running")).toBe(false);
      const started = graphEdges(graph).filter((edge) => edge.event.type === "START");
      expect(started.map((edge) => [edge.nextState.value, settlementOf(edge.nextState)?.reason])).toEqual([
        ["error", refusalReason(disposition)],
      ]);
    }
  });

  it("settles a running call that exceeds its timeout as timed_out", () => {
    const timeouts = graphEdges(graphs.get("run")!).filter((edge) => edge.event.type === TIMEOUT_EVENT);
    expect(timeouts.length).toBe(1);
    expect(settlementOf(timeouts[0]!.nextState)).toMatchObject({ status: "timed_out", reason: "timed_out" });
  });

  it("marks whether a cancelled call had started", () => {
    const cancels = graphEdges(graphs.get("run")!).filter((edge) => edge.event.type === "CANCEL");
    const started = cancels.map((edge) => [edge.state.value, settlementOf(edge.nextState)?.evidence.started]);
    expect(started.sort()).toEqual([
      ["pending", false],
      ["running", true],
    ]);
  });

  it("schedules its timeout from the planned call's timeoutMs", () => {
    const [pending] = initialTransition(machine, inputFor("run"));
    const actions = actionsOf(machine, pending, { type: "START" });
    const delayed = actions.find((action) => action.type === "xstate.raise") as
      | { params: { delay?: unknown } }
      | undefined;
    expect(delayed?.params.delay).toBe(plannedWith("run").timeoutMs);
  });
});

function refusalReason(disposition: CallDisposition): string {
  switch (disposition) {
    case "executor_missing":
      return "tool_executor_missing";
    case "not_allowed":
      return "tool_not_allowed";
    default:
      return disposition;
  }
}
