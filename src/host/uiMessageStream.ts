import type { JsonValue, LoopEvent, ReasonCode, ReceiptReason, ReceiptStatus, TerminalState } from "../domain/index.js";

/**
 * A run as the AI SDK's UI Message Stream (protocol v1, what `useChat` and its
 * `DefaultChatTransport` read): one assistant message whose parts are the run's steps, text and
 * tool calls, ending with the run's terminal state as message metadata.
 *
 * LoopEvent → chunks:
 * - the first event: `start` (messageId: the run id unless given);
 * - an event of a new step: `finish-step` for the open one, then `start-step`;
 * - `text_delta`: `text-start` (once per step) and `text-delta`;
 * - `commentary`: `text-end` of the step's streamed text, or, when nothing streamed, the whole
 *   text as `text-start` / `text-delta` / `text-end`;
 * - `tool_call`: `tool-input-available` (tool name and the model's arguments);
 * - `approval_requested`: `tool-approval-request` whose `approvalId` is the call id, so a
 *   decision coming back names the call for `run.approve` / `run.deny`;
 * - `tool_result`: `tool-output-available` (ok; the output as the ledger holds it),
 *   `tool-output-denied` (denied), `tool-output-error` (error, timed_out, cancelled, expired:
 *   the status and the receipt's reason as `errorText`);
 * - `final`: the answer's streamed text ends; when the final text is not what streamed (nothing
 *   streamed, or the run did not complete and the runtime's words replace the answer), it follows
 *   as one more text part — the last text part is always the run's final text;
 * - `done`: `finish-step`, then `finish` with `messageMetadata` {@link RunMessageMetadata}.
 * `tool_started` has no chunk of its own: the call shows as input-available until its output.
 *
 * Text deltas are shown as they come; a provider call that was retried streams its text again,
 * so a step's streamed text can hold a repeat the step's whole text (`commentary`) does not.
 */

/** The terminal state and evidence of the run, on the message's `metadata`. */
export interface RunMessageMetadata {
  readonly runId: string;
  readonly traceId: string;
  readonly terminalState: TerminalState;
  readonly reason: ReasonCode;
  /** One line per tool call's receipt, in the order the calls settled. */
  readonly receipts: ReadonlyArray<{
    readonly callId: string;
    readonly toolName: string;
    readonly status: ReceiptStatus;
    readonly reason?: ReceiptReason;
  }>;
}

/** The UI Message Stream chunks this module writes (a subset of the `ai` package's `UIMessageChunk`). */
export type RunUIMessageChunk =
  | { readonly type: "start"; readonly messageId: string }
  | { readonly type: "start-step" }
  | { readonly type: "finish-step" }
  | { readonly type: "text-start"; readonly id: string }
  | { readonly type: "text-delta"; readonly id: string; readonly delta: string }
  | { readonly type: "text-end"; readonly id: string }
  | {
      readonly type: "tool-input-available";
      readonly toolCallId: string;
      readonly toolName: string;
      readonly input: JsonValue;
    }
  | { readonly type: "tool-approval-request"; readonly approvalId: string; readonly toolCallId: string }
  | { readonly type: "tool-output-available"; readonly toolCallId: string; readonly output: JsonValue }
  | { readonly type: "tool-output-denied"; readonly toolCallId: string }
  | { readonly type: "tool-output-error"; readonly toolCallId: string; readonly errorText: string }
  | {
      readonly type: "finish";
      readonly finishReason: "stop" | "length" | "error" | "other";
      readonly messageMetadata: RunMessageMetadata;
    };

/** What the stream reads of a run: its id and its events (a `RunHandle` is one). */
export interface UIStreamRun {
  readonly runId: string;
  readonly events: AsyncIterable<LoopEvent>;
}

export interface UIMessageStreamOptions {
  /** The assistant message's id (default: the run id). */
  readonly messageId?: string;
}

/** The headers of the protocol's HTTP response (as the `ai` package's `UI_MESSAGE_STREAM_HEADERS`). */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no",
};

const finishReasonOf = (state: TerminalState): Extract<RunUIMessageChunk, { type: "finish" }>["finishReason"] =>
  state === "completed" || state === "unverified"
    ? "stop"
    : state === "incomplete"
      ? "length"
      : state === "failed"
        ? "error"
        : "other";

/** Turns a run's LoopEvents into chunks, one event at a time (pure: state in, chunks out). */
export class UIMessageChunker {
  private started = false;
  private step: number | undefined;
  /** The open text part of the step, with what streamed into it. */
  private text: { readonly id: string; streamed: string } | undefined;
  /** Text parts so far, to give each a new id. */
  private parts = 0;
  /** Tool results in the open step. */
  private stepResults = 0;
  private readonly receipts: Array<RunMessageMetadata["receipts"][number]> = [];

  constructor(
    private readonly runId: string,
    private readonly messageId: string = runId,
  ) {}

