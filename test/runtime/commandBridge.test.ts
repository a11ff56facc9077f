import type { SqlClient } from "@effect/sql";
import { Effect, Exit, FiberMap, Layer, ManagedRuntime, Scope } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "xstate";
import type { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import { createRunActor } from "../../src/runtime/commandBridge.js";
import type { CommandHandlers } from "../../src/runtime/commandHandlers.js";
import { passthroughObserver } from "../../src/services/observability/tracing.js";
import { OBSERVE_LOOKUP, runInput } from "../paths/runModel.js";

/**
 * Every run's interruptible work lives in one fiber map per runtime, under the run's own keys:
 * stopping a run's actor interrupts what that run has in flight and leaves other runs' work alone.
 */

type Runtime = ManagedRuntime.ManagedRuntime<AgentRunStore | SqlClient.SqlClient, unknown>;

let managed: Runtime;
let scope: Scope.CloseableScope;
let fibers: FiberMap.FiberMap<string>;

beforeAll(async () => {
  managed = ManagedRuntime.make(Layer.empty) as unknown as Runtime;
  scope = await managed.runPromise(Scope.make());
  fibers = await managed.runPromise(FiberMap.make<string>().pipe(Scope.extend(scope)));
});

afterAll(async () => {
  await managed.runPromise(Scope.close(scope, Exit.void));
  await managed.dispose();
});

/** Opens at once, then samples forever: the run waits in `sampling` with one fiber in the map. */
function hangingHandlers(interrupted: string[], runId: string): CommandHandlers {
  const never = () => Effect.never;
  const table = {
    OPEN: () => Effect.succeed({ type: "OPENED" as const, lastSequence: 1 }),
    SAMPLE: () => Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => interrupted.push(runId)))),
    STOP_SAMPLE: never,
    RECORD_CALLS: never,
    RECORD_TURN: never,
    RECORD_RESULTS: never,
    VERIFY: never,
    FINISH: never,
    EXECUTE: never,
    ABORT: never,
    REQUEST_APPROVAL: never,
    APPROVAL_CLOSED: never,
  };
  return table as unknown as CommandHandlers;
}

const keysOf = (runId: string) => [...fibers].map(([key]) => key).filter((key) => key.startsWith(`${runId}\u0000`));

function startRun(runId: string, interrupted: string[]) {
  const actor = createRunActor(
    { runtime: managed, handlers: hangingHandlers(interrupted, runId), observer: passthroughObserver(), fibers },
    { input: { ...runInput(OBSERVE_LOOKUP), runId } },
  );
  actor.start();
  return actor;
}

describe("the run bridge's fibers", () => {
  it("stopping a run interrupts its sampling fiber and leaves another run's running", async () => {
    const interrupted: string[] = [];
    const first = startRun("bridge-a", interrupted);
    const second = startRun("bridge-b", interrupted);
    await waitFor(first, (snapshot) => keysOf("bridge-a").length > 0 || snapshot.status !== "active", {
      timeout: 2_000,
    });
    await waitFor(second, () => keysOf("bridge-b").length > 0, { timeout: 2_000 });
    expect(keysOf("bridge-a")).toEqual(["bridge-a\u0000sample"]);

    first.stop();
    await managed.runPromise(Effect.sleep("20 millis"));

    expect(interrupted).toEqual(["bridge-a"]);
    expect(keysOf("bridge-a")).toEqual([]);
    expect(keysOf("bridge-b")).toEqual(["bridge-b\u0000sample"]);
    second.stop();
    await managed.runPromise(Effect.sleep("20 millis"));
    expect(interrupted).toEqual(["bridge-a", "bridge-b"]);
    expect(keysOf("bridge-b")).toEqual([]);
  });
});
