import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import type { z } from "zod";
import { errorText, ModelResponse, ProviderCapabilities } from "../../domain/index.js";
import { type Provider, ProviderError, type ProviderRequest, reasonForStatus } from "./Provider.js";
import { DEFAULT_TIMEOUT_MS, retryAfterMs } from "./transport.js";

/**
 * A provider written with Promises, for hosts that do not write Effect: `complete` answers one
 * sampling step and is wrapped into the Effect `Provider` every run uses (the same retries, the
 * same terminal states).
 */

/** What `complete` resolves to: the step's text, its tool calls and why the model stopped. */
export type ProviderReply = z.input<typeof ModelResponse>;

export interface ProviderDefinition {
  /** The provider's id, recorded with each run (a run's history is replayed as protocol only to the same id). */
  readonly name: string;
  /** Recorded with each run; picks the tokenizer and context window (default: `name`). */
  readonly model?: string | undefined;
  /** The wire family, e.g. "openai-chat" or "anthropic-messages" (default: "custom"). */
  readonly apiFamily?: string | undefined;
  /** What the model supports (default: tool calling with every tool choice). */
  readonly capabilities?: Partial<ProviderCapabilities> | undefined;
  /** A step that has not answered by then fails with a retryable `timeout` (default 120 s). */
  readonly timeoutMs?: number | undefined;
  /**
   * Answers one step. `signal` aborts when the run is cancelled or the step times out: pass it to
   * `fetch` or the SDK. A rejection is classified: a `ProviderError` as it is; an error with an
   * HTTP `status` by that status (429 and 5xx retried, `retry-after` honoured from its `headers`);
   * a network failure as `connection` (retried); anything else as `bad_request`, which ends the
   * run without another attempt.
   */
  readonly complete: (request: ProviderRequest, context: { readonly signal: AbortSignal }) => Promise<ProviderReply>;
}

/** Wraps a Promise-based provider into the Effect `Provider` a runtime takes. */
export function defineProvider(definition: ProviderDefinition): Provider {
  const label = `provider ${definition.name}`;
  const timeoutMs = definition.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    id: definition.name,
    model: definition.model ?? definition.name,
    apiFamily: definition.apiFamily ?? "custom",
    capabilities: ProviderCapabilities.parse(definition.capabilities ?? {}),
    sample: (request) =>
      Effect.tryPromise({
        try: (signal) => definition.complete(request, { signal }),
        catch: (error) => classify(label, error),
      }).pipe(
        Effect.timeoutFail({
          duration: Duration.millis(timeoutMs),
          onTimeout: () =>
            new ProviderError({ reason: "timeout", message: `${label}: no answer within ${timeoutMs} ms` }),
        }),
        Effect.flatMap((reply) => {
          const parsed = ModelResponse.safeParse(reply);
          if (parsed.success) return Effect.succeed(parsed.data);
          const issue = parsed.error.issues[0];
          return Effect.fail(
            new ProviderError({
              reason: "invalid_response",
              message: `${label} answered with a reply of the wrong shape: ${issue ? `${issue.path.join(".") || "reply"}: ${issue.message}` : "?"}`,
            }),
          );
        }),
      ),
  };
}

/** undici's failed `fetch`: a TypeError caused by the socket error. */
const isNetworkFailure = (error: unknown) =>
  error instanceof TypeError && (error.cause instanceof Error || error.message === "fetch failed");

function classify(label: string, error: unknown): ProviderError {
  if (error instanceof ProviderError) return error;
  const shaped = (error ?? {}) as { status?: unknown; headers?: unknown; name?: unknown };
  const message = `${label}: ${errorText(error)}`;
  if (typeof shaped.status === "number") {
    const retryAfter = retryAfterMs(shaped.headers as Parameters<typeof retryAfterMs>[0]);
    return new ProviderError({
      reason: reasonForStatus(shaped.status),
      status: shaped.status,
      message,
      ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}),
    });
  }
  if (shaped.name === "TimeoutError") return new ProviderError({ reason: "timeout", message });
  if (isNetworkFailure(error)) return new ProviderError({ reason: "connection", message });
  return new ProviderError({ reason: "bad_request", message });
}
