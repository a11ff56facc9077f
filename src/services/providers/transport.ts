import * as Effect from "effect/Effect";
import { errorText } from "../../domain/errorText.js";
import { redactText } from "../../persistence/payloadHygiene.js";
import { ProviderError, type ProviderErrorReason, type ProviderRequest, reasonForStatus } from "./Provider.js";

/**
 * What the real providers share about one HTTP call: the host-facing options, the per-call
 * timeout, cancellation (interrupting the Effect aborts the request) and the mapping of SDK
 * failures onto `ProviderError` with the server's `retry-after` hint. No provider retries by
 * itself: the runtime's `withProviderRetry` owns the retry policy.
 */

/** Host-facing options of every real provider. */
export interface ProviderOptions {
  /**
   * Streamed text deltas of a step, as they arrive, for a host that wants them keyed by run id
   * beside the run's own `text_delta` events (which need no callback).
   */
  readonly onTextDelta?: (runId: string, step: number, text: string) => void;
}

/** What configures one real provider, whichever wire protocol it speaks. */
export interface RealProviderConfig extends ProviderOptions {
  readonly apiKey: string;
  /** The API origin (OpenAI: including `/v1`); the SDK's default when absent. */
  readonly baseURL?: string;
  readonly model: string;
  /** Stream responses (default true). */
  readonly stream?: boolean;
  /**
   * The longest wait for the server, in ms (default 120 s): for the whole answer when not
   * streaming, and between two stream events when streaming. Exceeding it is a `timeout` failure.
   */
  readonly timeoutMs?: number;
  /**
   * The longest one provider call may take in all, in ms (default 10 min), however the stream
   * trickles: keep-alive chunks (pings, empty deltas) do not re-arm `timeoutMs`, and this
   * deadline bounds even a stream that keeps sending content. Exceeding it is a `timeout` failure.
   */
  readonly deadlineMs?: number;
  /** Output token limit (Anthropic requires one; default 4096 there, unset elsewhere). */
  readonly maxTokens?: number;
}

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_DEADLINE_MS = 600_000;

/** The timers of one provider call: idle (between progress) and overall. */
export interface CallTiming {
  /** The longest wait for progress (re-armed by `keepAlive`). */
  readonly idleMs: number;
  /** The longest the whole call may take (never re-armed); default {@link DEFAULT_DEADLINE_MS}. */
  readonly deadlineMs?: number;
}

/** The timing of a real provider's calls from its config. */
export const callTiming = (config: Pick<RealProviderConfig, "timeoutMs" | "deadlineMs">): CallTiming => ({
  idleMs: config.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  deadlineMs: config.deadlineMs ?? DEFAULT_DEADLINE_MS,
});

