import * as Data from "effect/Data";
import * as Either from "effect/Either";
import type { ProviderCapabilities } from "../../domain/index.js";
import { anthropicProvider } from "./anthropic.js";
import { PROVIDER_NAMES, type ProviderName } from "./names.js";
import { openAIChatProvider } from "./openaiChat.js";
import { openAIResponsesProvider } from "./openaiResponses.js";
import type { Provider } from "./Provider.js";
import type { ProviderOptions } from "./transport.js";

export type { ProviderOptions } from "./transport.js";

/**
 * Which real provider a process talks to: explicit options first, then the environment
 * (`AGENTLOOP_PROVIDER`, `AGENTLOOP_MODEL`, `OPENAI_API_KEY` / `OPENAI_BASE_URL`,
 * `ANTHROPIC_API_KEY` / `ANTHROPIC_BASE_URL`, `AGENTLOOP_TOOL_CALLING`). A missing key or an
 * unknown provider is a ProviderConfigError whose one-line message names what to set.
 */

export { PROVIDER_NAMES, type ProviderName };

export type ProviderConfigErrorReason = "no_provider" | "unknown_provider" | "missing_api_key" | "invalid_tool_calling";

export class ProviderConfigError extends Data.TaggedError("ProviderConfigError")<{
  readonly reason: ProviderConfigErrorReason;
  readonly message: string;
  /** The environment variable that would fix it, when one would. */
  readonly variable?: string;
}> {}

export const DEFAULT_MODELS: Readonly<Record<ProviderName, string>> = {
  "openai-chat": "gpt-4.1-mini",
  "openai-responses": "gpt-4.1-mini",
  anthropic: "claude-sonnet-4-5",
};

const KEY_VARIABLE: Readonly<Record<ProviderName, string>> = {
  "openai-chat": "OPENAI_API_KEY",
  "openai-responses": "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
};

const BASE_URL_VARIABLE: Readonly<Record<ProviderName, string>> = {
  "openai-chat": "OPENAI_BASE_URL",
  "openai-responses": "OPENAI_BASE_URL",
  anthropic: "ANTHROPIC_BASE_URL",
};

/**
 * Models known to offer no tool calling (matched against the model name). Such a provider is
 * declared `toolCalling: false`: the run offers it no tools and never claims it could have used
 * one. Overridable per call (`capabilities`) or with `AGENTLOOP_TOOL_CALLING=true|false`.
 */
export const NO_TOOL_MODELS: ReadonlyArray<{ readonly provider: ProviderName | "*"; readonly pattern: RegExp }> = [
  { provider: "openai-chat", pattern: /^o1-(mini|preview)\b/ },
  { provider: "openai-chat", pattern: /^chatgpt-4o-latest$/ },
  { provider: "openai-chat", pattern: /^gpt-3\.5-turbo-instruct\b/ },
  { provider: "openai-chat", pattern: /^gpt-4-0314$/ },
  { provider: "openai-responses", pattern: /^o1-(mini|preview)\b/ },
  { provider: "*", pattern: /^deepseek-reasoner$/ },
  { provider: "anthropic", pattern: /^claude-(2|instant)\b/ },
];

export function capabilitiesFor(
  provider: ProviderName,
  model: string,
  overrides: Partial<ProviderCapabilities> = {},
): Partial<ProviderCapabilities> {
  const noTools = NO_TOOL_MODELS.some(
    (entry) => (entry.provider === "*" || entry.provider === provider) && entry.pattern.test(model),
  );
  return { ...(noTools ? { toolCalling: false } : {}), ...overrides };
}

/** What a caller may choose explicitly; anything left out comes from the environment. */
export interface ProviderSelection {
  readonly provider?: string;
  readonly model?: string;
  readonly baseURL?: string;
  readonly apiKey?: string;
  readonly stream?: boolean;
  readonly timeoutMs?: number;
  /** The overall deadline of one provider call, in ms (default 10 min). */
  readonly deadlineMs?: number;
  readonly maxTokens?: number;
  readonly capabilities?: Partial<ProviderCapabilities>;
}

export interface ResolvedProviderConfig {
  readonly provider: ProviderName;
  readonly model: string;
  readonly apiKey: string;
  readonly baseURL?: string;
  readonly stream: boolean;
  readonly timeoutMs?: number;
  readonly deadlineMs?: number;
  readonly maxTokens?: number;
  readonly capabilities: Partial<ProviderCapabilities>;
}

