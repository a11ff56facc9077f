import { z } from "zod";
import { ToolCall } from "./tool.js";

/** Provider-neutral conversation messages; serializers map them to each wire protocol. */
export const ContextMessage = z.discriminatedUnion("role", [
  z.strictObject({ role: z.literal("system"), content: z.string() }),
  z.strictObject({ role: z.literal("user"), content: z.string() }),
  z.strictObject({
    role: z.literal("assistant"),
    content: z.string(),
    toolCalls: z.array(ToolCall).default([]),
    /** `legacy_unverified`: replayed from visible history without a ledger; never evidence. */
    provenance: z.enum(["ledger", "legacy_unverified"]).optional(),
  }),
  z.strictObject({
    role: z.literal("tool"),
    callId: z.string().min(1),
    toolName: z.string().min(1),
    content: z.string(),
    isError: z.boolean(),
    /** The receipt's facts in one line (status, evidence) — what compaction keeps. */
    facts: z.string().optional(),
  }),
]);
export type ContextMessage = z.infer<typeof ContextMessage>;
