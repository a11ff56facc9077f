import { beforeAll, describe, expect, it } from "vitest";
import type { AnyMachineSnapshot, EventObject } from "xstate";
import type { ApprovalOutcome, HostApprovalDecision } from "../../src/domain/index.js";
import { type ApprovalEvent, type ApprovalInput, approvalMachine } from "../../src/machines/approval/machine.js";
import { canonicalJson } from "../../src/services/tools/fingerprint.js";
import {
  buildGraph,
  completePaths,
  coverageOf,
  finalNodes,
  type Graph,
  type GraphOptions,
  type GraphPath,
  keyOf,
  simplePaths,
} from "./coverage.js";

/**
 * Model-based paths of one call's wait for approval: a decision (approved, with or
 * without edited arguments, or denied), the delayed event of its `after: approvalTimeout`, or the
 * run's CANCEL. Every path ends in exactly one final state, and its output is the decision that
 * ended the wait.
 */

const DECIDED_AT = "2024-05-01T00:00:00.000Z";
const TIMER = approvalMachine.root.states.awaitingApproval!.after[0]!.eventType;

const input: ApprovalInput = {
  callId: "c1",
  toolName: "send_message",
  arguments: { channel: "ops" },
  reason: "deliver tools need approval",
  timeoutMs: 500,
};

const DECISIONS: ReadonlyArray<HostApprovalDecision> = [
  { decision: "approved", scope: "once", decidedBy: "host", decidedAt: DECIDED_AT },
  {
    decision: "approved",
    scope: "session",
    arguments: { channel: "ops-2" },
    decidedBy: "cli:alice",
    decidedAt: DECIDED_AT,
  },
  { decision: "denied", message: "not now", decidedBy: "host", decidedAt: DECIDED_AT },
];

const events = (): EventObject[] => [
  ...DECISIONS.map((decision): ApprovalEvent => ({ type: "DECIDED", callId: "c1", decision })),
  { type: "CANCEL" } satisfies ApprovalEvent,
  { type: TIMER },
];

const options: GraphOptions = { input, events };

/** What the path's one event must make the output. */
function expectedOutcome(event: EventObject): ApprovalOutcome {
  if (event.type === "DECIDED") return (event as Extract<ApprovalEvent, { type: "DECIDED" }>).decision;
  if (event.type === "CANCEL") return { decision: "cancelled", decidedBy: "runtime" };
  return { decision: "expired", timeoutMs: input.timeoutMs, decidedBy: "runtime" };
}

let graph: Graph;
let paths: GraphPath[];
beforeAll(() => {
  graph = buildGraph(approvalMachine, options);
  paths = completePaths(graph, keyOf({}), () => true);
});

describe("approval machine", () => {
  it("takes every state node and every transition of the approval machine on some edge", () => {
    const coverage = coverageOf(approvalMachine, [graph]);
    console.log(
      `approval: ${coverage.stateCount} states, ${coverage.transitionCount} transitions, ` +
        `${coverage.nodeCount} graph nodes, ${coverage.edgeCount} edges, ${paths.length} complete paths`,
    );
    expect({ states: coverage.uncoveredStates, transitions: coverage.uncoveredTransitions }).toEqual({
      states: [],
      transitions: [],
    });
  });

  it("finds with getSimplePaths exactly the complete paths the adjacency walk finds", () => {
    const fromLibrary = simplePaths(approvalMachine, options)
      .filter((path) => path.state.status !== "active")
      .map((path) => canonicalJson(path.steps.slice(1).map((step) => step.event)))
      .sort();
    const walked = paths.map((path) => canonicalJson(path.steps.map((step) => step.event))).sort();
    expect(fromLibrary).toEqual(walked);
  });

  it("ends every path after one event in exactly one final state, whose output is that event's decision", () => {
    const wrong: string[] = [];
    for (const path of paths) {
      const [only] = path.steps;
      const finals = finalNodes(path.state);
      const expectedState = {
        approved: "approval.approved",
        denied: "approval.denied",
        expired: "approval.expired",
        cancelled: "approval.cancelled",
      }[expectedOutcome(only!.event).decision];
      if (
        path.steps.length !== 1 ||
        path.state.status !== "done" ||
        finals.length !== 1 ||
        finals[0] !== expectedState ||
        canonicalJson(path.state.output) !== canonicalJson(expectedOutcome(only!.event))
      ) {
        wrong.push(
          `${path.steps.map((step) => step.event.type).join(" → ")} ended ${finals} with ${canonicalJson(path.state.output)}`,
        );
      }
    }
    expect(paths).toHaveLength(events().length);
    expect(wrong).toEqual([]);
  });

  it("waits exactly the call's timeout before it expires", () => {
    const initial = Object.values(graph)[0]!.state as AnyMachineSnapshot;
    expect(initial.value).toBe("awaitingApproval");
    const delay = approvalMachine.implementations.delays.approvalTimeout as (args: { context: unknown }) => number;
    expect(delay({ context: initial.context })).toBe(input.timeoutMs);
  });
});
