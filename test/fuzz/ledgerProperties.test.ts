/**
 * Smoke test of the ledger property suite (fuzz/ledgerProperties.ts): a short run must find no
 * violation and report plausible figures; the checkers it relies on must flag broken ledgers (so
 * that a quiet run means something); and the bug the suite found stays pinned down here.
 */
import { describe, expect, it } from "@effect/vitest";
import Sqlite from "better-sqlite3";
import { Effect } from "effect";
import {
  diffBreaks,
  invariantBreaks,
  noneAdded,
  runLedgerProperties,
  type Snapshot,
  snapshot,
} from "../../fuzz/ledgerProperties.js";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import { closure, newRun, toolCall, toolResult, userInput, useTempDir, withLedger } from "../support/tempDir.js";

const tmp = useTempDir("agentloop-ledger-properties-");

/** A migrated ledger file with a well-formed run `ok` (closed) and `open`, through the store. */
const wellFormed = (file: string) =>
  Effect.gen(function* () {
    const store = yield* AgentRunStore;
    yield* store.createRun(newRun("ok"), [userInput(1)]);
    yield* store.appendEvents("ok", [toolCall(2, "c1"), toolResult(3, "c1")]);
    yield* store.finishRun("ok", closure(4));
    yield* store.createRun(newRun("open"), [userInput(1)]);
  }).pipe(withLedger({ filename: file, owner: false }));

/** A raw connection to the file whose ledger triggers and unique indexes are gone. */
function unguarded(file: string): Sqlite.Database {
  const db = new Sqlite(file);
  const names = db
    .prepare(
      "SELECT type, name FROM sqlite_master WHERE (type = 'trigger' AND tbl_name LIKE 'agent_%') OR name = 'idx_agent_run_events_terminal'",
    )
    .all() as Array<{ type: string; name: string }>;
  for (const { type, name } of names) db.exec(`DROP ${type === "trigger" ? "TRIGGER" : "INDEX"} ${name}`);
  return db;
}

function read(file: string): Snapshot {
  const reader = new Sqlite(file, { readonly: true });
  try {
    return snapshot(reader);
  } finally {
    reader.close();
  }
}

const insertEvent = (db: Sqlite.Database, runId: string, sequence: number, type: string, payload: object) =>
  db
    .prepare(
      "INSERT INTO agent_run_events (run_id, sequence, event_type, payload_json, created_at) VALUES (?, ?, ?, ?, 'now')",
    )
    .run(runId, sequence, type, JSON.stringify(payload));

describe("the ledger property suite", () => {
  it("finds no violation in generated sequences, with and without injected faults", async () => {
    const report = await runLedgerProperties({ numRuns: 60, dir: tmp.dir() });
    expect(report.violations).toEqual([]);
    const figures = report.figures as Record<string, number>;
    expect(figures.numRuns).toBe(60);
    // Two properties of 60 sequences each, every sequence opening with createRun.
    expect(figures.sequences).toBe(120);
    expect(figures.operations).toBeGreaterThan(3 * figures.sequences!);
    expect(figures.accepted).toBeGreaterThan(figures.operations! / 10);
    expect(figures.refused).toBeGreaterThan(figures.operations! / 10);
    expect(figures.accepted! + figures.refused!).toBeLessThanOrEqual(figures.operations!);
    for (const reason of [
      "unknown_run",
      "duplicate_run",
      "sequence_gap",
      "orphan_tool_result",
      "receipt_without_call",
    ]) {
      expect(figures[`refused.${reason}`], reason).toBeGreaterThan(0);
    }
    expect(figures.injectedFaults).toBeGreaterThan(0);
    expect(figures.injectedCrashes).toBeGreaterThan(0);
    expect(figures.restarts).toBeGreaterThanOrEqual(figures.injectedCrashes!);
    expect(figures.recoveredRuns).toBeGreaterThan(0);
    expect(figures.propertiesChecked).toBeGreaterThan(2 * figures.operations!);
    expect(figures.violations).toBe(0);
  }, 60_000);
});

