import { describe, expect, it } from "vitest";
import { assign, createActor, fromPromise, sendTo, setup, toPromise } from "xstate";
import type { CallDisposition, ExecutorResult, PlannedCall, ToolSettlement } from "../../src/domain/index.js";
import { type ToolBatchInput, toolBatchMachine } from "../../src/machines/toolBatch.machine.js";
import { type ExecuteToolInput, toolCallMachine } from "../../src/machines/toolCall.machine.js";
import { inputFingerprint } from "../../src/services/tools/fingerprint.js";

/**
 * The tool batch as a real actor tree: a parent (the batch reports CALL_STARTED to its parent,
 * as it does to the run machine) invokes the batch, whose toolCall children invoke a fake
 * executor the test controls call by call.
 */

interface Deferred {
  readonly resolve: (result: ExecutorResult) => void;
  readonly signal: AbortSignal;
}

/** A fake executor: each call waits until the test settles it (or its signal aborts). */
function fakeExecutor() {
  const pending = new Map<string, Deferred>();
  const seen: string[] = [];
  const aborted: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const waiters: Array<() => void> = [];
  const notify = () => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  const actor = fromPromise<ExecutorResult, ExecuteToolInput>(({ input, signal }) => {
    const callId = input.planned.call.id;
    seen.push(callId);
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    return new Promise<ExecutorResult>((resolve, reject) => {
      const done = () => {
        inFlight -= 1;
        pending.delete(callId);
        notify();
      };
      signal.addEventListener("abort", () => {
        aborted.push(callId);
        done();
        reject(new Error("aborted"));
      });
      pending.set(callId, {
        signal,
        resolve: (result) => {
          done();
          resolve(result);
        },
      });
      notify();
    });
  });
  /** Resolves when `predicate` holds (checked after every start and settle). */
  const until = (predicate: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => (predicate() ? resolve() : waiters.push(check));
      check();
    });
  const settle = (callId: string, output: string = callId) => {
    const deferred = pending.get(callId);
    if (!deferred) throw new Error(`${callId} is not running`);
    deferred.resolve({
      status: "ok",
      output,
      evidence: {},
      startedAt: "2024-01-01T00:00:00.000Z",
      finishedAt: "2024-01-01T00:00:01.000Z",
    });
  };
  return {
    actor,
    seen,
    aborted,
    until,
    settle,
    running: () => [...pending.keys()],
    maxInFlight: () => maxInFlight,
    inFlight: () => inFlight,
  };
}

const planned = (id: string, disposition: CallDisposition = "run", timeoutMs = 60_000): PlannedCall => ({
  call: { id, name: "probe", arguments: { id } },
  disposition,
  inputFingerprint: inputFingerprint("probe", { id }),
  timeoutMs,
  ...(disposition === "run" ? {} : { problem: `refused: ${disposition}` }),
});

function startBatch(
  executor: ReturnType<typeof fakeExecutor>["actor"],
  input: Partial<ToolBatchInput> & Pick<ToolBatchInput, "calls">,
) {
  const batch = toolBatchMachine.provide({
    actors: { toolCall: toolCallMachine.provide({ actors: { executeTool: executor } }) },
  });
  const parent = setup({
    types: {
      context: {} as { started: string[]; settlements: ReadonlyArray<ToolSettlement> | null },
      events: {} as { type: "CALL_STARTED"; callId: string } | { type: "CANCEL" },
      output: {} as ReadonlyArray<ToolSettlement>,
    },
    actors: { batch },
  }).createMachine({
    context: { started: [], settlements: null },
    initial: "running",
    states: {
      running: {
        invoke: {
          id: "batch",
          src: "batch",
          input: { runId: "run-1", step: 1, concurrency: 4, cancelled: false, ...input },
          onDone: { target: "done", actions: assign({ settlements: ({ event }) => event.output }) },
        },
        on: {
          CALL_STARTED: { actions: assign({ started: ({ context, event }) => [...context.started, event.callId] }) },
          CANCEL: { actions: sendTo("batch", { type: "CANCEL" }) },
        },
      },
      done: { type: "final" },
    },
    output: ({ context }) => context.settlements!,
  });
  const actor = createActor(parent);
  actor.start();
  return { actor, output: toPromise(actor) };
}

