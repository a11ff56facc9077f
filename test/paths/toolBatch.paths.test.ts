import { beforeAll, describe, expect, it } from "vitest";
import type { AnyMachineSnapshot, EventObject } from "xstate";
import type {
  ApprovalOutcome,
  BatchReply,
  CallDisposition,
  ExecutorResult,
  PlannedCall,
  RunCommand,
  RunReply,
  ToolSettlement,
} from "../../src/domain/index.js";
import {
  type BatchCall,
  type ToolBatchContext,
  type ToolBatchEvent,
  type ToolBatchInput,
  toolBatchMachine,
} from "../../src/machines/toolBatch/machine.js";
import { canonicalJson, inputFingerprint } from "../../src/services/tools/fingerprint.js";
import {
  buildGraph,
  completePaths,
  coverageOf,
  endingPathCounts,
  finalNodes,
  type Graph,
  type GraphOptions,
  type GraphPath,
  graphEdges,
  graphNodes,
  keyOf,
  nodeAt,
  type RecordedStep,
  reachableKeys,
  rootOf,
  sentBy,
  simplePaths,
  stepInto,
  withoutEvents,
} from "./coverage.js";

/**
 * Model-based paths of one step's tool batch (issues B and M). Each call's lifecycle is data in the
 * batch (planned → running → settled); the run's I/O actor executes a call when the batch sends it
 * EXECUTE and reports back CALL_STARTED / CALL_SETTLED with its clock reading `at`. During traversal
 * nothing runs, so those reports are the batch's events: CALL_STARTED for a call it dispatched
 * that has not reported yet, CALL_SETTLED (ok or error) for a started call — and once more, late,
 * for a call already timed out — the batch's one timer (the delayed event of `after:
 * untilNextDeadline`) while a running call has a deadline, and CANCEL from the run.
 *
 * Time in the model: a report's `at` is the batch's latest clock reading, and the clock moves
 * when the timer fires (to the earliest deadline), so every node's clock and deadlines are drawn
 * from a small set and the graph stays finite.
 */

const FIXED_TIME = "2024-05-01T00:00:00.000Z";
/** The delayed event of the batch's one timer, read from the definition rather than guessed. */
const TIMER = toolBatchMachine.root.states.running!.after[0]!.eventType;
/** The longest delay the machine schedules while no running call has a deadline. */
const NO_DEADLINE = 2 ** 31 - 1;

const call = (id: string, timeoutMs = 100, disposition: CallDisposition = "run"): PlannedCall => ({
  call: { id, name: "lookup", arguments: { id } },
  disposition,
  inputFingerprint: inputFingerprint("lookup", { id }),
  timeoutMs,
  ...(disposition === "run" ? {} : { problem: `refused: ${disposition}` }),
});

const REFUSED_REASON: Record<Exclude<CallDisposition, "run">, string> = {
  executor_missing: "tool_executor_missing",
  not_allowed: "tool_not_allowed",
  unknown_tool: "unknown_tool",
  invalid_arguments: "invalid_arguments",
};

const batchInput = (calls: ReadonlyArray<PlannedCall>, concurrency: number): ToolBatchInput => ({
  runId: "run-model",
  step: 1,
  calls,
  concurrency,
});

/** A call that waits for approval first. */
const needsApproval = (planned: PlannedCall): PlannedCall => ({
  ...planned,
  approval: { reason: "the policy asks", timeoutMs: 1_000 },
});

const A = call("call-a");
const B = call("call-b");
const LONG_B = call("call-b", 250);
const REFUSED = call("call-c", 100, "unknown_tool");

const INPUTS: ReadonlyArray<{ readonly name: string; readonly input: ToolBatchInput }> = [
  { name: "a, b, refused c; concurrency 1", input: batchInput([A, B, REFUSED], 1) },
  { name: "a, b, refused c; concurrency 2", input: batchInput([A, B, REFUSED], 2) },
  { name: "refused c, a; concurrency 1", input: batchInput([REFUSED, A], 1) },
  { name: "a (100 ms), b (250 ms); concurrency 2", input: batchInput([A, LONG_B], 2) },
  { name: "a, b (250 ms), d; concurrency 2", input: batchInput([A, LONG_B, call("call-d")], 2) },
  { name: "a, b; concurrency 0", input: batchInput([A, B], 0) },
  {
    name: "every refusal, then a; concurrency 1",
    input: batchInput(
      [
        call("missing", 100, "executor_missing"),
        call("forbidden", 100, "not_allowed"),
        call("ghost", 100, "unknown_tool"),
        call("garbled", 100, "invalid_arguments"),
        A,
      ],
      1,
    ),
  },
  { name: "refused c only", input: batchInput([REFUSED], 2) },
  { name: "a needs approval, b; concurrency 1", input: batchInput([needsApproval(A), B], 1) },
  { name: "a and b need approval; concurrency 2", input: batchInput([needsApproval(A), needsApproval(B)], 2) },
];

