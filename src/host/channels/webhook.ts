import * as Cause from "effect/Cause";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Schedule from "effect/Schedule";
import type { ChannelReceipt, OutgoingMessage } from "../../domain/delivery.js";
import { type Channel, ChannelSendError } from "./Channel.js";

export interface WebhookChannelOptions {
  readonly id: string;
  readonly url: string;
  /** Sent with every request (e.g. an authorization header); never logged. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Per request (default 10 s). */
  readonly timeoutMs?: number;
  /**
   * Further requests inside one `send` after a 5xx, 429 or network failure (default 0). The router's
   * delivery actors retry on their own and log every attempt, so they use the default; direct callers
   * (a `send_message` tool) may want a few.
   */
  readonly retries?: number;
  /** Before the first in-send retry; doubles after each (default 200 ms). */
  readonly retryDelayMs?: number;
  /** Default: the global fetch. */
  readonly fetch?: typeof globalThis.fetch;
}

export const IDEMPOTENCY_HEADER = "Idempotency-Key";

/** Where errors say the request went: origin and path, never credentials or the query string. */
function targetOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return "the webhook";
  }
}

const retryable = (error: unknown) =>
  !(error instanceof ChannelSendError) ||
  error.status === undefined ||
  error.status >= 500 ||
  error.status === 429 ||
  error.status === 408;

/** The receiver's id for the message: `X-Message-Id`, else `messageId` / `message_id` / `id` in a JSON body. */
async function messageIdOf(response: Response): Promise<string | undefined> {
  const header = response.headers.get("x-message-id");
  if (header) return header;
  const text = await response.text().catch(() => "");
  if (!text) return undefined;
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    for (const key of ["messageId", "message_id", "id"]) {
      const value = body?.[key];
      if ((typeof value === "string" && value.length > 0) || typeof value === "number") return String(value);
    }
  } catch {
    // Not JSON: no id in the body.
  }
  return undefined;
}

/**
 * A channel that POSTs each message's JSON (an `OutgoingMessage`) to `url` with the header
 * `Idempotency-Key: <runId>:<kind>[:<n>]`, the same on every attempt at the same message, so a
 * receiver that dedupes by it shows each message once however often it is retried. A 2xx answer is
 * accepted; its message id is the receiver's (`X-Message-Id` or `messageId`/`message_id`/`id` in the
 * JSON body), or the idempotency key when it names none. Anything else rejects with a one-line
 * ChannelSendError (`HTTP <status> from <origin/path>`).
 */
export function webhookChannel(options: WebhookChannelOptions): Channel {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const target = targetOf(options.url);
  const timeoutMs = options.timeoutMs ?? 10_000;

  const post = (message: OutgoingMessage, signal: AbortSignal | undefined) =>
    Effect.tryPromise({
      try: async (interrupt): Promise<ChannelReceipt> => {
        const signals = [interrupt, AbortSignal.timeout(timeoutMs), ...(signal ? [signal] : [])];
        let response: Response;
        try {
          response = await fetchImpl(options.url, {
            method: "POST",
            headers: {
              ...options.headers,
              "content-type": "application/json",
              [IDEMPOTENCY_HEADER]: message.idempotencyKey,
            },
            body: JSON.stringify(message),
            signal: AbortSignal.any(signals),
          });
        } catch (error) {
          const reason = error instanceof Error ? error.name : "network error";
          throw new ChannelSendError({
            reason: "request_failed",
            message: `webhook ${options.id}: request to ${target} failed (${reason})`,
          });
        }
        if (!response.ok) {
          await response.body?.cancel().catch(() => undefined);
          throw new ChannelSendError({
            reason: "refused",
            message: `webhook ${options.id}: HTTP ${response.status} from ${target}`,
            status: response.status,
          });
        }
        return { messageId: (await messageIdOf(response)) ?? message.idempotencyKey };
      },
      catch: (error) =>
        error instanceof ChannelSendError
          ? error
          : new ChannelSendError({ reason: "request_failed", message: `webhook ${options.id}: request failed` }),
    });

  const schedule = Schedule.exponential(Duration.millis(options.retryDelayMs ?? 200)).pipe(
    Schedule.intersect(Schedule.recurs(Math.max(0, Math.floor(options.retries ?? 0)))),
  );

  return {
    id: options.id,
    send: (message, sendOptions = {}) =>
      // runPromiseExit + squash: plain runPromise would reject with a FiberFailure, not the ChannelSendError.
      Effect.runPromiseExit(
        post(message, sendOptions.signal).pipe(Effect.retry({ schedule, while: retryable })),
        sendOptions.signal ? { signal: sendOptions.signal } : undefined,
      ).then((exit) => {
        if (Exit.isSuccess(exit)) return exit.value;
        throw Cause.squash(exit.cause);
      }),
  };
}
