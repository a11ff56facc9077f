import { describe, expect, it } from "vitest";
import { declaredKind, mcpToolKind } from "../../../../src/services/tools/mcp/kinds.js";

/** Issue Q: annotations give a kind; a host may override it, but hints never make a tool less cautious. */

describe("declaredKind (from the server's annotations)", () => {
  it("is observe for a read-only tool", () => {
    expect(declaredKind({ readOnlyHint: true })).toBe("observe");
  });

  it("is mutate for a destructive tool", () => {
    expect(declaredKind({ destructiveHint: true })).toBe("mutate");
  });

  it("is mutate for a tool that writes without destroying", () => {
    expect(declaredKind({ readOnlyHint: false, destructiveHint: false })).toBe("mutate");
  });

  it("is mutate without annotations (MCP's defaults are not read-only and destructive)", () => {
    expect(declaredKind(undefined)).toBe("mutate");
  });

  it("is mutate when the hints contradict each other (read-only and destructive)", () => {
    expect(declaredKind({ readOnlyHint: true, destructiveHint: true })).toBe("mutate");
  });
});

describe("mcpToolKind (with a host override)", () => {
  it("takes the host's deliver for a tool the server says writes", () => {
    expect(mcpToolKind({ destructiveHint: false }, "deliver")).toBe("deliver");
  });

  it("keeps the host's mutate when the server claims read-only", () => {
    expect(mcpToolKind({ readOnlyHint: true }, "mutate")).toBe("mutate");
  });

  it("keeps the host's observe for a read-only tool", () => {
    expect(mcpToolKind({ readOnlyHint: true }, "observe")).toBe("observe");
  });

  it("makes the host's observe mutate when the server does not declare the tool read-only", () => {
    expect(mcpToolKind({ destructiveHint: true }, "observe")).toBe("mutate");
    expect(mcpToolKind(undefined, "observe")).toBe("mutate");
  });

  it("is the declared kind without an override", () => {
    expect(mcpToolKind({ readOnlyHint: true }, undefined)).toBe("observe");
  });
});
