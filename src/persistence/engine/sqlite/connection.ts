import * as Reactivity from "@effect/experimental/Reactivity";
import * as SqlClient from "@effect/sql/SqlClient";
import type { Connection } from "@effect/sql/SqlConnection";
import { SqlError } from "@effect/sql/SqlError";
import * as Statement from "@effect/sql/Statement";
import Sqlite from "better-sqlite3";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Scope from "effect/Scope";
import * as Stream from "effect/Stream";
import { WriteBatch, type WriteBatchRunner } from "../WriteBatch.js";

/**
 * The ledger's SQLite connection as an @effect/sql `SqlClient`: one better-sqlite3 connection,
 * one transaction at a time, each SQL text prepared once. It is @effect/sql-sqlite-node's client
 * with two changes, both for the ledger's write path, where a W10 step runs four statements:
 *
 * - prepared statements are kept in a plain Map (bounded, oldest out first) rather than in an
 *   Effect `Cache`, whose lookups are Effects of their own on every statement;
 * - its `WriteBatch` runs a write batch's statements synchronously — BEGIN, the statements, COMMIT — in
 *   one step of the calling fiber. Through SqlClient each statement opens a span, a scope and the
 *   connection's semaphore, and a transaction adds its own: ten times the cost of the inserts
 *   themselves. The batch is the same transaction either way: all of its rows or none.
 */

export interface SqliteConnectionOptions {
  readonly filename: string;
  readonly readonly?: boolean;
  /** Leaves the journal mode as the file has it (read-only connections). */
  readonly disableWAL?: boolean;
}

/** As many statement texts as @effect/sql-sqlite-node keeps by default. */
const STATEMENT_CACHE_SIZE = 200;

const failed = (message: string) => (cause: unknown) => new SqlError({ cause, message });

function statementCache(db: Sqlite.Database): (sql: string) => Sqlite.Statement {
  const cache = new Map<string, Sqlite.Statement>();
  return (sql) => {
    const cached = cache.get(sql);
    if (cached !== undefined) return cached;
    const statement = db.prepare(sql);
    if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    cache.set(sql, statement);
    return statement;
  };
}

const make = (options: SqliteConnectionOptions) =>
  Effect.gen(function* () {
    const db = yield* Effect.acquireRelease(
      Effect.sync(() => new Sqlite(options.filename, { readonly: options.readonly ?? false })),
      (opened) => Effect.sync(() => opened.close()),
    );
    if (options.disableWAL !== true) db.pragma("journal_mode = WAL");
    const prepare = statementCache(db);

    const run = (sql: string, params: ReadonlyArray<unknown>, raw: boolean): ReadonlyArray<object> => {
      const statement = prepare(sql);
      if (statement.reader) return statement.all(...params) as ReadonlyArray<object>;
      const result = statement.run(...params);
      return raw ? (result as unknown as ReadonlyArray<object>) : [];
    };
    const execute = (sql: string, params: ReadonlyArray<unknown>, raw: boolean) =>
      Effect.try({ try: () => run(sql, params, raw), catch: failed("Failed to execute statement") });

    const connection: Connection = {
      execute: (sql, params, transformRows) =>
        transformRows ? Effect.map(execute(sql, params, false), transformRows) : execute(sql, params, false),
      executeRaw: (sql, params) => execute(sql, params, true),
      executeUnprepared: (sql, params, transformRows) => {
        const rows = Effect.try({
          try: () => {
            const statement = db.prepare(sql);
            if (statement.reader) return statement.all(...(params ?? [])) as ReadonlyArray<object>;
            statement.run(...(params ?? []));
            return [];
          },
          catch: failed("Failed to execute statement"),
        });
        return transformRows ? Effect.map(rows, transformRows) : rows;
      },
      executeValues: (sql, params) =>
        Effect.try({
          try: () => {
            const statement = prepare(sql);
            if (!statement.reader) {
              statement.run(...params);
              return [];
            }
            statement.raw(true);
            try {
              return statement.all(...params) as ReadonlyArray<ReadonlyArray<unknown>>;
            } finally {
              statement.raw(false);
            }
          },
          catch: failed("Failed to execute statement"),
        }),
      // Read in one step, then streamed: an open better-sqlite3 iterator keeps the connection busy,
      // and other fibers share this connection between the stream's pulls.
      executeStream: (sql, params, transformRows) =>
        Stream.flattenIterables(
          Stream.fromEffect(
            transformRows ? Effect.map(execute(sql, params, false), transformRows) : execute(sql, params, false),
          ),
        ),
    };

    // One connection, one transaction at a time: a SqlClient transaction holds the permit until it
    // ends; a plain statement only waits for it.
    const semaphore = yield* Effect.makeSemaphore(1);
    const acquirer = semaphore.withPermits(1)(Effect.succeed(connection));
    const transactionAcquirer = Effect.uninterruptibleMask((restore) =>
      Effect.as(
        Effect.zipRight(
          restore(semaphore.take(1)),
          Effect.tap(Effect.scope, (scope) => Scope.addFinalizer(scope, semaphore.release(1))),
        ),
        connection,
      ),
    );
    const client = yield* SqlClient.make({
      acquirer,
      transactionAcquirer,
      compiler: Statement.makeCompilerSqlite(),
      spanAttributes: [["db.system.name", "sqlite"]],
    });

    const begin = prepare("BEGIN");
    const commit = prepare("COMMIT");
    const rollback = prepare("ROLLBACK");
    const runCompiled = (compiled: ReadonlyArray<readonly [string, ReadonlyArray<unknown>]>) => {
      if (compiled.length === 1) {
        run(compiled[0]![0], compiled[0]![1], false);
        return;
      }
      begin.run();
      try {
        for (const [text, params] of compiled) run(text, params, false);
        commit.run();
      } catch (cause) {
        // A failed COMMIT may have ended the transaction already.
        if (db.inTransaction) rollback.run();
        throw cause;
      }
    };
    const runNow = (statements: ReadonlyArray<Statement.Statement<unknown>>) =>
      Effect.try({
        try: () => runCompiled(statements.map((statement) => statement.compile())),
        catch: failed("Failed to execute statement"),
      });
    // While another fiber's transaction is open, a batch waits for its end.
    const runBatch: WriteBatchRunner["runBatch"] = (statements, orElse) =>
      Effect.withFiberRuntime((fiber) => {
        // Inside the fiber's own transaction (nested as a savepoint there), or with a statement
        // transformer installed (which sees each statement as SqlClient runs it): SqlClient's path.
        if (
          Context.getOption(fiber.currentContext, SqlClient.TransactionConnection)._tag === "Some" ||
          fiber.getFiberRef(Statement.currentTransformer)._tag === "Some"
        ) {
          return orElse;
        }
        // No transaction open on the connection: nothing can come between the statements of a
        // batch that runs in one synchronous step.
        return db.inTransaction ? semaphore.withPermits(1)(runNow(statements)) : runNow(statements);
      });

    return Context.make(SqlClient.SqlClient, client).pipe(Context.add(WriteBatch, { runBatch }));
  });

/** SqlClient and WriteBatch over one connection to `filename` (a file or `:memory:`). */
export const layer = (options: SqliteConnectionOptions): Layer.Layer<SqlClient.SqlClient | WriteBatch> =>
  Layer.scopedContext(make(options)).pipe(Layer.provide(Reactivity.layer));
