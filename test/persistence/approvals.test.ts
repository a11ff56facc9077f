import { SqlClient } from "@effect/sql";
import { it } from "@effect/vitest";
import Sqlite from "better-sqlite3";
import { Effect } from "effect";
import { describe, expect } from "vitest";
import {
  EDITED_ARGUMENTS_MAX_BYTES,
  EDITED_ARGUMENTS_MAX_DEPTH,
  type HostApprovalDecision,
} from "../../src/domain/index.js";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import { listApprovals, recordApprovalDecision, recordApprovalRequest } from "../../src/persistence/approvals.js";
import * as Ledger from "../../src/persistence/ledger.js";
import { MIGRATIONS } from "../../src/persistence/migrations/index.js";
import { BACKENDS, ledgerOn, noticePostgresSkipped } from "../support/backends.js";
import { dumpTable, newRun, receipt, toolCall, userInput, useTempDir } from "../support/tempDir.js";

const tmp = useTempDir("agentloop-approvals-");
const UP_TO_0007 = Object.fromEntries(Object.entries(MIGRATIONS).filter(([key]) => key < "0008"));
const UP_TO_0008 = Object.fromEntries(Object.entries(MIGRATIONS).filter(([key]) => key < "0009"));
const AT = "2024-05-01T00:00:00.000Z";

const approve = (decidedBy = "host"): Extract<HostApprovalDecision, { decision: "approved" }> => ({
  decision: "approved",
  scope: "once",
  decidedBy,
  decidedAt: AT,
});
const request = (callId: string) => ({
  runId: "r1",
  step: 1,
  callId,
  toolName: "read_file",
  arguments: { path: "README.md" },
  reason: "policy",
  timeoutMs: 1_000,
});

/** A run with one recorded call `c1` and a receipt for `c0` (recorded before it). */
const seedRun = Effect.gen(function* () {
  const store = yield* AgentRunStore;
  yield* store.createRun(newRun("r1"), [userInput(1)]);
  yield* store.appendEvents("r1", [toolCall(2, "c0"), toolCall(3, "c1")], [receipt("r1", "c0")]);
});

/** A run with calls c0 (with a receipt) and c1, written as a version-7 ledger holds them. */
function seedVersion7(file: string): void {
  const db = new Sqlite(file);
  try {
    db.prepare(
      `INSERT INTO agent_runs (run_id, session_id, terminal_state, completion_contract_json, trace_id, started_at)
       VALUES ('r1', 's', 'running', '{"evidenceMode":"none"}', 't', ?)`,
    ).run(AT);
    const event = db.prepare(
      `INSERT INTO agent_run_events (run_id, sequence, event_type, payload_json, created_at) VALUES ('r1', ?, ?, ?, ?)`,
    );
    event.run(1, "user_input", '{"text":"hi"}', AT);
    event.run(2, "tool_call", '{"callId":"c0","toolName":"read_file"}', AT);
    event.run(3, "tool_call", '{"callId":"c1","toolName":"read_file"}', AT);
    for (const [callId, status] of [["c0", "cancelled"]] as const) {
      db.prepare(
        `INSERT INTO agent_execution_receipts (receipt_id, run_id, call_id, tool_name, status, verification_status,
          input_fingerprint, evidence_json, started_at, finished_at) VALUES (?, 'r1', ?, 'read_file', ?, 'unverified', ?,
          '{"note":"x"}', ?, ?)`,
      ).run(`r1:${callId}`, callId, status, "a".repeat(64), AT, AT);
    }
  } finally {
    db.close();
  }
}

describe("migration 0008_tool_approvals on a version-7 ledger with receipts", () => {
  it.effect("keeps every receipt row as it was (rowids too) and widens the status check to denied and expired", () =>
    Effect.gen(function* () {
      const file = tmp.path("v7.db");
      yield* Ledger.migrate(file, { migrations: UP_TO_0007 });
      seedVersion7(file);
      const before = dumpTable(file, "agent_execution_receipts");
      const report = yield* Ledger.migrate(file, { migrations: UP_TO_0008 });
      expect(report.applied).toEqual(["0008_tool_approvals"]);
      expect(dumpTable(file, "agent_execution_receipts")).toEqual(before);
      const db = new Sqlite(file);
      try {
        const insert = (callId: string, status: string) =>
          db
            .prepare(
              `INSERT INTO agent_execution_receipts (receipt_id, run_id, call_id, tool_name, status,
                verification_status, input_fingerprint, evidence_json, started_at) VALUES (?, 'r1', ?, 'read_file', ?,
                'unverified', ?, '{}', ?)`,
            )
            .run(`r1:${callId}`, callId, status, "a".repeat(64), AT);
        expect(() => insert("c1", "bogus")).toThrow(/CHECK constraint failed/);
        insert("c1", "denied");
        // The receipts' own triggers came back with the table.
        expect(() => insert("c9", "denied")).toThrow(/ledger:receipt_without_call/);
        expect(() => db.prepare("DELETE FROM agent_execution_receipts").run()).toThrow(/ledger:append_only/);
        expect(() => db.prepare("UPDATE agent_execution_receipts SET status = 'ok'").run()).toThrow(
          /ledger:append_only/,
        );
      } finally {
        db.close();
      }
    }),
  );
});

