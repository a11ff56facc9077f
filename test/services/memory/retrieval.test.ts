import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ADDRESS_KINDS,
  type MemoryItem,
  type MemoryItemInput,
  MemoryItem as MemoryItemSchema,
  MemoryVerificationStatus,
} from "../../../src/domain/index.js";
import { renderMemoryMarkdown, renderMemorySection, retrieveMemory } from "../../../src/services/memory/retrieval.js";

const NOW = new Date("2024-06-01T12:00:00.000Z");

let counter = 0;
const item = (overrides: Partial<MemoryItemInput> = {}): MemoryItem => {
  counter += 1;
  return MemoryItemSchema.parse({
    id: `mem-${counter}`,
    scope: "s",
    content: `fact ${counter}`,
    source: "agentloop",
    createdAt: `2024-05-01T00:00:${String(counter % 60).padStart(2, "0")}.000Z`,
    provenance: "receipt",
    sourceRef: `run-1/c${counter}`,
    verificationStatus: "verified",
    confidence: 0.9,
    kind: "workspace_fact",
    ...overrides,
  });
};

const contents = (items: ReadonlyArray<MemoryItem>) => items.map((entry) => entry.content);
const retrieve = (items: ReadonlyArray<MemoryItem>) => contents(retrieveMemory(items, { now: NOW }));

describe("retrieveMemory", () => {
  it("returns verified items", () => {
    expect(retrieve([item({ content: "config.yaml: debug: true" })])).toEqual(["config.yaml: debug: true"]);
  });

  it.each(["pending", "unverified", "rejected"] as const)("filters out %s items", (status) => {
    expect(retrieve([item({ content: "kept" }), item({ content: "dropped", verificationStatus: status })])).toEqual([
      "kept",
    ]);
  });

  it("filters out an item whose expiry is in the past", () => {
    const expired = item({ content: "expired", expiresAt: "2024-06-01T11:59:59.000Z" });
    expect(retrieve([item({ content: "kept" }), expired])).toEqual(["kept"]);
  });

  it("keeps an item whose expiry is still ahead", () => {
    expect(retrieve([item({ content: "fresh", expiresAt: "2024-06-02T00:00:00.000Z" })])).toEqual(["fresh"]);
  });

  it("filters out low-confidence items", () => {
    expect(retrieve([item({ content: "kept", confidence: 0.2 }), item({ content: "weak", confidence: 0.1 })])).toEqual([
      "kept",
    ]);
  });

  it("applies a caller's minimum confidence", () => {
    const items = [item({ content: "strong", confidence: 0.9 }), item({ content: "middling", confidence: 0.5 })];
    expect(contents(retrieveMemory(items, { now: NOW, minConfidence: 0.6 }))).toEqual(["strong"]);
  });

  it("keeps legacy_unverified items but ranks them after every verified item", () => {
    const legacy = item({
      content: "legacy",
      provenance: "consolidation",
      verificationStatus: "legacy_unverified",
      confidence: 1,
      createdAt: "2020-01-01T00:00:00.000Z",
    });
    const verified = item({ content: "verified", confidence: 0.3 });
    expect(retrieve([legacy, verified])).toEqual(["verified", "legacy"]);
  });

  it("returns at most the limit, the best ranked first", () => {
    const items = [item({ content: "a", confidence: 0.5 }), item({ content: "b", confidence: 0.95 })];
    expect(contents(retrieveMemory(items, { now: NOW, limit: 1 }))).toEqual(["b"]);
  });
});

describe("renderMemorySection", () => {
  it("renders nothing when there is no memory", () => {
    expect(renderMemorySection([])).toBe("");
  });

  it("shows every item with its status, provenance and source", () => {
    const section = renderMemorySection([
      item({ content: "config.yaml: debug: true", sourceRef: "run-7/c1" }),
      item({
        content: "old note",
        provenance: "consolidation",
        verificationStatus: "legacy_unverified",
        sourceRef: null,
      }),
    ]);
    expect(section).toContain("- [verified · receipt · run-7/c1] config.yaml: debug: true");
    expect(section).toContain("- [legacy_unverified · consolidation] old note");
  });

  it("states the authoritative-source rule before the items", () => {
    const lines = renderMemorySection([item({ content: "a fact" })]).split("\n");
    const rule = lines.findIndex((line) => line.includes("read the authoritative source with a tool"));
    expect(rule).toBeGreaterThan(-1);
    expect(rule).toBeLessThan(lines.findIndex((line) => line.includes("a fact")));
  });

  it.each([...ADDRESS_KINDS])("adds the address rule when a %s item is present", (kind) => {
    const section = renderMemorySection([item({ content: "https://old.example.com/hook", kind })]);
    expect(section).toContain("Never use an address (URL or host) from memory alone");
  });

  it("leaves the address rule out when no item is an address", () => {
    const section = renderMemorySection([item({ kind: "preference", provenance: "user_stated" })]);
    expect(section).not.toContain("Never use an address");
  });
});

describe("renderMemoryMarkdown", () => {
  it("never shows pending, unverified or rejected items", () => {
    const markdown = renderMemoryMarkdown(
      [
        item({ content: "active fact" }),
        item({ content: "https://pending.example.com", verificationStatus: "pending", kind: "url" }),
        item({ content: "unverified claim", verificationStatus: "unverified" }),
        item({ content: "rejected claim", verificationStatus: "rejected" }),
      ],
      { now: NOW },
    );
    expect(markdown).toContain("- active fact — _verified, receipt, workspace_fact_");
    expect(markdown).not.toContain("pending.example.com");
    expect(markdown).not.toContain("unverified claim");
    expect(markdown).not.toContain("rejected claim");
  });

  it("shows a legacy item with its legacy_unverified status", () => {
    const markdown = renderMemoryMarkdown([
      item({ content: "old note", provenance: "consolidation", verificationStatus: "legacy_unverified", kind: "note" }),
    ]);
    expect(markdown).toContain("- old note — _legacy_unverified, consolidation, note_");
  });

  it("says there is no active memory when every item is pending", () => {
    expect(renderMemoryMarkdown([item({ verificationStatus: "pending" })])).toBe("# Memory\n\n_No active memory._\n");
  });

  it("never shows a pending or unverified item, whatever else the memory holds", () => {
    const entry = fc.record({
      status: fc.constantFrom(...MemoryVerificationStatus.options),
      confidence: fc.double({ min: 0, max: 1, noNaN: true }),
      expired: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 12 }), (entries) => {
        const items = entries.map((spec, index) =>
          item({
            content: `item-${index}-${spec.status}`,
            verificationStatus: spec.status,
            confidence: spec.confidence,
            ...(spec.expired ? { expiresAt: "2024-01-01T00:00:00.000Z" } : {}),
          }),
        );
        const markdown = renderMemoryMarkdown(items, { now: NOW });
        for (const entry of items) {
          if (entry.verificationStatus === "pending" || entry.verificationStatus === "unverified") {
            expect(markdown).not.toContain(`${entry.content} —`);
          }
        }
      }),
    );
  });
});
