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
  }),
  z.strictObject({
    role: z.literal("tool"),
    callId: z.string().min(1),
    toolName: z.string().min(1),
    content: z.string(),
    isError: z.boolean(),
  }),
]);
export type ContextMessage = z.infer<typeof ContextMessage>;
