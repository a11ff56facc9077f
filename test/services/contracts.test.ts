import { describe, expect, it } from "vitest";
import { parseSkillManifest, resolveContract, SkillManifestError } from "../../src/services/contracts.js";

const skill = parseSkillManifest(
  [
    "---",
    "name: weekly-report",
    "description: Send the weekly report",
    "evidence: deliver",
    "requiredTools: [send_message]",
    "requiredReceiptKinds:",
    "  - message_id",
    "---",
    "# Body",
    "Steps…",
  ].join("\n"),
);

describe("contract resolver", () => {
  it("prefers the caller's explicit contract over every other signal", () => {
    const contract = resolveContract({
      explicit: { evidenceMode: "observe" },
      command: "/send",
      skill,
      jobType: "scheduled_delivery",
    });
    expect(contract).toMatchObject({ evidenceMode: "observe", source: "caller" });
  });

  it("maps an explicit command through the configurable table", () => {
    expect(resolveContract({ command: "/edit", skill })).toMatchObject({ evidenceMode: "mutate", source: "command" });
    expect(resolveContract({ command: "/deploy" }, { commands: { "/deploy": "deliver" }, jobTypes: {} })).toMatchObject(
      {
        evidenceMode: "deliver",
        source: "command",
      },
    );
  });

  it("takes evidence, required tools and receipt kinds from a skill manifest", () => {
    expect(resolveContract({ skill, jobType: "health_check" })).toEqual({
      evidenceMode: "deliver",
      requiredToolNames: ["send_message"],
      requiredReceiptKinds: ["message_id"],
      allowUnverifiedAnswer: true,
      source: "skill",
    });
  });

  it("falls back to the job type, then a delivery request, then none", () => {
    expect(resolveContract({ jobType: "health_check", deliveryRequest: true })).toMatchObject({
      evidenceMode: "observe",
      source: "job_type",
    });
    expect(resolveContract({ deliveryRequest: { channel: "ops" } })).toMatchObject({
      evidenceMode: "deliver",
      source: "delivery_request",
    });
    expect(resolveContract({})).toMatchObject({ evidenceMode: "none", source: "default" });
  });

  it("ignores an unknown command rather than guessing from its words", () => {
    expect(resolveContract({ command: "/please-send-now" })).toMatchObject({ evidenceMode: "none", source: "default" });
  });

  it("has no input for the user's message text at all", () => {
    // The signature takes deterministic signals only; a message that says "send" changes nothing.
    expect(resolveContract({} as Parameters<typeof resolveContract>[0])).toMatchObject({ evidenceMode: "none" });
  });
});

describe("skill manifest", () => {
  it("reads the front matter and leaves the body out", () => {
    expect(skill).toMatchObject({ name: "weekly-report", evidence: "deliver", requiredTools: ["send_message"] });
  });

  it("uses the folder name when the front matter has no name", () => {
    expect(parseSkillManifest("---\nevidence: observe\n---\nbody", "lookup").name).toBe("lookup");
  });

  it("refuses an unknown evidence mode with a message naming the field", () => {
    expect(() => parseSkillManifest("---\nname: x\nevidence: sometimes\n---\n")).toThrow(SkillManifestError);
    expect(() => parseSkillManifest("---\nname: x\nevidence: sometimes\n---\n")).toThrow(/evidence/);
    expect(() => parseSkillManifest("---\nname: x\nevidence: sometimes\n---\n")).toThrow(
      expect.objectContaining({ _tag: "SkillManifestError", reason: "invalid_manifest" }),
    );
  });
});
