import type { CallDisposition, PlannedCall, ToolCall } from "../../domain/index.js";
import { inputFingerprint } from "./fingerprint.js";
import type { AnyToolDefinition } from "./Tool.js";

export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;

export interface CallPlannerOptions {
  readonly tools: ReadonlyMap<string, AnyToolDefinition>;
  /** Names the run may call; a call to any other declared tool gets `tool_not_allowed`. */
  readonly allowed: ReadonlySet<string>;
  readonly defaultTimeoutMs: number;
  /** Call ids already used in this run: a repeated id is made unique so the ledger pairing holds. */
  readonly usedCallIds: Set<string>;
}

function firstIssue(error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> }): string {
  const issue = error.issues[0];
  if (!issue) return "arguments do not match the tool's schema";
  const path = issue.path.length > 0 ? issue.path.map(String).join(".") : "arguments";
  return `${path}: ${issue.message}`;
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
    const parsed = tool.input.safeParse(call.arguments);
    if (!parsed.success) return plan("invalid_arguments", firstIssue(parsed.error));
    return plan("run");
  });
}
