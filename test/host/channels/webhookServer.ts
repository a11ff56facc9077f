import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback webhook receiver for tests: answers each request with the status `answer` picks
 * (by attempt number, 1-based over all requests), counts attempts per Idempotency-Key, and keeps
 * each accepted message once (a retry of an accepted key is acknowledged, not shown again).
 */
export interface WebhookReceiver {
  readonly url: string;
  /** Requests per idempotency key. */
  readonly attempts: Map<string, number>;
  /** Accepted bodies, once per idempotency key, in order. */
  readonly shown: Array<{ readonly key: string; readonly body: Record<string, unknown>; readonly messageId: string }>;
  readonly headers: Array<Record<string, string | string[] | undefined>>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(
  answer: (attempt: number) => number,
  options: { readonly path?: string } = {},
): Promise<WebhookReceiver> {
  const attempts = new Map<string, number>();
  const shown: WebhookReceiver["shown"] = [];
  const headers: WebhookReceiver["headers"] = [];
  let requests = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      requests += 1;
      headers.push(request.headers);
      const key = String(request.headers["idempotency-key"] ?? "");
      attempts.set(key, (attempts.get(key) ?? 0) + 1);
      const status = answer(requests);
      if (status >= 300) {
        response.writeHead(status, { "content-type": "text/plain" }).end("internal error: stack trace here");
        return;
      }
      let entry = shown.find((candidate) => candidate.key === key);
      if (!entry) {
        entry = {
          key,
          body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>,
          messageId: `wh-${shown.length + 1}`,
        };
        shown.push(entry);
      }
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ id: entry.messageId }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${options.path ?? "/hook"}`,
    attempts,
    shown,
    headers,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
