import { describe, expect, it } from "vitest";
import { CompletionContract, type ExecutionReceipt, evidenceGap } from "../../src/domain/index.js";
import { MUTATION_EVIDENCE_KEYS, STABLE_ID_KEYS } from "../../src/index.js";

const receipt = (toolName: string, evidence: ExecutionReceipt["evidence"]): ExecutionReceipt => ({
  receiptId: `r:${toolName}`,
  runId: "r",
  callId: toolName,
  toolName,
  status: "ok",
  startedAt: "2026-01-01T00:00:00.000Z",
  finishedAt: "2026-01-01T00:00:00.000Z",
  inputFingerprint: "0".repeat(64),
  evidence,
  verificationStatus: "verified",
});

const DELIVER = CompletionContract.parse({ evidenceMode: "deliver" });
const MUTATE = CompletionContract.parse({ evidenceMode: "mutate" });

describe("the evidence each contract needs, as the root entry documents it", () => {
  it("a deliver contract is met by any one of the exported stable id keys, and by no other key", () => {
    for (const key of STABLE_ID_KEYS) {
      expect(
        evidenceGap(DELIVER, [receipt("file_ticket", { [key]: "T-1" })], { file_ticket: "deliver" }).satisfied,
      ).toBe(true);
    }
    expect(evidenceGap(DELIVER, [receipt("file_ticket", { ticket_id: "T-1" })], { file_ticket: "deliver" })).toEqual({
      satisfied: false,
      missing: ["a successful delivery result carrying a stable external id (message_id, commit_id …)"],
    });
  });

  it("a mutate contract is met by any one of the exported mutation evidence keys on a mutating tool", () => {
    for (const key of MUTATION_EVIDENCE_KEYS) {
      expect(evidenceGap(MUTATE, [receipt("write", { [key]: 1 })], { write: "mutate" }).satisfied).toBe(true);
    }
    expect(evidenceGap(MUTATE, [receipt("write", { exit_code: 0 })], { write: "observe" }).satisfied).toBe(false);
  });
});
