import { describe, expect, it } from "@effect/vitest";
import { Effect } from "effect";
import * as Ledger from "../../../src/persistence/ledger.js";
import {
  computeHealth,
  type HealthCheckName,
  type HealthReport,
  parseWindow,
} from "../../../src/services/observability/health.js";
import { useTempDir } from "../../support/tempDir.js";
import { type CraftedRun, craftRuns } from "./support.js";

const tmp = useTempDir("agentloop-health-");

const NOW = new Date("2025-06-01T12:00:00.000Z");
const HOUR = 3_600_000;
/** `minutes` before NOW. */
const ago = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000);

/** `count` completed runs ending inside the current hour (or the previous one). */
const cleanRuns = (prefix: string, count: number, window: "current" | "previous" = "current"): CraftedRun[] =>
  Array.from({ length: count }, (_, index) => ({
    runId: `${prefix}-${index}`,
    endedAt: ago((window === "current" ? 5 : 65) + index),
    calls: [{ callId: "c1", receipt: {} }],
  }));

const health = (runs: ReadonlyArray<CraftedRun>) =>
  Effect.gen(function* () {
    const file = tmp.path("ledger.db");
    yield* craftRuns(file, runs);
    return yield* computeHealth({ windowMs: HOUR, now: NOW }).pipe(Effect.provide(Ledger.layer({ filename: file })));
  });

const statusOf = (report: HealthReport, name: HealthCheckName) =>
  report.checks.find((check) => check.name === name)?.status;

