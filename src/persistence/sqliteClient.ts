import * as Reactivity from "@effect/experimental/Reactivity";
import { SqlClient, SqlError, Statement } from "@effect/sql";
import type { Connection } from "@effect/sql/SqlConnection";
import Sqlite from "better-sqlite3";
import { Context, Effect, Layer, Option, Scope } from "effect";

/**
 * agentloop's SQLite client: @effect/sql's `SqlClient` over one better-sqlite3 connection, and
 * `SqliteConnection` — synchronous work on that same connection. better-sqlite3 is synchronous,
 * so a write batch wrapped in `db.transaction` is BEGIN … COMMIT inside one JavaScript call: no
 * fiber, scope or statement compilation per transaction, which is what the ledger's hot path
 * needs (one transaction per step). Sharing the connection (instead of a second one) keeps
 * `:memory:` databases working and rules out two connections of one process waiting on each
 * other's write lock.
 */

export interface SqliteConnectionShape {
  readonly db: Sqlite.Database;
  /** A statement prepared once per SQL text (a bounded cache). */
  readonly prepare: (sql: string) => Sqlite.Statement;
  /**
   * Runs `work` synchronously on the connection. When another fiber's SqlClient transaction is open
   * on it (its BEGIN ran and an Effect is between statements), waits for that transaction to end
   * first, so the work never joins someone else's transaction; inside the caller's own SqlClient
   * transaction it joins that one.
   */
  readonly exclusive: <A>(work: (db: Sqlite.Database) => A) => Effect.Effect<A, SqlError.SqlError>;
}

export class SqliteConnection extends Context.Tag("agentloop/SqliteConnection")<
  SqliteConnection,
  SqliteConnectionShape
>() {}

export interface SqliteClientOptions {
  readonly filename: string;
  readonly readonly?: boolean;
}

const STATEMENT_CACHE_SIZE = 256;

const failure = (message: string) => (cause: unknown) => new SqlError.SqlError({ cause, message });

function statementCache(db: Sqlite.Database): (sql: string) => Sqlite.Statement {
  const cache = new Map<string, Sqlite.Statement>();
  return (sql) => {
    const cached = cache.get(sql);
    if (cached) return cached;
    const statement = db.prepare(sql);
    if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    cache.set(sql, statement);
    return statement;
  };
}

const make = (options: SqliteClientOptions) =>
  Effect.gen(function* () {
    const db = yield* Effect.acquireRelease(
      Effect.try({
        try: () => new Sqlite(options.filename, { readonly: options.readonly ?? false }),
        catch: failure(`cannot open ${options.filename}`),
      }),
      (opened) => Effect.sync(() => opened.close()),
    );
    yield* Effect.try({
      try: () => {
        if (!options.readonly) db.pragma("journal_mode = WAL");
        db.pragma("synchronous = NORMAL");
        db.pragma("foreign_keys = ON");
        db.pragma("busy_timeout = 5000");
      },
      catch: failure(`cannot configure ${options.filename}`),
    });
    const prepare = statementCache(db);

    const execute = (sql: string, params: ReadonlyArray<unknown>, raw: boolean) =>
      Effect.try({
        try: () => {
          const statement = prepare(sql);
          if (statement.reader) return statement.all(...params);
          const result = statement.run(...params);
          return raw ? result : [];
        },
        catch: failure("Failed to execute statement"),
      });

    const connection: Connection = {
      execute: (sql, params, transformRows) => {
        const rows = execute(sql, params, false) as Effect.Effect<ReadonlyArray<object>, SqlError.SqlError>;
        return transformRows ? Effect.map(rows, transformRows) : rows;
      },
      executeRaw: (sql, params) => execute(sql, params, true),
      executeUnprepared: (sql, params, transformRows) => {
        const rows = execute(sql, params ?? [], false) as Effect.Effect<ReadonlyArray<object>, SqlError.SqlError>;
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
          catch: failure("Failed to execute statement"),
        }),
      executeStream: () => Effect.dieMessage("executeStream is not supported by agentloop's SQLite client") as never,
    };

    // One connection, one transaction at a time: SqlClient transactions hold the permit until
    // they end; plain queries only pass through it.
    const lock = yield* Effect.makeSemaphore(1);
    const acquirer = lock.withPermits(1)(Effect.succeed(connection));
    const transactionAcquirer = Effect.uninterruptibleMask((restore) =>
      Effect.as(
        Effect.zipRight(
          restore(lock.take(1)),
          Effect.tap(Effect.scope, (scope) => Scope.addFinalizer(scope, lock.release(1))),
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

    const runWork = <A>(work: (db: Sqlite.Database) => A) =>
      Effect.try({ try: () => work(db), catch: failure("Failed to execute statement") });
    // Inside a SqlClient transaction of its own fiber the work joins it (better-sqlite3 nests it as
    // a savepoint); waiting for that transaction's lock there would wait forever.
    const exclusive: SqliteConnectionShape["exclusive"] = (work) =>
      Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (transaction) =>
        Option.isSome(transaction) || !db.inTransaction ? runWork(work) : lock.withPermits(1)(runWork(work)),
      );

    return Context.make(SqlClient.SqlClient, client).pipe(
      Context.add(SqliteConnection, SqliteConnection.of({ db, prepare, exclusive })),
    );
  });

/** SqlClient + SqliteConnection over one connection: WAL, synchronous NORMAL, foreign keys on. */
export const sqliteClientLayer = (
  options: SqliteClientOptions,
): Layer.Layer<SqlClient.SqlClient | SqliteConnection, SqlError.SqlError> =>
  Layer.scopedContext(make(options)).pipe(Layer.provide(Reactivity.layer));