describe("the suite's checkers", () => {
  it.effect("find nothing wrong with a well-formed ledger", () =>
    Effect.gen(function* () {
      const file = tmp.path("ok.db");
      yield* wellFormed(file);
      expect(invariantBreaks(read(file))).toEqual([]);
      expect(diffBreaks(read(file), read(file), noneAdded())).toEqual([]);
    }),
  );

  it.effect("flag every kind of broken ledger row", () =>
    Effect.gen(function* () {
      const file = tmp.path("broken.db");
      yield* wellFormed(file);
      const db = unguarded(file);
      try {
        insertEvent(db, "open", 3, "user_input", { text: "a gap" });
        insertEvent(db, "open", 4, "tool_result", { callId: "c9" });
        insertEvent(db, "open", 5, "terminal", { terminalState: "completed" });
        insertEvent(db, "open", 6, "user_input", { text: "after the terminal event, sk-A1b2C3d4E5f6G7h8J9k0L1m2" });
        insertEvent(db, "ok", 5, "terminal", { terminalState: "failed" });
        db.prepare(
          `INSERT INTO agent_execution_receipts (receipt_id, run_id, call_id, tool_name, status, verification_status,
             input_fingerprint, evidence_json, started_at) VALUES ('x', 'open', 'c7', 't', 'ok', 'verified', 'f', '{}', 'now')`,
        ).run();
      } finally {
        db.close();
      }
      const breaks = invariantBreaks(read(file)).join("\n");
      expect(breaks).toContain("open: sequence 3 at position 2");
      expect(breaks).toContain("tool_result c9 before its tool_call");
      expect(breaks).toContain("open: events after the terminal event");
      expect(breaks).toContain("open: run row running but terminal event says completed");
      expect(breaks).toContain("ok: 2 terminal events");
      expect(breaks).toContain("receipt x without its tool_call");
      expect(breaks).toContain("a stored secret (A1b2C3d4…)");
    }),
  );

  it.effect("flag a changed, a deleted and an unexpected row between two reads", () =>
    Effect.gen(function* () {
      const file = tmp.path("diff.db");
      yield* wellFormed(file);
      const before = read(file);
      const db = unguarded(file);
      try {
        db.prepare("UPDATE agent_run_events SET payload_json = '{}' WHERE run_id = 'ok' AND sequence = 1").run();
        db.prepare("DELETE FROM agent_run_events WHERE run_id = 'ok' AND sequence = 3").run();
        insertEvent(db, "open", 2, "user_input", { text: "unexpected" });
      } finally {
        db.close();
      }
      const after = read(file);
      const breaks = diffBreaks(before, after, noneAdded()).join("\n");
      expect(breaks).toMatch(/agent_run_events row \d+ changed/);
      expect(breaks).toMatch(/agent_run_events row \d+ deleted/);
      expect(breaks).toContain('new agent_run_events rows ["open#2:user_input"], expected []');
      // The same new row is what an accepted append of it adds.
      const appended = { ...noneAdded(), events: [{ runId: "open", sequence: 2, type: "user_input" }] };
      expect(diffBreaks(before, after, appended).join("\n")).not.toContain("new agent_run_events rows");
    }),
  );

  it.effect("flag a run row closed without its terminal event", () =>
    Effect.gen(function* () {
      const file = tmp.path("closed.db");
      yield* wellFormed(file);
      const db = unguarded(file);
      try {
        db.prepare("UPDATE agent_runs SET terminal_state = 'cancelled', ended_at = 'now' WHERE run_id = 'open'").run();
      } finally {
        db.close();
      }
      expect(invariantBreaks(read(file))).toContain("open: run row cancelled but terminal event says running");
    }),
  );
});

describe("found by the suite", () => {
  // createRun writes its opening events without looking at their type: an opening terminal event
  // lands while the run row stays `running` (appendEvents refuses one with invalid_payload; the
  // close trigger only guards UPDATEs of the run row). The run can then never be closed: every
  // later event is refused as event_after_terminal, and so is recovery's closing batch.
  it.effect("createRun refuses an opening terminal event and writes nothing", () =>
    Effect.gen(function* () {
      const file = tmp.path("ledger.db");
      const store = yield* AgentRunStore;
      const terminal = { sequence: 1, type: "terminal" as const, payload: closure(1).terminal };
      const result = yield* Effect.either(store.createRun(newRun("r1"), [terminal]));
      expect(result._tag === "Left" ? result.left.reason : "accepted").toBe("invalid_payload");
      expect(invariantBreaks(read(file))).toEqual([]);
      expect(yield* store.getRun("r1")).toBeUndefined();
    }).pipe(withLedger({ filename: tmp.path("ledger.db"), owner: false })),
  );
});
