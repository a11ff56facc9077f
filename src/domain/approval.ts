import { z } from "zod";
import { errorText } from "./errorText.js";
import { JsonValue, nestedDeeperThan } from "./json.js";
import { controlCharacterIn } from "./printable.js";

/**
 * Approval of tool calls: a call that needs approval waits for a decision before it
 * runs. Decisions come from the host (`run.approve` / `run.deny`), from another process through the
 * ledger (`agentloop approve`), or from the run itself (`expired`, `cancelled`).
 */

/** How far an approval reaches: this call, every call of the tool in this run, or in this session. */
export const ApprovalScope = z.enum(["once", "run", "session"]);
export type ApprovalScope = z.infer<typeof ApprovalScope>;

/**
 * Limits of a decision, so that its ledger row holds it whole and the waiting run (in this process
 * or another) applies exactly what was decided. A decision over a limit is refused before anything
 * is written.
 */
/** Edited arguments: at most this many bytes of JSON (UTF-8)… */
export const EDITED_ARGUMENTS_MAX_BYTES = 256 * 1024;
/** …nested at most this deep (`{"a":[1]}` is 2). */
export const EDITED_ARGUMENTS_MAX_DEPTH = 64;
/** Who decided: a name of at most this many characters, without control characters. */
export const DECIDED_BY_MAX_LENGTH = 200;
/** A denial's message to the model: at most this many characters. */
export const DECISION_MESSAGE_MAX_LENGTH = 4096;

/** Why edited arguments cannot be taken (too deep, too large, not JSON), or undefined. */
export function editedArgumentsProblem(value: unknown): string | undefined {
  if (nestedDeeperThan(value, EDITED_ARGUMENTS_MAX_DEPTH)) {
    return `nest deeper than ${EDITED_ARGUMENTS_MAX_DEPTH} levels, the limit for edited arguments`;
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    return `are not JSON: ${errorText(error)}`;
  }
  if (json === undefined) return "are not JSON";
  const bytes = new TextEncoder().encode(json).length;
  return bytes > EDITED_ARGUMENTS_MAX_BYTES
    ? `are ${bytes} bytes of JSON, over the limit of ${EDITED_ARGUMENTS_MAX_BYTES} bytes for edited arguments`
    : undefined;
}

/** Why a name cannot stand for who decided (empty, too long, a control character), or undefined. */
export function decidedByProblem(name: string): string | undefined {
  if (name.length === 0) return "is empty";
  if (name.length > DECIDED_BY_MAX_LENGTH) return `is longer than ${DECIDED_BY_MAX_LENGTH} characters`;
  const control = controlCharacterIn(name);
  return control ? `holds the control character ${control}` : undefined;
}

const EditedArguments = z
  .unknown()
  .superRefine((value, context) => {
    const problem = editedArgumentsProblem(value);
    if (problem) context.addIssue({ code: "custom", message: `the edited arguments ${problem}` });
  })
  .pipe(JsonValue);

const DecidedBy = z.string().superRefine((name, context) => {
  const problem = decidedByProblem(name);
  if (problem) context.addIssue({ code: "custom", message: `decidedBy ${problem}` });
});

/** A decision a person (or a host policy) makes; `decidedBy` names who, e.g. "host" or "cli:alice". */
export const HostApprovalDecision = z.discriminatedUnion("decision", [
  z.strictObject({
    decision: z.literal("approved"),
    scope: ApprovalScope,
    /** Edited arguments: the call runs with these, validated again by the tool's schema. */
    arguments: EditedArguments.optional(),
    decidedBy: DecidedBy,
    decidedAt: z.string(),
  }),
  z.strictObject({
    decision: z.literal("denied"),
    message: z.string().max(DECISION_MESSAGE_MAX_LENGTH),
    decidedBy: DecidedBy,
    decidedAt: z.string(),
  }),
]);
export type HostApprovalDecision = z.infer<typeof HostApprovalDecision>;

/** How a call's wait for approval ended: a host decision, or one the run made itself. */
export type ApprovalOutcome =
  | HostApprovalDecision
  | { readonly decision: "expired"; readonly timeoutMs: number; readonly decidedBy: "runtime" }
  | { readonly decision: "cancelled"; readonly decidedBy: "runtime" };

export interface ApprovalRequest {
  readonly runId: string;
  readonly step: number;
  readonly callId: string;
  readonly toolName: string;
  readonly arguments: JsonValue | string;
  readonly reason: string;
}

/** A call's approval as the ledger holds it (`agent_approvals`). */
export interface ApprovalRecord {
  readonly runId: string;
  readonly callId: string;
  readonly toolName: string;
  readonly step: number;
  readonly reason: string;
  readonly arguments: JsonValue | string;
  /** How long the call may wait, from `requestedAt`. */
  readonly timeoutMs: number;
  readonly requestedAt: string;
  readonly decision: HostApprovalDecision | null;
}