type HeaderSource = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource | undefined | null, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as { get?: unknown }).get === "function") {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The server's retry hint in ms: `retry-after-ms` (milliseconds), else `retry-after` as seconds
 * or as an HTTP date. Undefined when absent or unreadable.
 */
export function retryAfterMs(headers: HeaderSource | undefined | null, now: number = Date.now()): number | undefined {
  const ms = header(headers, "retry-after-ms")?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const after = header(headers, "retry-after")?.trim();
  if (!after) return undefined;
  if (/^\d+(\.\d+)?$/.test(after)) return Math.ceil(Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** An SDK error class (any constructor signature). */
type ErrorClass = abstract new (...args: never[]) => Error;

/** The error classes of one SDK, so one mapper serves both. */
export interface SdkErrorClasses {
  readonly APIError: ErrorClass;
  readonly APIConnectionError: ErrorClass;
  readonly APIConnectionTimeoutError: ErrorClass;
  readonly APIUserAbortError: ErrorClass;
}

interface ApiErrorShape {
  readonly status?: number;
  readonly headers?: HeaderSource;
  readonly error?: unknown;
  readonly message: string;
  /** Anthropic: the body's `error.message` (its `message` is the whole body). */
  readonly apiMessage?: string | null;
}

/** Redacted before it is cut: a key cut in half no longer matches its pattern. */
const oneLine = (text: string, max = 300) => {
  const line = redactText(text).replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** The `type` / `code` an error body names (OpenAI: `{ type, code }`, Anthropic: `{ error: { type } }`). */
function errorKind(body: unknown): string | undefined {
  if (!body || typeof body !== "object") return undefined;
  const record = body as Record<string, unknown>;
  const nested = record.error as Record<string, unknown> | undefined;
  const kind = nested?.type ?? nested?.code ?? record.code ?? record.type;
  return typeof kind === "string" ? kind : undefined;
}

/** A failure reported inside a stream (no HTTP status): classified by the error's type or code. */
export function reasonForErrorKind(kind: string | undefined): ProviderErrorReason {
  if (!kind) return "server_error";
  if (/rate_limit/.test(kind)) return "rate_limited";
  if (/overloaded|server_error|api_error|internal|unavailable/.test(kind)) return "server_error";
  if (/timeout/.test(kind)) return "timeout";
  if (/auth|permission/.test(kind)) return "auth";
  if (/invalid|not_found|request_too_large|bad_request/.test(kind)) return "bad_request";
  return "server_error";
}

/**
 * undici reports a connection that broke while the body was read as a TypeError ("terminated",
 * "fetch failed") caused by the socket error. Any other TypeError comes from JavaScript reading a
 * value of the wrong shape.
 */
const isNetworkTypeError = (error: TypeError) =>
  error.cause instanceof Error || error.message === "terminated" || error.message === "fetch failed";

/** Maps anything an SDK call threw onto a ProviderError. */
export function toProviderError(label: string, error: unknown, sdk: SdkErrorClasses): ProviderError {
  if (error instanceof ProviderError) return error;
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return new ProviderError({ reason: "timeout", message: `${label}: the request timed out` });
  }
  if (error instanceof sdk.APIUserAbortError) {
    return new ProviderError({ reason: "connection", message: `${label}: the request was aborted` });
  }
  if (error instanceof sdk.APIConnectionError) {
    const cause = (error as { cause?: unknown }).cause;
    const detail = cause instanceof Error ? `: ${cause.message}` : "";
    return new ProviderError({ reason: "connection", message: oneLine(`${label}: connection failed${detail}`) });
  }
  if (error instanceof sdk.APIError) {
    const api = error as unknown as ApiErrorShape;
    const retryAfter = retryAfterMs(api.headers);
    if (typeof api.status === "number") {
      return new ProviderError({
        reason: reasonForStatus(api.status),
        status: api.status,
        // The SDKs put the status in front of the message already.
        message: oneLine(`${label} returned ${api.status}: ${api.apiMessage ?? api.message.replace(/^\d{3}\s+/, "")}`),
        ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}),
      });
    }
    return new ProviderError({
      reason: reasonForErrorKind(errorKind(api.error)),
      message: oneLine(`${label} reported an error in the stream: ${api.apiMessage ?? api.message}`),
    });
  }
  if (error instanceof SyntaxError) {
    return new ProviderError({
      reason: "invalid_response",
      message: oneLine(`${label}: unreadable response: ${error.message}`),
    });
  }
  if (error instanceof TypeError && isNetworkTypeError(error)) {
    return new ProviderError({
      reason: "connection",
      message: oneLine(`${label}: connection failed: ${error.message}`),
    });
  }
  if (error instanceof TypeError || error instanceof RangeError) {
    // The SDK (or the reading of its result) tripped over a body of the wrong shape — `null` where
    // an object belongs, an event without its fields, a value nested too deep: the same answer
    // would come again, so it is a protocol error of the response, never retried.
    return new ProviderError({
      reason: "invalid_response",
      message: oneLine(`${label}: malformed response: ${error.message}`),
    });
  }
  const message = errorText(error);
  return new ProviderError({ reason: "invalid_response", message: oneLine(`${label}: ${message}`) });
}

/**
 * Re-arms the call's inactivity timer. Streaming code calls it on progress only: an event that
 * carries content, a tool call or the end of the answer — never on keep-alive pings or empty chunks.
 */
export type KeepAlive = () => void;

/**
 * One provider call as an interruptible Effect: interruption aborts the HTTP request through the
 * signal handed to `call`; the idle timer (re-armed by `keepAlive`) and the overall deadline
 * (never re-armed) abort it with a `timeout` failure. SDK streams end quietly when aborted, so
 * an aborted call never counts as a success.
 */
export function providerCall<A>(
  label: string,
  timing: number | CallTiming,
  sdk: SdkErrorClasses,
  call: (signal: AbortSignal, keepAlive: KeepAlive) => Promise<A>,
): Effect.Effect<A, ProviderError> {
  const { idleMs, deadlineMs = DEFAULT_DEADLINE_MS } = typeof timing === "number" ? { idleMs: timing } : timing;
  return Effect.tryPromise({
    try: async (interrupted) => {
      const controller = new AbortController();
      let timedOut: "idle" | "deadline" | undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const keepAlive = () => {
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => {
          timedOut ??= "idle";
          controller.abort();
        }, idleMs);
      };
      const deadline = setTimeout(() => {
        timedOut ??= "deadline";
        controller.abort();
      }, deadlineMs);
      const abort = () => controller.abort();
      interrupted.addEventListener("abort", abort, { once: true });
      keepAlive();
      const timeoutError = () =>
        new ProviderError({
          reason: "timeout",
          message:
            timedOut === "deadline"
              ? `${label}: the call did not finish within its ${deadlineMs} ms deadline`
              : `${label}: no answer within ${idleMs} ms`,
        });
      try {
        const result = await call(controller.signal, keepAlive);
        if (timedOut) throw timeoutError();
        if (controller.signal.aborted) {
          throw new ProviderError({ reason: "connection", message: `${label}: the request was aborted` });
        }
        return result;
      } catch (error) {
        throw timedOut ? timeoutError() : error;
      } finally {
        if (timer) clearTimeout(timer);
        clearTimeout(deadline);
        interrupted.removeEventListener("abort", abort);
      }
    },
    catch: (error) => toProviderError(label, error, sdk),
  });
}

/**
 * Reports one text delta to the run (the request's callback) and to the host's provider callback;
 * whether anyone received it. A throwing callback never breaks the call.
 */
export function reportDelta(
  options: ProviderOptions,
  request: Pick<ProviderRequest, "runId" | "step" | "onTextDelta">,
  text: string,
): boolean {
  if (text.length === 0 || (!options.onTextDelta && !request.onTextDelta)) return false;
  try {
    request.onTextDelta?.(text);
  } catch {
    // A listener's problem is not the provider's failure.
  }
  try {
    options.onTextDelta?.(request.runId, request.step, text);
  } catch {
    // The host's display problem is not the provider's failure.
  }
  return true;
}

/** Drops `$schema` (zod emits it; tool APIs do not need it) and makes sure the schema is an object schema. */
export function toolParameters(schema: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = schema;
  return rest.type === undefined ? { type: "object", ...rest } : rest;
}
