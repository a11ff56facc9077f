import { z } from "zod";
import { JsonValue } from "./json.js";

/** A visible conversation turn of the pre-existing host schema (`memory_turns`). */
export const MemoryTurn = z.strictObject({
  id: z.number().int().optional(),
  sessionId: z.string().min(1),
  role: z.enum(["user", "assistant", "system"]),
  content: z.string(),
  source: z.string(),
  metadata: z.record(z.string(), JsonValue).default({}),
  createdAt: z.string(),
});
export type MemoryTurn = z.infer<typeof MemoryTurn>;

/** Where a memory came from. */
export const MemoryProvenance = z.enum([
  "user_stated",
  "user_decision",
  "receipt",
  "model_inference",
  "consolidation",
  "legacy",
]);
export type MemoryProvenance = z.infer<typeof MemoryProvenance>;

export const MemoryVerificationStatus = z.enum(["verified", "pending", "unverified", "legacy_unverified", "rejected"]);
export type MemoryVerificationStatus = z.infer<typeof MemoryVerificationStatus>;

export const MemoryKind = z.enum([
  "preference",
  "decision",
  "workspace_fact",
  "skill",
  "url",
  "domain",
  "path",
  "command",
  "network_fact",
  "note",
]);
export type MemoryKind = z.infer<typeof MemoryKind>;

/** Kinds that name an external address: a memory alone never selects one for a tool. */
export const ADDRESS_KINDS: ReadonlySet<MemoryKind> = new Set(["url", "domain", "network_fact"]);

/** A long-term memory item (`memory_items`, with the provenance columns of migration 0004). */
export const MemoryItem = z.strictObject({
  id: z.string().min(1),
  scope: z.string().min(1),
  content: z.string(),
  source: z.string(),
  evidence: z.record(z.string(), JsonValue).default({}),
  createdAt: z.string(),
  updatedAt: z.string().nullable().default(null),
  provenance: MemoryProvenance.default("legacy"),
  /** run id + call id (receipt), or run id + turn (user statement). */
  sourceRef: z.string().nullable().default(null),
  verifiedAt: z.string().nullable().default(null),
  expiresAt: z.string().nullable().default(null),
  verificationStatus: MemoryVerificationStatus.default("legacy_unverified"),
  confidence: z.number().min(0).max(1).default(0.5),
  kind: MemoryKind.default("note"),
});
export type MemoryItem = z.infer<typeof MemoryItem>;
export type MemoryItemInput = z.input<typeof MemoryItem>;
