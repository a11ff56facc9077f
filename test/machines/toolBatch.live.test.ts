import { describe, expect, it } from "vitest";
import { type ActorRefFrom, createActor, fromCallback, SimulatedClock, setup, toPromise } from "xstate";
import type {
  BatchReply,
  CallDisposition,
  ExecutorResult,
  PlannedCall,
  RunCommand,
  ToolSettlement,
} from "../../src/domain/index.js";
import { RUN_IO_ID, type ToolBatchInput, toolBatchMachine } from "../../src/machines/toolBatch/machine.js";
import { inputFingerprint } from "../../src/services/tools/fingerprint.js";

/**
 * The tool batch as a live actor, against a fake I/O actor the test controls call by call: it
 * receives the batch's EXECUTE and ABORT commands and answers the batch (`replyTo`) with
 * CALL_STARTED / CALL_SETTLED, reading a simulated clock for `at` — the batch's one timer runs on
 * the same simulated clock, so timeouts are exact and instant.
 */

const STARTED_AT = "2024-01-01T00:00:00.000Z";

interface Execution {
  readonly index: number;
  readonly callId: string;
  readonly replyTo: { send(event: BatchReply): void };
}

/**
 * A fake I/O actor. Like the run's I/O bridge, it reports CALL_STARTED as soon as it gets an EXECUTE
 * (unless `autoStart` is off, to hold a call between dispatch and start); the test settles calls.
 */