const APPROVED_AT = "2024-05-01T00:00:01.000Z";
/** Every way an approval actor can end while the batch waits (a cancelled one ends with the batch's CANCEL). */
const APPROVAL_OUTCOMES: ReadonlyArray<ApprovalOutcome> = [
  { decision: "approved", scope: "once", decidedBy: "host", decidedAt: APPROVED_AT },
  { decision: "approved", scope: "run", decidedBy: "host", decidedAt: APPROVED_AT },
  { decision: "approved", scope: "once", arguments: { id: "edited" }, decidedBy: "host", decidedAt: APPROVED_AT },
  { decision: "denied", message: "no", decidedBy: "host", decidedAt: APPROVED_AT },
  { decision: "expired", timeoutMs: 1_000, decidedBy: "runtime" },
];

const UNAPPROVED: Record<string, Pick<ToolSettlement, "status" | "reason">> = {
  denied: { status: "denied", reason: "approval_denied" },
  expired: { status: "expired", reason: "approval_expired" },
};

const contextOf = (snapshot: AnyMachineSnapshot) => snapshot.context as ToolBatchContext;
const isRunning = (batchCall: BatchCall) => batchCall.dispatched && batchCall.settlement === null;
const slotsOf = (context: ToolBatchContext) => Math.max(1, context.concurrency);

const executorResult = (status: "ok" | "error", id: string): ExecutorResult => ({
  status,
  ...(status === "error" ? { reason: "tool_error" as const } : {}),
  output: status === "ok" ? { found: id } : { error: `no entry for ${id}` },
  evidence: {},
  startedAt: FIXED_TIME,
  finishedAt: FIXED_TIME,
});

function batchEvents(snapshot: AnyMachineSnapshot): EventObject[] {
  const context = contextOf(snapshot);
  const at = context.clock;
  const events: Array<ToolBatchEvent | EventObject> = [{ type: "CANCEL" }];
  context.calls.forEach((batchCall, index) => {
    const id = batchCall.planned.call.id;
    if (isRunning(batchCall) && batchCall.startedAt === null) {
      events.push({ type: "CALL_STARTED", index, at, startedAt: FIXED_TIME } satisfies BatchReply);
    }
    if (isRunning(batchCall) && batchCall.startedAt !== null) {
      for (const status of ["ok", "error"] as const) {
        events.push({ type: "CALL_SETTLED", index, at, result: executorResult(status, id) } satisfies BatchReply);
      }
    }
    // A result already on its way when the call timed out.
    if (batchCall.settlement?.status === "timed_out") {
      events.push({ type: "CALL_SETTLED", index, at, result: executorResult("ok", id) } satisfies BatchReply);
    }
    // The I/O actor's word that the call's request is durable — perhaps only after its wait ended.
    if (batchCall.planned.approval && !batchCall.approvalShown) {
      events.push({
        type: "APPROVAL_REQUESTED",
        runId: context.runId,
        step: context.step,
        callId: id,
        toolName: batchCall.planned.call.name,
        arguments: batchCall.planned.call.arguments,
        reason: batchCall.planned.approval.reason,
      } satisfies BatchReply);
    }
    if (batchCall.approval === "waiting") {
      // The decision goes to the call's approval actor; the actor's end is what moves the batch.
      events.push({
        type: "APPROVAL_DECIDED",
        callId: id,
        decision: { decision: "denied", message: "no", decidedBy: "host", decidedAt: APPROVED_AT },
      });
      for (const output of APPROVAL_OUTCOMES) {
        const done: EventObject & { output: ApprovalOutcome } = { type: `xstate.done.actor.approval-${index}`, output };
        events.push(done);
      }
    }
  });
  if (context.calls.some((batchCall) => isRunning(batchCall) && batchCall.deadline !== null)) {
    events.push({ type: TIMER });
  }
  return events;
}

