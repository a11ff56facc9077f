import { userInfo } from "node:os";
import { Effect, Either } from "effect";
import {
  type ApprovalScope,
  type HostApprovalDecision,
  type JsonValue,
  ApprovalScope as Scopes,
} from "../domain/index.js";
import { recordApprovalDecision } from "../persistence/approvals.js";
import * as Ledger from "../persistence/ledger.js";
import { CliFailure, type CliIO } from "./output.js";

/**
 * `agentloop approve RUN_ID CALL_ID` / `agentloop deny RUN_ID CALL_ID` (issue Q): a decision on a
 * call that waits for approval in a run another process drives. The decision is a ledger row
 * (`agent_approvals`); the driving runtime reads it at its next poll (every 250 ms by default)
 * and the call runs or is denied. Refusals are one line: no such waiting call, a decision
 * already made, the call settled, the run ended.
 */

export interface DecisionOptions {
  readonly db: string;
  /** Who decided (default `cli:<user>`). */
  readonly by?: string;
  readonly json?: boolean;
}

export interface ApproveOptions extends DecisionOptions {
  readonly scope?: string;
  /** Edited arguments, as JSON text. */
  readonly arguments?: string;
}

export interface DenyOptions extends DecisionOptions {
  readonly message?: string;
}

/** `cli:<user>` (or `cli` when the user cannot be read). */
export function cliDecider(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return "cli";
  }
}

const REFUSAL_TEXT: Record<string, string> = {
  decision_without_request: "no such call waits for approval",
  already_decided: "it has a decision already",
  call_already_settled: "the call has settled already",
  run_not_running: "the run has ended",
};

async function decide(
  io: CliIO,
  runId: string,
  callId: string,
  decision: HostApprovalDecision,
  options: DecisionOptions,
) {
  const verb = decision.decision === "approved" ? "approve" : "deny";
  const outcome = await Effect.runPromise(
    Effect.either(
      recordApprovalDecision(runId, callId, decision).pipe(
        Effect.provide(Ledger.layer({ filename: options.db, owner: false })),
      ),
    ),
  );
  if (Either.isLeft(outcome)) {
    const error = outcome.left as { reason?: string; message: string };
    throw new CliFailure(`cannot ${verb} ${callId} of ${runId}: ${REFUSAL_TEXT[error.reason ?? ""] ?? error.message}`);
  }
  if (options.json) io.out(JSON.stringify({ runId, callId, toolName: outcome.right.toolName, ...decision }));
  else io.out(`${decision.decision} ${callId} (${outcome.right.toolName}) of ${runId} as ${decision.decidedBy}`);
  return 0;
}

function parsedArguments(text: string | undefined): JsonValue | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new CliFailure(`--arguments is not JSON: ${(error as Error).message}`, 2);
  }
}

function scopeOf(text: string | undefined): ApprovalScope {
  const parsed = Scopes.safeParse(text ?? "once");
  if (!parsed.success) throw new CliFailure(`unknown scope "${text}": expected one of ${Scopes.options.join(", ")}`, 2);
  return parsed.data;
}

export function approveCommand(io: CliIO, runId: string, callId: string, options: ApproveOptions): Promise<number> {
  const edited = parsedArguments(options.arguments);
  return decide(
    io,
    runId,
    callId,
    {
      decision: "approved",
      scope: scopeOf(options.scope),
      ...(edited !== undefined ? { arguments: edited } : {}),
      decidedBy: options.by ?? cliDecider(),
      decidedAt: new Date().toISOString(),
    },
    options,
  );
}

export function denyCommand(io: CliIO, runId: string, callId: string, options: DenyOptions): Promise<number> {
  return decide(
    io,
    runId,
    callId,
    {
      decision: "denied",
      message: options.message ?? "",
      decidedBy: options.by ?? cliDecider(),
      decidedAt: new Date().toISOString(),
    },
    options,
  );
}
