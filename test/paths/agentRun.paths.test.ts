import { beforeAll, describe, expect, it } from "vitest";
import type { EventObject } from "xstate";
import type { AgentRunResult, LoopEvent } from "../../src/domain/index.js";
import { type AgentRunControl, type AgentRunReport, agentRunMachine } from "../../src/machines/agentRun/machine.js";
import { canonicalJson } from "../../src/services/tools/fingerprint.js";
import {
  buildGraph,
  completePaths,
  coverageOf,
  finalNodes,
  type Graph,
  type GraphOptions,
  type GraphPath,
  graphEdges,
  keyOf,
  stepInto,
} from "./coverage.js";

/**
 * Model-based paths of a run as a host's child actor: controls go to the run, the run's events
 * and refusals go to the parent, and its end is the child's one final state with the run's
 * result as output.
 */

const RESULT = {
  runId: "r1",
  terminalState: "completed",
  terminalReason: "answered",
} as unknown as AgentRunResult;
const EVENT = { type: "final", runId: "r1", text: "Done." } as unknown as LoopEvent;

const controls: ReadonlyArray<AgentRunControl> = [
  { type: "APPROVE", callId: "c1", scope: "once" },
  { type: "DENY", callId: "c1", message: "no" },
  { type: "CANCEL" },
];
const reports: ReadonlyArray<AgentRunReport> = [
  { type: "RUN_EVENT", event: EVENT },
  { type: "REFUSED", message: "cannot approve c1 of r1: it has a decision already" },
  { type: "RUN_ENDED", result: RESULT },
  { type: "START_FAILED", message: "run r1 has no lease to take: it ended" },
];

const options: GraphOptions = {
  input: { sessionId: "s", input: "Hi" },
  events: (): EventObject[] => [...controls, ...reports],
};

let graph: Graph;
let paths: GraphPath[];
beforeAll(() => {
  graph = buildGraph(agentRunMachine, options);
  paths = completePaths(graph, keyOf({}), () => true);
});

describe("agentRun machine", () => {
  it("takes every state node and every transition of the agentRun machine on some edge", () => {
    const coverage = coverageOf(agentRunMachine, [graph]);
    console.log(
      `agentRun: ${coverage.stateCount} states, ${coverage.transitionCount} transitions, ` +
        `${coverage.nodeCount} graph nodes, ${coverage.edgeCount} edges, ${paths.length} complete paths`,
    );
    expect({ states: coverage.uncoveredStates, transitions: coverage.uncoveredTransitions }).toEqual({
      states: [],
      transitions: [],
    });
  });

  it("ends every complete path in exactly one final state, whose output is the run's result", () => {
    expect(paths.length).toBeGreaterThan(0);
    for (const path of paths) {
      expect(path.state.status).toBe("done");
      expect(finalNodes(path.state)).toEqual(["agentRun.ended"]);
      expect(path.state.output).toBe(RESULT);
      expect(path.steps.at(-1)?.event.type).toBe("RUN_ENDED");
    }
  });

  /** What each event's edge out of `running` sent, and to whom (the parent stands as "parent"). */
  const sentOn = (event: EventObject) => {
    const edge = graphEdges(graph).find(
      (candidate) => candidate.state.value === "running" && canonicalJson(candidate.event) === canonicalJson(event),
    )!;
    return stepInto(edge.nextState)
      .actions.filter((action) => action.type === "xstate.sendTo")
      .map((action) => {
        const params = action.params as { to: { id?: string } | string; event: EventObject };
        return { to: typeof params.to === "string" ? params.to : params.to.id, event: params.event };
      });
  };

  it("sends each control to the run, unchanged, and nothing to the parent", () => {
    for (const control of controls) expect(sentOn(control)).toEqual([{ to: "run", event: control }]);
  });

  it("tells the parent of each run event and each refusal, in its own words", () => {
    expect(sentOn(reports[0]!)).toEqual([{ to: "parent", event: { type: "agentloop.event", event: EVENT } }]);
    expect(sentOn(reports[1]!)).toEqual([
      {
        to: "parent",
        event: { type: "agentloop.refused", message: "cannot approve c1 of r1: it has a decision already" },
      },
    ]);
  });

  it("turns a start that failed into the actor's error, telling the parent and the run nothing", () => {
    const failed = reports.find((report) => report.type === "START_FAILED")!;
    const edge = graphEdges(graph).find(
      (candidate) => candidate.state.value === "running" && candidate.event.type === "START_FAILED",
    )!;
    const actions = stepInto(edge.nextState).actions.map((action) => action.type);
    expect(actions).toEqual(["failToStart"]);
    expect(sentOn(failed)).toEqual([]);
  });
});