/**
 * Reports no call can make now, the timer while no running call has a deadline (it would fire
 * after ~25 days), and decisions and approval ends while no call waits for approval.
 */
const impossible = (snapshot: AnyMachineSnapshot) => {
  const offered = new Set(batchEvents(snapshot).map((event) => event.type));
  const waiting = contextOf(snapshot).calls.some((batchCall) => batchCall.approval === "waiting");
  return [
    ...["CALL_STARTED", "CALL_SETTLED", "APPROVAL_REQUESTED", TIMER].filter((type) => !offered.has(type)),
    ...(waiting ? [] : ["APPROVAL_DECIDED", "xstate.done.actor.*"]),
  ];
};

const optionsFor = (input: ToolBatchInput): GraphOptions => ({ input, events: batchEvents, impossible });

const graphs: Graph[] = [];
const pathsByInput: GraphPath[][] = [];
beforeAll(() => {
  for (const { input } of INPUTS) {
    const graph = buildGraph(toolBatchMachine, optionsFor(input));
    graphs.push(graph);
    pathsByInput.push(completePaths(graph, keyOf({}), () => true));
  }
});

/** The EXECUTE and ABORT commands a step sent to the I/O actor. */
const ioCommandsOf = (step: RecordedStep) =>
  sentBy(step)
    .filter((sent) => sent.event.type === "EXECUTE" || sent.event.type === "ABORT")
    .map((sent) => sent.event as RunCommand);

/** Every edge of every graph, plus the initial macrosteps (as edges from nothing). */
function allSteps(): Array<{ before: ToolBatchContext | undefined; after: AnyMachineSnapshot; event?: EventObject }> {
  const steps: Array<{ before: ToolBatchContext | undefined; after: AnyMachineSnapshot; event?: EventObject }> = [];
  for (const graph of graphs) {
    steps.push({ before: undefined, after: nodeAt(graph, rootOf(graph)).state });
    for (const edge of graphEdges(graph)) {
      steps.push({ before: contextOf(edge.state), after: edge.nextState, event: edge.event });
    }
  }
  return steps;
}

/**
 * The settlement the path's events give each call: the first report that settles it. A refused
 * call settles as an error naming its refusal when the batch reaches it in call order (at once,
 * unless a runnable call before it still waits for a slot); a CANCEL before that cancels it.
 */
function expectedSettlements(input: ToolBatchInput, path: GraphPath): Array<Partial<ToolSettlement>> {
  const settled: Array<Partial<ToolSettlement> | null> = input.calls.map(() => null);
  const refusals = (context: ToolBatchContext) =>
    input.calls.forEach((planned, index) => {
      if (planned.disposition !== "run" && context.calls[index]!.settlement?.status === "error") {
        settled[index] ??= { status: "error", reason: REFUSED_REASON[planned.disposition] as ToolSettlement["reason"] };
      }
    });
  for (const { state, event } of path.steps) {
    const context = contextOf(state);
    refusals(context);
    if (event.type === "CALL_SETTLED") {
      const { index, result } = event as Extract<BatchReply, { type: "CALL_SETTLED" }>;
      settled[index] ??= { status: result.status, ...(result.reason ? { reason: result.reason } : {}) };
    } else if (event.type === TIMER) {
      const deadlines = context.calls.filter(isRunning).map((c) => c.deadline ?? Number.POSITIVE_INFINITY);
      const earliest = Math.min(...deadlines);
      context.calls.forEach((batchCall, index) => {
        if (isRunning(batchCall) && batchCall.deadline === earliest) {
          settled[index] ??= { status: "timed_out", reason: "timed_out" };
        }
      });
    } else if (event.type === "CANCEL") {
      input.calls.forEach((_, index) => {
        settled[index] ??= { status: "cancelled", reason: "cancelled_by_user" };
      });
    } else if (event.type.startsWith("xstate.done.actor.approval-")) {
      const index = Number(event.type.slice("xstate.done.actor.approval-".length));
      const output = (event as EventObject & { output: ApprovalOutcome }).output;
      const unapproved = UNAPPROVED[output.decision];
      if (unapproved && context.calls[index]!.approval === "waiting") settled[index] ??= unapproved;
    }
  }
  refusals(contextOf(path.state));
  return settled.map((settlement) => settlement ?? {});
}

