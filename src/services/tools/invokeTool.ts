import * as Effect from "effect/Effect";
import type { JsonValue } from "../../domain/index.js";
import { checkArgumentsSafely } from "./callPlanner.js";
import type { AnyToolDefinition, ToolContext, ToolResult } from "./Tool.js";

/** A tool's result as the runtime keeps it: what the tool returned, read as the JSON it writes to. */
export interface ReceivedToolResult {
  readonly status: ToolResult["status"];
  readonly output: JsonValue;
  readonly evidence?: Readonly<Record<string, JsonValue>> | undefined;
}

/** What one executor run produced: its result, or arguments an asynchronous validator refused. */
export type ToolInvocation =
  | { readonly kind: "result"; readonly result: ReceivedToolResult }
  | { readonly kind: "invalid_arguments"; readonly problem: string };

/** A host's async function may resolve to anything; only a well-formed result becomes a receipt's output. */
function wellFormed(result: unknown): ReceivedToolResult {
  const candidate = result as Partial<ToolResult> | null | undefined;
  if (candidate === null || typeof candidate !== "object") {
    throw new Error(`the tool returned ${candidate === null ? "null" : typeof candidate}, not { status, output }`);
  }
  if (candidate.status !== "ok" && candidate.status !== "error") {
    throw new Error(`the tool returned status ${JSON.stringify(candidate.status)}; expected "ok" or "error"`);
  }
  if (candidate.output === undefined) throw new Error("the tool returned no output");
  if (candidate.evidence !== undefined && (typeof candidate.evidence !== "object" || candidate.evidence === null)) {
    throw new Error("the tool returned evidence that is not an object");
  }
  return candidate as ReceivedToolResult;
}

/**
 * Validates the arguments and runs the executor, whether it returns an Effect or a Promise: both
 * forms fail the same way (a failure, rejection or throw is the caller's `tool_threw`), and both
 * are interrupted the same way (the fiber stops waiting; `context.signal` tells the tool).
 */
export const invokeTool = (
  tool: AnyToolDefinition,
  rawArguments: unknown,
  context: ToolContext,
): Effect.Effect<ToolInvocation, unknown> =>
  Effect.gen(function* () {
    const pending = checkArgumentsSafely(tool, rawArguments);
    const check =
      pending instanceof Promise ? yield* Effect.tryPromise({ try: () => pending, catch: (error) => error }) : pending;
    if (!check.ok) return { kind: "invalid_arguments", problem: check.problem } as const;
    const execution = tool.execute!(check.value, context);
    const result = Effect.isEffect(execution)
      ? yield* execution
      : yield* Effect.tryPromise({ try: () => Promise.resolve(execution), catch: (error) => error });
    return { kind: "result", result: wellFormed(result) } as const;
  });
