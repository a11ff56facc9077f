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

/** A long-term memory item of the host schema (`memory_items`); issue I adds provenance columns. */
export const MemoryItem = z.strictObject({
  id: z.string().min(1),
  scope: z.string().min(1),
  content: z.string(),
  source: z.string(),
  evidence: z.record(z.string(), JsonValue).default({}),
  createdAt: z.string(),
  updatedAt: z.string().nullable().default(null),
});
export type MemoryItem = z.infer<typeof MemoryItem>;
