/**
 * A scripted HTTP server for one wire protocol on 127.0.0.1 (random port): each request takes
 * the next queued reply — JSON, an SSE stream (ending, hanging, or dropping the connection), a
 * status error with headers, or no answer at all. Requests are validated the way the real API
 * does (a refused request gets a 400 and does not consume a reply) and recorded for assertions.
 * Everything is bounded: a hanging reply is cut after `hangLimitMs`, and waits time out.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are inspected freely in assertions
  readonly body: any;
  /** The validation problem when the server refused the request with 400. */
  readonly rejected?: string;
}

export type ScriptedReply =
  | {
      readonly kind: "json";
      readonly body: unknown;
      /** Sent instead of `body`'s JSON: text no value can be stringified into (100,000-deep JSON). */
      readonly raw?: string;
      readonly status?: number;
      readonly headers?: Readonly<Record<string, string>>;
    }
  | {
      readonly kind: "sse";
      /** Raw SSE frames (each already ends with a blank line). */
      readonly frames: ReadonlyArray<string>;
      /** `end` closes the response; `hang` keeps it open; `drop` destroys the connection. */
      readonly ending?: "end" | "hang" | "drop";
      /**
       * With `hang`: a frame written again every `everyMs` while the response stays open (a
       * keep-alive trickle, or a stream that never stops sending content). Bounded by `hangLimitMs`.
       */
      readonly trickle?: { readonly frame: string; readonly everyMs: number };
    }
  /** Accepts the request and never answers. */
  | { readonly kind: "hang" };

export interface WireProtocol {
  readonly name: string;
  /** The path requests must use, e.g. `/v1/chat/completions`. */
  readonly path: string;
  /** A problem the real API would refuse the request for, or undefined. */
  readonly validate: (body: unknown, headers: IncomingHttpHeaders) => string | undefined;
  /** The API's error body for a refused request. */
  readonly errorBody: (status: number, message: string) => unknown;
}

export interface FakeServer {
  readonly name: string;
  readonly origin: string;
  readonly requests: ReadonlyArray<RecordedRequest>;
  /** Queues replies, answered in order. */
  readonly enqueue: (...replies: ScriptedReply[]) => void;
  /** Replies still queued. */
  readonly pending: () => number;
  /** How many replies the client abandoned (closed the connection before the reply ended). */
  readonly abandoned: () => number;
  /** Resolves once `count` replies were abandoned; rejects after `timeoutMs`. */
  readonly waitForAbandoned: (count?: number, timeoutMs?: number) => Promise<void>;
  /** Resolves once `count` requests arrived; rejects after `timeoutMs`. */
  readonly waitForRequests: (count: number, timeoutMs?: number) => Promise<void>;
  readonly close: () => Promise<void>;
}

export interface FakeServerOptions {
  /** How long a hanging reply stays open before the server cuts it (default 10 s). */
  readonly hangLimitMs?: number;
}

const WAIT_MS = 5_000;

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

/** One SSE frame: `event: <type>` (when given) and `data: <json or raw text>`. */
export function sseFrame(data: unknown, event?: string): string {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  return `${event ? `event: ${event}\n` : ""}data: ${payload}\n\n`;
}

