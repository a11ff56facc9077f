import { errorText } from "../../domain/errorText.js";
import type { CallDisposition, PlannedCall, ToolCall } from "../../domain/index.js";
import { redactText } from "../../persistence/payloadHygiene.js";
import { mayHoldSecretText } from "../../persistence/secretPatterns.js";
import { inputFingerprint, sha256 } from "./fingerprint.js";
import { type AnyToolDefinition, type ArgumentCheck, checkToolArguments } from "./Tool.js";

export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;

export interface CallPlannerOptions {
  readonly tools: ReadonlyMap<string, AnyToolDefinition>;
  /** Names the run may call; a call to any other declared tool gets `tool_not_allowed`. */
  readonly allowed: ReadonlySet<string>;
  readonly defaultTimeoutMs: number;
  /** Call ids already used in this run: a repeated id is made unique so the ledger pairing holds. */
  readonly usedCallIds: Set<string>;
  /** Why a runnable call must wait for approval first, or undefined. */
  readonly approvalFor?: ((call: ToolCall, tool: AnyToolDefinition) => PlannedCall["approval"]) | undefined;
}

/** A validator that throws is the host's defect; the call is refused, the run goes on. */
export function checkArgumentsSafely(tool: AnyToolDefinition, args: unknown): ArgumentCheck | Promise<ArgumentCheck> {
  try {
    return checkToolArguments(tool, args);
  } catch (error) {
    return {
      ok: false,
      problem: `the tool's validator threw: ${errorText(error)}`,
    };
  }
}

/** Call ids and tool names the runtime keeps as they are: a short, plain charset. */
const USABLE = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * Whether a model-given id or name can be kept: the plain charset, at most 64 characters, and
 * nothing the ledger's redaction would rewrite (a key-shaped id would be stored redacted in the
 * tool_call row but not in its receipt, and the pairing would break).
 */
export function isUsableIdentifier(value: string): boolean {
  // Text without a secret hint is text no redaction rule rewrites: the rules need not run.
  return USABLE.test(value) && (!mayHoldSecretText(value) || redactText(value) === value);
}

/**
 * A deterministic replacement for an unusable call id: `call_` and the start of the original's
 * sha256 (so the same bad id always maps to the same replacement; repeats are numbered after).
 */
export function replacementCallId(original: string): string {
  return `call_${sha256(original).slice(0, 24)}`;
}

/**
 * A usable stand-in for an unusable tool name: its plain characters (at most 40) and the start
 * of the original's sha256. It never names a declared tool, so the call is an `unknown_tool`.
 */
export function sanitizedToolName(original: string): string {
  const plain = redactText(original)
    .replace(/[^A-Za-z0-9_]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 40);
  return `invalid_${plain ? `${plain}_` : ""}${sha256(original).slice(0, 12)}`;
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
    const idUsable = isUsableIdentifier(raw.id);
    // A name the host declared is its own choice; only a model-invented one must be usable.
    const nameUsable = options.tools.has(raw.name) || isUsableIdentifier(raw.name);
    const call: ToolCall = {
      ...raw,
      id: uniqueCallId(idUsable ? raw.id : replacementCallId(raw.id), options.usedCallIds),
      name: nameUsable ? raw.name : sanitizedToolName(raw.name),
    };
    const originalIdHash = idUsable ? undefined : sha256(raw.id);
    const tool = nameUsable ? options.tools.get(call.name) : undefined;
    const fingerprint = inputFingerprint(call.name, call.arguments);
    const timeoutMs = tool?.timeoutMs ?? options.defaultTimeoutMs;
    const plan = (disposition: CallDisposition, problem?: string): PlannedCall => ({
      call,
      disposition,
      inputFingerprint: fingerprint,
      timeoutMs,
      ...(problem ? { problem } : {}),
      ...(originalIdHash ? { originalIdHash } : {}),
    });
    if (!nameUsable) return plan("unknown_tool", `there is no tool named ${call.name} (the name was not usable)`);
    if (!tool) return plan("unknown_tool", `there is no tool named ${call.name}`);
    if (!options.allowed.has(call.name)) return plan("not_allowed", `${call.name} is not allowed in this run`);
    if (!tool.execute) return plan("executor_missing", `${call.name} has no executor`);
    if (typeof call.arguments === "string") return plan("invalid_arguments", "arguments are not valid JSON");
    const check = checkArgumentsSafely(tool, call.arguments);
    // An asynchronous validator answers when the call runs (an `invalid_arguments` receipt then).
    if (!(check instanceof Promise) && !check.ok) return plan("invalid_arguments", check.problem);
    const approval = options.approvalFor?.(call, tool);
    return approval ? { ...plan("run"), approval } : plan("run");
  });
}
