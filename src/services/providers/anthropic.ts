import Anthropic from "@anthropic-ai/sdk";
import type { Message, MessageCreateParamsBase, RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import {
  type ModelResponse,
  type ProviderCapabilities,
  ProviderCapabilities as ProviderCapabilitiesSchema,
} from "../../domain/index.js";
import type { Provider, ProviderRequest } from "./Provider.js";
import { anthropicToolFields, toAnthropicConversation } from "./serializers/anthropic.js";
import {
  anthropicFinish,
  assembleResponse,
  MAX_ARGUMENT_DEPTH,
  type NeutralFinish,
  ToolCallAssembler,
  valueNestsDeeperThan,
} from "./streamAssembly.js";
import { callTiming, DEFAULT_TIMEOUT_MS, providerCall, type RealProviderConfig, reportDelta } from "./transport.js";

/** Anthropic Messages, through the official SDK. */

export interface AnthropicConfig extends RealProviderConfig {
  readonly capabilities?: Partial<ProviderCapabilities>;
}

export const ANTHROPIC_ID = "anthropic";
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;
const LABEL = "Anthropic Messages";

function requestBody(config: AnthropicConfig, request: ProviderRequest): Omit<MessageCreateParamsBase, "stream"> {
  const conversation = toAnthropicConversation(request.messages, { toolsOffered: request.tools.length > 0 });
  return {
    model: config.model,
    max_tokens: config.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    ...(conversation.system ? { system: conversation.system } : {}),
    messages: conversation.messages,
    ...anthropicToolFields(request.tools, request.toolChoice),
  };
}

const offered = (request: ProviderRequest) => new Set(request.tools.map((tool) => tool.name));

/**
 * Anthropic has `tool_use.input` as an object; the assembler takes every protocol's arguments as
 * text. An input nested too deep to serialize is passed on as its opening brackets, enough for the
 * assembler to refuse the call for its depth.
 */
const inputText = (input: unknown) => {
  if (input === undefined) return "";
  if (valueNestsDeeperThan(input, MAX_ARGUMENT_DEPTH)) return "[".repeat(MAX_ARGUMENT_DEPTH + 1);
  return JSON.stringify(input);
};

const noStopReason: NeutralFinish = {
  reason: "error",
  anomalies: [{ code: "unknown_finish_reason", detail: "the message has no stop_reason" }],
};

function fromMessage(message: Message, request: ProviderRequest): ModelResponse {
  const calls = new ToolCallAssembler();
  let text = "";
  (message.content ?? []).forEach((block, index) => {
    if (block.type === "text") text += block.text;
    else if (block.type === "tool_use") {
      calls.open(String(index), { id: block.id, name: block.name, arguments: inputText(block.input) });
      calls.complete(String(index));
    }
  });
  return assembleResponse({
    step: request.step,
    text,
    calls: calls.list(),
    finish: anthropicFinish(message.stop_reason) ?? noStopReason,
    offeredTools: offered(request),
    streamed: false,
    usage: message.usage
      ? { inputTokens: message.usage.input_tokens ?? 0, outputTokens: message.usage.output_tokens ?? 0 }
      : undefined,
  });
}

export function anthropicProvider(config: AnthropicConfig): Provider {
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // apiKey and baseURL are always explicit: the SDK would otherwise read ANTHROPIC_* itself.
  const client = new Anthropic({
    apiKey: config.apiKey,
    baseURL: config.baseURL ?? "https://api.anthropic.com",
    maxRetries: 0,
    // The SDKs log raw response text (secrets included) on console.error; agentloop logs its own, redacted.
    logLevel: "off",
    timeout: timeoutMs,
  });
  const stream = config.stream ?? true;

  const sample = (request: ProviderRequest) =>
    providerCall(LABEL, callTiming(config), Anthropic, async (signal, keepAlive) => {
      const body = requestBody(config, request);
      if (!stream) return fromMessage(await client.messages.create({ ...body, stream: false }, { signal }), request);

      const events = await client.messages.create({ ...body, stream: true }, { signal });
      keepAlive();
      const calls = new ToolCallAssembler();
      let text = "";
      let streamed = false;
      let finish: NeutralFinish | undefined;
      let stopped = false;
      let inputTokens = 0;
      let outputTokens = 0;
      let sawUsage = false;
      for await (const event of events as AsyncIterable<RawMessageStreamEvent>) {
        // Progress is content, a tool call or the end of the message; `ping` (and anything
        // unknown) is a keep-alive and does not re-arm the idle timer.
        if (event.type.startsWith("content_block_") || event.type.startsWith("message_")) keepAlive();
        switch (event.type) {
          case "message_start":
            if (event.message.usage) {
              sawUsage = true;
              inputTokens = event.message.usage.input_tokens ?? 0;
              outputTokens = event.message.usage.output_tokens ?? 0;
            }
            break;
          case "content_block_start": {
            const block = event.content_block;
            if (block.type === "text" && block.text) {
              text += block.text;
              streamed = reportDelta(config, request, block.text) || streamed;
            } else if (block.type === "tool_use") {
              // The block's initial `input` is `{}`; the real input arrives as input_json_delta fragments.
              calls.open(String(event.index), { id: block.id, name: block.name });
            }
            break;
          }
          case "content_block_delta":
            if (event.delta.type === "text_delta") {
              text += event.delta.text;
              streamed = reportDelta(config, request, event.delta.text) || streamed;
            } else if (event.delta.type === "input_json_delta") {
              calls.appendArguments(String(event.index), event.delta.partial_json);
            }
            break;
          case "content_block_stop":
            calls.complete(String(event.index));
            break;
          case "message_delta":
            finish = anthropicFinish(event.delta.stop_reason) ?? finish;
            if (event.usage) {
              sawUsage = true;
              if (typeof event.usage.input_tokens === "number") inputTokens = event.usage.input_tokens;
              outputTokens = event.usage.output_tokens ?? outputTokens;
            }
            break;
          case "message_stop":
            stopped = true;
            break;
          default:
            break;
        }
      }
      if (finish && !stopped) {
        // A stop reason arrived but the message never closed: still an early end of the stream.
        const anomalies = [
          ...finish.anomalies,
          { code: "stream_ended_early" as const, detail: "the stream ended before message_stop" },
        ];
        finish = { reason: finish.reason, anomalies };
      }
      return assembleResponse({
        step: request.step,
        text,
        calls: calls.list(),
        finish,
        offeredTools: offered(request),
        streamed,
        usage: sawUsage ? { inputTokens, outputTokens } : undefined,
      });
    });

  return {
    id: ANTHROPIC_ID,
    model: config.model,
    apiFamily: "anthropic-messages",
    capabilities: ProviderCapabilitiesSchema.parse(config.capabilities ?? {}),
    sample,
  };
}
