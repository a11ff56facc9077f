import { describe, expect, it } from "vitest";
import type { FinalMessage, ProgressMessage } from "../../../src/domain/delivery.js";
import { CLEAR_LINE, type ConsoleStream, consoleChannel } from "../../../src/host/channels/console.js";

function fakeStream(isTTY: boolean): ConsoleStream & { readonly written: string[] } {
  const written: string[] = [];
  return {
    isTTY,
    columns: 80,
    written,
    write: (chunk, callback) => {
      written.push(chunk);
      callback();
      return true;
    },
  };
}

const progress = (index: number, text: string): ProgressMessage => ({
  kind: "progress",
  runId: "run-1",
  channelId: "console",
  idempotencyKey: `run-1:progress:${index}`,
  text,
  locale: "en",
  index,
  source: "tool_started",
  step: 1,
  toolName: "lookup",
});
const final: FinalMessage = {
  kind: "final",
  runId: "run-1",
  channelId: "console",
  idempotencyKey: "run-1:final",
  text: "Item 1 is 'item'.",
  locale: "en",
  terminalState: "completed",
  reason: "answered",
  traceId: "t",
};

describe("console channel", () => {
  it("escapes the control characters of a message's text and keeps its lines and its own status-line codes", async () => {
    const stream = fakeStream(true);
    const channel = consoleChannel({ stream });
    await channel.send(progress(1, "In progress: \u001b]0;pwned\u0007"));
    await channel.send({ ...final, text: "line one\r\nline \u009b2J two\u007f" });
    expect(stream.written).toEqual([
      `${CLEAR_LINE}In progress: \\u001b]0;pwned\\u0007`,
      `${CLEAR_LINE}line one\nline \\u009b2J two\\u007f\n`,
    ]);
  });

  it("shows progress on a TTY as one status line rewritten in place, then clears it for the final", async () => {
    const stream = fakeStream(true);
    const channel = consoleChannel({ stream });
    await channel.send(progress(1, "In progress: calling tool lookup"));
    await channel.send(progress(2, "In progress: tool lookup returned a result"));
    await channel.send(final);
    expect(stream.written).toEqual([
      `${CLEAR_LINE}In progress: calling tool lookup`,
      `${CLEAR_LINE}In progress: tool lookup returned a result`,
      `${CLEAR_LINE}Item 1 is 'item'.\n`,
    ]);
  });

  it("prints every message as plain lines when the stream is not a TTY", async () => {
    const stream = fakeStream(false);
    const channel = consoleChannel({ stream });
    await channel.send(progress(1, "In progress: calling tool lookup"));
    await channel.send(final);
    expect(stream.written).toEqual(["In progress: calling tool lookup\n", "Item 1 is 'item'.\n"]);
  });

  it("keeps a multi-line progress text on the one status line of a TTY", async () => {
    const stream = fakeStream(true);
    await consoleChannel({ stream }).send(progress(1, "In progress: first\nsecond"));
    expect(stream.written).toEqual([`${CLEAR_LINE}In progress: first second`]);
  });

  it("answers a distinct message id for every message", async () => {
    const channel = consoleChannel({ stream: fakeStream(false) });
    const ids = [(await channel.send(progress(1, "In progress: a"))).messageId, (await channel.send(final)).messageId];
    expect(ids).toEqual(["console:1", "console:2"]);
  });
});
