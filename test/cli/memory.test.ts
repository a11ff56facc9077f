import { Effect, Layer, Metric } from "effect";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import type { MemoryItem, MemoryItemInput } from "../../src/domain/index.js";
import * as Ledger from "../../src/persistence/ledger.js";
import { MemoryItemStore, layer as memoryItemStoreLayer } from "../../src/persistence/MemoryItemStore.js";
import { memoryRejectedTotal } from "../../src/services/observability/metrics.js";
import { useTempDir } from "../support/tempDir.js";

const tmp = useTempDir("agentloop-cli-memory-");

interface CliResult {
  readonly code: number;
  readonly out: string[];
  readonly err: string[];
}

/** Runs `agentloop <argv>` in-process, capturing its output lines. */
async function cli(...argv: string[]): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (line) => out.push(line), err: (line) => err.push(line), isTTY: false });
  return { code, out, err };
}

const useStore = <A>(file: string, use: (store: MemoryItemStore["Type"]) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(
    Effect.flatMap(MemoryItemStore, use).pipe(
      Effect.provide(memoryItemStoreLayer.pipe(Layer.provide(Ledger.layer({ filename: file })))),
    ),
  );

const SEED: ReadonlyArray<Omit<MemoryItemInput, "id" | "createdAt">> = [
  {
    scope: "s-1",
    content: "https://old.example.com/hook",
    source: "agentloop",
    provenance: "model_inference",
    sourceRef: "run-1/seq-3",
    verificationStatus: "pending",
    confidence: 0.3,
    kind: "url",
  },
  {
    scope: "s-1",
    content: "config.yaml: debug: true",
    source: "agentloop",
    provenance: "receipt",
    sourceRef: "run-1/c1",
    verificationStatus: "verified",
    confidence: 0.95,
    kind: "workspace_fact",
  },
  {
    scope: "s-2",
    content: "unverified claim",
    source: "agentloop",
    provenance: "model_inference",
    verificationStatus: "unverified",
    kind: "note",
  },
];

/** A database with one pending, one verified and one unverified item; returns the file and the items. */
async function seeded(): Promise<{ file: string; pending: MemoryItem; verified: MemoryItem }> {
  const file = tmp.path("memory.db");
  const [pending, verified] = await useStore(file, (store) => store.add(SEED));
  return { file, pending: pending!, verified: verified! };
}

const itemById = (file: string, id: string) => useStore(file, (store) => store.get(id));

/** This process's `agent_memory_rejected_total{reason}` (the commands run in-process). */
const rejectedCount = (reason: string) =>
  Effect.runSync(Metric.value(Metric.tagged(memoryRejectedTotal, "reason", reason))).count;

describe("agentloop memory list", () => {
  it("lists only the pending candidates by default", async () => {
    const { file, pending } = await seeded();
    const result = await cli("memory", "list", "--db", file);
    expect(result).toEqual({
      code: 0,
      out: [`${pending.id}  pending/model_inference  url  s-1  https://old.example.com/hook`],
      err: [],
    });
  });

  it("lists every item with --status all", async () => {
    const { file } = await seeded();
    const result = await cli("memory", "list", "--db", file, "--status", "all");
    // Items added together share a creation time, so their order is by id: compare as a set.
    expect(result.out.map((line) => line.split("  ")[1]).sort()).toEqual([
      "pending/model_inference",
      "unverified/model_inference",
      "verified/receipt",
    ]);
  });

  it("lists the items of one scope with --scope", async () => {
    const { file } = await seeded();
    const result = await cli("memory", "list", "--db", file, "--status", "all", "--scope", "s-2");
    expect(result.out.map((line) => line.split("  ").at(-1))).toEqual(["unverified claim"]);
  });

  it("prints the items as one JSON array with --json", async () => {
    const { file, pending } = await seeded();
    const result = await cli("memory", "list", "--db", file, "--json");
    expect(result.out).toHaveLength(1);
    expect(JSON.parse(result.out[0]!)).toEqual([pending]);
  });

  it("says so when there are no pending candidates", async () => {
    const result = await cli("memory", "list", "--db", tmp.path("empty.db"));
    expect(result).toEqual({ code: 0, out: ["no pending memory items"], err: [] });
  });

  it("refuses an unknown --status with one agentloop: line and a non-zero exit", async () => {
    const { file } = await seeded();
    const result = await cli("memory", "list", "--db", file, "--status", "maybe");
    expect(result.code).not.toBe(0);
    expect(result.out).toEqual([]);
    expect(result.err).toHaveLength(1);
    expect(result.err[0]).toMatch(/^agentloop: --status must be all or one of verified, pending/);
  });
});

describe("agentloop memory approve / reject", () => {
  it("approves a pending candidate as verified with provenance user_decision", async () => {
    const { file, pending } = await seeded();
    const result = await cli("memory", "approve", pending.id, "--db", file);
    expect(result).toEqual({ code: 0, out: [`${pending.id}: verified (user_decision)`], err: [] });
    expect(await itemById(file, pending.id)).toMatchObject({
      verificationStatus: "verified",
      provenance: "user_decision",
    });
  });

  it("rejects a candidate by marking it rejected and keeping the row", async () => {
    const { file, pending } = await seeded();
    const result = await cli("memory", "reject", pending.id, "--db", file);
    expect(result.code).toBe(0);
    expect(await itemById(file, pending.id)).toMatchObject({
      verificationStatus: "rejected",
      content: "https://old.example.com/hook",
    });
  });

  it('counts a rejection as agent_memory_rejected_total{reason="admin_reject"}, once per item', async () => {
    const { file, pending, verified } = await seeded();
    const before = rejectedCount("admin_reject");
    await cli("memory", "approve", verified.id, "--db", file);
    expect(rejectedCount("admin_reject")).toBe(before);
    expect((await cli("memory", "reject", pending.id, "--db", file)).code).toBe(0);
    expect(rejectedCount("admin_reject")).toBe(before + 1);
    // Rejecting it again changes nothing, and an unknown id is no rejection.
    await cli("memory", "reject", pending.id, "--db", file);
    await cli("memory", "reject", "mem-missing", "--db", file);
    expect(rejectedCount("admin_reject")).toBe(before + 1);
  });

  it("drops a rejected candidate from the default pending list", async () => {
    const { file, pending } = await seeded();
    await cli("memory", "reject", pending.id, "--db", file);
    expect((await cli("memory", "list", "--db", file)).out).toEqual(["no pending memory items"]);
  });

  it.each(["approve", "reject"])("%s of an unknown id prints one agentloop: line and exits non-zero", async (verb) => {
    const { file } = await seeded();
    const result = await cli("memory", verb, "mem-missing", "--db", file);
    expect(result.code).not.toBe(0);
    expect(result.out).toEqual([]);
    expect(result.err).toEqual(["agentloop: no memory item mem-missing"]);
  });
});

describe("agentloop memory markdown", () => {
  it("prints only the active items", async () => {
    const { file } = await seeded();
    const result = await cli("memory", "markdown", "--db", file);
    expect(result).toEqual({
      code: 0,
      out: ["# Memory\n\n- config.yaml: debug: true — _verified, receipt, workspace_fact_"],
      err: [],
    });
  });

  it("prints an approved candidate once it is verified", async () => {
    const { file, pending } = await seeded();
    await cli("memory", "approve", pending.id, "--db", file);
    const [markdown] = (await cli("memory", "markdown", "--db", file)).out;
    expect(markdown).toContain("- https://old.example.com/hook — _verified, user_decision, url_");
  });
});
