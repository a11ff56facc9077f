import { errorText } from "../../domain/errorText.js";
import type { JsonValue, ToolCall, ToolKind } from "../../domain/index.js";
import type { AnyToolDefinition } from "./Tool.js";

/**
 * Which calls need approval before they run: a tool that says so itself
 * (`requiresApproval`), or the run's policy — by kind, by name, or by a host function of the
 * call's arguments. A tool approved for the run or the session no longer asks.
 */
export interface ApprovalPolicy {
  /** Every call of tools of these kinds needs approval. */
  readonly kinds?: ReadonlyArray<ToolKind> | undefined;
  /** Every call of these tools needs approval. */
  readonly tools?: ReadonlyArray<string> | undefined;
  /** Decides per call: `true` or a reason string asks for approval, `false`/undefined does not. */
  readonly when?:
    | ((call: {
        readonly toolName: string;
        readonly kind: ToolKind;
        readonly arguments: JsonValue | string;
      }) => boolean | string | undefined)
    | undefined;
  /** How long a call may wait for a decision before it is `expired` (default 10 minutes). */
  readonly timeoutMs?: number | undefined;
}

export const DEFAULT_APPROVAL_TIMEOUT_MS = 10 * 60_000;

/** How often a waiting run reads the ledger for decisions made by other processes. */
export const DEFAULT_APPROVAL_POLL_MS = 250;

/** Why `call` needs approval, or undefined when it may run without. A `when` that throws asks (fails closed). */
export function approvalReason(
  call: ToolCall,
  tool: AnyToolDefinition,
  policy: ApprovalPolicy | undefined,
  granted: (toolName: string) => boolean,
): string | undefined {
  if (granted(call.name)) return undefined;
  if (tool.requiresApproval) {
    return typeof tool.requiresApproval === "string" ? tool.requiresApproval : `${call.name} requires approval`;
  }
  if (!policy) return undefined;
  if (policy.tools?.includes(call.name)) return `the run's policy asks approval for ${call.name}`;
  if (policy.kinds?.includes(tool.kind)) return `the run's policy asks approval for ${tool.kind} tools`;
  if (!policy.when) return undefined;
  try {
    const verdict = policy.when({ toolName: call.name, kind: tool.kind, arguments: call.arguments });
    if (verdict === true) return `the run's policy asks approval for this ${call.name} call`;
    return typeof verdict === "string" && verdict.length > 0 ? verdict : undefined;
  } catch (error) {
    return `the approval policy threw (${errorText(error)}), so the call waits`;
  }
}
