import { describe, expect, it } from "@effect/vitest";
import Sqlite from "better-sqlite3";
import { Effect } from "effect";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import { judgeOwner, type LivenessProbe, type OwnerRecord } from "../../src/persistence/runOwners.js";
import { newRun, toolCall, userInput, useTempDir, withLedger } from "../support/tempDir.js";

const tmp = useTempDir();
const file = () => tmp.path("shared.db");
const T0 = new Date("2026-01-01T00:00:00.000Z");
const at = (ms: number) => new Date(T0.getTime() + ms);

const owner = (overrides: Partial<OwnerRecord> = {}): OwnerRecord => ({
  ownerId: "owner_a",
  pid: 4242,
  host: "host-a",
  startedAt: T0.toISOString(),
  heartbeatAt: T0.toISOString(),
  expiresAt: at(30_000).toISOString(),
  endedAt: null,
  ...overrides,
});
const probe = (overrides: Partial<LivenessProbe> = {}): LivenessProbe => ({
  ownerId: "owner_me",
  host: "host-a",
  now: at(1_000),
  processAlive: () => true,
  ...overrides,
});

describe("judgeOwner", () => {
  it("counts a run without a recorded owner as abandoned (runs opened before owners existed)", () => {
    expect(judgeOwner(null, probe())).toEqual({ gone: true, why: "no_owner" });
  });

  it("never judges this runtime's own runs gone", () => {
    expect(judgeOwner(owner({ ownerId: "owner_me", endedAt: T0.toISOString() }), probe())).toEqual({
      gone: false,
      why: "self",
    });
  });

  it("counts an owner that shut down cleanly as gone", () => {
    expect(judgeOwner(owner({ endedAt: T0.toISOString() }), probe())).toEqual({ gone: true, why: "ended" });
  });

  it("counts an owner on this host whose process is gone as gone at once, heartbeat still fresh", () => {
    expect(judgeOwner(owner(), probe({ processAlive: (pid) => pid !== 4242 }))).toEqual({
      gone: true,
      why: "process_gone",
    });
  });

  it("does not probe pids of another host: a live heartbeat there means alive", () => {
    const probed: number[] = [];
    const verdict = judgeOwner(
      owner({ host: "host-b" }),
      probe({
        processAlive: (pid) => {
          probed.push(pid);
          return false;
        },
      }),
    );
    expect([verdict, probed]).toEqual([{ gone: false, why: "alive" }, []]);
  });

  it("counts an owner whose heartbeat lapsed as gone, even when a process has its pid", () => {
    expect(judgeOwner(owner({ host: "host-b" }), probe({ now: at(30_000) }))).toEqual({
      gone: true,
      why: "heartbeat_expired",
    });
    expect(judgeOwner(owner(), probe({ now: at(31_000) }))).toEqual({ gone: true, why: "heartbeat_expired" });
  });
});

/** A store that registers itself as an owner, opens `runId` with a pending call, and stays open while `then` runs. */
const withDrivingOwner = <A, E, R>(runId: string, then: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const store = yield* AgentRunStore;
    yield* store.createRun(newRun(runId), [userInput(1), toolCall(2, "c1")]);
    return yield* then;
  }).pipe(withLedger({ filename: file(), owner: { heartbeatMs: 60_000, expiryMs: 120_000 } }));

const recoverWith = (liveness: { processAlive?: (pid: number) => boolean; host?: string; now?: () => Date } = {}) =>
  Effect.flatMap(AgentRunStore, (store) =>
    Effect.all({ recovered: store.recoverInterrupted(), live: store.findLiveRuns() }),
  ).pipe(withLedger({ filename: file(), liveness }));

const stateOf = (runId: string) => {
  const db = new Sqlite(file(), { readonly: true });
  try {
    return (
      db.prepare("SELECT terminal_state FROM agent_runs WHERE run_id = ?").get(runId) as { terminal_state: string }
    ).terminal_state;
  } finally {
    db.close();
  }
};

