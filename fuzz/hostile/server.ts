/**
 * A raw HTTP server for hostile provider responses on 127.0.0.1 (random port). Unlike the test
 * fake servers it answers with exact bytes: any status, any headers, any body (broken JSON, HTML,
 * invalid UTF-8), streams that trickle, stall or lose their connection, and sockets reset before
 * a status line. Each case owns a path prefix (`/c/<n>`), so many cases run against one server at
 * once; a case's replies are answered in order and the last one repeats forever. Everything is
 * bounded: an open response is cut after `hangLimitMs`, and `close` destroys every socket.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type Chunk = string | Buffer;

export type HostileReply =
  /** A whole response: status, headers and body bytes, then the end. */
  | {
      readonly kind: "body";
      readonly status?: number;
      readonly headers?: Readonly<Record<string, string>>;
      readonly body: Chunk;
    }
  /**
   * A response written piece by piece: `chunks`, then `end` (close), `hang` (stay open, optionally
   * writing `trickle.chunk` every `trickle.everyMs`) or `drop` (destroy the connection).
   */
  | {
      readonly kind: "stream";
      readonly status?: number;
      readonly headers?: Readonly<Record<string, string>>;
      readonly chunks: ReadonlyArray<Chunk>;
      readonly ending: "end" | "hang" | "drop";
      readonly trickle?: { readonly chunk: Chunk; readonly everyMs: number };
    }
  /** The request is read and never answered: no status line at all. */
  | { readonly kind: "silent" }
  /** The socket is destroyed as soon as the request arrived (a connection reset). */
  | { readonly kind: "reset" };

export interface HostileServer {
  readonly origin: string;
  /** Registers a case's replies; returns its path prefix (`/c/<n>`). */
  readonly route: (replies: ReadonlyArray<HostileReply>) => string;
  /** Requests a prefix received so far. */
  readonly requestsOf: (prefix: string) => number;
  readonly close: () => Promise<void>;
}

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
};
export const JSON_HEADERS: Readonly<Record<string, string>> = { "content-type": "application/json" };

function drain(request: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    request.on("data", () => {});
    request.on("end", () => resolve());
    request.on("error", () => resolve());
    request.on("close", () => resolve());
  });
}

export async function startHostileServer(options: { readonly hangLimitMs?: number } = {}): Promise<HostileServer> {
  const hangLimitMs = options.hangLimitMs ?? 20_000;
  const routes = new Map<string, { replies: ReadonlyArray<HostileReply>; served: number }>();
  const sockets = new Set<Socket>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let next = 0;

  const bound = (response: ServerResponse) => {
    const timer = setTimeout(() => response.destroy(), hangLimitMs);
    timers.add(timer);
    response.on("close", () => {
      clearTimeout(timer);
      timers.delete(timer);
    });
  };

  const server = createServer(async (request, response) => {
    // Never let a socket error (the client hanging up mid-write) become an uncaught exception.
    response.on("error", () => {});
    await drain(request);
    const match = /^(\/c\/\d+)\//.exec(request.url ?? "");
    const route = match ? routes.get(match[1]!) : undefined;
    if (!route || route.replies.length === 0) {
      response.writeHead(404, JSON_HEADERS);
      response.end(JSON.stringify({ error: { message: `no hostile route for ${request.url}` } }));
      return;
    }
    const reply = route.replies[Math.min(route.served, route.replies.length - 1)]!;
    route.served += 1;
    if (reply.kind === "reset") {
      request.socket.destroy();
      return;
    }
    if (reply.kind === "silent") {
      bound(response);
      return;
    }
    if (reply.kind === "body") {
      response.writeHead(reply.status ?? 200, { ...reply.headers });
      response.end(reply.body);
      return;
    }
    response.writeHead(reply.status ?? 200, { ...reply.headers });
    response.flushHeaders();
    for (const chunk of reply.chunks) response.write(chunk);
    if (reply.ending === "end") {
      response.end();
      return;
    }
    if (reply.ending === "drop") {
      setImmediate(() => response.destroy());
      return;
    }
    bound(response);
    if (reply.trickle) {
      const { chunk, everyMs } = reply.trickle;
      const interval = setInterval(() => {
        if (!response.destroyed) response.write(chunk);
      }, everyMs);
      timers.add(interval);
      response.on("close", () => {
        clearInterval(interval);
        timers.delete(interval);
      });
    }
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("clientError", (_error, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    route: (replies) => {
      const prefix = `/c/${next++}`;
      routes.set(prefix, { replies, served: 0 });
      return prefix;
    },
    requestsOf: (prefix) => routes.get(prefix)?.served ?? 0,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