describe("toolBatch machine (live actors)", () => {
  it("lists settlements in call order when calls finish in reverse order", async () => {
    const executor = fakeExecutor();
    const ids = ["c1", "c2", "c3", "c4", "c5"];
    const { output } = startBatch(executor.actor, { calls: ids.map((id) => planned(id)), concurrency: 5 });
    await executor.until(() => executor.running().length === 5);
    const finishedOrder: string[] = [];
    for (const id of [...ids].reverse()) {
      executor.settle(id);
      finishedOrder.push(id);
      await executor.until(() => !executor.running().includes(id));
    }
    const settlements = await output;
    expect(finishedOrder).toEqual(["c5", "c4", "c3", "c2", "c1"]);
    expect(settlements.map((settlement) => settlement.callId)).toEqual(ids);
    expect(settlements.map((settlement) => settlement.output)).toEqual(ids);
    expect(settlements.every((settlement) => settlement.status === "ok")).toBe(true);
  });

  it("never has more calls in flight than its concurrency", async () => {
    const executor = fakeExecutor();
    const ids = ["c1", "c2", "c3", "c4", "c5", "c6", "c7"];
    const { output } = startBatch(executor.actor, { calls: ids.map((id) => planned(id)), concurrency: 2 });
    let settled = 0;
    while (settled < ids.length) {
      const expected = Math.min(2, ids.length - settled);
      await executor.until(() => executor.running().length === expected);
      // Settle the most recently started call first, so slots free up out of order.
      const running = executor.running();
      executor.settle(running[running.length - 1]!);
      settled += 1;
    }
    const settlements = await output;
    expect(executor.maxInFlight()).toBe(2);
    expect(executor.seen).toHaveLength(ids.length);
    expect(settlements.map((settlement) => settlement.callId)).toEqual(ids);
  });

  it("settles refused calls as errors without ever reaching the executor", async () => {
    const executor = fakeExecutor();
    const calls = [
      planned("missing", "executor_missing"),
      planned("forbidden", "not_allowed"),
      planned("ghost", "unknown_tool"),
      planned("garbled", "invalid_arguments"),
      planned("runs"),
    ];
    const { output } = startBatch(executor.actor, { calls, concurrency: 1 });
    await executor.until(() => executor.running().includes("runs"));
    executor.settle("runs");
    const settlements = await output;
    expect(executor.seen).toEqual(["runs"]);
    expect(settlements.map(({ callId, status, reason }) => ({ callId, status, reason }))).toEqual([
      { callId: "missing", status: "error", reason: "tool_executor_missing" },
      { callId: "forbidden", status: "error", reason: "tool_not_allowed" },
      { callId: "ghost", status: "error", reason: "unknown_tool" },
      { callId: "garbled", status: "error", reason: "invalid_arguments" },
      { callId: "runs", status: "ok", reason: undefined },
    ]);
    expect(settlements[3]!.output).toEqual({ error: "refused: invalid_arguments" });
  });

  it("reports CALL_STARTED to its parent only for calls that run", async () => {
    const executor = fakeExecutor();
    const calls = [planned("ghost", "unknown_tool"), planned("a"), planned("b")];
    const { actor, output } = startBatch(executor.actor, { calls });
    await executor.until(() => executor.running().length === 2);
    executor.settle("a");
    executor.settle("b");
    await output;
    expect(actor.getSnapshot().context.started).toEqual(["a", "b"]);
  });

  it("settles running and pending calls as cancelled on CANCEL and is done", async () => {
    const executor = fakeExecutor();
    const calls = [planned("c1"), planned("c2"), planned("c3")];
    const { actor, output } = startBatch(executor.actor, { calls, concurrency: 2 });
    await executor.until(() => executor.running().length === 2);
    actor.send({ type: "CANCEL" });
    const settlements = await output;
    expect(actor.getSnapshot().status).toBe("done");
    expect(settlements.map(({ callId, status, reason, evidence }) => ({ callId, status, reason, evidence }))).toEqual([
      { callId: "c1", status: "cancelled", reason: "cancelled_by_user", evidence: { started: true } },
      { callId: "c2", status: "cancelled", reason: "cancelled_by_user", evidence: { started: true } },
      { callId: "c3", status: "cancelled", reason: "cancelled_by_user", evidence: { started: false } },
    ]);
    expect(executor.seen).toEqual(["c1", "c2"]);
    expect([...executor.aborted].sort()).toEqual(["c1", "c2"]);
  });

  it("settles every call as cancelled without running any when it starts cancelled", async () => {
    const executor = fakeExecutor();
    const { output } = startBatch(executor.actor, { calls: [planned("c1"), planned("c2")], cancelled: true });
    const settlements = await output;
    expect(settlements.map((settlement) => settlement.status)).toEqual(["cancelled", "cancelled"]);
    expect(executor.seen).toEqual([]);
  });

  it("settles a call that outlives its timeoutMs as timed_out and aborts its executor", async () => {
    const executor = fakeExecutor();
    const { output } = startBatch(executor.actor, { calls: [planned("slow", "run", 5), planned("fast")] });
    await executor.until(() => executor.running().includes("fast"));
    executor.settle("fast");
    const settlements = await output;
    expect(settlements.map(({ callId, status, reason }) => ({ callId, status, reason }))).toEqual([
      { callId: "slow", status: "timed_out", reason: "timed_out" },
      { callId: "fast", status: "ok", reason: undefined },
    ]);
    expect(settlements[0]!.evidence).toEqual({ timeout_ms: 5 });
    expect(executor.aborted).toEqual(["slow"]);
  });

  it("settles a call whose executor rejects as error/tool_threw", async () => {
    const throwing = fromPromise<ExecutorResult, ExecuteToolInput>(async () => {
      throw new Error("executor blew up");
    });
    const { output } = startBatch(throwing, { calls: [planned("c1")] });
    const [settlement] = await output;
    expect(settlement).toMatchObject({ status: "error", reason: "tool_threw", output: { error: "executor blew up" } });
  });
});
