import type { Effect } from "effect";
import { z } from "zod";
import type { JsonValue, ToolDescriptor, ToolKind } from "../../domain/index.js";

export interface ToolContext {
  readonly runId: string;
  readonly callId: string;
  readonly step: number;
  /** Aborted when the call times out or the run is cancelled. */
  readonly signal: AbortSignal;
}

/** What an executor returns; `evidence` is merged into the receipt (message id, hashes, exit code …). */
export interface ToolResult {
  readonly status: "ok" | "error";
  readonly output: JsonValue;
  readonly evidence?: Readonly<Record<string, JsonValue>>;
}

/**
 * A tool a run may call: zod input schema, risk kind, and an executor. A tool declared without
 * an executor is still offered (hosts may declare before they wire), and every call to it gets an
 * `error` / `tool_executor_missing` receipt without anything running.
 */
export interface ToolDefinition<Args = unknown> {
  readonly name: string;
  readonly description: string;
  readonly kind: ToolKind;
  readonly input: z.ZodType<Args>;
  readonly timeoutMs?: number;
  /** Failures of this effect become `error` / `tool_threw` receipts. */
  readonly execute?: (args: Args, context: ToolContext) => Effect.Effect<ToolResult, unknown>;
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every argument type
export type AnyToolDefinition = ToolDefinition<any>;

export function defineTool<Args>(definition: ToolDefinition<Args>): ToolDefinition<Args> {
  return definition;
}

/** Descriptors by definition: a tool's JSON Schema is derived once, not once per run. */
const descriptors = new WeakMap<AnyToolDefinition, ToolDescriptor>();

/** What the model is shown: name, description, kind and the JSON Schema of the zod input. */
export function describeTool(tool: AnyToolDefinition): ToolDescriptor {
  const known = descriptors.get(tool);
  if (known) return known;
  const descriptor: ToolDescriptor = {
    name: tool.name,
    description: tool.description,
    kind: tool.kind,
    inputSchema: z.toJSONSchema(tool.input, { unrepresentable: "any" }) as Record<string, unknown>,
  };
  descriptors.set(tool, descriptor);
  return descriptor;
}

/** Accepts any JSON object: for fixture tools whose arguments are not modelled. */
export const AnyObjectInput = z.record(z.string(), z.unknown());
