/**
 * Reference only: the SQLite client fork (`src/persistence/sqliteClient.ts`) and the synchronous
 * prepared-statement ledger writer (`src/persistence/ledgerWriter.ts`) as they were before issue M
 * replaced them with @effect/sql-sqlite-node's SqliteClient and a writer over SqlClient. Kept here
 * only so `bench/ledgerWriter.ts` can measure the new writer against the old one; nothing in src/
 * uses it.
 */
import * as Reactivity from "@effect/experimental/Reactivity";
import { SqlClient, SqlError, Statement } from "@effect/sql";
import type { Connection } from "@effect/sql/SqlConnection";
import Sqlite from "better-sqlite3";
import { Context, Effect, Layer, Option, Scope } from "effect";
import type { ExecutionReceipt } from "../../src/domain/index.js";
import type { EventToAppend, LedgerError, NewRun, RunClosure } from "../../src/persistence/AgentRunStore.js";
import { receiptEvidenceJson, toLedgerError } from "../../src/persistence/ledgerWriter.js";
import { sanitizedJson } from "../../src/persistence/payloadHygiene.js";
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

export interface LedgerWriter {
  /** The run row (`running`) and its first events. */
  readonly open: (run: NewRun, events: ReadonlyArray<EventToAppend>) => void;
  /** Events in order, then receipts. */
  readonly append: (
    runId: string,
    events: ReadonlyArray<EventToAppend>,
    receipts: ReadonlyArray<ExecutionReceipt>,
  ) => void;
  /** Leading events, the terminal event, receipts and the run row's terminal state. */
  readonly finish: (runId: string, closure: RunClosure) => void;
}

/** Statements are prepared on first use, so a read-only connection can carry a writer it never uses. */
function lazy<A>(make: () => A): () => A {
  let value: A | undefined;
  return () => {
    if (value === undefined) value = make();
    return value;
  };
}

export function makeLedgerWriter(db: Sqlite.Database, capBytes: number, now: () => string): LedgerWriter {
  const statements = lazy(() => ({
    insertRun: db.prepare(
      `INSERT INTO agent_runs (run_id, session_id, workspace_id, provider_id, model, api_family, terminal_state,
         completion_contract_json, trace_id, started_at, ended_at, failure_code, failure_detail)
       VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, NULL, NULL, NULL)`,
    ),
    insertEvent: db.prepare(
      "INSERT INTO agent_run_events (run_id, sequence, event_type, payload_json, created_at) VALUES (?, ?, ?, ?, ?)",
    ),
    insertReceipt: db.prepare(
      `INSERT INTO agent_execution_receipts (receipt_id, run_id, call_id, tool_name, status, verification_status,
         input_fingerprint, evidence_json, started_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    closeRun: db.prepare(
      `UPDATE agent_runs SET terminal_state = ?, ended_at = ?, failure_code = ?, failure_detail = ?
       WHERE run_id = ?`,
    ),
  }));

  const insertRows = (
    runId: string,
    events: ReadonlyArray<EventToAppend>,
    receipts: ReadonlyArray<ExecutionReceipt>,
    createdAt: string,
  ) => {
    const { insertEvent, insertReceipt } = statements();
    for (const event of events) {
      insertEvent.run(runId, event.sequence, event.type, sanitizedJson(event.payload, capBytes), createdAt);
    }
    for (const receipt of receipts) {
      insertReceipt.run(
        receipt.receiptId,
        receipt.runId,
        receipt.callId,
        receipt.toolName,
        receipt.status,
        receipt.verificationStatus,
        receipt.inputFingerprint,
        receiptEvidenceJson(receipt, capBytes),
        receipt.startedAt,
        receipt.finishedAt,
      );
    }
  };

  const open = db.transaction((run: NewRun, events: ReadonlyArray<EventToAppend>) => {
    const startedAt = run.startedAt ?? now();
    statements().insertRun.run(
      run.runId,
      run.sessionId,
      run.workspaceId ?? null,
      run.providerId ?? null,
      run.model ?? null,
      run.apiFamily ?? null,
      JSON.stringify(run.contract),
      run.traceId,
      startedAt,
    );
    insertRows(run.runId, events, [], startedAt);
  });

  const append = db.transaction(
    (runId: string, events: ReadonlyArray<EventToAppend>, receipts: ReadonlyArray<ExecutionReceipt>) =>
      insertRows(runId, events, receipts, now()),
  );

  const finish = db.transaction((runId: string, closure: RunClosure) => {
    const endedAt = now();
    insertRows(
      runId,
      [...(closure.events ?? []), { sequence: closure.sequence, type: "terminal", payload: closure.terminal }],
      closure.receipts ?? [],
      endedAt,
    );
    statements().closeRun.run(
      closure.terminal.terminalState,
      endedAt,
      closure.terminal.reason,
      closure.failureDetail ?? null,
      runId,
    );
  });

  return { open, append, finish };
}

/** The old store's write side: each batch one synchronous `db.transaction` inside `exclusive`. */
export interface ForkWrites {
  readonly createRun: (run: NewRun, events?: ReadonlyArray<EventToAppend>) => Effect.Effect<void, LedgerError>;
  readonly appendEvents: (
    runId: string,
    events: ReadonlyArray<EventToAppend>,
    receipts?: ReadonlyArray<ExecutionReceipt>,
  ) => Effect.Effect<void, LedgerError>;
  readonly finishRun: (runId: string, closure: RunClosure) => Effect.Effect<void, LedgerError>;
}

export const makeForkWrites = (capBytes: number, now: () => string) =>
  Effect.map(SqliteConnection, (connection): ForkWrites => {
    const writer = makeLedgerWriter(connection.db, capBytes, now);
    const write = (context: string, work: () => void) =>
      connection.exclusive(work).pipe(Effect.mapError((error) => toLedgerError(error, context)));
    return {
      createRun: (run, events = []) => write(`createRun ${run.runId}`, () => writer.open(run, events)),
      appendEvents: (runId, events, receipts = []) =>
        write(`appendEvents ${runId}`, () => writer.append(runId, events, receipts)),
      finishRun: (runId, closure) => write(`finishRun ${runId}`, () => writer.finish(runId, closure)),
    };
  });