export async function startFakeServer(protocol: WireProtocol, options: FakeServerOptions = {}): Promise<FakeServer> {
  const hangLimitMs = options.hangLimitMs ?? 10_000;
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let abandoned = 0;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of listeners) listener();
  };

  const waitFor = (condition: () => boolean, what: string, timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      if (condition()) return resolve();
      const check = () => {
        if (!condition()) return;
        clearTimeout(timer);
        listeners.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`${protocol.name} fake server: timed out waiting for ${what}`));
      }, timeoutMs);
      listeners.add(check);
    });

  /** Responses the server itself cut: not the client's doing. */
  const cutByServer = new WeakSet<ServerResponse>();
  const cut = (response: ServerResponse) => {
    cutByServer.add(response);
    response.destroy();
  };

  const bounded = (response: ServerResponse) => {
    const timer = setTimeout(() => cut(response), hangLimitMs);
    timers.add(timer);
    response.on("close", () => {
      clearTimeout(timer);
      timers.delete(timer);
    });
  };

  const sendJson = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    response.writeHead(status, { "content-type": "application/json", ...headers });
    response.end(JSON.stringify(body));
  };

  const server = createServer(async (request, response) => {
    const text = await readBody(request);
    response.on("close", () => {
      if (!response.writableFinished && !cutByServer.has(response)) {
        abandoned += 1;
        notify();
      }
    });
    let body: unknown;
    try {
      body = text.length > 0 ? JSON.parse(text) : undefined;
    } catch {
      requests.push({ method: request.method ?? "", path: request.url ?? "", headers: request.headers, body: text });
      notify();
      return sendJson(response, 400, protocol.errorBody(400, "the request body is not JSON"));
    }
    const path = (request.url ?? "").split("?")[0];
    const problem =
      request.method !== "POST" || path !== protocol.path
        ? `no route ${request.method} ${path}`
        : protocol.validate(body, request.headers);
    requests.push({
      method: request.method ?? "",
      path: request.url ?? "",
      headers: request.headers,
      body,
      ...(problem ? { rejected: problem } : {}),
    });
    notify();
    if (problem) {
      const status = problem.startsWith("no route") ? 404 : problem.startsWith("auth:") ? 401 : 400;
      return sendJson(response, status, protocol.errorBody(status, problem));
    }
    const reply = queue.shift();
    if (!reply) {
      return sendJson(response, 500, protocol.errorBody(500, "fake server: no scripted reply left"));
    }
    if (reply.kind === "json" && reply.raw !== undefined) {
      response.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
      return response.end(reply.raw);
    }
    if (reply.kind === "json") return sendJson(response, reply.status ?? 200, reply.body, { ...reply.headers });
    if (reply.kind === "hang") return bounded(response);
    response.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    response.flushHeaders();
    for (const frame of reply.frames) response.write(frame);
    const ending = reply.ending ?? "end";
    if (ending === "end") response.end();
    else if (ending === "drop") setImmediate(() => cut(response));
    else {
      bounded(response);
      if (reply.trickle) {
        const { frame, everyMs } = reply.trickle;
        const interval = setInterval(() => response.write(frame), everyMs);
        timers.add(interval);
        response.on("close", () => {
          clearInterval(interval);
          timers.delete(interval);
        });
      }
    }
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    name: protocol.name,
    origin: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    pending: () => queue.length,
    abandoned: () => abandoned,
    waitForAbandoned: (count = 1, timeoutMs = WAIT_MS) =>
      waitFor(() => abandoned >= count, `${count} abandoned repl(ies)`, timeoutMs),
    waitForRequests: (count, timeoutMs = WAIT_MS) =>
      waitFor(() => requests.length >= count, `${count} request(s)`, timeoutMs),
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A status error reply with headers (e.g. 429 with retry-after-ms). */
export function statusReply(
  protocol: WireProtocol,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): ScriptedReply {
  return { kind: "json", status, body: protocol.errorBody(status, message), headers };
}

/** The Authorization / x-api-key header must carry a key. */
export function authProblem(headers: IncomingHttpHeaders): string | undefined {
  const bearer = headers.authorization;
  const key = headers["x-api-key"];
  if ((typeof bearer === "string" && /^Bearer \S+/.test(bearer)) || (typeof key === "string" && key.length > 0)) {
    return undefined;
  }
  return "auth: no API key in the request";
}

// --- A provider-neutral script of one model turn, rendered by each wire protocol -------------

/** How the turn finishes on the wire; `null`: the stream never says (it just ends). */
export type WireFinish = "stop" | "tool_calls" | "length" | "content_filter" | "unknown" | null;

export interface FakeCall {
  /** Absent: the wire carries no id. */
  readonly id?: string;
  /** Absent: the wire carries no name. */
  readonly name?: string;
  /** The arguments text, or its streamed pieces (default `{}`). */
  readonly arguments?: string | ReadonlyArray<string>;
  /** The call is cut off: no end-of-call signal (and an incomplete item where the protocol has one). */
  readonly partial?: boolean;
}

export interface FakeTurn {
  /** The text, or its streamed pieces. */
  readonly text?: string | ReadonlyArray<string>;
  readonly calls?: ReadonlyArray<FakeCall>;
  /** Default: tool_calls when there are calls, else stop. */
  readonly finish?: WireFinish;
  readonly usage?: { readonly input: number; readonly output: number };
}

export type StreamEnding = "end" | "hang" | "drop";

/** One wire protocol's fake: its validation and how it renders a turn. */
export interface FakeWire {
  readonly protocol: WireProtocol;
  readonly json: (turn: FakeTurn) => ScriptedReply;
  readonly stream: (turn: FakeTurn, ending?: StreamEnding) => ScriptedReply;
}

export const piecesOf = (value: string | ReadonlyArray<string> | undefined, fallback = ""): string[] =>
  value === undefined ? (fallback ? [fallback] : []) : typeof value === "string" ? [value] : [...value];

export const wholeOf = (value: string | ReadonlyArray<string> | undefined, fallback = ""): string =>
  piecesOf(value, fallback).join("");

export const finishOf = (turn: FakeTurn): WireFinish =>
  turn.finish === undefined ? ((turn.calls?.length ?? 0) > 0 ? "tool_calls" : "stop") : turn.finish;

export const usageOf = (turn: FakeTurn) => turn.usage ?? { input: 11, output: 7 };

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