describe("health checks", () => {
  it.effect("passes every check on a clean ledger", () =>
    Effect.gen(function* () {
      const report = yield* health([...cleanRuns("now", 6), ...cleanRuns("before", 6, "previous")]);
      expect(report.checks.map((check) => [check.name, check.status])).toEqual([
        ["provider_tool_protocol_invalid_spike", "ok"],
        ["unverified_ratio_jump", "ok"],
        ["ledger_write_failures", "ok"],
        ["orphan_replay_items", "ok"],
        ["deliveries_without_stable_receipt", "ok"],
      ]);
      expect(report.firing).toBe(false);
      expect(report.runs).toBe(6);
    }),
  );

  it.effect("fires provider_tool_protocol_invalid_spike when anomalies pass the count and rate thresholds", () =>
    Effect.gen(function* () {
      const report = yield* health([
        ...cleanRuns("ok", 4),
        ...Array.from({ length: 3 }, (_, index) => ({ runId: `bad-${index}`, endedAt: ago(20 + index), anomalies: 1 })),
      ]);
      expect(statusOf(report, "provider_tool_protocol_invalid_spike")).toBe("firing");
      expect(report.checks[0]!.value).toBe(3);
    }),
  );

  it.effect("keeps provider_tool_protocol_invalid_spike ok below the count threshold", () =>
    Effect.gen(function* () {
      const report = yield* health([...cleanRuns("ok", 4), { runId: "bad", endedAt: ago(20), anomalies: 2 }]);
      expect(statusOf(report, "provider_tool_protocol_invalid_spike")).toBe("ok");
    }),
  );

  it.effect("fires unverified_ratio_jump when the unverified share rises against the previous window", () =>
    Effect.gen(function* () {
      const report = yield* health([
        ...cleanRuns("before", 5, "previous"),
        ...cleanRuns("now", 2),
        ...Array.from({ length: 3 }, (_, index) => ({
          runId: `unverified-${index}`,
          endedAt: ago(30 + index),
          state: "unverified" as const,
          reason: "receipt_missing" as const,
        })),
      ]);
      expect(statusOf(report, "unverified_ratio_jump")).toBe("firing");
    }),
  );

  it.effect("does not compare unverified ratios without a baseline window", () =>
    Effect.gen(function* () {
      const report = yield* health(
        Array.from({ length: 5 }, (_, index) => ({
          runId: `unverified-${index}`,
          endedAt: ago(30 + index),
          state: "unverified" as const,
          reason: "receipt_missing" as const,
        })),
      );
      expect(statusOf(report, "unverified_ratio_jump")).toBe("ok");
    }),
  );

  it.effect("fires ledger_write_failures for a run that ended failed/ledger_write_failed", () =>
    Effect.gen(function* () {
      const report = yield* health([
        ...cleanRuns("ok", 2),
        { runId: "broken", endedAt: ago(10), state: "failed", reason: "ledger_write_failed" },
      ]);
      const check = report.checks.find((candidate) => candidate.name === "ledger_write_failures")!;
      expect([check.status, check.runIds]).toEqual(["firing", ["broken"]]);
    }),
  );

  it.effect("ignores a failure that ended before the window", () =>
    Effect.gen(function* () {
      const report = yield* health([
        { runId: "old", endedAt: ago(180), state: "failed", reason: "ledger_write_failed" },
      ]);
      expect(statusOf(report, "ledger_write_failures")).toBe("ok");
    }),
  );

  it.effect("fires orphan_replay_items for a tool call without a receipt in a closed run", () =>
    Effect.gen(function* () {
      const report = yield* health([
        { runId: "dangling", endedAt: ago(10), calls: [{ callId: "c1", receipt: false }] },
      ]);
      const check = report.checks.find((candidate) => candidate.name === "orphan_replay_items")!;
      expect([check.status, check.runIds]).toEqual(["firing", ["dangling"]]);
      expect(check.summary).toContain("1 tool_call without receipt");
    }),
  );

  it.effect("fires orphan_replay_items for a tool call without a result in a closed run", () =>
    Effect.gen(function* () {
      const report = yield* health([
        { runId: "unanswered", endedAt: ago(10), calls: [{ callId: "c1", result: false }] },
      ]);
      expect(statusOf(report, "orphan_replay_items")).toBe("firing");
    }),
  );

  it.effect("fires deliveries_without_stable_receipt for an ok send_message receipt without a message id", () =>
    Effect.gen(function* () {
      const report = yield* health([
        {
          runId: "sent",
          endedAt: ago(10),
          calls: [{ callId: "c1", toolName: "send_message", receipt: { status: 200 } }],
        },
      ]);
      expect(statusOf(report, "deliveries_without_stable_receipt")).toBe("firing");
    }),
  );

  it.effect("fires deliveries_without_stable_receipt for a completed deliver run without any stable id", () =>
    Effect.gen(function* () {
      const report = yield* health([
        {
          runId: "deliver",
          endedAt: ago(10),
          contract: { evidenceMode: "deliver", requiredToolNames: ["post"] },
          calls: [{ callId: "c1", toolName: "post", receipt: {} }],
        },
      ]);
      expect(statusOf(report, "deliveries_without_stable_receipt")).toBe("firing");
    }),
  );

  it.effect("accepts a delivery receipt that carries a message id", () =>
    Effect.gen(function* () {
      const report = yield* health([
        {
          runId: "delivered",
          endedAt: ago(10),
          contract: { evidenceMode: "deliver", requiredToolNames: ["send_message"] },
          calls: [{ callId: "c1", toolName: "send_message", receipt: { message_id: "m-1" } }],
        },
      ]);
      expect(statusOf(report, "deliveries_without_stable_receipt")).toBe("ok");
    }),
  );
});

describe("parseWindow", () => {
  it("reads seconds, minutes, hours and days", () => {
    expect([parseWindow("90s"), parseWindow("30m"), parseWindow("1h"), parseWindow("2d")]).toEqual([
      90_000,
      1_800_000,
      HOUR,
      48 * HOUR,
    ]);
  });

  it("rejects a window it cannot read with a message naming the option", () => {
    expect(() => parseWindow("soon")).toThrow(/--window must be a positive duration/);
  });

  it("refuses a window longer than a timestamp can reach back, naming the limit", () => {
    expect(() => parseWindow("999999999999999d")).toThrow('--window must be at most 36500d (got "999999999999999d")');
    expect(() => parseWindow(`${"9".repeat(400)}w`)).toThrow(/--window must be at most 36500d/);
    expect(parseWindow("36500d")).toBe(36_500 * 24 * HOUR);
  });
});