function fakeIO(clock: SimulatedClock, { autoStart = true } = {}) {
  const executed: string[] = [];
  const aborted: string[] = [];
  const running = new Map<string, Execution>();
  const all = new Map<string, Execution>();
  let maxInFlight = 0;
  const logic = fromCallback<RunCommand>(({ receive }) => {
    receive((command) => {
      if (command.type === "EXECUTE") {
        const execution = { index: command.index, callId: command.planned.call.id, replyTo: command.replyTo };
        executed.push(execution.callId);
        running.set(execution.callId, execution);
        all.set(execution.callId, execution);
        maxInFlight = Math.max(maxInFlight, running.size);
        if (autoStart) start(execution.callId);
      } else if (command.type === "ABORT") {
        aborted.push(command.callId);
        running.delete(command.callId);
      }
    });
  });
  const start = (callId: string) => {
    const execution = all.get(callId)!;
    execution.replyTo.send({ type: "CALL_STARTED", index: execution.index, at: clock.now(), startedAt: STARTED_AT });
  };
  /** Reports the call's result; a call already aborted may still report (a late result). */
  const settle = (callId: string, result: Partial<ExecutorResult> = {}) => {
    const execution = all.get(callId);
    if (!execution) throw new Error(`${callId} was never executed`);
    running.delete(callId);
    execution.replyTo.send({
      type: "CALL_SETTLED",
      index: execution.index,
      at: clock.now(),
      result: {
        status: "ok",
        output: callId,
        evidence: {},
        startedAt: STARTED_AT,
        finishedAt: "2024-01-01T00:00:01.000Z",
        ...result,
      } as ExecutorResult,
    });
  };
  return {
    logic,
    executed,
    aborted,
    start,
    settle,
    running: () => [...running.keys()],
    maxInFlight: () => maxInFlight,
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
  io: ReturnType<typeof fakeIO>,
  clock: SimulatedClock,
  input: Partial<ToolBatchInput> & Pick<ToolBatchInput, "calls">,
) {
  // The batch finds the run's I/O actor as its sibling, as inside a run; the run invokes the I/O
  // actor when it opens and the batch only later, when a step has calls.
  const host = setup({ actors: { io: io.logic, batch: toolBatchMachine } }).createMachine({
    invoke: { id: RUN_IO_ID, src: "io" },
    initial: "opening",
    states: {
      opening: { on: { STEP: "executing" } },
      executing: {
        invoke: { id: "batch", src: "batch", input: { runId: "run-1", step: 1, concurrency: 4, ...input } },
      },
    },
  });
  const root = createActor(host, { clock });
  root.start();
  root.send({ type: "STEP" });
  const actor = root.getSnapshot().children.batch as ActorRefFrom<typeof toolBatchMachine>;
  const output = toPromise(actor);
  /** How many delayed events (timers) the batch has scheduled. */
  const timers = () => Object.keys(actor.system.getSnapshot()._scheduledEvents).length;
  return { actor, output, timers };
}

const summary = (settlements: ReadonlyArray<ToolSettlement>) =>
  settlements.map(({ callId, status, reason }) => ({ callId, status, ...(reason ? { reason } : {}) }));

describe("toolBatch machine (live actor, fake I/O actor)", () => {
  it("lists settlements in call order when calls finish in reverse order", async () => {
    const clock = new SimulatedClock();
    const io = fakeIO(clock);
    const ids = ["c1", "c2", "c3", "c4", "c5"];
    const { output } = startBatch(io, clock, { calls: ids.map((id) => planned(id)), concurrency: 5 });
    expect(io.running()).toEqual(ids);
    for (const id of [...ids].reverse()) io.settle(id);
    const settlements = await output;
    expect(settlements.map((settlement) => settlement.callId)).toEqual(ids);
    expect(settlements.map((settlement) => settlement.output)).toEqual(ids);
    expect(settlements.every((settlement) => settlement.status === "ok")).toBe(true);
  });

  it("never has more calls in flight than its concurrency, and executes them in call order", async () => {
    const clock = new SimulatedClock();
    const io = fakeIO(clock);
    const ids = ["c1", "c2", "c3", "c4", "c5", "c6", "c7"];
    const { output } = startBatch(io, clock, { calls: ids.map((id) => planned(id)), concurrency: 2 });
    let settled = 0;
    while (settled < ids.length) {
      expect(io.running().length).toBe(Math.min(2, ids.length - settled));
      // Settle the most recently started call first, so slots free up out of order.
      io.settle(io.running().at(-1)!);
      settled += 1;
    }
    const settlements = await output;
    expect(io.maxInFlight()).toBe(2);
    expect(io.executed).toEqual(ids);
    expect(settlements.map((settlement) => settlement.callId)).toEqual(ids);
  });

  it("settles refused calls at once as errors naming the refusal, without executing them", async () => {
    const clock = new SimulatedClock();
    const io = fakeIO(clock);
    const calls = [
      planned("missing", "executor_missing"),
      planned("forbidden", "not_allowed"),
      planned("ghost", "unknown_tool"),
      planned("garbled", "invalid_arguments"),
      planned("runs"),
    ];
    const { actor, output } = startBatch(io, clock, { calls, concurrency: 1 });
    expect(
      actor
        .getSnapshot()
        .context.calls.slice(0, 4)
        .map((call) => call.settlement?.reason),
    ).toEqual(["tool_executor_missing", "tool_not_allowed", "unknown_tool", "invalid_arguments"]);
    io.settle("runs");
    const settlements = await output;
    expect(io.executed).toEqual(["runs"]);
    expect(summary(settlements)).toEqual([
      { callId: "missing", status: "error", reason: "tool_executor_missing" },
      { callId: "forbidden", status: "error", reason: "tool_not_allowed" },
      { callId: "ghost", status: "error", reason: "unknown_tool" },
      { callId: "garbled", status: "error", reason: "invalid_arguments" },
      { callId: "runs", status: "ok" },
    ]);
    expect(settlements[3]!.output).toEqual({ error: "refused: invalid_arguments" });
  });

  it("is done at once, executing nothing, when every call is refused", async () => {
    const clock = new SimulatedClock();
    const io = fakeIO(clock);
    const { actor, output } = startBatch(io, clock, { calls: [planned("ghost", "unknown_tool")] });
    expect(actor.getSnapshot().status).toBe("done");
    expect(summary(await output)).toEqual([{ callId: "ghost", status: "error", reason: "unknown_tool" }]);
    expect(io.executed).toEqual([]);
  });

  it("keeps one timer for several deadlines and times each call out at its own", async () => {
    const clock = new SimulatedClock();
    const io = fakeIO(clock);
    const calls = [planned("a", "run", 100), planned("b", "run", 300), planned("c", "run", 200)];
    const { output, timers } = startBatch(io, clock, { calls, concurrency: 3 });
    expect(io.running()).toEqual(["a", "b", "c"]);
    expect(timers()).toBe(1);
    clock.increment(99);
    expect(io.aborted).toEqual([]);
    clock.increment(1); // t = 100: a's deadline
    expect(io.aborted).toEqual(["a"]);
    expect(timers()).toBe(1);
    clock.increment(100); // t = 200: c's deadline
    expect(io.aborted).toEqual(["a", "c"]);
    expect(timers()).toBe(1);
    clock.increment(50);
    io.settle("b"); // t = 250, before b's deadline at 300
    const settlements = await output;
    expect(summary(settlements)).toEqual([
      { callId: "a", status: "timed_out", reason: "timed_out" },
      { callId: "b", status: "ok" },
      { callId: "c", status: "timed_out", reason: "timed_out" },
    ]);
    expect(settlements[0]).toMatchObject({ evidence: { timeout_ms: 100 }, startedAt: STARTED_AT });
    expect(timers()).toBe(0);
  });

  it("measures a call's deadline from the I/O actor's clock reading when it started", async () => {
    const clock = new SimulatedClock();
    const io = fakeIO(clock, { autoStart: false });
    const { output } = startBatch(io, clock, { calls: [planned("a", "run", 100)] });
    clock.increment(50);
    io.start("a"); // started at t = 50: deadline 150
    clock.increment(99);
    expect(io.aborted).toEqual([]);
    clock.increment(1);
    expect(io.aborted).toEqual(["a"]);
    expect(summary(await output)).toEqual([{ callId: "a", status: "timed_out", reason: "timed_out" }]);
  });

  it("ignores a result that arrives after its call timed out", async () => {
    const clock = new SimulatedClock();
    const io = fakeIO(clock);
    const { output } = startBatch(io, clock, { calls: [planned("slow", "run", 5), planned("fast")] });
    clock.increment(5);
    expect(io.aborted).toEqual(["slow"]);
    io.settle("slow", { output: "too late" });
    io.settle("fast");
    const settlements = await output;
    expect(summary(settlements)).toEqual([
      { callId: "slow", status: "timed_out", reason: "timed_out" },
      { callId: "fast", status: "ok" },
    ]);
    expect(settlements[0]!.output).toEqual({ error: "no result within 5 ms" });
  });

  it("settles an executor's error with its reason", async () => {
    const clock = new SimulatedClock();
    const io = fakeIO(clock);
    const { output } = startBatch(io, clock, { calls: [planned("c1")] });
    io.settle("c1", { status: "error", reason: "tool_threw", output: { error: "executor blew up" } });
    expect((await output)[0]).toMatchObject({
      status: "error",
      reason: "tool_threw",
      output: { error: "executor blew up" },
    });
  });

  it("settles every unsettled call as cancelled on CANCEL, sending ABORT for each call it executed", async () => {
    const clock = new SimulatedClock();
    const io = fakeIO(clock, { autoStart: false });
    const calls = [planned("c1"), planned("c2"), planned("c3"), planned("c4")];
    const { actor, output, timers } = startBatch(io, clock, { calls, concurrency: 3 });
    io.start("c1");
    io.start("c2");
    io.settle("c2"); // c1 runs, c2 is done, c3 was executed but has not reported its start, c4 waits
    expect(io.running()).toEqual(["c1", "c3", "c4"]);
    actor.send({ type: "CANCEL" });
    const settlements = await output;
    expect(actor.getSnapshot().status).toBe("done");
    expect(settlements.map(({ callId, status, reason, evidence }) => ({ callId, status, reason, evidence }))).toEqual([
      { callId: "c1", status: "cancelled", reason: "cancelled_by_user", evidence: { started: true } },
      { callId: "c2", status: "ok", reason: undefined, evidence: {} },
      { callId: "c3", status: "cancelled", reason: "cancelled_by_user", evidence: { started: false } },
      { callId: "c4", status: "cancelled", reason: "cancelled_by_user", evidence: { started: false } },
    ]);
    expect(io.aborted).toEqual(["c1", "c3", "c4"]);
    expect(io.executed).toEqual(["c1", "c2", "c3", "c4"]);
    expect(timers()).toBe(0);
  });

  it("sends no ABORT for a call that never got a slot", async () => {
    const clock = new SimulatedClock();
    const io = fakeIO(clock);
    const { actor, output } = startBatch(io, clock, { calls: [planned("c1"), planned("c2")], concurrency: 1 });
    actor.send({ type: "CANCEL" });
    expect(summary(await output).map((settlement) => settlement.status)).toEqual(["cancelled", "cancelled"]);
    expect(io.executed).toEqual(["c1"]);
    expect(io.aborted).toEqual(["c1"]);
  });
});
