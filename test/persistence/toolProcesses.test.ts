import { SqlClient } from "@effect/sql";
import { it } from "@effect/vitest";
import { Effect } from "effect";
import { describe, expect } from "vitest";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import type { ToolProcessRecord } from "../../src/persistence/toolProcesses.js";
import { BACKENDS, ledgerOn, noticePostgresSkipped } from "../support/backends.js";
import { closure, newRun, toolCall, userInput, useTempDir } from "../support/tempDir.js";

/**
 * Migration 0010: the process groups tools started. A group is a stray — something a dead process
 * left running — when its row is open, it was recorded on this host, and its run has ended or its
 * run's owner is known gone.
 */

const tmp = useTempDir("agentloop-toolprocs-");
const HOST = "host-a";

const group = (runId: string, marker: string, overrides: Partial<ToolProcessRecord> = {}): ToolProcessRecord => ({
  runId,
  callId: "c1",
  host: HOST,
  pgid: 4242,
  startTime: "123456",
  bootId: "boot-1",
  marker,
  cgroup: null,
  recordedAt: "2024-05-01T00:00:00.000Z",
  ...overrides,
});

const seedRun = (runId: string) =>
  Effect.flatMap(AgentRunStore, (store) => store.createRun(newRun(runId), [userInput(1), toolCall(2, "c1")]));

const strayMarkers = Effect.flatMap(AgentRunStore, (store) => store.findStrayToolProcesses(HOST)).pipe(
  Effect.map((rows) => rows.map((row) => row.marker)),
);

noticePostgresSkipped();

describe.each(BACKENDS)("agent_tool_processes on %s", (backend) => {
  const ledger = (owner = false) => ledgerOn(backend, () => tmp.path("ledger.db"), owner ? { owner: {} } : {});

  it.effect("returns a recorded group as it was written once its run has ended", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* seedRun("r1");
      yield* store.recordToolProcess(group("r1", "m1", { cgroup: "/sys/fs/cgroup/x" }));
      yield* store.finishRun("r1", closure(3, "cancelled", "cancelled_by_user"));
      expect(yield* store.findStrayToolProcesses(HOST)).toEqual([group("r1", "m1", { cgroup: "/sys/fs/cgroup/x" })]);
    }).pipe(ledger()),
  );

  it.effect("does not count a group its call marked ended", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* seedRun("r1");
      yield* store.recordToolProcess(group("r1", "m1"));
      yield* store.endToolProcess("m1", { by: "call" });
      yield* store.finishRun("r1", closure(3));
      expect(yield* strayMarkers).toEqual([]);
    }).pipe(ledger()),
  );

  it.effect("does not count a group of a run this process still drives", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* seedRun("r1");
      yield* store.recordToolProcess(group("r1", "m1"));
      expect(yield* strayMarkers).toEqual([]);
    }).pipe(ledger(true)),
  );

  it.effect("counts a group of an open run whose owner is known gone", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* seedRun("r1"); // no owner recorded: nobody drives it
      yield* store.recordToolProcess(group("r1", "m1"));
      expect(yield* strayMarkers).toEqual(["m1"]);
    }).pipe(ledger()),
  );

  it.effect("leaves the groups another host recorded to that host", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* seedRun("r1");
      yield* store.recordToolProcess(group("r1", "m1", { host: "host-b" }));
      yield* store.finishRun("r1", closure(3));
      expect(yield* strayMarkers).toEqual([]);
      expect((yield* store.findStrayToolProcesses("host-b")).map((row) => row.marker)).toEqual(["m1"]);
    }).pipe(ledger()),
  );

  it.effect("keeps the first end of a group: a later one changes nothing", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* seedRun("r1");
      yield* store.recordToolProcess(group("r1", "m1"));
      yield* store.finishRun("r1", closure(3));
      yield* store.endToolProcess("m1", { by: "recovery", how: "ended" });
      yield* store.endToolProcess("m1", { by: "call" });
      const sql = yield* SqlClient.SqlClient;
      const rows = yield* sql<{ ended_by: string; ended_how: string }>`
        SELECT ended_by, ended_how FROM agent_tool_processes WHERE marker = 'm1'`;
      expect(rows).toEqual([{ ended_by: "recovery", ended_how: "ended" }]);
      expect(yield* strayMarkers).toEqual([]);
    }).pipe(ledger()),
  );

  it.effect("refuses a group for a run the ledger does not hold", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      const error = yield* Effect.flip(store.recordToolProcess(group("nope", "m1")));
      expect(error._tag).toBe("LedgerError");
    }).pipe(ledger()),
  );
});
