import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import { decidedByProblem } from "../domain/index.js";
import * as Ledger from "../persistence/ledger.js";
import { closeUndrivenRun, requestCancel } from "../persistence/runCancellation.js";
import { cliDecider } from "./approvalCommands.js";
import { CliFailure, type CliIO, terminalText } from "./output.js";

/**
 * `agentloop cancel RUN_ID`: cancels a run driven by any process on the ledger. The request is a
 * ledger row that the driving runtime reads (at once on PostgreSQL, within its poll on SQLite); a
 * run nobody drives — still queued, or parked for approval with its runtime gone — is closed
 * `cancelled` here.
 */
export interface CancelOptions {
  readonly db: string;
  readonly by?: string | undefined;
  readonly json?: boolean | undefined;
}

const REFUSAL_TEXT: Record<string, string> = {
  invalid_payload: "no such run in the ledger",
  run_not_running: "the run has ended",
};

export async function cancelCommand(io: CliIO, runId: string, options: CancelOptions): Promise<number> {
  const problem = options.by === undefined ? undefined : decidedByProblem(options.by);
  if (problem) throw new CliFailure(`--by ${problem}`, 2);
  const requestedBy = options.by ?? cliDecider();
  const outcome = await Effect.runPromise(
    Effect.either(
      Effect.gen(function* () {
        const { queued } = yield* requestCancel({ runId, requestedBy, requestedAt: new Date().toISOString() });
        return { closed: yield* closeUndrivenRun(runId, requestedBy, queued) };
      }).pipe(Effect.provide(Ledger.layer({ filename: options.db, access: "write" }))),
    ),
  );
  if (Either.isLeft(outcome)) {
    const error = outcome.left;
    if (error._tag === "DatabaseError") throw new CliFailure(error.message);
    throw new CliFailure(`cannot cancel ${terminalText(runId)}: ${REFUSAL_TEXT[error.reason] ?? error.message}`);
  }
  const state = outcome.right.closed ? "cancelled" : "requested";
  if (options.json) io.out(JSON.stringify({ runId, state, requestedBy }));
  else if (state === "cancelled") io.out(`cancelled ${terminalText(runId)} (no runtime was driving it)`);
  else io.out(`asked the runtime driving ${terminalText(runId)} to cancel it`);
  return 0;
}
