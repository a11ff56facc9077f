import { describe, expect, it } from "vitest";
import { CompletionContract, type ExecutionReceipt, ProviderCapabilities } from "../../src/domain/index.js";
import { CORRECTION_MESSAGE, verifyAnswer } from "../../src/services/verification.js";

const capabilities = ProviderCapabilities.parse({});
const kinds = { lookup: "observe", write_file: "mutate", send_message: "deliver" } as const;

function receipt(
  toolName: string,
  status: ExecutionReceipt["status"],
  evidence: ExecutionReceipt["evidence"] = {},
): ExecutionReceipt {
  return {
    receiptId: `r:${toolName}`,
    runId: "r",
    callId: `c-${toolName}`,
    toolName,
    status,
    startedAt: "2026-01-01T00:00:00.000Z",
    finishedAt: "2026-01-01T00:00:00.000Z",
    inputFingerprint: "0".repeat(64),
    evidence,
    verificationStatus: "verified",
  };
}

function verify(
  mode: CompletionContract["evidenceMode"],
  answer: string,
  receipts: ExecutionReceipt[] = [],
  extra = {},
) {
  return verifyAnswer({
    runId: "r",
    contract: CompletionContract.parse({ evidenceMode: mode, ...extra }),
    receipts,
    answer,
    toolKinds: kinds,
    correctionTurns: 0,
    capabilities,
  });
}

describe("verifier", () => {
  it("completes a plain answer under none in one step", () => {
    expect(verify("none", "Photosynthesis turns light into chemical energy.")).toEqual({
      verdict: "completed",
      reason: "answered",
      missing: [],
    });
  });

  it("keeps a pure Q&A that mentions reading something long ago completed", () => {
    expect(verify("none", "I read that paper last year; its main result is a faster sort.").verdict).toBe("completed");
  });

  it("asks for one correction when an answer claims an action without a receipt, even under none", () => {
    const verdict = verify("none", "I have sent the report to #ops.");
    expect(verdict).toMatchObject({ verdict: "correct", reason: "claim_without_receipt" });
    expect(verdict.correction).toContain(CORRECTION_MESSAGE);
    expect(verdict.correction).toContain("I have sent the report to #ops.");
  });

  it("names the missing evidence in the correction message", () => {
    expect(verify("deliver", "Done.").correction).toMatch(/stable external id/);
  });

  it("ends unverified instead of a second correction", () => {
    const verdict = verifyAnswer({
      runId: "r",
      contract: CompletionContract.parse({ evidenceMode: "observe" }),
      receipts: [],
      answer: "Checked.",
      toolKinds: kinds,
      correctionTurns: 1,
      capabilities,
    });
    expect(verdict).toMatchObject({ verdict: "unverified", reason: "receipt_missing" });
  });

  it("accepts observe evidence from any successful receipt", () => {
    expect(verify("observe", "Item 1 is fine.", [receipt("lookup", "ok")]).verdict).toBe("completed");
  });

  it("needs a mutating receipt with evidence of the change for mutate", () => {
    expect(verify("mutate", "Updated.", [receipt("write_file", "ok")]).verdict).toBe("correct");
    expect(verify("mutate", "Updated.", [receipt("write_file", "ok", { sha256_after: "ab" })]).verdict).toBe(
      "completed",
    );
    expect(verify("mutate", "Updated.", [receipt("lookup", "ok", { sha256_after: "ab" })]).verdict).toBe("correct");
  });

  it("treats ok without a stable id as not delivered", () => {
    expect(verify("deliver", "Sent.", [receipt("send_message", "ok", { sent: true })]).verdict).toBe("correct");
    expect(verify("deliver", "Sent.", [receipt("send_message", "ok", { message_id: "m-1" })]).verdict).toBe(
      "completed",
    );
  });

  it.each(["error", "timed_out", "cancelled"] as const)("never lets a %s receipt satisfy a contract", (status) => {
    expect(verify("deliver", "Sent.", [receipt("send_message", status, { message_id: "m-1" })]).verdict).not.toBe(
      "completed",
    );
  });

  it("requires every required tool name and receipt kind", () => {
    const extra = { requiredToolNames: ["lookup", "send_message"], requiredReceiptKinds: ["message_id"] };
    expect(verify("deliver", "ok", [receipt("send_message", "ok", { message_id: "m" })], extra).missing).toEqual([
      "a successful lookup result",
    ]);
    expect(
      verify("deliver", "ok", [receipt("lookup", "ok"), receipt("send_message", "ok", { message_id: "m" })], extra)
        .verdict,
    ).toBe("completed");
  });

  it("ends an evidence contract unverified/tool_calling_unsupported on a provider without tool calling", () => {
    const verdict = verifyAnswer({
      runId: "r",
      contract: CompletionContract.parse({ evidenceMode: "observe" }),
      receipts: [],
      answer: "I have checked it.",
      toolKinds: kinds,
      correctionTurns: 0,
      capabilities: ProviderCapabilities.parse({ toolCalling: false }),
    });
    expect(verdict).toMatchObject({ verdict: "unverified", reason: "tool_calling_unsupported" });
  });
});
