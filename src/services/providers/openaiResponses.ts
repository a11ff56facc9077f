import OpenAI from "openai";
import type {
  Response,
  ResponseCreateParamsBase,
  ResponseOutputItem,
  ResponseStreamEvent,
} from "openai/resources/responses/responses";
import {
  type ModelResponse,
  type ProviderAnomaly,
  type ProviderCapabilities,
  ProviderCapabilities as ProviderCapabilitiesSchema,
} from "../../domain/index.js";
import { type Provider, ProviderError, type ProviderRequest } from "./Provider.js";
import { responsesToolFields, toResponsesInput } from "./serializers/openaiResponses.js";
import { assembleResponse, type NeutralFinish, responsesFinish, ToolCallAssembler } from "./streamAssembly.js";
import {
  callTiming,
  DEFAULT_TIMEOUT_MS,
  providerCall,
  type RealProviderConfig,
  reasonForErrorKind,
  reportDelta,
} from "./transport.js";

/** The OpenAI Responses API, through the official SDK (stateless: `store: false`, the full input each step). */

export interface OpenAIResponsesConfig extends RealProviderConfig {
  readonly capabilities?: Partial<ProviderCapabilities>;
}

export const OPENAI_RESPONSES_ID = "openai-responses";
const LABEL = "OpenAI Responses";

function requestBody(
  config: OpenAIResponsesConfig,
  request: ProviderRequest,
): Omit<ResponseCreateParamsBase, "stream"> {
  return {
    model: config.model,
    input: toResponsesInput(request.messages),
    ...responsesToolFields(request.tools, request.toolChoice),
    ...(config.maxTokens ? { max_output_tokens: config.maxTokens } : {}),
    store: false,
  };
}

const offered = (request: ProviderRequest) => new Set(request.tools.map((tool) => tool.name));

function usageOf(response: Response | undefined) {
  const usage = response?.usage;
  return usage ? { inputTokens: usage.input_tokens ?? 0, outputTokens: usage.output_tokens ?? 0 } : undefined;
}

/** A `failed` response is the server's failure, not a way of finishing: it becomes a ProviderError. */
function failure(response: Response): ProviderError {
  const error = response.error;
  return new ProviderError({
    reason: reasonForErrorKind(error?.code ?? undefined),
    message: `${LABEL}: the response failed${error ? `: ${error.code}: ${error.message}` : ""}`,
  });
}

/** Folds whole output items into the assembler (they are authoritative over streamed fragments). */
function mergeItem(calls: ToolCallAssembler, index: number, item: ResponseOutputItem): void {
  if (item.type !== "function_call") return;
  const key = String(index);
  calls.open(key, { id: item.call_id, name: item.name });
  calls.setArguments(key, item.arguments ?? "");
  if (item.status !== "in_progress" && item.status !== "incomplete") calls.complete(key);
}

function messageText(items: ReadonlyArray<ResponseOutputItem>): { text: string; refusal: string } {
  let text = "";
  let refusal = "";
  for (const item of items) {
    if (item.type !== "message") continue;
    for (const part of item.content ?? []) {
      if (part.type === "output_text") text += part.text;
      else if (part.type === "refusal") refusal += part.refusal;
    }
  }
  return { text, refusal };
}

/** A refusal part turns a finished response into a content-filter stop. */
function finishOf(response: Response, calls: ToolCallAssembler, refusal: string): NeutralFinish {
  if (refusal.length > 0 && response.status === "completed") {
    const anomaly: ProviderAnomaly = { code: "content_filter", detail: "the model refused (refusal output)" };
    return { reason: "content_filter", anomalies: [anomaly] };
  }
  return responsesFinish(response, calls.list().length > 0);
}

function fromResponse(response: Response, request: ProviderRequest): ModelResponse {
  if (response.status === "failed") throw failure(response);
  const calls = new ToolCallAssembler();
  for (const [index, item] of (response.output ?? []).entries()) mergeItem(calls, index, item);
  const { text, refusal } = messageText(response.output ?? []);
  return assembleResponse({
    step: request.step,
    text: text.length > 0 ? text : refusal,
    calls: calls.list(),
    finish: finishOf(response, calls, refusal),
    offeredTools: offered(request),
    streamed: false,
    usage: usageOf(response),
  });
}

/** Stream events that are progress: output of any kind, the end of the response, an error. */
const RESPONSES_PROGRESS =
  /^(response\.(output_|content_part\.|function_call_|refusal\.|reasoning|completed|incomplete|failed)|error$)/;

export function openAIResponsesProvider(config: OpenAIResponsesConfig): Provider {
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
      if (!stream) return fromResponse(await client.responses.create({ ...body, stream: false }, { signal }), request);

      const events = await client.responses.create({ ...body, stream: true }, { signal });
      keepAlive();
      const calls = new ToolCallAssembler();
      let text = "";
      let streamed = false;
      let final: Response | undefined;
      for await (const event of events as AsyncIterable<ResponseStreamEvent>) {
        // `response.created` / `response.in_progress` and other status events are keep-alives:
        // only output (text, tool calls, items) and the end of the response re-arm the idle timer.
        if (RESPONSES_PROGRESS.test(event.type)) keepAlive();
        switch (event.type) {
          case "response.output_text.delta":
            text += event.delta;
            streamed = reportDelta(config, request, event.delta) || streamed;
            break;
          case "response.output_item.added":
            if (event.item.type === "function_call") {
              calls.open(String(event.output_index), { id: event.item.call_id, name: event.item.name });
              calls.appendArguments(String(event.output_index), event.item.arguments);
            }
            break;
          case "response.function_call_arguments.delta":
            calls.appendArguments(String(event.output_index), event.delta);
            break;
          case "response.function_call_arguments.done":
            calls.setArguments(String(event.output_index), event.arguments);
            break;
          case "response.output_item.done":
            mergeItem(calls, event.output_index, event.item);
            break;
          case "response.completed":
          case "response.incomplete":
            final = event.response;
            break;
          case "response.failed":
            throw failure(event.response);
          case "error":
            throw new ProviderError({
              reason: reasonForErrorKind(event.code ?? undefined),
              message: `${LABEL} reported an error in the stream: ${event.code ?? "error"}: ${event.message}`,
            });
          default:
            break;
        }
      }
      let refusal = "";
      if (final) {
        for (const [index, item] of (final.output ?? []).entries()) mergeItem(calls, index, item);
        const whole = messageText(final.output ?? []);
        refusal = whole.refusal;
        // A server that sent no text deltas still sent the text in the final output.
        if (text.length === 0) text = whole.text.length > 0 ? whole.text : refusal;
      }
      return assembleResponse({
        step: request.step,
        text,
        calls: calls.list(),
        finish: final ? finishOf(final, calls, refusal) : undefined,
        offeredTools: offered(request),
        streamed,
        usage: usageOf(final),
      });
    });

  return {
    id: OPENAI_RESPONSES_ID,
    model: config.model,
    apiFamily: "openai-responses",
    capabilities: ProviderCapabilitiesSchema.parse(config.capabilities ?? {}),
    sample,
  };
}
