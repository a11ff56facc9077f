import { z } from "zod";
import { ToolCall } from "./tool.js";

/** One provider-neutral finish reason (each provider maps its own onto this). */
export const FinishReason = z.enum(["stop", "tool_calls", "length", "content_filter", "error"]);
export type FinishReason = z.infer<typeof FinishReason>;

export const ToolChoiceMode = z.enum(["auto", "required", "none", "specific"]);
export type ToolChoiceMode = z.infer<typeof ToolChoiceMode>;

export const ToolChoice = z.union([
  z.strictObject({ mode: z.enum(["auto", "required", "none"]) }),
  z.strictObject({ mode: z.literal("specific"), toolName: z.string().min(1) }),
]);
export type ToolChoice = z.infer<typeof ToolChoice>;

export const ProviderCapabilities = z.strictObject({
  toolCalling: z.boolean().default(true),
  toolChoice: z.array(ToolChoiceMode).default(["auto", "required", "none", "specific"]),
});
export type ProviderCapabilities = z.infer<typeof ProviderCapabilities>;

/** A tool call the provider announced but that could not be parsed into a ToolCall. */
export const MalformedToolCall = z.strictObject({
  id: z.string().optional(),
  name: z.string().optional(),
  rawArguments: z.string(),
  problem: z.string(),
});
export type MalformedToolCall = z.infer<typeof MalformedToolCall>;

export const TokenUsage = z.strictObject({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
});
export type TokenUsage = z.infer<typeof TokenUsage>;

/** A protocol irregularity the provider adapter saw and repaired or reported (ledger: provider_anomaly). */
export const ProviderAnomaly = z.strictObject({
  code: z.enum([
    "tool_finish_without_parsed_calls",
    "arguments_not_json",
    "unknown_tool_name",
    "duplicate_call_id",
    "missing_call_id",
    "stream_ended_early",
    "length_mid_tool_call",
    "content_filter",
    "unknown_finish_reason",
  ]),
  detail: z.string(),
});
export type ProviderAnomaly = z.infer<typeof ProviderAnomaly>;

/** What one sampling step returned, before the runtime judges it. */
export const ModelResponse = z.strictObject({
  text: z.string().default(""),
  toolCalls: z.array(ToolCall).default([]),
  malformedToolCalls: z.array(MalformedToolCall).default([]),
  finishReason: FinishReason,
  usage: TokenUsage.optional(),
  anomalies: z.array(ProviderAnomaly).default([]),
  /** The text reached someone as it streamed (the run's `text_delta` events or the provider's callback). */
  streamed: z.boolean().default(false),
});
export type ModelResponse = z.infer<typeof ModelResponse>;
