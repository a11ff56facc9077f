import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type * as Effect from "effect/Effect";
import { errorText } from "../../domain/errorText.js";
import type { RuntimeServices } from "../../runtime/runtimeConfig.js";
import { PROMETHEUS_CONTENT_TYPE, renderFamilies } from "../../services/observability/prometheus.js";
import { SSE_PATH, sseHandler } from "../channels/sse.js";
import { renderMachineSvg } from "../charts/svg.js";
import { CLIENT_SCRIPT } from "./client.js";
import { escapeHtml, page } from "./html.js";
import type { LedgerChanges } from "./ledgerChanges.js";
import { ledgerStream } from "./ledgerStream.js";
import {
  type LedgerRead,
  type LedgerServices,
  listRunSummaries,
  loadObservability,
  loadRunDetail,
  parseHealthWindow,
  parseRunsQuery,
  type RunDetail,
} from "./ledgerViews.js";
import { metricsPage, observabilityBody } from "./metricsView.js";
import { runRows, runsPage } from "./runsView.js";
import { runBody, runPage } from "./runView.js";

/**
 * `agentloop serve`'s web app on Node's own `http`: the runs list, a run's page and the metrics
 * and health page, all rendered on the server from ledger reads, plus their JSON and the live
 * streams. Read-only by construction: every route is a GET (or HEAD) that runs `read`, which the
 * caller opens on a read-only connection; anything else is 405.
 */

export interface ServeOptions {
  /** Runs a ledger read (on a read-only connection); rejects with a one-line Error. */
  readonly read: LedgerRead;
  /** The ledger as shown in the page header. */
  readonly dbLabel: string;
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  /** How often open streams look for ledger changes (default 300 ms) where the ledger does not announce them. */
  readonly pollIntervalMs?: number;
  /** The ledger's announcements of its appends (PostgreSQL): open streams read on each and do not poll. */
  readonly changes?: LedgerChanges | undefined;
}

export interface ServeHandle {
  readonly server: Server;
  readonly url: string;
  readonly close: () => Promise<void>;
}

const SECURITY_HEADERS = {
  // Only /app.js may run: markup injected through ledger text could not execute even if unescaped.
  "content-security-policy":
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cache-control": "no-store",
} as const;

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { ...SECURITY_HEADERS, "content-type": type }).end(body);
}
const html = (response: ServerResponse, status: number, body: string) =>
  send(response, status, "text/html; charset=utf-8", body);
const json = (response: ServerResponse, status: number, body: unknown) =>
  send(response, status, "application/json; charset=utf-8", JSON.stringify(body));

const messageOf = (error: unknown) => errorText(error, { firstLine: true });

class BadRequest extends Error {}

