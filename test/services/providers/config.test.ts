import { Either } from "effect";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_MODELS,
  makeProvider,
  ProviderConfigError,
  resolveProviderConfig,
} from "../../../src/services/providers/config.js";

/** Choosing the provider, model, endpoint and key from options and the environment. */

const resolved = (selection: Parameters<typeof resolveProviderConfig>[0], env: Record<string, string> = {}) =>
  Either.getOrThrow(resolveProviderConfig(selection, env));
const refused = (selection: Parameters<typeof resolveProviderConfig>[0], env: Record<string, string> = {}) => {
  const result = resolveProviderConfig(selection, env);
  if (Either.isRight(result)) throw new Error("expected a ProviderConfigError");
  return result.left;
};

describe("resolveProviderConfig", () => {
  it("takes provider, model, base URL and key from the environment", () => {
    const config = resolved(
      {},
      {
        AGENTLOOP_PROVIDER: "openai-responses",
        AGENTLOOP_MODEL: "gpt-test",
        OPENAI_API_KEY: "sk-env",
        OPENAI_BASE_URL: "http://localhost:1/v1",
      },
    );
    expect(config).toMatchObject({
      provider: "openai-responses",
      model: "gpt-test",
      apiKey: "sk-env",
      baseURL: "http://localhost:1/v1",
      stream: true,
    });
  });

  it("prefers explicit options over the environment", () => {
    const config = resolved(
      { provider: "anthropic", model: "claude-x", baseURL: "http://explicit", apiKey: "explicit" },
      {
        AGENTLOOP_PROVIDER: "openai-chat",
        AGENTLOOP_MODEL: "gpt",
        ANTHROPIC_API_KEY: "env",
        ANTHROPIC_BASE_URL: "http://env",
      },
    );
    expect(config).toMatchObject({
      provider: "anthropic",
      model: "claude-x",
      baseURL: "http://explicit",
      apiKey: "explicit",
    });
  });

  it("uses the provider's default model when none is chosen", () => {
    expect(resolved({ provider: "anthropic" }, { ANTHROPIC_API_KEY: "k" }).model).toBe(DEFAULT_MODELS.anthropic);
  });

  it.each([
    ["openai-chat", "OPENAI_API_KEY"],
    ["openai-responses", "OPENAI_API_KEY"],
    ["anthropic", "ANTHROPIC_API_KEY"],
  ])("refuses %s without a key, naming %s", (provider, variable) => {
    const error = refused({ provider });
    expect(error).toBeInstanceOf(ProviderConfigError);
    expect(error.reason).toBe("missing_api_key");
    expect(error.variable).toBe(variable);
    expect(error.message).toBe(`${variable} is not set: the ${provider} provider needs an API key`);
  });

  it("refuses a run without any provider, naming AGENTLOOP_PROVIDER", () => {
    expect(refused({}).message).toMatch(/^no provider chosen: pass --provider or set AGENTLOOP_PROVIDER/);
  });

  it("refuses an unknown provider name", () => {
    expect(refused({ provider: "gemini" }, { OPENAI_API_KEY: "k" }).message).toBe(
      'unknown provider "gemini": expected one of openai-chat, openai-responses, anthropic',
    );
  });

  it("declares a known no-tool model without tool calling", () => {
    expect(resolved({ provider: "openai-chat", model: "o1-mini" }, { OPENAI_API_KEY: "k" }).capabilities).toEqual({
      toolCalling: false,
    });
  });

  it("lets AGENTLOOP_TOOL_CALLING override the table", () => {
    const config = resolved(
      { provider: "openai-chat", model: "o1-mini" },
      { OPENAI_API_KEY: "k", AGENTLOOP_TOOL_CALLING: "true" },
    );
    expect(config.capabilities).toEqual({ toolCalling: true });
  });

  it("lets explicit capabilities override the environment", () => {
    const config = resolved(
      { provider: "openai-chat", capabilities: { toolCalling: false } },
      { OPENAI_API_KEY: "k", AGENTLOOP_TOOL_CALLING: "true" },
    );
    expect(config.capabilities).toEqual({ toolCalling: false });
  });

  it("refuses an unreadable AGENTLOOP_TOOL_CALLING", () => {
    expect(
      refused({ provider: "openai-chat" }, { OPENAI_API_KEY: "k", AGENTLOOP_TOOL_CALLING: "maybe" }).variable,
    ).toBe("AGENTLOOP_TOOL_CALLING");
  });
});

describe("makeProvider", () => {
  it.each([
    ["openai-chat", "openai-chat-completions"],
    ["openai-responses", "openai-responses"],
    ["anthropic", "anthropic-messages"],
  ] as const)("builds the %s provider", (provider, apiFamily) => {
    const built = makeProvider(resolved({ provider, model: "m", apiKey: "k" }));
    expect({ id: built.id, apiFamily: built.apiFamily, model: built.model }).toEqual({
      id: provider,
      apiFamily,
      model: "m",
    });
    expect(built.capabilities.toolCalling).toBe(true);
  });
});