export type Environment = Readonly<Record<string, string | undefined>>;

const nonEmpty = (value: string | undefined) =>
  value !== undefined && value.trim().length > 0 ? value.trim() : undefined;

function toolCallingFromEnv(env: Environment): Either.Either<boolean | undefined, ProviderConfigError> {
  const raw = nonEmpty(env.AGENTLOOP_TOOL_CALLING)?.toLowerCase();
  if (raw === undefined) return Either.right(undefined);
  if (["1", "true", "yes", "on"].includes(raw)) return Either.right(true);
  if (["0", "false", "no", "off"].includes(raw)) return Either.right(false);
  return Either.left(
    new ProviderConfigError({
      reason: "invalid_tool_calling",
      message: `AGENTLOOP_TOOL_CALLING must be true or false, not "${env.AGENTLOOP_TOOL_CALLING}"`,
      variable: "AGENTLOOP_TOOL_CALLING",
    }),
  );
}

export function resolveProviderConfig(
  selection: ProviderSelection = {},
  env: Environment = process.env,
): Either.Either<ResolvedProviderConfig, ProviderConfigError> {
  const name = nonEmpty(selection.provider) ?? nonEmpty(env.AGENTLOOP_PROVIDER);
  if (!name) {
    return Either.left(
      new ProviderConfigError({
        reason: "no_provider",
        message: `no provider chosen: pass --provider or set AGENTLOOP_PROVIDER (${PROVIDER_NAMES.join(", ")})`,
        variable: "AGENTLOOP_PROVIDER",
      }),
    );
  }
  if (!(PROVIDER_NAMES as ReadonlyArray<string>).includes(name)) {
    return Either.left(
      new ProviderConfigError({
        reason: "unknown_provider",
        message: `unknown provider "${name}": expected one of ${PROVIDER_NAMES.join(", ")}`,
      }),
    );
  }
  const provider = name as ProviderName;
  const apiKey = nonEmpty(selection.apiKey) ?? nonEmpty(env[KEY_VARIABLE[provider]]);
  if (!apiKey) {
    return Either.left(
      new ProviderConfigError({
        reason: "missing_api_key",
        message: `${KEY_VARIABLE[provider]} is not set: the ${provider} provider needs an API key`,
        variable: KEY_VARIABLE[provider],
      }),
    );
  }
  const toolCalling = toolCallingFromEnv(env);
  if (Either.isLeft(toolCalling)) return Either.left(toolCalling.left);
  const model = nonEmpty(selection.model) ?? nonEmpty(env.AGENTLOOP_MODEL) ?? DEFAULT_MODELS[provider];
  const baseURL = nonEmpty(selection.baseURL) ?? nonEmpty(env[BASE_URL_VARIABLE[provider]]);
  const overrides = {
    ...(toolCalling.right !== undefined ? { toolCalling: toolCalling.right } : {}),
    ...selection.capabilities,
  };
  return Either.right({
    provider,
    model,
    apiKey,
    ...(baseURL ? { baseURL } : {}),
    stream: selection.stream ?? true,
    ...(selection.timeoutMs ? { timeoutMs: selection.timeoutMs } : {}),
    ...(selection.deadlineMs ? { deadlineMs: selection.deadlineMs } : {}),
    ...(selection.maxTokens ? { maxTokens: selection.maxTokens } : {}),
    capabilities: capabilitiesFor(provider, model, overrides),
  });
}

/** Builds the provider a resolved configuration names. */
export function makeProvider(config: ResolvedProviderConfig, options: ProviderOptions = {}): Provider {
  const shared = {
    apiKey: config.apiKey,
    model: config.model,
    stream: config.stream,
    capabilities: config.capabilities,
    ...(config.baseURL ? { baseURL: config.baseURL } : {}),
    ...(config.timeoutMs ? { timeoutMs: config.timeoutMs } : {}),
    ...(config.deadlineMs ? { deadlineMs: config.deadlineMs } : {}),
    ...(config.maxTokens ? { maxTokens: config.maxTokens } : {}),
    ...options,
  };
  switch (config.provider) {
    case "openai-chat":
      return openAIChatProvider(shared);
    case "openai-responses":
      return openAIResponsesProvider(shared);
    case "anthropic":
      return anthropicProvider(shared);
  }
}
