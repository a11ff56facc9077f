import { randomUUID } from "node:crypto";
import type * as SqlError from "@effect/sql/SqlError";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { type JsonValue, MemoryItem, type MemoryItemInput, type MemoryVerificationStatus } from "../domain/index.js";
import { LedgerError } from "./AgentRunStore.js";
import { sanitizePayload } from "./payloadHygiene.js";
import * as SqlClient from "./sqlClient.js";

export interface MemoryItemFilter {
  readonly scope?: string;
  readonly statuses?: ReadonlyArray<MemoryVerificationStatus>;
}

export interface StatusChange {
  readonly status: MemoryVerificationStatus;
  readonly provenance?: MemoryItem["provenance"];
  readonly sourceRef?: string | null;
  readonly confidence?: number;
  readonly evidence?: Readonly<Record<string, JsonValue>>;
}

/** Long-term memory items with provenance. Items are never deleted, only re-marked. */
export interface MemoryItemStoreShape {
  readonly add: (
    items: ReadonlyArray<Omit<MemoryItemInput, "id" | "createdAt"> & { id?: string }>,
  ) => Effect.Effect<ReadonlyArray<MemoryItem>, LedgerError>;
  readonly list: (filter?: MemoryItemFilter) => Effect.Effect<ReadonlyArray<MemoryItem>, LedgerError>;
  readonly get: (id: string) => Effect.Effect<MemoryItem | undefined, LedgerError>;
  readonly setStatus: (id: string, change: StatusChange) => Effect.Effect<MemoryItem | undefined, LedgerError>;
}

export class MemoryItemStore extends Context.Tag("agentloop/MemoryItemStore")<
  MemoryItemStore,
  MemoryItemStoreShape
>() {}

interface Row {
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

const toItem = (row: Row): MemoryItem =>
  MemoryItem.parse({
    id: row.id,
    scope: row.scope,
    content: row.content,
    source: row.source,
    evidence: JSON.parse(row.evidence || "{}"),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    provenance: row.provenance,
    sourceRef: row.source_ref,
    verifiedAt: row.verified_at,
    expiresAt: row.expires_at,
    verificationStatus: row.verification_status,
    confidence: row.confidence,
    kind: row.kind,
  });

const fail = (context: string) => (error: SqlError.SqlError) =>
  new LedgerError({ reason: "storage_failure", message: `${context}: ${error.message}`, cause: error });

/** The MemoryItemStore over whatever SqlClient is provided. */
export const make: Effect.Effect<MemoryItemStoreShape, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient;
  const get: MemoryItemStoreShape["get"] = (id) =>
    sql<Row>`SELECT * FROM memory_items WHERE id = ${id}`.pipe(
      Effect.map((rows) => (rows[0] ? toItem(rows[0]) : undefined)),
      Effect.mapError(fail("MemoryItemStore.get")),
    );
  return MemoryItemStore.of({
    add: (inputs) =>
      Effect.gen(function* () {
        const now = new Date().toISOString();
        const items = inputs.map((input) => MemoryItem.parse({ id: `mem_${randomUUID()}`, createdAt: now, ...input }));
        if (items.length === 0) return [];
        yield* sql`INSERT INTO memory_items ${sql.insert(
          items.map((item) => ({
            id: item.id,
            scope: item.scope,
            content: item.content,
            source: item.source,
            evidence: JSON.stringify(sanitizePayload(item.evidence)),
            created_at: item.createdAt,
            updated_at: item.updatedAt,
            provenance: item.provenance,
            source_ref: item.sourceRef,
            verified_at: item.verifiedAt,
            expires_at: item.expiresAt,
            verification_status: item.verificationStatus,
            confidence: item.confidence,
            kind: item.kind,
          })),
        )}`;
        return items;
      }).pipe(Effect.mapError(fail("MemoryItemStore.add"))),
    list: (filter = {}) => {
      const conditions = [
        ...(filter.scope ? [sql`scope = ${filter.scope}`] : []),
        ...(filter.statuses && filter.statuses.length > 0 ? [sql.in("verification_status", [...filter.statuses])] : []),
      ];
      return sql<Row>`SELECT * FROM memory_items WHERE ${sql.and(conditions)} ORDER BY created_at, id`.pipe(
        Effect.map((rows) => rows.map(toItem)),
        Effect.mapError(fail("MemoryItemStore.list")),
      );
    },
    get,
    setStatus: (id, change) =>
      Effect.gen(function* () {
        const now = new Date().toISOString();
        const current = yield* get(id);
        if (!current) return undefined;
        const evidence = { ...current.evidence, ...(change.evidence ?? {}) };
        yield* sql`UPDATE memory_items SET
            verification_status = ${change.status},
            provenance = ${change.provenance ?? current.provenance},
            source_ref = ${change.sourceRef === undefined ? current.sourceRef : change.sourceRef},
            confidence = ${change.confidence ?? current.confidence},
            evidence = ${JSON.stringify(sanitizePayload(evidence))},
            verified_at = ${change.status === "verified" ? now : current.verifiedAt},
            updated_at = ${now}
          WHERE id = ${id}`.pipe(Effect.mapError(fail("MemoryItemStore.setStatus")));
        return yield* get(id);
      }),
  });
});

export const layer: Layer.Layer<MemoryItemStore, never, SqlClient.SqlClient> = Layer.effect(MemoryItemStore, make);
