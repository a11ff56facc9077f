import { describe, expect, it } from "@effect/vitest";
import Sqlite from "better-sqlite3";
import { Effect, Layer } from "effect";
import * as Ledger from "../../src/persistence/ledger.js";
import { MemoryItemStore, layer as memoryItemStoreLayer } from "../../src/persistence/MemoryItemStore.js";
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from "../../src/persistence/migrations/index.js";
import { dumpTable, useTempDir } from "../support/tempDir.js";

const tmp = useTempDir("agentloop-memory-items-");

const UP_TO_0003 = {
  "0001_host_schema": MIGRATIONS["0001_host_schema"],
  "0002_run_ledger": MIGRATIONS["0002_run_ledger"],
  "0003_channel_deliveries": MIGRATIONS["0003_channel_deliveries"],
};

const NEW_COLUMNS = [
  "provenance",
  "source_ref",
  "verified_at",
  "expires_at",
  "verification_status",
  "confidence",
  "kind",
];

interface ItemRow {
  id: string;
  scope: string;
  content: string;
  source: string;
  evidence: string;
  created_at: string;
  updated_at: string | null;
  provenance: string;
  source_ref: string | null;
  verified_at: string | null;
  expires_at: string | null;
  verification_status: string;
  confidence: number;
  kind: string;
}

