import OpenAI from "openai";
import type { ChatCompletion, ChatCompletionCreateParamsBase } from "openai/resources/chat/completions";
import {
  type ModelResponse,
  type ProviderCapabilities,
  ProviderCapabilities as ProviderCapabilitiesSchema,
} from "../../domain/index.js";
import type { Provider, ProviderRequest } from "./Provider.js";
import { chatToolFields, toChatMessages } from "./serializers/openaiChat.js";
import { assembleResponse, chatFinish, type NeutralFinish, ToolCallAssembler } from "./streamAssembly.js";
import { callTiming, DEFAULT_TIMEOUT_MS, providerCall, type RealProviderConfig, reportDelta } from "./transport.js";

/** OpenAI Chat Completions (and the many servers that speak it), through the official SDK. */

export interface OpenAIChatConfig extends RealProviderConfig {
  readonly capabilities?: Partial<ProviderCapabilities>;
}

export const OPENAI_CHAT_ID = "openai-chat";
const LABEL = "OpenAI Chat Completions";

type ChatBody = Omit<ChatCompletionCreateParamsBase, "stream">;

function requestBody(config: OpenAIChatConfig, request: ProviderRequest): ChatBody {
  return {
    model: config.model,
    messages: toChatMessages(request.messages),
    ...chatToolFields(request.tools, request.toolChoice),
    ...(config.maxTokens ? { max_completion_tokens: config.maxTokens } : {}),
  };
}

const offered = (request: ProviderRequest) => new Set(request.tools.map((tool) => tool.name));

function usageOf(usage: ChatCompletion["usage"] | null | undefined) {
  return usage ? { inputTokens: usage.prompt_tokens ?? 0, outputTokens: usage.completion_tokens ?? 0 } : undefined;
}

function fromCompletion(completion: ChatCompletion, request: ProviderRequest): ModelResponse {
  const choice = completion.choices?.[0];
  const calls = new ToolCallAssembler();
  (choice?.message?.tool_calls ?? []).forEach((call, index) => {
    const key = String(index);
    if (call.type === "function") {
      calls.open(key, { id: call.id, name: call.function?.name, arguments: call.function?.arguments ?? "" });
    } else {
      calls.open(key, { id: call.id, arguments: call.custom?.input ?? "" });
    }
    calls.complete(key);
  });
  const legacy = choice?.message?.function_call;
  if (legacy) {
    calls.open("function_call", { name: legacy.name, arguments: legacy.arguments });
    calls.complete("function_call");
  }
  return assembleResponse({
    step: request.step,
    text: choice?.message?.content ?? "",
    calls: calls.list(),
    finish: chatFinish(choice?.finish_reason ?? null) ?? {
      reason: "error",
      anomalies: [{ code: "unknown_finish_reason", detail: "the completion has no finish_reason" }],
    },
    offeredTools: offered(request),
    streamed: false,
    usage: usageOf(completion.usage),
  });
}

export function openAIChatProvider(config: OpenAIChatConfig): Provider {
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const client = new OpenAI({
    apiKey: config.apiKey,
    ...(config.baseURL ? { baseURL: config.baseURL } : {}),
    maxRetries: 0,
    // The SDKs log raw response text (secrets included) on console.error; agentloop logs its own, redacted.
    logLevel: "off",
    timeout: timeoutMs,
  });
  const stream = config.stream ?? true;

  const sample = (request: ProviderRequest) =>
    providerCall(LABEL, callTiming(config), OpenAI, async (signal, keepAlive) => {
      const body = requestBody(config, request);
      if (!stream) {
        return fromCompletion(await client.chat.completions.create({ ...body, stream: false }, { signal }), request);
      }
      const chunks = await client.chat.completions.create(
        { ...body, stream: true, stream_options: { include_usage: true } },
        { signal },
      );
      keepAlive();
      const calls = new ToolCallAssembler();
      let text = "";
      let streamed = false;
      let finish: NeutralFinish | undefined;
      let usage: ReturnType<typeof usageOf>;
      let lastKey: string | undefined;
      for await (const chunk of chunks) {
        if (chunk.usage) {
          keepAlive();
          usage = usageOf(chunk.usage);
        }
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const delta = choice.delta ?? {};
        // Progress is content, a tool call or the finish; an empty chunk is a keep-alive and
        // does not re-arm the idle timer.
        if (delta.content || delta.refusal || delta.tool_calls?.length || delta.function_call || choice.finish_reason) {
          keepAlive();
        }
        if (delta.content) {
          text += delta.content;
          streamed = reportDelta(config, request, delta.content) || streamed;
        }
        for (const call of delta.tool_calls ?? []) {
          // Some compatible servers leave out `index`: a new id then starts a new call, and an
          // id-less fragment continues the last one.
          const key =
            typeof call.index === "number" ? String(call.index) : call.id ? `id:${call.id}` : (lastKey ?? "0");
          lastKey = key;
          if (!calls.has(key)) calls.completeOthers(key);
          calls.open(key, { id: call.id, name: call.function?.name });
          calls.appendArguments(key, call.function?.arguments);
        }
        if (delta.function_call) {
          calls.open("function_call", { name: delta.function_call.name });
          calls.appendArguments("function_call", delta.function_call.arguments);
        }
        finish = chatFinish(choice.finish_reason) ?? finish;
      }
      return assembleResponse({
        step: request.step,
        text,
        calls: calls.list(),
        finish,
        offeredTools: offered(request),
        streamed,
        usage,
      });
    });

  return {
    id: OPENAI_CHAT_ID,
    model: config.model,
    apiFamily: "openai-chat-completions",
    capabilities: ProviderCapabilitiesSchema.parse(config.capabilities ?? {}),
    sample,
  };
}
