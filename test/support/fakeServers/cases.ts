/**
 * The three real providers, each paired with its fake server, so a behaviour can be tested once
 * per wire protocol through the real SDKs.
 */
import type { ContextMessage, ProviderCapabilities, ToolDescriptor } from "../../../src/domain/index.js";
import { anthropicProvider } from "../../../src/services/providers/anthropic.js";
import { openAIChatProvider } from "../../../src/services/providers/openaiChat.js";
import { openAIResponsesProvider } from "../../../src/services/providers/openaiResponses.js";
import type { Provider, ProviderRequest } from "../../../src/services/providers/Provider.js";
import type { ProviderOptions } from "../../../src/services/providers/transport.js";
import { anthropicWire, startAnthropicServer } from "./anthropic.js";
import { openAIChatWire, startOpenAIChatServer } from "./openaiChat.js";
import { openAIResponsesWire, startOpenAIResponsesServer } from "./openaiResponses.js";
import { type FakeServer, type FakeServerOptions, type FakeWire, isObject } from "./shared.js";

export interface CaseOptions extends ProviderOptions {
  readonly stream?: boolean;
  readonly timeoutMs?: number;
  readonly deadlineMs?: number;
  readonly capabilities?: Partial<ProviderCapabilities>;
}

export interface ProviderCase {
  readonly name: "openai-chat" | "openai-responses" | "anthropic";
  readonly wire: FakeWire;
  readonly start: (options?: FakeServerOptions) => Promise<FakeServer>;
  readonly make: (server: FakeServer, options?: CaseOptions) => Provider;
  /** The names of the tools a recorded request body offered. */
  // biome-ignore lint/suspicious/noExplicitAny: recorded bodies are plain JSON
  readonly offeredTools: (body: any) => string[];
}

export const API_KEY = "test-key";

// biome-ignore lint/suspicious/noExplicitAny: recorded bodies are plain JSON
const names = (tools: any, pick: (tool: any) => unknown): string[] =>
  Array.isArray(tools) ? tools.map((tool) => String(pick(tool))) : [];

export const CASES: ReadonlyArray<ProviderCase> = [
  {
    name: "openai-chat",
    wire: openAIChatWire,
    start: startOpenAIChatServer,
    make: (server, options = {}) =>
      openAIChatProvider({ apiKey: API_KEY, baseURL: `${server.origin}/v1`, model: "fake-chat-model", ...options }),
    offeredTools: (body) => names(body.tools, (tool) => (isObject(tool.function) ? tool.function.name : undefined)),
  },
  {
    name: "openai-responses",
    wire: openAIResponsesWire,
    start: startOpenAIResponsesServer,
    make: (server, options = {}) =>
      openAIResponsesProvider({
        apiKey: API_KEY,
        baseURL: `${server.origin}/v1`,
        model: "fake-responses-model",
        ...options,
      }),
    offeredTools: (body) => names(body.tools, (tool) => tool.name),
  },
  {
    name: "anthropic",
    wire: anthropicWire,
    start: startAnthropicServer,
    make: (server, options = {}) =>
      anthropicProvider({ apiKey: API_KEY, baseURL: server.origin, model: "fake-claude", ...options }),
    offeredTools: (body) => names(body.tools, (tool) => tool.name),
  },
];

export const LOOKUP: ToolDescriptor = {
  name: "lookup",
  description: "looks an item up",
  kind: "observe",
  inputSchema: {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: { i: { type: "number" } },
    required: ["i"],
  },
};

export function request(overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  const messages: ContextMessage[] = [{ role: "user", content: "Look item 1 up." }];
  return { runId: "run-test", step: 1, messages, tools: [LOOKUP], toolChoice: { mode: "auto" }, ...overrides };
}
