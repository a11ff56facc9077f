/**
 * Test support for runs controlled from another runtime or process: a tool that runs until its
 * call is aborted (a cancel reaches a tool as an abort), and waiting for a ledger read to say yes.
 */
import { z } from "zod";
import { defineTool } from "../../src/services/tools/Tool.js";

/** An observe tool that never returns by itself: it rejects when the call is aborted. */
export const waitUntilAborted = defineTool({
  name: "wait_for_operator",
  description: "Waits until cancelled.",
  kind: "observe",
  input: z.object({}),
  execute: (_args, context) =>
    new Promise((_resolve, reject) => {
      context.signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
    }),
});

/** Reads until `done` holds (every 20 ms), then returns the value; fails after `timeoutMs`. */
export async function eventually<A>(
  read: () => Promise<A>,
  done: (value: A) => boolean,
  timeoutMs = 10_000,
): Promise<A> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`still not there after ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
