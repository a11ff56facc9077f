import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import { ledgerChanges } from "../host/serve/ledgerChanges.js";
import type { LedgerRead } from "../host/serve/ledgerViews.js";
import { startServe } from "../host/serve/server.js";
import * as Ledger from "../persistence/ledger.js";
import { LedgerSignals } from "../persistence/ledgerSignals.js";
import { CliFailure, type CliIO, firstLine } from "./output.js";
import { valueOrFailure } from "./runEffect.js";

/**
 * `agentloop serve`: the ledger through a long-lived read-only reader (Ledger.reader). On a SQLite
 * file every page and poll opens a read-only connection for that read and closes it after (the
 * same path as `agentloop inspect`), so the server holds no connection between reads, never writes
 * the file and leaves no -wal/-shm behind that were not there, and live pages poll (`--poll`); on
 * PostgreSQL one small read-only pool serves every read, and live pages read when the ledger
 * announces an append (LISTEN), with no poll. Runs until SIGINT or SIGTERM (`signal` in tests).
 */

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
  const reader = Ledger.reader(db, { maxConnections: 4 });
  // Refuses a missing file or one without the ledger before anything listens.
  try {
    valueOrFailure(await reader.read(Effect.void));
  } catch (error) {
    await reader.close();
    throw error;
  }
  const dbLabel = Ledger.label(db);
  const announced = ledgerChanges(valueOrFailure(await reader.read(LedgerSignals)));
  // A page's read that fails is shown on the page, as one line.
  const read: LedgerRead = async (effect) => {
    const exit = await reader.read(effect);
    if (Exit.isSuccess(exit)) return exit.value;
    throw new Error(firstLine(Cause.squash(exit.cause)));
  };
  let handle: Awaited<ReturnType<typeof startServe>>;
  try {
    handle = await startServe({
      read,
      dbLabel,
      host: options.host,
      port,
      pollIntervalMs,
      changes: announced?.changes,
    });
  } catch (error) {
    await announced?.close();
    await reader.close();
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
      reader.tidy();
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
  await announced?.close();
  await reader.close();
  io.out("agentloop serve: stopped");
  return 0;
}
