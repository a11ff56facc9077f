import * as PgClient from "@effect/sql-pg/PgClient";
import { Effect, Layer, Stream } from "effect";
import { APPROVAL_DECIDED_CHANNEL } from "../../approvals.js";
import type { DatabaseError } from "../../database.js";
import { LedgerSignals, OWNER_ENDED_CHANNEL } from "../../ledgerSignals.js";
import { RUN_CANCEL_CHANNEL } from "../../runCancellation.js";
import { installJobs, serveRunJobs } from "./jobs.js";

/**
 * LISTEN on its own connection (a lost connection ends the stream quietly: polling goes on), and
 * the run queue's jobs. The job system's schema is installed before the first run is queued, so
 * `enqueueRun` can add a job in the transaction that queues its run.
 */
export const layer = (options: {
  readonly url: string;
  readonly readonly?: boolean | undefined;
}): Layer.Layer<LedgerSignals, DatabaseError, PgClient.PgClient> =>
  Layer.effect(
    LedgerSignals,
    Effect.gen(function* () {
      const client = yield* PgClient.PgClient;
      return {
        ownerEnded: client.listen(OWNER_ENDED_CHANNEL).pipe(Stream.catchAll(() => Stream.empty)),
        cancelRequested: client.listen(RUN_CANCEL_CHANNEL).pipe(Stream.catchAll(() => Stream.empty)),
        approvalDecided: client.listen(APPROVAL_DECIDED_CHANNEL).pipe(Stream.catchAll(() => Stream.empty)),
        serveRunJobs: serveRunJobs(options.url),
        prepareRunJobs: yield* Effect.cached(installJobs(options.url)),
      };
    }),
  );
