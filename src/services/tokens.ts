import { createRequire } from "node:module";
import type * as Cl100k from "gpt-tokenizer/encoding/cl100k_base";
import type * as O200k from "gpt-tokenizer/encoding/o200k_base";
import type * as ModelSpecs from "gpt-tokenizer/models";
import type { ContextMessage } from "../domain/index.js";

/**
 * gpt-tokenizer's encodings and model table are loaded on first use, through its CommonJS build so
 * that counting stays synchronous: their rank tables take 70–180 ms each to load, which
 * `import "agentloop"` should not cost a host before its first run builds a context.
 */
const require = createRequire(import.meta.url);
function onFirstUse<T>(load: () => T): () => T {
  let loaded: { readonly value: T } | undefined;
  return () => {
    loaded ??= { value: load() };
    return loaded.value;
  };
}
const cl100kEncoding = onFirstUse(() => require("gpt-tokenizer/encoding/cl100k_base") as typeof Cl100k);
const o200kEncoding = onFirstUse(() => require("gpt-tokenizer/encoding/o200k_base") as typeof O200k);

export interface TokenCounter {
  readonly encoding: "o200k_base" | "cl100k_base" | "anthropic_estimate";
  readonly count: (text: string) => number;
}

/**
 * Anthropic publishes no local tokenizer; its tokens run somewhat longer than cl100k's on
 * English and code. The estimate is cl100k × 1.15, rounded up — conservative on purpose, so a
 * budget computed with it errs towards trimming.
 */
export const ANTHROPIC_ESTIMATE_FACTOR = 1.15;

/**
 * Special-token markers in message text (a tool that reads a tokenizer's source, say) are plain
 * text to the model's API; gpt-tokenizer's default would throw on them and fail the whole history.
 */
const AS_TEXT = { disallowedSpecial: new Set<string>() };
const cl100k = (text: string) => (text ? cl100kEncoding().countTokens(text, AS_TEXT) : 0);
const o200k = (text: string) => (text ? o200kEncoding().countTokens(text, AS_TEXT) : 0);

/**
 * Short texts recur all through a session — a tool's name in every call, the same arguments, a
 * polling tool's same answer, a scheduled job's same prompt — and for them the tokenizer's fixed
 * cost per call is many map lookups. Bounded in length and entries, so a counter kept for long
 * holds little; each counter has its own memo.
 */
export const MEMO_MAX_LENGTH = 256;
export const MEMO_MAX_ENTRIES = 10_000;

function memoized(count: (text: string) => number): (text: string) => number {
  const memo = new Map<string, number>();
  return (text) => {
    if (text.length > MEMO_MAX_LENGTH) return count(text);
    let tokens = memo.get(text);
    if (tokens === undefined) {
      if (memo.size >= MEMO_MAX_ENTRIES) memo.clear();
      tokens = count(text);
      memo.set(text, tokens);
    }
    return tokens;
  };
}

export function tokenCounterFor(apiFamily: string, model: string): TokenCounter {
  // Anthropic's providers name their family "anthropic-messages" (src/services/providers/anthropic.ts).
  if (apiFamily === "anthropic-messages" || apiFamily === "anthropic" || model.startsWith("claude")) {
    return {
      encoding: "anthropic_estimate",
      count: memoized((text) => Math.ceil(cl100k(text) * ANTHROPIC_ESTIMATE_FACTOR)),
    };
  }
  if (/^(gpt-3\.5|gpt-4(?!o|\.1)|text-embedding)/.test(model))
    return { encoding: "cl100k_base", count: memoized(cl100k) };
  return { encoding: "o200k_base", count: memoized(o200k) };
}

/**
 * Context windows (tokens) from gpt-tokenizer's model table, by exact name or else by the longest
 * known name the model extends at a `-` (a dated snapshot of a known model, say).
 */
const libraryWindows = onFirstUse(
  (): ReadonlyMap<string, number> =>
    new Map(
      Object.entries(require("gpt-tokenizer/models") as typeof ModelSpecs as Readonly<Record<string, unknown>>).flatMap(
        ([name, spec]) => {
          const window = (spec as { context_window?: unknown } | null)?.context_window;
          return typeof window === "number" && window > 0 ? [[name, window] as const] : [];
        },
      ),
    ),
);

/** Only models gpt-tokenizer's table lacks; unknown models get a conservative 128k. */
const WINDOW_OVERRIDES: ReadonlyArray<readonly [RegExp, number]> = [[/^claude/, 200_000]];

export const DEFAULT_CONTEXT_WINDOW = 128_000;

function libraryWindow(model: string): number | undefined {
  const windows = libraryWindows();
  const exact = windows.get(model);
  if (exact !== undefined) return exact;
  let best: string | undefined;
  for (const name of windows.keys()) {
    if (model.startsWith(`${name}-`) && (!best || name.length > best.length)) best = name;
  }
  return best === undefined ? undefined : windows.get(best);
}

export function contextWindowFor(model: string): number {
  return (
    libraryWindow(model) ?? WINDOW_OVERRIDES.find(([pattern]) => pattern.test(model))?.[1] ?? DEFAULT_CONTEXT_WINDOW
  );
}

/** Per-message overhead of the chat formats (role markers, separators). */
const MESSAGE_OVERHEAD = 4;

/**
 * Counts per counter and message: one history read asks for the same messages several times (the
 * walk over runs, the group sizes, the final total) and encoding dominates its cost. Messages are
 * immutable values, so a count stays valid for as long as the object lives.
 */
const counted = new WeakMap<TokenCounter, WeakMap<ContextMessage, number>>();

export function messageTokens(message: ContextMessage, counter: TokenCounter): number {
  let byMessage = counted.get(counter);
  if (!byMessage) {
    byMessage = new WeakMap();
    counted.set(counter, byMessage);
  }
  let tokens = byMessage.get(message);
  if (tokens === undefined) {
    tokens = countMessage(message, counter);
    byMessage.set(message, tokens);
  }
  return tokens;
}

function countMessage(message: ContextMessage, counter: TokenCounter): number {
  switch (message.role) {
    case "assistant":
      return (
        MESSAGE_OVERHEAD +
        counter.count(message.content) +
        message.toolCalls.reduce(
          (sum, call) =>
            sum +
            counter.count(call.name) +
            counter.count(typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments)),
          0,
        )
      );
    case "tool":
      return MESSAGE_OVERHEAD + counter.count(message.callId) + counter.count(message.content);
    default:
      return MESSAGE_OVERHEAD + counter.count(message.content);
  }
}