  next(event: LoopEvent): RunUIMessageChunk[] {
    const out: RunUIMessageChunk[] = [];
    if (!this.started) {
      this.started = true;
      out.push({ type: "start", messageId: this.messageId });
    }
    if ("step" in event && event.step !== this.step) this.enterStep(event.step, out);
    switch (event.type) {
      case "text_delta":
        if (event.delta.length === 0) break;
        this.openText(out).streamed += event.delta;
        out.push({ type: "text-delta", id: this.text!.id, delta: event.delta });
        break;
      case "commentary":
        if (!this.text && event.text.length > 0) this.wholeText(event.text, out);
        this.closeText(out);
        break;
      case "tool_call":
        out.push({
          type: "tool-input-available",
          toolCallId: event.callId,
          toolName: event.toolName,
          input: event.arguments,
        });
        break;
      case "approval_requested":
        out.push({ type: "tool-approval-request", approvalId: event.callId, toolCallId: event.callId });
        break;
      case "tool_started":
        break;
      case "tool_result":
        this.stepResults += 1;
        this.receipts.push({
          callId: event.callId,
          toolName: event.toolName,
          status: event.status,
          ...(event.reason ? { reason: event.reason } : {}),
        });
        out.push(this.resultChunk(event));
        break;
      case "final": {
        // An answer that did not stream has no event of its own step: after tool results it is the next one.
        if (this.step === undefined) this.enterStep(0, out);
        else if (this.stepResults > 0 && !this.text) this.enterStep(this.step + 1, out);
        const streamed = this.text?.streamed;
        this.closeText(out);
        if (streamed !== event.text && event.text.length > 0) this.wholeText(event.text, out);
        break;
      }
      case "done":
        this.closeText(out);
        if (this.step !== undefined) out.push({ type: "finish-step" });
        this.step = undefined;
        out.push({
          type: "finish",
          finishReason: finishReasonOf(event.terminalState),
          messageMetadata: {
            runId: this.runId,
            traceId: event.traceId,
            terminalState: event.terminalState,
            reason: event.reason,
            receipts: [...this.receipts],
          },
        });
        break;
    }
    return out;
  }

  private enterStep(step: number, out: RunUIMessageChunk[]): void {
    this.closeText(out);
    if (this.step !== undefined) out.push({ type: "finish-step" });
    this.step = step;
    this.stepResults = 0;
    out.push({ type: "start-step" });
  }

  private openText(out: RunUIMessageChunk[]): { readonly id: string; streamed: string } {
    if (!this.text) {
      this.parts += 1;
      this.text = { id: `${this.messageId}-text-${this.parts}`, streamed: "" };
      out.push({ type: "text-start", id: this.text.id });
    }
    return this.text;
  }

  private wholeText(text: string, out: RunUIMessageChunk[]): void {
    const part = this.openText(out);
    part.streamed = text;
    out.push({ type: "text-delta", id: part.id, delta: text });
    this.closeText(out);
  }

  private closeText(out: RunUIMessageChunk[]): void {
    if (!this.text) return;
    out.push({ type: "text-end", id: this.text.id });
    this.text = undefined;
  }

  private resultChunk(event: Extract<LoopEvent, { type: "tool_result" }>): RunUIMessageChunk {
    if (event.status === "ok") {
      return { type: "tool-output-available", toolCallId: event.callId, output: event.output ?? null };
    }
    if (event.status === "denied") return { type: "tool-output-denied", toolCallId: event.callId };
    const detail = event.reason ? `${event.status}: ${event.reason}` : event.status;
    const output = typeof event.output === "string" && event.output.length > 0 ? ` — ${event.output}` : "";
    return { type: "tool-output-error", toolCallId: event.callId, errorText: `${detail}${output}` };
  }
}

/**
 * The run's events as UI Message Stream chunks, from its first event to `finish`. Reading it does
 * not drive the run, and cancelling it (a browser that went away) stops only this reader.
 */
export function toUIMessageStream(
  run: UIStreamRun,
  options: UIMessageStreamOptions = {},
): ReadableStream<RunUIMessageChunk> {
  const chunker = new UIMessageChunker(run.runId, options.messageId);
  let iterator: AsyncIterator<LoopEvent> | undefined;
  return new ReadableStream<RunUIMessageChunk>({
    async pull(controller) {
      iterator ??= run.events[Symbol.asyncIterator]();
      // One event may give no chunk (tool_started): read on until one does or the run ends.
      for (;;) {
        const next = await iterator.next();
        if (next.done) {
          controller.close();
          return;
        }
        const chunks = chunker.next(next.value);
        for (const chunk of chunks) controller.enqueue(chunk);
        if (chunks.length > 0) return;
      }
    },
    async cancel() {
      await iterator?.return?.();
    },
  });
}

/** The protocol's SSE framing: `data: <chunk JSON>` per chunk, then `data: [DONE]`. */
export function uiMessageSseStream(stream: ReadableStream<RunUIMessageChunk>): ReadableStream<Uint8Array> {
  return stream
    .pipeThrough(
      new TransformStream<RunUIMessageChunk, string>({
        transform(chunk, controller) {
          controller.enqueue(`data: ${JSON.stringify(chunk)}\n\n`);
        },
        flush(controller) {
          controller.enqueue("data: [DONE]\n\n");
        },
      }),
    )
    .pipeThrough(new TextEncoderStream());
}

/**
 * A `Response` for a web handler (`fetch`-style servers, Next.js route handlers, Hono, …) whose body
 * is the run's UI Message Stream: status 200 and the protocol's headers unless `init` says
 * otherwise. For node:http, pipe its body: `Readable.fromWeb(response.body).pipe(res)`.
 */
export function toUIMessageStreamResponse(
  run: UIStreamRun,
  init: ResponseInit & UIMessageStreamOptions = {},
): Response {
  const { messageId, ...responseInit } = init;
  const headers = new Headers(responseInit.headers);
  for (const [name, value] of Object.entries(UI_MESSAGE_STREAM_HEADERS)) {
    if (!headers.has(name)) headers.set(name, value);
  }
  const stream = toUIMessageStream(run, messageId === undefined ? {} : { messageId });
  return new Response(uiMessageSseStream(stream), { ...responseInit, status: responseInit.status ?? 200, headers });
}
