import { beforeAll, describe, expect, it } from "vitest";
import type { AnyMachineSnapshot, EventObject } from "xstate";
import { type ExecutionReceipt, evidenceGap } from "../../src/domain/index.js";
import type { Outcome, Verdict } from "../../src/machines/protocol.js";
import { runMachine } from "../../src/machines/run.machine.js";
import {
  buildGraph,
  closedLedgerViolations,
  coverageOf,
  describeEvent,
  emittedBy,
  endingPathCounts,
  finalNodes,
  type Graph,
  type GraphOptions,
  graphEdges,
  graphNodes,
  keyOf,
  ledgerWrite,
  type ModelLedger,
  NONE,
  nodeAt,
  OBSERVE_LOOKUP,
  runEvents,
  runInput,
  shortestPaths,
} from "./coverage.js";

/**
 * Model-based paths of the run machine (issue B). The graph covers the machine's full event
 * alphabet: CANCEL, CALL_STARTED and a done/error event for every invoked actor, with
 * representative provider outcomes (answers and empty turns for every finish reason, a tool
 * finish without calls, two calls with different fingerprints, provider failures) and actor
 * outputs computed from the inputs the machine gives its actors (see `runEvents`).
 *
 * The input bounds the graph: maxSteps 3, doomLoopThreshold 2, maxProtocolRepairs 1, one call per
 * step. Every counter the guards read (step, sequence, protocolRepairs, receipts, callLog …) is
 * then bounded, so the full context can stay in each node's identity (no custom serializeState).
 */

const OBSERVE: GraphOptions = { input: runInput(OBSERVE_LOOKUP), events: runEvents };
const NONE_OPTIONS: GraphOptions = { input: runInput(NONE), events: runEvents };
const TOOL_KINDS = runInput(OBSERVE_LOOKUP).toolKinds;

interface RunContextView {
  readonly step: number;
  readonly maxSteps: number;
  readonly receipts: ReadonlyArray<ExecutionReceipt>;
  readonly outcome: Outcome | null;
}
const DONE = "xstate.done.actor.";
const contextOf = (snapshot: AnyMachineSnapshot) => snapshot.context as RunContextView;

let observeGraph: Graph;
let noneGraph: Graph;

beforeAll(() => {
  observeGraph = buildGraph(runMachine, OBSERVE);
  noneGraph = buildGraph(runMachine, NONE_OPTIONS);
});

describe("run machine: coverage", () => {
  it("takes every state node and every transition of the run machine on some edge", () => {
    const coverage = coverageOf(runMachine, [observeGraph, noneGraph]);
    const describeGraph = (name: string, graph: Graph, options: GraphOptions) => {
      const own = coverageOf(runMachine, [graph]);
      const paths = endingPathCounts(graph, keyOf(options)).get(Object.keys(graph)[0]!) ?? 0;
      return `${name} contract: ${own.nodeCount} nodes, ${own.edgeCount} edges, ${paths} complete paths`;
    };
    console.log(
      `run: ${coverage.stateCount} states, ${coverage.transitionCount} transitions; ` +
        `${describeGraph("observe", observeGraph, OBSERVE)}; ${describeGraph("none", noneGraph, NONE_OPTIONS)}`,
    );
    expect({ states: coverage.uncoveredStates, transitions: coverage.uncoveredTransitions }).toEqual({
      states: [],
      transitions: [],
    });
  });
});

