import { SqlClient } from "@effect/sql";
import { describe, expect, it } from "@effect/vitest";
import { Effect } from "effect";
import { CompletionContract } from "../../src/domain/index.js";
import { AgentRunStore, type LedgerError } from "../../src/persistence/AgentRunStore.js";
import { runEvidenceMet } from "../../src/persistence/evidenceCheck.js";
import { toLedgerError } from "../../src/persistence/ledgerWriter.js";
import { BACKENDS, ledgerOn } from "../support/backends.js";
import { newRun, receipt, toolCall, userInput, useTempDir } from "../support/tempDir.js";

/**
 * The database itself refuses `completed` for a run whose stored contract its receipts do not
 * meet (migration 0009): a writer holding the run's lease epoch, writing raw SQL, cannot close a
 * contract-bound run `completed` without the receipts the runtime's verifier requires.
 */

const tmp = useTempDir("agentloop-evidence-");
const DELIVER = CompletionContract.parse({ evidenceMode: "deliver", requiredToolNames: ["send_message"] });
const AT = "2026-12-02T00:00:00.000Z";

/** Raw SQL, stamped with the run's current lease epoch: what a forger with database access can do. */
const forgeCompleted = (runId: string, sequence: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient;
    const [lease] = yield* sql<{ epoch: number }>`SELECT epoch FROM run_leases WHERE run_id = ${runId}`;
    const payload = JSON.stringify({
      terminalState: "completed",
      reason: "answered",
      finalText: "Sent.",
      steps: 1,
      correctionTurns: 0,
    });
    yield* sql`INSERT INTO agent_run_events (run_id, sequence, event_type, payload_json, created_at, lease_epoch)
      VALUES (${runId}, ${sequence}, 'terminal', ${payload}, ${AT}, ${lease?.epoch ?? null})`;
    yield* sql`UPDATE agent_runs SET terminal_state = 'completed', ended_at = ${AT} WHERE run_id = ${runId}`;
  }).pipe(Effect.mapError((error) => toLedgerError(error, "forge")));

const refusal = (effect: Effect.Effect<unknown, LedgerError, SqlClient.SqlClient>) =>
  Effect.flip(effect).pipe(Effect.map((error) => error.reason));

describe.each(BACKENDS)("the evidence check in the database on %s", (backend) => {
  const withLedger = ledgerOn(backend, () => tmp.path("ledger.db"), { owner: {} });

  it.effect("refuses raw SQL with the right lease epoch closing a deliver run completed without receipts", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r1", { contract: DELIVER }), [userInput(1)]);
      expect(yield* refusal(forgeCompleted("r1", 2))).toBe("completed_without_evidence");
      expect((yield* store.getRun("r1"))?.terminalState).toBe("running");
      expect(yield* store.listRunEvents("r1")).toHaveLength(1);
    }).pipe(withLedger),
  );

  it.effect("refuses it when the only receipt is of the right tool but carries no external id", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r1", { contract: DELIVER }), [userInput(1)]);
      yield* store.appendEvents("r1", [toolCall(2, "c1", "send_message")]);
      yield* store.recordReceipt(
        receipt("r1", "c1", { toolName: "send_message", toolKind: "deliver", evidence: { sent: true } }),
      );
      expect(yield* refusal(forgeCompleted("r1", 3))).toBe("completed_without_evidence");
      expect(yield* runEvidenceMet("r1")).toBe(false);
    }).pipe(withLedger),
  );

  it.effect("accepts completed once an ok deliver receipt carries a stable external id", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r1", { contract: DELIVER }), [userInput(1)]);
      yield* store.appendEvents("r1", [toolCall(2, "c1", "send_message")]);
      yield* store.recordReceipt(
        receipt("r1", "c1", { toolName: "send_message", toolKind: "deliver", evidence: { message_id: "m-1" } }),
      );
      expect(yield* runEvidenceMet("r1")).toBe(true);
      yield* forgeCompleted("r1", 3);
      expect((yield* store.getRun("r1"))?.terminalState).toBe("completed");
    }).pipe(withLedger),
  );

  it.effect("does not count a receipt that is not ok, whatever it carries", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r1", { contract: DELIVER }), [userInput(1)]);
      yield* store.appendEvents("r1", [toolCall(2, "c1", "send_message")]);
      yield* store.recordReceipt(
        receipt("r1", "c1", {
          toolName: "send_message",
          toolKind: "deliver",
          status: "error",
          reason: "tool_error",
          evidence: { message_id: "m-1" },
        }),
      );
      expect(yield* refusal(forgeCompleted("r1", 3))).toBe("completed_without_evidence");
    }).pipe(withLedger),
  );

  it.effect("needs a mutating receipt with evidence of the change for a mutate contract", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      const contract = CompletionContract.parse({ evidenceMode: "mutate" });
      yield* store.createRun(newRun("r1", { contract }), [userInput(1)]);
      yield* store.appendEvents("r1", [toolCall(2, "c1", "read_file"), toolCall(3, "c2", "write_file")]);
      yield* store.recordReceipt(receipt("r1", "c1", { toolKind: "observe", evidence: { sha256_after: "x" } }));
      expect(yield* runEvidenceMet("r1")).toBe(false);
      yield* store.recordReceipt(
        receipt("r1", "c2", { toolName: "write_file", toolKind: "mutate", evidence: { bytes_written: 3 } }),
      );
      expect(yield* runEvidenceMet("r1")).toBe(true);
    }).pipe(withLedger),
  );

  it.effect("needs every required receipt kind on some ok receipt", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      const contract = CompletionContract.parse({ evidenceMode: "none", requiredReceiptKinds: ["ticket_id"] });
      yield* store.createRun(newRun("r1", { contract }), [userInput(1)]);
      yield* store.appendEvents("r1", [toolCall(2, "c1", "open_ticket")]);
      expect(yield* runEvidenceMet("r1")).toBe(false);
      yield* store.recordReceipt(receipt("r1", "c1", { toolName: "open_ticket", evidence: { ticket_id: "T-9" } }));
      expect(yield* runEvidenceMet("r1")).toBe(true);
    }).pipe(withLedger),
  );

  it.effect("keeps the off and observe rollout modes as documented: completed without receipts is written", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r-observe", { contract: DELIVER, verificationMode: "observe" }), [userInput(1)]);
      yield* store.createRun(newRun("r-off", { contract: DELIVER, verificationMode: "off" }), [userInput(1)]);
      yield* forgeCompleted("r-observe", 2);
      yield* forgeCompleted("r-off", 2);
      expect((yield* store.getRun("r-observe"))?.terminalState).toBe("completed");
      expect((yield* store.getRun("r-off"))?.terminalState).toBe("completed");
    }).pipe(withLedger),
  );

  it.effect("refuses a change of a run's verification mode", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r1", { contract: DELIVER }), [userInput(1)]);
      const sql = yield* SqlClient.SqlClient;
      const change = sql`UPDATE agent_runs SET verification_mode = 'off' WHERE run_id = 'r1'`.pipe(
        Effect.mapError((error) => toLedgerError(error, "change mode")),
      );
      // Refused either as a change of identity or as an update that does not close the run.
      expect(["run_identity_immutable", "run_update_not_terminal"]).toContain(yield* refusal(change));
      const [row] = yield* sql<{ mode: string }>`SELECT verification_mode AS mode FROM agent_runs WHERE run_id = 'r1'`;
      expect(row?.mode).toBe("enforce");
    }).pipe(withLedger),
  );
});
