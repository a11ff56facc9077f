import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ToolSettlement } from "../../../src/domain/index.js";
import { defineTool } from "../../../src/index.js";
import { type ReceiptContext, receiptOf, toolResultRecords } from "../../../src/services/tools/resultRecords.js";

const send = defineTool({
  name: "send",
  kind: "deliver",
  description: "send",
  input: z.object({}),
  execute: async () => ({ status: "ok", output: "sent" }),
});

const context: ReceiptContext = {
  finishedAt: "2026-12-01T10:00:02.000Z",
  startedAtOf: (callId) => (callId === "c1" ? "2026-12-01T10:00:00.000Z" : undefined),
  toolOf: (name) => (name === "send" ? send : undefined),
};

const settlement = (overrides: Partial<ToolSettlement> = {}): ToolSettlement => ({
  callId: "c1",
  toolName: "send",
  inputFingerprint: "fp",
  status: "ok",
  output: { ok: true },
  evidence: {},
  startedAt: null,
  finishedAt: null,
  ...overrides,
});

describe("receiptOf", () => {
  it("verifies a deliver call only when its evidence holds a stable id", () => {
    expect(receiptOf("r1", settlement(), context).verificationStatus).toBe("partial");
    expect(receiptOf("r1", settlement({ evidence: { message_id: "m-1" } }), context).verificationStatus).toBe(
      "verified",
    );
    expect(receiptOf("r1", settlement({ status: "error" }), context).verificationStatus).toBe("unverified");
  });

  it("takes the start the run saw and the batch's finish when the settlement has neither", () => {
    const receipt = receiptOf("r1", settlement(), context);
    expect([receipt.startedAt, receipt.finishedAt]).toEqual(["2026-12-01T10:00:00.000Z", "2026-12-01T10:00:02.000Z"]);
    expect(receipt.evidence).toMatchObject({
      output_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      output_bytes: 11,
    });
  });
});

describe("toolResultRecords", () => {
  it("numbers the result rows from the first sequence and tells the model a failed call's status", () => {
    const records = toolResultRecords(
      "r1",
      3,
      [settlement(), settlement({ callId: "c2", status: "timed_out", reason: "timed_out", output: "slow" })],
      7,
      context,
    );
    expect(records.events.map((event) => event.sequence)).toEqual([7, 8]);
    expect(records.events[1]!.payload).toMatchObject({ step: 3, callId: "c2", status: "timed_out" });
    expect(records.messages.map((message) => message.content)).toEqual(['{"ok":true}', "timed_out (timed_out): slow"]);
    expect(records.events[0]!.payload).toMatchObject({ outputHash: records.receipts[0]!.evidence.output_sha256 });
  });
});