export async function startServe(options: ServeOptions): Promise<ServeHandle> {
  const host = options.host ?? "127.0.0.1";
  const read = options.read;
  const pollIntervalMs = options.pollIntervalMs ?? 300;
  const changes = options.changes;
  const stream = ledgerStream({ read, pollIntervalMs, changes });
  // The run's own channel, as a host would mount it; it only reads AgentRunStore, which `read`
  // provides (RuntimeServices is the channel's wider declared need, not what it uses).
  const runEvents = sseHandler({
    runtime: {
      run: <A, E>(effect: Effect.Effect<A, E, RuntimeServices>) =>
        read(effect as unknown as Effect.Effect<A, { readonly message: string }, LedgerServices>),
    },
    pollIntervalMs,
    ...(changes ? { changes } : {}),
  });
  const chart = (detail: RunDetail) => renderMachineSvg("run", { path: detail.path, idPrefix: "run-" });
  let port = options.port ?? 0;

  const errorPage = (response: ServerResponse, status: number, title: string, message: string) =>
    html(
      response,
      status,
      page({
        title,
        nav: "run",
        db: options.dbLabel,
        body: `<h1>${escapeHtml(title)}</h1><div class="error" data-testid="error">${escapeHtml(message)}</div><p><a href="/">all runs</a></p>`,
      }),
    );

  const route = async (request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> => {
    const path = url.pathname;
    const params = url.searchParams;
    if (path === "/app.js") return send(response, 200, "text/javascript; charset=utf-8", CLIENT_SCRIPT);
    const streaming = path === "/api/stream" || SSE_PATH.test(path);
    // A HEAD of a stream would hold the connection open for a body it never gets.
    if (streaming && request.method === "HEAD") return send(response, 200, "text/event-stream; charset=utf-8", "");
    if (path === "/api/stream") return stream.handle(request, response);
    if (SSE_PATH.test(path)) return runEvents(request, response);
    if (path === "/" || path === "/fragments/runs" || path === "/api/runs") {
      let query: ReturnType<typeof parseRunsQuery>;
      try {
        query = parseRunsQuery(params);
      } catch (error) {
        if (path === "/")
          return html(response, 400, runsPage({ db: options.dbLabel, params, runs: [], error: messageOf(error) }));
        throw new BadRequest(messageOf(error));
      }
      const runs = await read(listRunSummaries(query));
      if (path === "/api/runs") return json(response, 200, runs);
      if (path === "/fragments/runs") return html(response, 200, runRows(runs));
      return html(response, 200, runsPage({ db: options.dbLabel, params, query, runs }));
    }
    const runMatch = /^\/(api\/runs|fragments\/runs|runs)\/([^/]+)\/?$/.exec(path);
    if (runMatch) {
      let runId: string;
      try {
        runId = decodeURIComponent(runMatch[2]!);
      } catch {
        throw new BadRequest("the run id in the address is not valid URI encoding");
      }
      const detail = await read(loadRunDetail(runId));
      if (!detail) {
        if (runMatch[1] === "runs") return errorPage(response, 404, "No such run", `no run ${runId} in the ledger`);
        return json(response, 404, { error: `no run ${runId}` });
      }
      if (runMatch[1] === "api/runs") return json(response, 200, detail);
      const svg = await chart(detail);
      if (runMatch[1] === "fragments/runs") return html(response, 200, runBody(detail, svg));
      return html(response, 200, runPage({ db: options.dbLabel, detail, chart: svg }));
    }
    if (path === "/metrics" || path === "/fragments/metrics" || path === "/api/metrics" || path === "/metrics.txt") {
      let window: ReturnType<typeof parseHealthWindow>;
      try {
        window = parseHealthWindow(params);
      } catch (error) {
        const message = messageOf(error).replace(/^--window/, "window");
        if (path === "/metrics")
          return html(response, 400, metricsPage({ db: options.dbLabel, params, error: message }));
        throw new BadRequest(message);
      }
      const view = await read(loadObservability(window));
      if (path === "/metrics.txt") return send(response, 200, PROMETHEUS_CONTENT_TYPE, renderFamilies(view.families));
      if (path === "/api/metrics") return json(response, 200, view);
      if (path === "/fragments/metrics") return html(response, 200, observabilityBody(view));
      return html(response, 200, metricsPage({ db: options.dbLabel, params, view }));
    }
    if (path.startsWith("/api/")) return json(response, 404, { error: "not found" });
    return errorPage(response, 404, "Not found", `nothing at ${path}`);
  };

  const server = createServer((request, response) => {
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.setHeader("allow", "GET, HEAD");
      return json(response, 405, { error: "agentloop serve is read-only: only GET and HEAD" });
    }
    // Bound to loopback, only loopback names are served: a page elsewhere cannot rebind a name
    // of its own to 127.0.0.1 and read the ledger through the browser.
    const hostHeader = (request.headers.host ?? "").toLowerCase();
    const hostName = hostHeader.replace(/:\d+$/, "");
    if (LOOPBACK.has(host) && !LOOPBACK.has(hostName)) {
      return json(response, 421, { error: "this server answers only to 127.0.0.1 and localhost" });
    }
    let url: URL;
    try {
      url = new URL(request.url ?? "/", "http://localhost");
    } catch {
      return json(response, 400, { error: "bad request address" });
    }
    route(request, response, url).catch((error: unknown) => {
      if (response.headersSent) {
        response.end();
        return;
      }
      if (error instanceof BadRequest) return json(response, 400, { error: error.message });
      const message = `the ledger cannot be read: ${messageOf(error)}`;
      if (url.pathname.startsWith("/api/") || url.pathname.startsWith("/fragments/")) {
        return json(response, 500, { error: message });
      }
      return errorPage(response, 500, "Ledger unavailable", message);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    server,
    url: `http://${shownHost}:${port}`,
    close: async () => {
      stream.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