describe("recoverInterrupted on a ledger shared with another live runtime", () => {
  it.effect("leaves a run whose owner process is alive open and lists it as live", () =>
    Effect.gen(function* () {
      const { recovered, live } = yield* withDrivingOwner("theirs", recoverWith());
      expect(recovered).toEqual([]);
      expect(live).toEqual([
        {
          runId: "theirs",
          sessionId: "session-1",
          pid: process.pid,
          host: expect.any(String),
          heartbeatAt: expect.any(String),
        },
      ]);
      expect(stateOf("theirs")).toBe("running");
    }),
  );

  it.effect("lets the live owner go on writing and close its run after another process recovered", () =>
    Effect.gen(function* () {
      const closed = yield* withDrivingOwner(
        "theirs",
        Effect.gen(function* () {
          yield* recoverWith();
          const store = yield* AgentRunStore;
          yield* store.finishRun("theirs", {
            sequence: 3,
            terminal: {
              terminalState: "cancelled",
              reason: "cancelled_by_user",
              finalText: "",
              steps: 1,
              correctionTurns: 0,
            },
            receipts: [],
          });
          return (yield* store.getRun("theirs"))?.terminalState;
        }),
      );
      expect(closed).toBe("cancelled");
    }),
  );

  it.effect("closes the run of an owner on this host whose process is gone", () =>
    Effect.gen(function* () {
      const { recovered, live } = yield* withDrivingOwner(
        "orphan",
        recoverWith({ processAlive: (pid) => pid !== process.pid }),
      );
      expect(recovered).toEqual([{ runId: "orphan", sessionId: "session-1", cancelledCallIds: ["c1"] }]);
      expect(live).toEqual([]);
      expect(stateOf("orphan")).toBe("failed");
    }),
  );

  it.effect("closes the run of an owner on another host once its heartbeat lapsed, not before", () =>
    Effect.gen(function* () {
      const early = yield* withDrivingOwner("remote", recoverWith({ host: "elsewhere" }));
      expect(early.recovered).toEqual([]);
      const late = yield* recoverWith({ host: "elsewhere", now: () => new Date(Date.now() + 121_000) });
      expect(late.recovered.map((run) => run.runId)).toEqual(["remote"]);
    }),
  );

  it.effect("closes the runs an owner left open when it shut down (ended_at recorded)", () =>
    Effect.gen(function* () {
      yield* withDrivingOwner("left-open", Effect.void);
      const db = new Sqlite(file(), { readonly: true });
      const owners = db.prepare("SELECT pid, ended_at FROM agent_ledger_owners").all() as Array<{
        pid: number;
        ended_at: string | null;
      }>;
      db.close();
      expect(owners).toEqual([{ pid: process.pid, ended_at: expect.any(String) }]);
      const { recovered } = yield* recoverWith();
      expect(recovered.map((run) => run.runId)).toEqual(["left-open"]);
    }),
  );

  it.effect("records the owner of each run in the run's own opening transaction", () =>
    Effect.gen(function* () {
      yield* withDrivingOwner("owned", Effect.void);
      const db = new Sqlite(file(), { readonly: true });
      const row = db
        .prepare(
          `SELECT o.pid, o.host FROM agent_run_owners ro JOIN agent_ledger_owners o ON o.owner_id = ro.owner_id
           WHERE ro.run_id = 'owned'`,
        )
        .get();
      db.close();
      expect(row).toEqual({ pid: process.pid, host: expect.any(String) });
    }),
  );
});

describe("the owner heartbeat", () => {
  it.live("moves heartbeat_at and expires_at forward while the ledger is open", () =>
    Effect.gen(function* () {
      const read = () => {
        const db = new Sqlite(file(), { readonly: true });
        try {
          return db.prepare("SELECT heartbeat_at, expires_at FROM agent_ledger_owners").get() as {
            heartbeat_at: string;
            expires_at: string;
          };
        } finally {
          db.close();
        }
      };
      const [first, later] = yield* Effect.gen(function* () {
        yield* AgentRunStore;
        const first = read();
        yield* Effect.sleep("250 millis");
        return [first, read()] as const;
      }).pipe(withLedger({ filename: file(), owner: { heartbeatMs: 40, expiryMs: 1_000 } }));
      expect(later.heartbeat_at > first.heartbeat_at).toBe(true);
      expect(Date.parse(later.expires_at) - Date.parse(later.heartbeat_at)).toBe(1_000);
    }),
  );
});
