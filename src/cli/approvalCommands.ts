import { userInfo } from "node:os";
import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import {
  type ApprovalScope,
  DECISION_MESSAGE_MAX_LENGTH,
  decidedByProblem,
  editedArgumentsProblem,
  HostApprovalDecision,
  type JsonValue,
  ApprovalScope as Scopes,
} from "../domain/index.js";
import { recordApprovalDecision } from "../persistence/approvals.js";
import * as Ledger from "../persistence/ledger.js";
import { CliFailure, type CliIO, terminalText } from "./output.js";

/**
 * `agentloop approve RUN_ID CALL_ID` / `agentloop deny RUN_ID CALL_ID`: a decision on a
 * call that waits for approval in a run another process drives. The decision is a ledger row
 * (`agent_approvals`); the driving runtime reads it at its next poll (every 250 ms by default)
 * and the call runs or is denied. Refusals are one line: no such waiting call, a decision
 * already made, the call settled, the run ended. Flags are checked before the ledger is opened
 * (exit 2, nothing written), and a missing ledger file is named rather than created.
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
    return `cli:${terminalText(userInfo().username)}`;
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

async function decide(io: CliIO, runId: string, callId: string, input: HostApprovalDecision, options: DecisionOptions) {
  const verb = input.decision === "approved" ? "approve" : "deny";
  // The same check the ledger makes, here before it is opened: a refused decision touches no file.
  const checked = HostApprovalDecision.safeParse(input);
  if (!checked.success) throw new CliFailure(`cannot ${verb}: ${checked.error.issues[0]?.message ?? "?"}`, 2);
  const decision = checked.data;
  // `write`: a ledger file that does not exist is named, not created.
  const outcome = await Effect.runPromise(
    Effect.either(
      recordApprovalDecision(runId, callId, decision).pipe(
        Effect.provide(Ledger.layer({ filename: options.db, access: "write", owner: false })),
      ),
    ),
  );
  if (Either.isLeft(outcome)) {
    const error = outcome.left;
    // A ledger that cannot be opened says so as every command does; a refusal names the call.
    if (error._tag === "DatabaseError") throw new CliFailure(error.message);
    throw new CliFailure(
      `cannot ${verb} ${terminalText(callId)} of ${terminalText(runId)}: ${REFUSAL_TEXT[error.reason ?? ""] ?? error.message}`,
    );
  }
  const toolName = outcome.right.toolName;
  if (options.json) io.out(JSON.stringify({ runId, callId, toolName, ...decision }));
  else {
    io.out(
      `${decision.decision} ${terminalText(callId)} (${terminalText(toolName)}) of ${terminalText(runId)} as ${terminalText(decision.decidedBy)}`,
    );
  }
  return 0;
}

/** `--arguments`: JSON within the limits of edited arguments (exit 2 otherwise, before anything is opened). */
function parsedArguments(text: string | undefined): JsonValue | undefined {
  if (text === undefined) return undefined;
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new CliFailure(`--arguments is not JSON: ${(error as Error).message}`, 2);
  }
  const problem = editedArgumentsProblem(value);
  if (problem) throw new CliFailure(`--arguments ${problem}`, 2);
  return value;
}

/** `--by`: a name a terminal can show as it is (exit 2 otherwise). */
function deciderOf(name: string | undefined): string {
  if (name === undefined) return cliDecider();
  const problem = decidedByProblem(name);
  if (problem) throw new CliFailure(`--by ${problem}`, 2);
  return name;
}

function messageOf(text: string | undefined): string {
  if (text !== undefined && text.length > DECISION_MESSAGE_MAX_LENGTH) {
    throw new CliFailure(`--message is longer than ${DECISION_MESSAGE_MAX_LENGTH} characters`, 2);
  }
  return text ?? "";
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
      decidedBy: deciderOf(options.by),
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
      message: messageOf(options.message),
      decidedBy: deciderOf(options.by),
      decidedAt: new Date().toISOString(),
    },
    options,
  );
}