/** A database at schema version 3 with old-style memory_items rows. */
const databaseAtVersion3 = (file: string) =>
  Effect.gen(function* () {
    const report = yield* Ledger.migrate(file, { migrations: UP_TO_0003 });
    expect(report.toVersion).toBe(3);
    const db = new Sqlite(file);
    try {
      const insert = db.prepare(
        "INSERT INTO memory_items (id, scope, content, source, evidence, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      );
      insert.run("c-1", "s-1", "Reports go to https://old.example.com/hook", "consolidation", "{}", "t1", null);
      insert.run("c-2", "s-2", "The deploy command is `make ship`", "consolidation", '{"turns":[3]}', "t2", "t3");
      insert.run("u-1", "s-1", "likes ☕ and 🍰", "chat", JSON.stringify({ turnIds: [1, 2] }), "t4", null);
      insert.run("u-2", "s-3", "quote ' and \" chars", "manual", "{}", "t5", "t6");
    } finally {
      db.close();
    }
  });

const rows = (file: string) => dumpTable(file, "memory_items", "id") as ItemRow[];
const rowById = (file: string, id: string) => rows(file).find((row) => row.id === id)!;

function columns(file: string): string[] {
  const db = new Sqlite(file, { readonly: true });
  try {
    return (db.prepare("PRAGMA table_info(memory_items)").all() as Array<{ name: string }>).map(
      (column) => column.name,
    );
  } finally {
    db.close();
  }
}

describe("migration 0004_memory_provenance on a version-3 database", () => {
  it.effect("adds the provenance columns to memory_items", () =>
    Effect.gen(function* () {
      const file = tmp.path("v3.db");
      yield* databaseAtVersion3(file);
      yield* Ledger.migrate(file);
      expect(columns(file)).toEqual(expect.arrayContaining(NEW_COLUMNS));
    }),
  );

  it.effect("applies 0004 and the migrations after it, and reaches the latest schema version", () =>
    Effect.gen(function* () {
      const file = tmp.path("v3.db");
      yield* databaseAtVersion3(file);
      const report = yield* Ledger.migrate(file);
      expect([report.fromVersion, report.toVersion, report.applied]).toEqual([
        3,
        LATEST_SCHEMA_VERSION,
        Object.keys(MIGRATIONS).slice(3),
      ]);
      expect(report.applied[0]).toBe("0004_memory_provenance");
    }),
  );

  it.effect("keeps every row", () =>
    Effect.gen(function* () {
      const file = tmp.path("v3.db");
      yield* databaseAtVersion3(file);
      const before = rows(file).map((row) => row.id);
      yield* Ledger.migrate(file);
      expect(rows(file).map((row) => row.id)).toEqual(before);
    }),
  );

  it.effect(
    "marks old consolidation rows consolidation / legacy_unverified with confidence 0.3 without deleting them",
    () =>
      Effect.gen(function* () {
        const file = tmp.path("v3.db");
        yield* databaseAtVersion3(file);
        yield* Ledger.migrate(file);
        const consolidated = rows(file).filter((row) => row.source === "consolidation");
        expect(consolidated.map((row) => [row.id, row.provenance, row.verification_status, row.confidence])).toEqual([
          ["c-1", "consolidation", "legacy_unverified", 0.3],
          ["c-2", "consolidation", "legacy_unverified", 0.3],
        ]);
      }),
  );

  it.effect("gives every other row the legacy defaults and leaves its content untouched", () =>
    Effect.gen(function* () {
      const file = tmp.path("v3.db");
      yield* databaseAtVersion3(file);
      const before = rowById(file, "u-1");
      yield* Ledger.migrate(file);
      expect(rowById(file, "u-1")).toEqual({
        ...before,
        provenance: "legacy",
        source_ref: null,
        verified_at: null,
        expires_at: null,
        verification_status: "legacy_unverified",
        confidence: 0.5,
        kind: "note",
      });
    }),
  );

  it.effect("keeps the content, source and evidence of the consolidation rows", () =>
    Effect.gen(function* () {
      const file = tmp.path("v3.db");
      yield* databaseAtVersion3(file);
      const pick = ({ id, scope, content, source, evidence, created_at, updated_at }: ItemRow) => ({
        id,
        scope,
        content,
        source,
        evidence,
        created_at,
        updated_at,
      });
      const before = rows(file).map(pick);
      yield* Ledger.migrate(file);
      expect(rows(file).map(pick)).toEqual(before);
    }),
  );

  it.effect("indexes memory_items by scope and verification status", () =>
    Effect.gen(function* () {
      const file = tmp.path("v3.db");
      yield* databaseAtVersion3(file);
      yield* Ledger.migrate(file);
      const db = new Sqlite(file, { readonly: true });
      try {
        const index = db
          .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name = ?")
          .get("idx_memory_items_status");
        expect(index).toEqual({ name: "idx_memory_items_status" });
      } finally {
        db.close();
      }
    }),
  );

  it.effect("lets the store read the migrated rows as legacy_unverified items", () =>
    Effect.gen(function* () {
      const file = tmp.path("v3.db");
      yield* databaseAtVersion3(file);
      yield* Ledger.migrate(file);
      const items = yield* Effect.flatMap(MemoryItemStore, (store) => store.list()).pipe(
        Effect.provide(storeLayer(file)),
      );
      expect(items.map((item) => [item.id, item.provenance, item.verificationStatus])).toEqual([
        ["c-1", "consolidation", "legacy_unverified"],
        ["c-2", "consolidation", "legacy_unverified"],
        ["u-1", "legacy", "legacy_unverified"],
        ["u-2", "legacy", "legacy_unverified"],
      ]);
    }),
  );
});

const storeLayer = (file: string) => memoryItemStoreLayer.pipe(Layer.provide(Ledger.layer({ filename: file })));
const withStore = <A, E>(use: (store: MemoryItemStore["Type"]) => Effect.Effect<A, E>) =>
  Effect.flatMap(MemoryItemStore, use).pipe(Effect.provide(storeLayer(tmp.path("store.db"))));

describe("MemoryItemStore", () => {
  it.effect("stores an item with its provenance columns and reads it back", () =>
    withStore((store) =>
      Effect.gen(function* () {
        const [added] = yield* store.add([
          {
            scope: "s",
            content: "https://docs.example.com/api",
            source: "agentloop",
            evidence: { confirmed_by: "workspace_read" },
            provenance: "receipt",
            sourceRef: "run-1/c1",
            verifiedAt: "2024-01-01T00:00:00.000Z",
            expiresAt: "2030-01-01T00:00:00.000Z",
            verificationStatus: "verified",
            confidence: 0.9,
            kind: "url",
          },
        ]);
        expect(yield* store.get(added!.id)).toEqual(added);
      }),
    ),
  );

  it.effect("gives an item without provenance the legacy defaults", () =>
    withStore((store) =>
      Effect.gen(function* () {
        const [added] = yield* store.add([{ scope: "s", content: "a note", source: "manual" }]);
        expect(yield* store.get(added!.id)).toMatchObject({
          provenance: "legacy",
          verificationStatus: "legacy_unverified",
          confidence: 0.5,
          kind: "note",
          sourceRef: null,
        });
      }),
    ),
  );

  it.effect("lists items of one scope with the requested statuses", () =>
    withStore((store) =>
      Effect.gen(function* () {
        yield* store.add([
          { scope: "a", content: "pending in a", source: "agentloop", verificationStatus: "pending" },
          { scope: "a", content: "verified in a", source: "agentloop", verificationStatus: "verified" },
          { scope: "b", content: "pending in b", source: "agentloop", verificationStatus: "pending" },
        ]);
        const listed = yield* store.list({ scope: "a", statuses: ["pending"] });
        expect(listed.map((item) => item.content)).toEqual(["pending in a"]);
      }),
    ),
  );

  it.effect("verifies an item with a new provenance, source and verification time, merging its evidence", () =>
    withStore((store) =>
      Effect.gen(function* () {
        const [added] = yield* store.add([
          {
            scope: "s",
            content: "https://docs.example.com/api",
            source: "agentloop",
            evidence: { first_seen: "run-1" },
            provenance: "model_inference",
            sourceRef: "run-1/seq-3",
            verificationStatus: "pending",
            confidence: 0.3,
            kind: "url",
          },
        ]);
        const updated = yield* store.setStatus(added!.id, {
          status: "verified",
          provenance: "receipt",
          sourceRef: "run-2/c9",
          confidence: 0.9,
          evidence: { confirmed_by: "workspace_read" },
        });
        expect(updated).toMatchObject({
          verificationStatus: "verified",
          provenance: "receipt",
          sourceRef: "run-2/c9",
          confidence: 0.9,
          evidence: { first_seen: "run-1", confirmed_by: "workspace_read" },
        });
        expect(updated?.verifiedAt).not.toBeNull();
      }),
    ),
  );

  it.effect("rejects an item by re-marking it, never deleting it", () =>
    withStore((store) =>
      Effect.gen(function* () {
        const [added] = yield* store.add([
          { scope: "s", content: "a candidate", source: "agentloop", verificationStatus: "pending" },
        ]);
        yield* store.setStatus(added!.id, { status: "rejected" });
        const listed = yield* store.list();
        expect(listed.map((item) => [item.content, item.verificationStatus])).toEqual([["a candidate", "rejected"]]);
      }),
    ),
  );

  it.effect("changes nothing and returns undefined for an unknown id", () =>
    withStore((store) =>
      Effect.gen(function* () {
        expect(yield* store.setStatus("mem-missing", { status: "verified" })).toBeUndefined();
        expect(yield* store.list()).toEqual([]);
      }),
    ),
  );
});
