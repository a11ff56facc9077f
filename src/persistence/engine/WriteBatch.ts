import type * as SqlError from "@effect/sql/SqlError";
import type { Statement } from "@effect/sql/Statement";
import * as Context from "effect/Context";
import type * as Effect from "effect/Effect";

/**
 * An engine's faster way to run one of the ledger writer's batches than SqlClient's statement by
 * statement path, where it has one (SQLite: the whole transaction in one synchronous step). The
 * writer uses it when the engine's layer provides it; the rows, the transaction and the errors
 * are the same either way.
 */
export interface WriteBatchRunner {
  /**
   * Runs statements built with the engine's SqlClient in order, as one transaction when there are
   * several (one statement is a transaction already), or `orElse` where it cannot do so itself:
   * inside the calling fiber's own SqlClient transaction (where the batch nests as
   * `withTransaction` nests it), or where SqlClient must see each statement run.
   */
  readonly runBatch: <E>(
    statements: ReadonlyArray<Statement<unknown>>,
    orElse: Effect.Effect<void, E>,
  ) => Effect.Effect<void, SqlError.SqlError | E>;
}

export class WriteBatch extends Context.Tag("agentloop/WriteBatch")<WriteBatch, WriteBatchRunner>() {}
