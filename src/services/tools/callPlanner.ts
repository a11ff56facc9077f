import type { CallDisposition, PlannedCall, ToolCall } from "../../domain/index.js";
import { inputFingerprint } from "./fingerprint.js";
import { type AnyToolDefinition, type ArgumentCheck, checkToolArguments } from "./Tool.js";

export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;

export interface CallPlannerOptions {
  readonly tools: ReadonlyMap<string, AnyToolDefinition>;
  /** Names the run may call; a call to any other declared tool gets `tool_not_allowed`. */
  readonly allowed: ReadonlySet<string>;
  readonly defaultTimeoutMs: number;
  /** Call ids already used in this run: a repeated id is made unique so the ledger pairing holds. */
  readonly usedCallIds: Set<string>;
}

/** A validator that throws is the host's defect; the call is refused, the run goes on. */
export function checkArgumentsSafely(tool: AnyToolDefinition, args: unknown): ArgumentCheck | Promise<ArgumentCheck> {
  try {
    return checkToolArguments(tool, args);
  } catch (error) {
    return {
      ok: false,
      problem: `the tool's validator threw: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

function uniqueCallId(id: string, used: Set<string>): string {
  let candidate = id;
  // `_n`, not another separator: Anthropic accepts only [a-zA-Z0-9_-] in tool_use ids.
  for (let n = 2; used.has(candidate); n++) candidate = `${id}_${n}`;
  used.add(candidate);
  return candidate;
}

/**
 * Decides, before anything runs, what happens to each parsed call: run it, or settle it at once
 * as an error naming why (unknown tool, not allowed, no executor, invalid arguments).
 */
export function planCalls(calls: ReadonlyArray<ToolCall>, options: CallPlannerOptions): PlannedCall[] {
  return calls.map((raw) => {
    const call: ToolCall = { ...raw, id: uniqueCallId(raw.id, options.usedCallIds) };
    const tool = options.tools.get(call.name);
    const fingerprint = inputFingerprint(call.name, call.arguments);
    const timeoutMs = tool?.timeoutMs ?? options.defaultTimeoutMs;
    const plan = (disposition: CallDisposition, problem?: string): PlannedCall => ({
      call,
      disposition,
      inputFingerprint: fingerprint,
      timeoutMs,
      ...(problem ? { problem } : {}),
    });
    if (!tool) return plan("unknown_tool", `there is no tool named ${call.name}`);
    if (!options.allowed.has(call.name)) return plan("not_allowed", `${call.name} is not allowed in this run`);
    if (!tool.execute) return plan("executor_missing", `${call.name} has no executor`);
    if (typeof call.arguments === "string") return plan("invalid_arguments", "arguments are not valid JSON");
    const check = checkArgumentsSafely(tool, call.arguments);
    // An asynchronous validator answers when the call runs (an `invalid_arguments` receipt then).
    if (!(check instanceof Promise) && !check.ok) return plan("invalid_arguments", check.problem);
    return plan("run");
  });
}
