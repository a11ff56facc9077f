import type {
  FinishReason,
  JsonValue,
  MalformedToolCall,
  ModelResponse,
  ProviderAnomaly,
  ToolCall,
} from "../../domain/index.js";
import { redactText } from "../../persistence/payloadHygiene.js";

/**
 * Provider-neutral assembly of one model turn: tool calls built from streamed (or whole) fragments,
 * finish reasons mapped onto the neutral enum, and every protocol irregularity reported as an
 * anomaly instead of being silently repaired or dropped.
 */

/** A finish reason in the neutral enum, with the anomalies its mapping found. */
export interface NeutralFinish {
  readonly reason: FinishReason;
  readonly anomalies: ReadonlyArray<ProviderAnomaly>;
}

const finish = (reason: FinishReason, ...anomalies: ProviderAnomaly[]): NeutralFinish => ({ reason, anomalies });
const filtered = (detail: string): NeutralFinish => finish("content_filter", { code: "content_filter", detail });
const unknownFinish = (raw: string): NeutralFinish =>
  finish("error", { code: "unknown_finish_reason", detail: `unknown finish reason "${raw}"` });

/** Chat Completions `finish_reason`; undefined while the stream has not finished. */
export function chatFinish(raw: string | null | undefined): NeutralFinish | undefined {
  if (raw === null || raw === undefined) return undefined;
  switch (raw) {
    case "stop":
      return finish("stop");
    case "tool_calls":
    case "function_call":
      return finish("tool_calls");
    case "length":
      return finish("length");
    case "content_filter":
      return filtered("the provider's content filter stopped the answer (finish_reason content_filter)");
    default:
      return unknownFinish(raw);
  }
}

/** The parts of a Responses API `Response` that decide how it finished. */
export interface ResponsesStatus {
  readonly status?: string | null;
  readonly incomplete_details?: { readonly reason?: string | null } | null;
}

/**
 * Responses API status: `completed` → stop (tool_calls when it holds function calls),
 * `incomplete` → length (max_output_tokens) or content_filter, anything else → error.
 * (`failed` never gets here: the provider reports it as a ProviderError with the server's message.)
 */
export function responsesFinish(response: ResponsesStatus, hasFunctionCalls: boolean): NeutralFinish {
  const status = response.status ?? "completed";
  if (status === "completed") return finish(hasFunctionCalls ? "tool_calls" : "stop");
  if (status === "incomplete") {
    const reason = response.incomplete_details?.reason ?? "unknown";
    if (reason === "max_output_tokens") return finish("length");
    if (reason === "content_filter") {
      return filtered("the provider's content filter stopped the answer (incomplete: content_filter)");
    }
    return unknownFinish(`incomplete: ${reason}`);
  }
  return unknownFinish(status);
}

/** Anthropic `stop_reason`; undefined while the stream has not finished. */
export function anthropicFinish(raw: string | null | undefined): NeutralFinish | undefined {
  if (raw === null || raw === undefined) return undefined;
  switch (raw) {
    case "end_turn":
    case "stop_sequence":
      return finish("stop");
    case "tool_use":
      return finish("tool_calls");
    case "max_tokens":
    case "model_context_window_exceeded":
      return finish("length");
    case "refusal":
      return filtered("the model refused (stop_reason refusal)");
    default:
      return unknownFinish(raw);
  }
}

/** One tool call as its fragments arrived. */
export interface PartialToolCall {
  readonly key: string;
  id: string | undefined;
  name: string | undefined;
  arguments: string;
  /** The wire protocol said the call is whole (block/item done, or a later call started). */
  complete: boolean;
}

/** Collects tool-call fragments by a per-protocol key (Chat: index, Responses: output_index, Anthropic: block index). */
export class ToolCallAssembler {
  private readonly calls = new Map<string, PartialToolCall>();

  /** Starts the call `key` (or fills in what an earlier fragment left out). */
  open(key: string, init: { id?: string | null; name?: string | null; arguments?: string | null } = {}): void {
    let call = this.calls.get(key);
    if (!call) {
      call = { key, id: undefined, name: undefined, arguments: "", complete: false };
      this.calls.set(key, call);
    }
    if (init.id && !call.id) call.id = init.id;
    if (init.name && !call.name) call.name = init.name;
    if (init.arguments) call.arguments += init.arguments;
  }

  has(key: string): boolean {
    return this.calls.has(key);
  }

  appendArguments(key: string, fragment: string | null | undefined): void {
    if (!fragment) return;
    this.open(key);
    this.calls.get(key)!.arguments += fragment;
  }

  /** The protocol's own whole-argument string replaces the fragments (Responses `…arguments.done`). */
  setArguments(key: string, whole: string): void {
    this.open(key);
    this.calls.get(key)!.arguments = whole;
  }

  complete(key: string): void {
    const call = this.calls.get(key);
    if (call) call.complete = true;
  }

  /** Marks every call but `except` whole (Chat: a new index means the earlier calls are done). */
  completeOthers(except: string): void {
    for (const call of this.calls.values()) if (call.key !== except) call.complete = true;
  }

  list(): PartialToolCall[] {
    return [...this.calls.values()];
  }
}

export interface TurnParts {
  readonly step: number;
  readonly text: string;
  readonly calls: ReadonlyArray<PartialToolCall>;
  /** Undefined when the stream ended without saying how the turn finished. */
  readonly finish: NeutralFinish | undefined;
  /** Names of the tools the request offered. */
  readonly offeredTools: ReadonlySet<string>;
  readonly streamed: boolean;
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number } | undefined;
}