describe("run machine: endings", () => {
  it("ends every path in exactly one final state, and the output's terminalState names it", () => {
    const paths = shortestPaths(runMachine, OBSERVE);
    const ended = paths.filter((path) => path.state.status !== "active");
    console.log(`run: ${paths.length} shortest paths, ${ended.length} of them end`);
    const wrong = ended
      .filter((path) => {
        const finals = finalNodes(path.state);
        return (
          path.state.status !== "done" ||
          finals.length !== 1 ||
          typeof path.state.value !== "string" ||
          finals[0] !== `run.${path.state.value}` ||
          (path.state.output as { terminalState?: string } | undefined)?.terminalState !== path.state.value
        );
      })
      .map((path) => path.steps.map((step) => describeEvent(step.event)).join(" → "));
    expect(ended.length).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });

  it("emits exactly one done event on every path, on the step that enters the final state", () => {
    // Per edge: `done` is emitted iff the edge enters a final state. Every path into a final
    // state therefore emits exactly one, on its last step (and a path never leaves a final state).
    const wrong: string[] = [];
    for (const edge of graphEdges(observeGraph)) {
      const emitted = emittedBy(runMachine, edge.state, edge.event);
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
    expect(wrong).toEqual([]);
  });

  it("leaves no state stuck: every reachable state can still reach a final state", () => {
    const key = keyOf(OBSERVE);
    const counts = endingPathCounts(observeGraph, key);
    const stuck = graphNodes(observeGraph)
      .filter((snapshot) => snapshot.status === "active" && counts.get(key(snapshot)) === 0)
      .map((snapshot) => JSON.stringify(snapshot.value));
    expect(stuck).toEqual([]);
  });

  it("never samples the model more than maxSteps times", () => {
    const over = graphNodes(observeGraph).filter((snapshot) => contextOf(snapshot).step > contextOf(snapshot).maxSteps);
    expect(over.length).toBe(0);
  });
});

describe("run machine: completion needs evidence", () => {
  it("reaches completed only when the observe contract's receipts are there", () => {
    const completed = graphNodes(observeGraph).filter((snapshot) => snapshot.value === "completed");
    const unsupported = completed.filter(
      (snapshot) => !evidenceGap(OBSERVE_LOOKUP, contextOf(snapshot).receipts, TOOL_KINDS).satisfied,
    );
    console.log(`run: ${completed.length} completed nodes under the observe contract`);
    expect(completed.length).toBeGreaterThan(0);
    expect(unsupported.length).toBe(0);
  });

  it("ends unverified when the verifier says completed but the receipts are missing", () => {
    const overruled = graphEdges(observeGraph).filter(
      (edge) =>
        edge.event.type === "xstate.done.actor.verifyAnswer" &&
        (edge.event as EventObject & { output: Verdict }).output.verdict === "completed" &&
        !evidenceGap(OBSERVE_LOOKUP, contextOf(edge.state).receipts, TOOL_KINDS).satisfied,
    );
    expect(overruled.length).toBeGreaterThan(0);
    expect(new Set(overruled.map((edge) => contextOf(edge.nextState).outcome?.state))).toEqual(new Set(["unverified"]));
  });

  it("reaches completed without any receipt under the none contract", () => {
    const completed = graphNodes(noneGraph).filter(
      (snapshot) => snapshot.value === "completed" && contextOf(snapshot).receipts.length === 0,
    );
    expect(completed.length).toBeGreaterThan(0);
  });

  it("catches a machine whose completion guard trusts the verifier", () => {
    const trusting = runMachine.provide({
      guards: { verdictCompleted: (_, params: { verdict: Verdict }) => params.verdict.verdict === "completed" },
    });
    const graph = buildGraph(trusting, OBSERVE);
    const unsupported = graphNodes(graph).filter(
      (snapshot) =>
        snapshot.value === "completed" &&
        !evidenceGap(OBSERVE_LOOKUP, contextOf(snapshot).receipts, TOOL_KINDS).satisfied,
    );
    expect(unsupported.length).toBeGreaterThan(0);
  });
});

describe("run machine: the ledger it writes", () => {
  it("asks only for ledger writes the ledger accepts, and closes every run with a well-formed ledger", () => {
    // Walks every complete path, replaying the writes each actor makes from the input the machine
    // gives it (as runActors.ts does) against a model of the ledger's triggers. A failed write
    // (error.actor.<writer>) writes nothing. A failed openRun is modelled as the run row existing
    // without its user_input row (createRun and the first append are separate transactions).
    const key = keyOf(OBSERVE);
    const refusals = new Map<string, string[]>();
    const malformed = new Map<string, string[]>();
    const note = (map: Map<string, string[]>, kind: string, path: string[]) => {
      const known = map.get(kind);
      if (!known || known.length > path.length) map.set(kind, path);
    };
    let complete = 0;
    const walk = (node: string, ledger: ModelLedger, trail: string[]) => {
      const value = nodeAt(observeGraph, node);
      for (const next of Object.values(value.transitions)) {
        const nextKey = key(next.state);
        if (nextKey === node) continue;
        const event = next.event;
        const path = [...trail, describeEvent(event)];
        let nextLedger = ledger;
        if (event.type.startsWith(DONE)) {
          const writer = event.type.slice(DONE.length);
          const written = ledgerWrite(value.state, writer, ledger);
          if (written?.refused !== undefined) {
            note(refusals, `${writer}: ${written.refused.replace(/ \([^)]*\)/g, "")}`, path);
            continue;
          }
          if (written) nextLedger = written.ledger;
        }
        if (next.state.status !== "active") {
          complete += 1;
          if (event.type === `${DONE}finishRun`) {
            for (const violation of closedLedgerViolations(nextLedger.rows, nextLedger.receipts)) {
              note(malformed, violation, path);
            }
          }
          continue;
        }
        walk(nextKey, nextLedger, path);
      }
    };
    walk(Object.keys(observeGraph)[0]!, { rows: [], receipts: [] }, []);
    console.log(`run: ${complete} complete paths replayed against the ledger model`);
    const report = (map: Map<string, string[]>) =>
      [...map].map(([kind, path]) => `${kind} — shortest example: ${path.join(" → ")}`);
    expect({ refused: report(refusals), malformed: report(malformed) }).toEqual({ refused: [], malformed: [] });
  });
});
