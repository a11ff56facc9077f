import { describe, expect, it } from "vitest";
import { CompletionContract, ProviderCapabilities } from "../../src/domain/index.js";
import { selectToolChoice } from "../../src/machines/toolChoice.js";

const all = ProviderCapabilities.parse({});
const offered = new Set(["lookup", "send_message"]);
const contract = (input: Parameters<typeof CompletionContract.parse>[0]) => CompletionContract.parse(input);

describe("tool selection policy", () => {
  it("never forces a tool for a none contract", () => {
    expect(
      selectToolChoice(contract({ evidenceMode: "none", requiredToolNames: ["lookup"] }), all, offered, "first"),
    ).toEqual({
      mode: "auto",
    });
  });

  it("forces the one required tool by name on the first step and the correction turn", () => {
    const observe = contract({ evidenceMode: "observe", requiredToolNames: ["lookup"] });
    expect(selectToolChoice(observe, all, offered, "first")).toEqual({ mode: "specific", toolName: "lookup" });
    expect(selectToolChoice(observe, all, offered, "correction")).toEqual({ mode: "specific", toolName: "lookup" });
    expect(selectToolChoice(observe, all, offered, "continue")).toEqual({ mode: "auto" });
  });

  it("uses required for several required tools", () => {
    const deliver = contract({ evidenceMode: "deliver", requiredToolNames: ["lookup", "send_message"] });
    expect(selectToolChoice(deliver, all, offered, "first")).toEqual({ mode: "required" });
  });

  it("falls back to required, then auto, when the provider lacks the mode", () => {
    const observe = contract({ evidenceMode: "observe", requiredToolNames: ["lookup"] });
    const requiredOnly = ProviderCapabilities.parse({ toolChoice: ["auto", "required"] });
    const autoOnly = ProviderCapabilities.parse({ toolChoice: ["auto"] });
    expect(selectToolChoice(observe, requiredOnly, offered, "first")).toEqual({ mode: "required" });
    expect(selectToolChoice(observe, autoOnly, offered, "first")).toEqual({ mode: "auto" });
  });

  it("stays auto when the contract names no tools or a tool the run does not offer", () => {
    expect(selectToolChoice(contract({ evidenceMode: "observe" }), all, offered, "first")).toEqual({ mode: "auto" });
    expect(
      selectToolChoice(contract({ evidenceMode: "observe", requiredToolNames: ["ghost"] }), all, offered, "first"),
    ).toEqual({ mode: "auto" });
  });

  it("offers no tools at all to a provider without tool calling", () => {
    const observe = contract({ evidenceMode: "observe", requiredToolNames: ["lookup"] });
    expect(selectToolChoice(observe, ProviderCapabilities.parse({ toolCalling: false }), offered, "first")).toEqual({
      mode: "none",
    });
  });
});