noticePostgresSkipped();

describe.each(BACKENDS)("agent_approvals on %s", (backend) => {
  const ledger = () => ledgerOn(backend, () => tmp.path("ledger.db"));

  it.effect("keeps one request per call and returns it with its decision", () =>
    Effect.gen(function* () {
      yield* seedRun;
      yield* recordApprovalRequest(request("c1"), AT);
      yield* recordApprovalRequest(request("c1"), AT);
      yield* recordApprovalDecision("r1", "c1", approve("cli:alice"));
      const records = yield* listApprovals("r1");
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({ callId: "c1", timeoutMs: 1_000, decision: { decidedBy: "cli:alice" } });
    }).pipe(ledger()),
  );

  it.effect("refuses a decision without a request, a second decision, and a request without its tool_call", () =>
    Effect.gen(function* () {
      yield* seedRun;
      const withoutRequest = yield* Effect.flip(recordApprovalDecision("r1", "c1", approve()));
      expect(withoutRequest.reason).toBe("decision_without_request");
      const withoutCall = yield* Effect.flip(recordApprovalRequest(request("c7"), AT));
      expect(withoutCall.reason).toBe("approval_without_call");
      yield* recordApprovalRequest(request("c1"), AT);
      yield* recordApprovalDecision("r1", "c1", approve());
      const second = yield* Effect.flip(
        recordApprovalDecision("r1", "c1", { decision: "denied", message: "", decidedBy: "x", decidedAt: AT }),
      );
      expect(second.reason).toBe("already_decided");
    }).pipe(ledger()),
  );

  it.effect("refuses a decision for a call that already has its receipt", () =>
    Effect.gen(function* () {
      yield* seedRun;
      yield* recordApprovalRequest({ ...request("c0") }, AT);
      const late = yield* Effect.flip(recordApprovalDecision("r1", "c0", approve()));
      expect(late.reason).toBe("call_already_settled");
    }).pipe(ledger()),
  );

  it.effect("refuses updates and deletes of approvals", () =>
    Effect.gen(function* () {
      yield* seedRun;
      yield* recordApprovalRequest(request("c1"), AT);
      const sql = yield* SqlClient.SqlClient;
      const update = yield* Effect.flip(sql`UPDATE agent_approvals SET kind = 'approved'`);
      const remove = yield* Effect.flip(sql`DELETE FROM agent_approvals`);
      expect(String(update.cause ?? update.message)).toMatch(/ledger:append_only/);
      expect(String(remove.cause ?? remove.message)).toMatch(/ledger:append_only/);
      expect(yield* listApprovals("r1")).toHaveLength(1);
    }).pipe(ledger()),
  );

  it.effect("stores edited arguments over 16 KiB whole and reads them back as the decision", () =>
    Effect.gen(function* () {
      yield* seedRun;
      yield* recordApprovalRequest(request("c1"), AT);
      const edited = { path: "big.txt", content: "x".repeat(100 * 1024) };
      yield* recordApprovalDecision("r1", "c1", { ...approve("cli:alice"), arguments: edited });
      const [record] = yield* listApprovals("r1");
      expect(record?.decision).toEqual({ ...approve("cli:alice"), arguments: edited });
    }).pipe(ledger()),
  );

  it.effect(
    "refuses edited arguments over the size or depth limit, and who decided with a control character, writing nothing",
    () =>
      Effect.gen(function* () {
        yield* seedRun;
        yield* recordApprovalRequest(request("c1"), AT);
        let deep: unknown = 1;
        for (let level = 0; level < 5_000; level++) deep = [deep];
        const refusals = [
          { ...approve(), arguments: { content: "x".repeat(EDITED_ARGUMENTS_MAX_BYTES) } },
          { ...approve(), arguments: deep },
          approve("evil\u001b]0;pwned\u0007"),
          approve("a\u009bb"),
        ];
        const messages: string[] = [];
        for (const decision of refusals) {
          const refused = yield* Effect.flip(recordApprovalDecision("r1", "c1", decision as HostApprovalDecision));
          expect(refused.reason).toBe("invalid_payload");
          messages.push(refused.message);
        }
        expect(messages[0]).toContain(`over the limit of ${EDITED_ARGUMENTS_MAX_BYTES} bytes`);
        expect(messages[1]).toContain(`deeper than ${EDITED_ARGUMENTS_MAX_DEPTH} levels`);
        expect(messages[2]).toContain("control character U+001B");
        expect(messages[3]).toContain("control character U+009B");
        const [record] = yield* listApprovals("r1");
        expect(record?.decision).toBeNull();
      }).pipe(ledger()),
  );
});
