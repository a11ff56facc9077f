/**
 * The three wire APIs as hostile-reply builders: well-formed turns rendered by the test fake
 * servers' renderers (test/support/fakeServers), turned into exact bytes, plus the per-API pieces
 * a hostile reply is made of (error bodies, one text delta, a keep-alive, an unknown event).
 */
import { anthropicWire } from "../../test/support/fakeServers/anthropic.js";
import { openAIChatWire } from "../../test/support/fakeServers/openaiChat.js";
import { openAIResponsesWire } from "../../test/support/fakeServers/openaiResponses.js";
import {
  type FakeTurn,
  type FakeWire,
  type ScriptedReply,
  type StreamEnding,
  sseFrame,
} from "../../test/support/fakeServers/shared.js";
import { type HostileReply, JSON_HEADERS, SSE_HEADERS } from "./server.js";

export type WireApi = "openai-chat" | "openai-responses" | "anthropic";
export const WIRE_APIS: ReadonlyArray<WireApi> = ["openai-chat", "openai-responses", "anthropic"];

export interface WireKit {
  readonly api: WireApi;
  readonly wire: FakeWire;
  /** A turn as a whole JSON reply or an SSE stream. */
  readonly turn: (turn: FakeTurn, stream: boolean, ending?: StreamEnding) => HostileReply;
  /** The SSE frames of a streamed turn. */
  readonly frames: (turn: FakeTurn) => string[];
  /** The JSON text of a whole turn. */
  readonly json: (turn: FakeTurn) => string;
  /** The API's error body with `message`. */
  readonly errorBody: (status: number, message: string) => unknown;
  readonly error: (status: number, message: string, headers?: Record<string, string>) => HostileReply;
  /** One SSE frame carrying a bit of text. */
  readonly textDelta: (text: string) => string;
  /** One SSE frame that carries nothing (a keep-alive). */
  readonly keepAlive: string;
  /** One SSE frame of an event type no SDK knows, carrying `payload`. */
  readonly unknownEvent: (payload: string) => string;
  /** One SSE frame reporting an error inside the stream. */
  readonly streamError: (type: string, message: string) => string;
}

const WIRES: Record<WireApi, FakeWire> = {
  "openai-chat": openAIChatWire,
  "openai-responses": openAIResponsesWire,
  anthropic: anthropicWire,
};

export function fromScripted(reply: ScriptedReply): HostileReply {
  if (reply.kind === "json") {
    return {
      kind: "body",
      status: reply.status ?? 200,
      headers: { ...JSON_HEADERS, ...reply.headers },
      body: JSON.stringify(reply.body),
    };
  }
  if (reply.kind === "sse") {
    return {
      kind: "stream",
      headers: SSE_HEADERS,
      chunks: reply.frames,
      ending: reply.ending ?? "end",
      ...(reply.trickle ? { trickle: { chunk: reply.trickle.frame, everyMs: reply.trickle.everyMs } } : {}),
    };
  }
  return { kind: "silent" };
}

const chatChunk = (delta: Record<string, unknown>) =>
  sseFrame({
    id: "chatcmpl-hostile",
    object: "chat.completion.chunk",
    created: 0,
    model: "hostile-model",
    choices: [{ index: 0, delta, finish_reason: null }],
  });

const PIECES: Record<WireApi, Pick<WireKit, "textDelta" | "keepAlive" | "unknownEvent" | "streamError">> = {
  "openai-chat": {
    textDelta: (text) => chatChunk({ content: text }),
    keepAlive: chatChunk({}),
    unknownEvent: (payload) => sseFrame({ object: "chat.completion.mystery", mystery: payload }, "mystery"),
    streamError: (type, message) => sseFrame({ error: { message, type, param: null, code: null } }),
  },
  "openai-responses": {
    textDelta: (text) =>
      sseFrame(
        {
          type: "response.output_text.delta",
          sequence_number: 1,
          item_id: "msg_0",
          output_index: 0,
          content_index: 0,
          delta: text,
          logprobs: [],
        },
        "response.output_text.delta",
      ),
    keepAlive: sseFrame(
      { type: "response.in_progress", sequence_number: 1, response: { id: "resp_fake", status: "in_progress" } },
      "response.in_progress",
    ),
    unknownEvent: (payload) =>
      sseFrame({ type: "response.mystery.delta", sequence_number: 2, mystery: payload }, "response.mystery.delta"),
    streamError: (type, message) =>
      sseFrame({ type: "error", code: type, message, param: null, sequence_number: 3 }, "error"),
  },
  anthropic: {
    textDelta: (text) =>
      sseFrame({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }, "content_block_delta"),
    keepAlive: sseFrame({ type: "ping" }, "ping"),
    unknownEvent: (payload) => sseFrame({ type: "mystery_event", mystery: payload }, "mystery_event"),
    streamError: (type, message) => sseFrame({ type: "error", error: { type, message } }, "error"),
  },
};

export function wireKit(api: WireApi): WireKit {
  const wire = WIRES[api];
  const frames = (turn: FakeTurn) => {
    const reply = wire.stream(turn);
    return reply.kind === "sse" ? [...reply.frames] : [];
  };
  const json = (turn: FakeTurn) => {
    const reply = wire.json(turn);
    return reply.kind === "json" ? JSON.stringify(reply.body) : "";
  };
  const errorBody = (status: number, message: string) => wire.protocol.errorBody(status, message);
  return {
    api,
    wire,
    turn: (turn, stream, ending = "end") => fromScripted(stream ? wire.stream(turn, ending) : wire.json(turn)),
    frames,
    json,
    errorBody,
    error: (status, message, headers = {}) => ({
      kind: "body",
      status,
      headers: { ...JSON_HEADERS, ...headers },
      body: JSON.stringify(errorBody(status, message)),
    }),
    ...PIECES[api],
  };
}
