import type { IncomingMessage, ServerResponse } from "node:http";
import type { LedgerChanges } from "./ledgerChanges.js";
import { type LedgerRead, ledgerSignature } from "./ledgerViews.js";

/**
 * `GET /api/stream`: one Server-Sent Events stream per page that says when the ledger changed
 * (`event: ledger`, `data: {"signature": …}`; the first frame on connecting). One reader serves
 * every open stream: it reads the ledger's signature (a run started, a row appended, a run
 * closed) when the ledger announces a change (`changes`, PostgreSQL) and otherwise every
 * `pollIntervalMs`, only while a stream is open, and never two reads at once (a change during a
 * read asks for one more).
 */

export interface LedgerStreamOptions {
  readonly read: LedgerRead;
  readonly pollIntervalMs: number;
  /** The ledger's own announcements: read on each, and no poll. */
  readonly changes?: LedgerChanges | undefined;
  readonly heartbeatMs?: number;
}

export interface LedgerStream {
  readonly handle: (request: IncomingMessage, response: ServerResponse) => void;
  /** Ends every open stream and stops polling. */
  readonly close: () => void;
  readonly clients: () => number;
}

const frame = (signature: string) => `event: ledger\ndata: ${JSON.stringify({ signature })}\n\n`;

export function ledgerStream(options: LedgerStreamOptions): LedgerStream {
  const clients = new Set<ServerResponse>();
  let signature: string | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let polling = false;
  let again = false;
  let closed = false;

  const broadcast = (text: string) => {
    for (const client of clients) client.write(text);
  };

  const schedule = () => {
    if (closed || timer !== undefined || clients.size === 0 || options.changes) return;
    timer = setTimeout(() => {
      timer = undefined;
      void poll();
    }, options.pollIntervalMs);
  };

  const poll = async () => {
    if (closed) return;
    if (polling) {
      again = true;
      return;
    }
    polling = true;
    again = false;
    try {
      const next = await options.read(ledgerSignature);
      if (next !== signature) {
        signature = next;
        broadcast(frame(next));
      }
    } catch {
      // A failed read (the file is busy, a network blip to PostgreSQL) is retried at the next poll or announcement.
    } finally {
      polling = false;
      if (again) void poll();
      else schedule();
    }
  };
  const unsubscribe = options.changes?.subscribe(() => {
    if (clients.size > 0) void poll();
  });

  const heartbeat = setInterval(() => broadcast(": keep-alive\n\n"), options.heartbeatMs ?? 15_000);
  heartbeat.unref();

  const handle = (_request: IncomingMessage, response: ServerResponse) => {
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    });
    response.flushHeaders();
    if (closed) {
      response.end();
      return;
    }
    clients.add(response);
    // The response's `close` is the connection's (a GET request's fires once its empty body is read).
    response.on("close", () => clients.delete(response));
    // The page was rendered before this stream opened: the current signature makes it refresh once.
    if (signature !== undefined) response.write(frame(signature));
    else void poll();
    schedule();
  };

  return {
    handle,
    close: () => {
      closed = true;
      unsubscribe?.();
      clearInterval(heartbeat);
      if (timer !== undefined) clearTimeout(timer);
      for (const client of clients) client.end();
      clients.clear();
    },
    clients: () => clients.size,
  };
}
