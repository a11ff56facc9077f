import { existsSync } from "node:fs";
import { Cause, Effect, Exit, Layer, ManagedRuntime } from "effect";
import type { LedgerRead, LedgerServices } from "../host/serve/ledgerViews.js";
import { startServe } from "../host/serve/server.js";
import * as Postgres from "../persistence/postgres.js";
import * as SqlAgentRunStore from "../persistence/SqlAgentRunStore.js";
import { CliFailure, type CliIO, firstLine } from "./output.js";
import { readLedger, removeEmptyWalCompanions } from "./readLedger.js";

/**
 * `agentloop serve`. On a SQLite file every page and poll is one `readLedger` call — a read-only
 * connection opened for that read and closed after it (the same path as `agentloop inspect`), so
 * the server holds no connection between reads, never writes the file and leaves no -wal/-shm
 * behind that were not there. On PostgreSQL, whose connections cost a round trip each, one small
 * read-only pool serves every read (after `readLedger` checked the schema once). Runs until
 * SIGINT or SIGTERM (`signal` in tests).
 */

/** A pool whose every transaction is read-only, kept for the server's life. */
function postgresReader(url: string): { readonly read: LedgerRead; readonly close: () => Promise<void> } {
  const runtime = ManagedRuntime.make(
    SqlAgentRunStore.layer().pipe(Layer.provideMerge(Postgres.layer({ url, readonly: true, maxConnections: 4 }))),
  );
  const read: LedgerRead = async <A>(effect: Effect.Effect<A, { readonly message: string }, LedgerServices>) => {
    const exit = await runtime.runPromiseExit(effect);
    if (Exit.isSuccess(exit)) return exit.value;
    const cause = Cause.squash(exit.cause);
    throw new Error(firstLine(typeof cause === "object" && cause && "message" in cause ? cause.message : cause));
  };
  return { read, close: () => runtime.dispose() };
}

function wholeNumber(name: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isInteger(value) || value < min || value > max) {
    throw new CliFailure(`${name} must be a whole number from ${min} to ${max} (got ${JSON.stringify(text)})`, 2);
  }
  return value;
}

const listenFailure = (error: unknown, host: string, port: number): CliFailure => {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EADDRINUSE") return new CliFailure(`port ${port} on ${host} is in use (choose another with --port)`);
  if (code === "EACCES") return new CliFailure(`not allowed to listen on ${host}:${port}`);
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
    return new CliFailure(`cannot listen on ${host}: no such local address`);
  return new CliFailure(`cannot listen on ${host}:${port}: ${(error as Error).message}`);
};

export async function serveCommand(
  io: CliIO,
  options: { db: string; port: string; host: string; poll: string },
  signal?: AbortSignal,
): Promise<number> {
  const port = wholeNumber("--port", options.port, 0, 65_535);
  const pollIntervalMs = wholeNumber("--poll", options.poll, 50, 60_000);
  if (options.host.trim() === "") throw new CliFailure("--host needs an address", 2);
  const db = options.db;
  const postgres = Postgres.isPostgresUrl(db);
  const hadWalCompanions = !postgres && [`${db}-wal`, `${db}-shm`].some((file) => existsSync(file));
  // Refuses a missing file or one without the ledger before anything listens.
  await readLedger(db, Effect.void);
  const dbLabel = postgres ? Postgres.displayUrl(db) : db;
  const pool = postgres ? postgresReader(db) : undefined;
  let handle: Awaited<ReturnType<typeof startServe>>;
  try {
    handle = await startServe({
      read: pool?.read ?? ((effect) => readLedger(db, effect)),
      dbLabel,
      host: options.host,
      port,
      pollIntervalMs,
    });
  } catch (error) {
    await pool?.close();
    throw listenFailure(error, options.host, port);
  }
  io.out(`agentloop serve: ${handle.url}/ (ledger ${dbLabel}, read-only; Ctrl-C to stop)`);
  if (!["127.0.0.1", "localhost", "::1"].includes(options.host)) {
    io.err(`agentloop serve: warning: bound to ${options.host}, so anyone who can reach it can read the ledger`);
  }
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    // Synchronous on purpose: the process's own signal handler exits right after the listeners run.
    const onSignal = () => {
      handle.server.closeAllConnections();
      handle.server.close();
      if (!postgres && !hadWalCompanions) removeEmptyWalCompanions(db);
      stop();
    };
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    signal?.addEventListener("abort", stop, { once: true });
    if (signal?.aborted) stop();
    handle.server.once("close", () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    });
  });
  await handle.close();
  await pool?.close();
  if (!postgres && !hadWalCompanions) removeEmptyWalCompanions(db);
  io.out("agentloop serve: stopped");
  return 0;
}