const RAW_LIMIT = 2_000;
/** Redacted before it is cut: a key cut in half no longer matches its pattern. */
const clip = (raw: string, max = 120) => {
  const text = redactText(raw);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
};

/**
 * The deepest nesting tool arguments may have. Deeper arguments are a broken tool call, not a
 * call: redaction, schema checks and serialization walk values recursively, and 100,000 levels
 * overflow the stack (no real tool schema comes near this).
 */
export const MAX_ARGUMENT_DEPTH = 100;

/** Whether JSON text nests arrays and objects deeper than `limit`: one pass, no recursion, no parse. */
export function nestsDeeperThan(json: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let at = 0; at < json.length; at++) {
    const code = json.charCodeAt(at);
    if (inString) {
      if (code === 0x5c) at += 1;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (code === 0x5d || code === 0x7d) depth -= 1;
  }
  return false;
}

/** Whether a parsed value nests deeper than `limit` (iterative, so any depth is safe to ask about). */
export function valueNestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<{ readonly value: unknown; readonly depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (next.value === null || typeof next.value !== "object") continue;
    const depth = next.depth + 1;
    if (depth > limit) return true;
    for (const inner of Object.values(next.value)) stack.push({ value: inner, depth });
  }
  return false;
}

function parseArguments(raw: string): { ok: true; value: JsonValue } | { ok: false } {
  if (raw.trim().length === 0) return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) as JsonValue };
  } catch {
    return { ok: false };
  }
}

/** Turns a turn's parts into the ModelResponse, with every anomaly named. */
export function assembleResponse(parts: TurnParts): ModelResponse {
  const anomalies: ProviderAnomaly[] = [...(parts.finish?.anomalies ?? [])];
  const finishReason: FinishReason = parts.finish?.reason ?? "error";
  if (!parts.finish) {
    anomalies.push({
      code: "stream_ended_early",
      detail: "the stream ended before the provider said how the turn finished",
    });
  }
  // Whole or not, a call the provider finished the turn on (tool_calls / stop) is taken as sent.
  const cut = parts.finish === undefined || !["tool_calls", "stop"].includes(finishReason);
  const toolCalls: ToolCall[] = [];
  const malformed: MalformedToolCall[] = [];
  const usedIds = new Set<string>();

  parts.calls.forEach((call, index) => {
    const label = `call ${index + 1}${call.name ? ` (${call.name})` : ""}`;
    const rawArguments = call.arguments.slice(0, RAW_LIMIT);
    const ident = call.id ? { id: call.id } : {};
    if (!call.name) {
      malformed.push({ ...ident, rawArguments, problem: `${label} has no tool name` });
      return;
    }
    if (nestsDeeperThan(call.arguments, MAX_ARGUMENT_DEPTH)) {
      malformed.push({
        ...ident,
        name: call.name,
        rawArguments,
        problem: `${label} has arguments nested deeper than ${MAX_ARGUMENT_DEPTH} levels`,
      });
      return;
    }
    const parsed = parseArguments(call.arguments);
    if ((cut && !call.complete) || (finishReason === "length" && !parsed.ok)) {
      if (finishReason === "length") {
        anomalies.push({ code: "length_mid_tool_call", detail: `the output limit cut ${label} off` });
        malformed.push({
          ...ident,
          name: call.name,
          rawArguments,
          problem: `${label} was cut off by the output limit`,
        });
      } else {
        malformed.push({
          ...ident,
          name: call.name,
          rawArguments,
          problem: `${label} was not complete when the turn ended (finish ${parts.finish ? finishReason : "missing"})`,
        });
      }
      return;
    }
    let id = call.id;
    if (!id) {
      id = `call_${parts.step}_${index + 1}`;
      for (let n = 2; usedIds.has(id); n++) id = `call_${parts.step}_${index + 1}_${n}`;
      anomalies.push({ code: "missing_call_id", detail: `${label} came without an id; it was given ${id}` });
    } else if (usedIds.has(id)) {
      const original = id;
      for (let n = 2; usedIds.has(id); n++) id = `${original}_${n}`;
      anomalies.push({ code: "duplicate_call_id", detail: `${label} repeated the id ${original}; it was given ${id}` });
    }
    usedIds.add(id);
    if (!parts.offeredTools.has(call.name)) {
      anomalies.push({
        code: "unknown_tool_name",
        detail: `${label} names a tool the request did not offer: ${clip(call.name)}`,
      });
    }
    if (!parsed.ok) {
      anomalies.push({
        code: "arguments_not_json",
        detail: `${label} has arguments that are not JSON: ${clip(call.arguments)}`,
      });
    }
    toolCalls.push({ id, name: call.name, arguments: parsed.ok ? parsed.value : call.arguments });
  });

  if (finishReason === "tool_calls" && toolCalls.length === 0) {
    if (malformed.length === 0 && parts.text.trim().length > 0) {
      malformed.push({
        rawArguments: parts.text.slice(0, RAW_LIMIT),
        problem: "finish tool_calls without a structured tool call (the text may hold the intended call)",
      });
    }
    anomalies.push({
      code: "tool_finish_without_parsed_calls",
      detail: `finish tool_calls with no parseable call (${malformed.length} unparseable fragment(s))`,
    });
  }

  return {
    text: parts.text,
    toolCalls,
    malformedToolCalls: malformed,
    finishReason,
    ...(parts.usage ? { usage: { inputTokens: parts.usage.inputTokens, outputTokens: parts.usage.outputTokens } } : {}),
    anomalies,
    streamed: parts.streamed,
  };
}
