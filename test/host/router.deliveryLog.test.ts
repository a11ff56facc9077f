import { SqlClient } from "@effect/sql";
import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import type { DeliveryAttempt } from "../../src/domain/delivery.js";
import * as DeliveryLog from "../../src/persistence/DeliveryLog.js";
import type { AgentRuntime } from "../../src/runtime/AgentRuntime.js";
import { useRuntimeHarness } from "../support/runtimeHarness.js";

/** The router's delivery log (`agent_channel_deliveries`, migration 0003) on a real SQLite file. */

const harness = useRuntimeHarness("agentloop-delivery-log-");

const attempt = (overrides: Partial<DeliveryAttempt> = {}): DeliveryAttempt => ({
  runId: "run-1",
  channelId: "hook",
  kind: "final",
  idempotencyKey: "run-1:final",
  status: "sent",
  attempt: 1,
  messageId: "m-1",
  error: null,
  ...overrides,
});

const record = (runtime: AgentRuntime, row: DeliveryAttempt) =>
  runtime.run(Effect.flatMap(DeliveryLog.make(), (log) => log.record(row)).pipe(Effect.either));
const rows = (runtime: AgentRuntime) =>
  runtime.run(Effect.flatMap(DeliveryLog.make(), (log) => log.listRunDeliveries("run-1")));

describe("delivery log", () => {
  it("stores a failed attempt's error as one redacted line", async () => {
    const runtime = await harness.makeRuntime();
    await record(
      runtime,
      attempt({
        status: "failed",
        messageId: null,
        error: "401 from hook: Authorization: Bearer abcdefghijklmnop1234\n    at send (webhook.js:1)",
      }),
    );
    const [row] = await rows(runtime);
    expect(row!.error).toBe("401 from hook: Authorization: Bearer [REDACTED]");
  });

  it("keeps a message sent at most once per channel: a second sent row for its key is refused", async () => {
    const runtime = await harness.makeRuntime();
    expect((await record(runtime, attempt()))._tag).toBe("Right");
    expect((await record(runtime, attempt({ attempt: 2, messageId: "m-2" })))._tag).toBe("Left");
    expect((await record(runtime, attempt({ channelId: "chat" })))._tag).toBe("Right");
    expect((await rows(runtime)).map((row) => [row.channelId, row.status])).toEqual([
      ["hook", "sent"],
      ["chat", "sent"],
    ]);
  });

  it("refuses to change or delete a recorded attempt", async () => {
    const runtime = await harness.makeRuntime();
    await record(runtime, attempt());
    const change = (statement: string) =>
      runtime.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(Effect.either));
    expect((await change("UPDATE agent_channel_deliveries SET status = 'failed'"))._tag).toBe("Left");
    expect((await change("DELETE FROM agent_channel_deliveries"))._tag).toBe("Left");
    expect(await rows(runtime)).toHaveLength(1);
  });

  it("refuses a sent row without a message id", async () => {
    const runtime = await harness.makeRuntime();
    expect((await record(runtime, attempt({ messageId: null })))._tag).toBe("Left");
  });
});