describe("tool batch machine", () => {
  it("takes every state node and every transition of the tool batch machine on some edge", () => {
    const coverage = coverageOf(toolBatchMachine, graphs);
    const complete = pathsByInput.flat().length;
    console.log(
      `toolBatch: ${coverage.stateCount} states, ${coverage.transitionCount} transitions, ` +
        `${coverage.nodeCount} graph nodes, ${coverage.edgeCount} edges, ${complete} complete paths ` +
        `(${INPUTS.length} inputs)`,
    );
    expect({ states: coverage.uncoveredStates, transitions: coverage.uncoveredTransitions }).toEqual({
      states: [],
      transitions: [],
    });
  });

  it("finds with getSimplePaths exactly the complete paths the adjacency walk finds", () => {
    // getSimplePaths searches paths to every node of the graph (cost: nodes × paths), so the other
    // tests walk the adjacency map; on the smaller inputs both enumerations must agree.
    const small = INPUTS.map((entry, position) => ({ ...entry, position })).filter(
      ({ position }) => graphNodes(graphs[position]!).length <= 60,
    );
    expect(small.length).toBeGreaterThanOrEqual(3);
    for (const { input, position } of small) {
      const fromLibrary = simplePaths(toolBatchMachine, optionsFor(input))
        .filter((path) => path.state.status !== "active")
        .map((path) => canonicalJson(path.steps.slice(1).map((step) => step.event)))
        .sort();
      const walked = pathsByInput[position]!.map((path) => canonicalJson(path.steps.map((step) => step.event))).sort();
      expect(fromLibrary).toEqual(walked);
    }
  });

  it("ends every path in done with one settlement per call, in call order, as the path settled each", () => {
    const wrong: string[] = [];
    let outOfOrder = 0;
    for (const [position, { input }] of INPUTS.entries()) {
      for (const path of pathsByInput[position]!) {
        if (path.state.status === "active") continue;
        const output = path.state.output as ReadonlyArray<ToolSettlement> | undefined;
        const finals = finalNodes(path.state);
        const ids = output?.map((settlement) => settlement.callId);
        const got = output?.map((settlement) => ({
          status: settlement.status,
          ...(settlement.reason ? { reason: settlement.reason } : {}),
        }));
        if (
          path.state.status !== "done" ||
          finals.length !== 1 ||
          finals[0] !== "toolBatch.done" ||
          canonicalJson(ids) !== canonicalJson(input.calls.map((planned) => planned.call.id)) ||
          canonicalJson(got) !== canonicalJson(expectedSettlements(input, path))
        ) {
          wrong.push(
            `${path.steps.map((step) => step.event.type).join(" → ")}: ${canonicalJson(got)} vs ${canonicalJson(expectedSettlements(input, path))}`,
          );
        }
        // The order in which the path settled the runnable calls.
        const settledOrder = path.steps
          .filter((step) => step.event.type === "CALL_SETTLED")
          .map((step) => (step.event as Extract<BatchReply, { type: "CALL_SETTLED" }>).index);
        if (settledOrder.some((index, i) => i > 0 && index < settledOrder[i - 1]!)) outOfOrder += 1;
      }
    }
    console.log(`toolBatch: ${outOfOrder} ending paths settle a later call before an earlier one`);
    expect(outOfOrder).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });

  it("never runs more calls at once than its concurrency, and never leaves a slot idle while a call waits", () => {
    const wrong: string[] = [];
    for (const snapshot of graphs.flatMap(graphNodes)) {
      const context = contextOf(snapshot);
      const running = context.calls.filter(isRunning).length;
      const waiting = context.calls.some(
        (c) => !c.dispatched && c.settlement === null && c.planned.disposition === "run" && c.approval !== "waiting",
      );
      if (running > slotsOf(context)) wrong.push(`${running} running with concurrency ${context.concurrency}`);
      if (snapshot.status === "active" && waiting && running < slotsOf(context)) {
        wrong.push(`a slot idle while a call waits: ${canonicalJson(context.calls.map((c) => c.dispatched))}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("sends EXECUTE once per runnable call, in call order, as its slot frees — never for a refused call", () => {
    const wrong: string[] = [];
    for (const { before, after } of allSteps()) {
      const executed = ioCommandsOf(stepInto(after)).filter((command) => command.type === "EXECUTE");
      const context = contextOf(after);
      const dispatched = context.calls
        .map((batchCall, index) => (batchCall.dispatched && !before?.calls[index]?.dispatched ? index : -1))
        .filter((index) => index >= 0);
      if (canonicalJson(executed.map((command) => command.index)) !== canonicalJson(dispatched)) {
        wrong.push(`EXECUTE ${executed.map((command) => command.index)} for newly dispatched ${dispatched}`);
      }
      for (const command of executed) {
        const batchCall = context.calls[command.index]!;
        const { planned } = batchCall;
        const outcome = batchCall.approvalOutcome;
        // An approval that edited the arguments runs the call with them; otherwise the call as planned.
        const edited = outcome?.decision === "approved" && outcome.arguments !== undefined;
        if (
          planned.disposition !== "run" ||
          (planned.approval !== undefined && batchCall.approval !== "approved") ||
          (edited
            ? canonicalJson(command.planned.call) !== canonicalJson({ ...planned.call, arguments: outcome.arguments })
            : command.planned !== planned) ||
          command.runId !== context.runId ||
          command.step !== context.step ||
          command.replyTo === undefined
        ) {
          wrong.push(`EXECUTE ${command.index}: ${planned.call.id} (${planned.disposition})`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it("settles refused calls at once, as errors naming the refusal, without executing them", () => {
    const everyRefusal = graphs[INPUTS.findIndex(({ name }) => name.startsWith("every refusal"))]!;
    const [initial] = graphNodes(everyRefusal);
    const settlements = contextOf(initial!).calls.map((batchCall) =>
      batchCall.settlement ? [batchCall.settlement.status, batchCall.settlement.reason] : null,
    );
    expect(settlements).toEqual([
      ["error", "tool_executor_missing"],
      ["error", "tool_not_allowed"],
      ["error", "unknown_tool"],
      ["error", "invalid_arguments"],
      null,
    ]);
    // A batch of refused calls only is done before anything runs.
    const onlyRefused = graphs[INPUTS.findIndex(({ name }) => name === "refused c only")]!;
    expect(graphNodes(onlyRefused).map((snapshot) => snapshot.status)).toEqual(["done"]);
  });

  it("keeps one timer, set for the earliest deadline of the running calls", () => {
    const wrong: string[] = [];
    let deadlines = 0;
    for (const { after, event } of allSteps()) {
      // A decision only goes on to the approval actor, and a durable request is only shown to the
      // run: the batch stays in `running`, its timer as it was.
      if (after.status !== "active" || event?.type === "APPROVAL_DECIDED" || event?.type === "APPROVAL_REQUESTED")
        continue;
      const context = contextOf(after);
      const scheduled = stepInto(after)
        .actions.filter((action) => action.type === "xstate.raise")
        .map((action) => (action.params as { delay?: number }).delay)
        .filter((delay) => delay !== undefined);
      const running = context.calls.filter((c) => isRunning(c) && c.deadline !== null).map((c) => c.deadline!);
      const expected = running.length === 0 ? NO_DEADLINE : Math.min(...running) - context.clock;
      if (running.length > 1) deadlines += 1;
      if (scheduled.length !== 1 || scheduled[0] !== expected) {
        wrong.push(`scheduled ${scheduled} for deadlines ${running} at ${context.clock}`);
      }
    }
    expect(deadlines).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });

  it("times out exactly the running calls whose deadline came, and aborts them", () => {
    const wrong: string[] = [];
    let timers = 0;
    for (const graph of graphs) {
      for (const edge of graphEdges(graph).filter((e) => e.event.type === TIMER)) {
        timers += 1;
        const before = contextOf(edge.state);
        const after = contextOf(edge.nextState);
        const earliest = Math.min(...before.calls.filter(isRunning).map((c) => c.deadline ?? Number.POSITIVE_INFINITY));
        const due = before.calls
          .map((c, index) => (isRunning(c) && c.deadline === earliest ? index : -1))
          .filter((index) => index >= 0);
        const timedOut = after.calls
          .map((c, index) =>
            before.calls[index]!.settlement === null && c.settlement?.status === "timed_out" ? index : -1,
          )
          .filter((index) => index >= 0);
        const aborted = ioCommandsOf(stepInto(edge.nextState))
          .filter((command) => command.type === "ABORT")
          .map((command) => command.callId);
        if (
          canonicalJson(timedOut) !== canonicalJson(due) ||
          canonicalJson(aborted) !== canonicalJson(due.map((index) => before.calls[index]!.planned.call.id)) ||
          due.some((index) => {
            const settlement = after.calls[index]!.settlement!;
            return (
              settlement.status !== "timed_out" ||
              settlement.reason !== "timed_out" ||
              canonicalJson(settlement.evidence) !==
                canonicalJson({ timeout_ms: before.calls[index]!.planned.timeoutMs })
            );
          }) ||
          after.clock !== earliest
        ) {
          wrong.push(`timer at ${before.clock}: due ${due}, timed out ${timedOut}, aborted ${aborted}`);
        }
      }
    }
    expect(timers).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });

  it("ignores a result that arrives after its call timed out", () => {
    const late = graphs.flatMap(graphEdges).filter((edge) => {
      if (edge.event.type !== "CALL_SETTLED") return false;
      const { index } = edge.event as Extract<BatchReply, { type: "CALL_SETTLED" }>;
      return contextOf(edge.state).calls[index]!.settlement !== null;
    });
    expect(late.length).toBeGreaterThan(0);
    expect(
      late.filter(
        (edge) => canonicalJson(contextOf(edge.state).calls) !== canonicalJson(contextOf(edge.nextState).calls),
      ),
    ).toEqual([]);
  });

  it("settles every unsettled call as cancelled on CANCEL, aborting exactly the running ones", () => {
    const wrong: string[] = [];
    for (const graph of graphs) {
      for (const edge of graphEdges(graph).filter((e) => e.event.type === "CANCEL")) {
        const before = contextOf(edge.state);
        const after = contextOf(edge.nextState);
        const aborted = ioCommandsOf(stepInto(edge.nextState))
          .filter((command) => command.type === "ABORT")
          .map((command) => command.callId);
        const running = before.calls.filter(isRunning).map((c) => c.planned.call.id);
        const cancelled = after.calls.map((c, index) =>
          before.calls[index]!.settlement === null
            ? [c.settlement?.status, c.settlement?.reason, c.settlement?.evidence.started]
            : null,
        );
        const expected = before.calls.map((c) =>
          c.settlement === null ? ["cancelled", "cancelled_by_user", c.startedAt !== null] : null,
        );
        if (
          edge.nextState.status !== "done" ||
          canonicalJson(aborted) !== canonicalJson(running) ||
          canonicalJson(cancelled) !== canonicalJson(expected)
        ) {
          wrong.push(`CANCEL with ${running} running: aborted ${aborted}, ${canonicalJson(cancelled)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it("ends on its own without any CANCEL, having executed every runnable call: no state waits forever", () => {
    const stuck: string[] = [];
    for (const [position, { name }] of INPUTS.entries()) {
      const key = keyOf({});
      const own = withoutEvents(graphs[position]!, (event) => event.type === "CANCEL");
      const counts = endingPathCounts(own, key);
      for (const node of reachableKeys(own, key)) {
        const snapshot = nodeAt(own, node).state;
        const context = contextOf(snapshot);
        if (counts.get(node) === 0) stuck.push(`${name}: stuck with ${canonicalJson(context.calls)}`);
        // A call that was never approved never runs.
        const runnable = context.calls.filter(
          (c) => c.planned.disposition === "run" && !["denied", "expired"].includes(c.settlement?.status ?? ""),
        ).length;
        if (snapshot.status === "done" && context.calls.filter((c) => c.dispatched).length !== runnable) {
          stuck.push(`${name}: done with calls never executed`);
        }
      }
    }
    expect(stuck).toEqual([]);
  });

  it("asks once per call that needs approval, spawning its approval actor", () => {
    const wrong: string[] = [];
    for (const { before, after } of allSteps()) {
      const asked = sentBy(stepInto(after))
        .filter((sent) => sent.event.type === "REQUEST_APPROVAL")
        .map((sent) => (sent.event as Extract<RunCommand, { type: "REQUEST_APPROVAL" }>).callId);
      const newlyWaiting = contextOf(after)
        .calls.filter((c, index) => c.approval === "waiting" && before?.calls[index]?.approval !== "waiting")
        .map((c) => c.planned.call.id);
      if (canonicalJson(asked) !== canonicalJson(newlyWaiting)) wrong.push(`asked ${asked}, waiting ${newlyWaiting}`);
    }
    expect(wrong).toEqual([]);
  });

  it("tells the run a call waits once its request is durable, only while it waits, once; and that none waits when the last such wait ends", () => {
    const wrong: string[] = [];
    let shown = 0;
    let noneWaiting = 0;
    const shownWaiting = (context: ToolBatchContext | undefined) =>
      (context?.calls ?? []).some((c) => c.approval === "waiting" && c.approvalShown);
    for (const { before, after, event } of allSteps()) {
      const sent = sentBy(stepInto(after));
      const notices = sent
        .filter((s) => s.event.type === "APPROVAL_WAITING")
        .map((s) => (s.event as EventObject & { callId: string }).callId);
      const expected: string[] = [];
      if (event?.type === "APPROVAL_REQUESTED") {
        const { callId } = event as EventObject & { callId: string };
        const call = before?.calls.find((c) => c.planned.call.id === callId);
        if (call?.approval === "waiting" && !call.approvalShown && call.settlement === null) expected.push(callId);
      }
      if (canonicalJson(notices) !== canonicalJson(expected)) {
        wrong.push(`told ${notices} (expected ${expected}) on ${event?.type}`);
      }
      shown += notices.length;
      const toldNone = sent.filter((s) => s.event.type === "NO_APPROVAL_WAITING").length;
      const expectedNone = shownWaiting(before) && !shownWaiting(contextOf(after)) ? 1 : 0;
      if (toldNone !== expectedNone)
        wrong.push(`told none waits ${toldNone}× (expected ${expectedNone}) on ${event?.type}`);
      noneWaiting += toldNone;
    }
    expect(shown).toBeGreaterThan(0);
    expect(noneWaiting).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });

  it("tells the run each call's start as the I/O actor reports it, with the step, call id and tool name", () => {
    const wrong: string[] = [];
    let told = 0;
    for (const { before, after, event } of allSteps()) {
      const starts = sentBy(stepInto(after))
        .filter((s) => s.event.type === "TOOL_STARTED")
        .map((s) => s.event as Extract<RunReply, { type: "TOOL_STARTED" }>);
      const index = event?.type === "CALL_STARTED" ? (event as EventObject & { index: number }).index : -1;
      const call = before?.calls[index];
      const expected = call
        ? [{ type: "TOOL_STARTED", step: before!.step, callId: call.planned.call.id, toolName: call.planned.call.name }]
        : [];
      if (canonicalJson(starts) !== canonicalJson(expected))
        wrong.push(`told ${canonicalJson(starts)} on ${event?.type}`);
      told += starts.length;
    }
    expect(told).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });

  it("hands a decision only to its own call's approval actor (scope grants are the I/O side's)", () => {
    const wrong: string[] = [];
    let forwarded = 0;
    for (const { after, event } of allSteps()) {
      const decided = sentBy(stepInto(after)).filter((s) => s.event.type === "DECIDED");
      forwarded += decided.length;
      const own = event?.type === "APPROVAL_DECIDED" ? (event as EventObject & { callId: string }).callId : undefined;
      for (const { event: sent } of decided) {
        if ((sent as EventObject & { callId: string }).callId !== own)
          wrong.push(`decided ${canonicalJson(sent)} on ${event?.type}`);
      }
    }
    expect(forwarded).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });

  it("settles a denied or expired call without running it, with the decision as evidence", () => {
    const wrong: string[] = [];
    let unapproved = 0;
    for (const graph of graphs) {
      for (const edge of graphEdges(graph).filter((e) => e.event.type.startsWith("xstate.done.actor."))) {
        const index = Number(edge.event.type.slice("xstate.done.actor.approval-".length));
        const output = (edge.event as EventObject & { output: ApprovalOutcome }).output;
        const settlement = contextOf(edge.nextState).calls[index]!.settlement;
        if (output.decision === "approved") continue;
        unapproved += 1;
        const approval = settlement?.evidence.approval as { decision?: string } | undefined;
        if (
          settlement?.status !== UNAPPROVED[output.decision]?.status ||
          approval?.decision !== output.decision ||
          contextOf(edge.nextState).calls[index]!.dispatched
        ) {
          wrong.push(`${output.decision}: ${canonicalJson(settlement)}`);
        }
      }
    }
    expect(unapproved).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });
});
