import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Option from "effect/Option";
import * as Stream from "effect/Stream";
import { APPROVAL_DECIDED_CHANNEL } from "../../approvals.js";
import type { DatabaseError } from "../../database.js";
import { type LedgerAppended, LedgerSignals, OWNER_ENDED_CHANNEL } from "../../ledgerSignals.js";
import { LEDGER_APPENDED_CHANNEL } from "../../migrations/0013_wake_ups.js";
import { RUN_CANCEL_CHANNEL } from "../../runCancellation.js";
import { installJobs, serveExpiryJobs, serveRunJobs } from "./jobs.js";
import { makeListener } from "./listener.js";

/** The trigger's payload (`{"runId": …, "sequence": …}`); none for anything else. */
const appended = (payload: string): Option.Option<LedgerAppended> => {
  try {
    const value = JSON.parse(payload) as { runId?: unknown; sequence?: unknown };
    return typeof value.runId === "string" && typeof value.sequence === "number"
      ? Option.some({ runId: value.runId, sequence: value.sequence })
      : Option.none();
  } catch {
    return Option.none();
  }
};

/**
 * LISTEN on one connection of its own for every channel (opened again when lost, see listener.ts),
 * and the job system: the run queue's jobs and the expiry jobs. The job system's schema is
 * installed before the first run is queued or the first supervisor serves expiries, so a job can
 * be added in the transaction that calls for it.
 */
export const layer = (options: {
  readonly url: string;
  readonly readonly?: boolean | undefined;
}): Layer.Layer<LedgerSignals, DatabaseError> =>
  Layer.scoped(
    LedgerSignals,
    Effect.gen(function* () {
      const listener = yield* makeListener(options.url, [
        OWNER_ENDED_CHANNEL,
        RUN_CANCEL_CHANNEL,
        APPROVAL_DECIDED_CHANNEL,
        LEDGER_APPENDED_CHANNEL,
      ]);
      const prepareRunJobs = yield* Effect.cached(installJobs(options.url));
      return {
        ownerEnded: listener.listen(OWNER_ENDED_CHANNEL),
        cancelRequested: listener.listen(RUN_CANCEL_CHANNEL),
        approvalDecided: listener.listen(APPROVAL_DECIDED_CHANNEL),
        listening: listener.connections,
        ledgerAppended: listener.listen(LEDGER_APPENDED_CHANNEL).pipe(Stream.filterMap(appended)),
        serveExpiryJobs: serveExpiryJobs(options.url, prepareRunJobs),
        serveRunJobs: serveRunJobs(options.url),
        prepareRunJobs,
      };
    }),
  );
