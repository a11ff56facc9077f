import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { TerminalPayload } from "../../src/domain/index.js";
import { HEAD_BYTES, PIECE_BYTES, TAIL_BYTES } from "../../src/services/answerPieces.js";
import type { Provider } from "../../src/services/providers/Provider.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { finish, textStep, useRuntimeHarness } from "../support/runtimeHarness.js";

/**
 * A run whose final answer is megabytes of prose on one line: the verifier reads it in bounded
 * pieces (the start and the end of it), and lets the rest of the process run while it does.
 */

const harness = useRuntimeHarness("agentloop-long-answer-");

const SENTENCE = "The quick brown fox jumps over the lazy dog. ";
const ANSWER = SENTENCE.repeat(Math.ceil((2 * 1024 * 1024) / SENTENCE.length));

/** The scripted provider, noting how many timer ticks had passed when its last answer was handed over. */
function markingProvider(steps: Parameters<typeof scriptedProvider>[0], ticks: () => number) {
  const inner = scriptedProvider(steps);
  let answeredAt: number | undefined;
  const provider: Provider = {
    ...inner,
    sample: (request) => inner.sample(request).pipe(Effect.tap(() => Effect.sync(() => (answeredAt = ticks())))),
  };
  return { provider, answeredAt: () => answeredAt };
}

describe("a run with a 2 MB answer without newlines", () => {
  it("ends completed after reading only the answer's start and end, and records which part it read", async () => {
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s",
      input: "Tell me a story.",
      provider: scriptedProvider([textStep(ANSWER)]),
    });
    const { result, events } = await finish(runtime, handle);
    expect(result.terminalState).toBe("completed");
    const terminal = TerminalPayload.parse(events.find((event) => event.type === "terminal")!.payload);
    const scope = terminal.verification?.claimScope;
    expect(scope?.answerBytes).toBe(Buffer.byteLength(ANSWER));
    expect(scope!.headBytes).toBeLessThanOrEqual(HEAD_BYTES);
    expect(scope!.tailBytes).toBeLessThanOrEqual(TAIL_BYTES);
    // The terminal row keeps its verdict readable: the text is what was cut to fit the ledger.
    expect(terminal.verification).toMatchObject({ verdict: "completed", reason: "answered" });
    expect(terminal.finalText.startsWith(SENTENCE)).toBe(true);
    expect(terminal.finalText).toMatch(
      new RegExp(`…\\[cut to fit the ledger row: ${Buffer.byteLength(ANSWER)} bytes in all\\]$`),
    );
  });

  it("keeps another timer of the process firing while the answer is analysed", async () => {
    let ticks = 0;
    const timer = setInterval(() => {
      ticks += 1;
    }, 1);
    try {
      const runtime = await harness.makeRuntime();
      const { provider, answeredAt } = markingProvider([textStep(ANSWER)], () => ticks);
      const handle = runtime.startRun({ sessionId: "s", input: "Tell me a story.", provider });
      const { result } = await finish(runtime, handle);
      expect(result.terminalState).toBe("completed");
      // The verifier reads (HEAD_BYTES + TAIL_BYTES) / PIECE_BYTES pieces and lets timers run
      // between each two; a verifier that held the loop would let through only the few ticks of the
      // ledger writes around it.
      const pieces = (HEAD_BYTES + TAIL_BYTES) / PIECE_BYTES;
      expect(ticks - answeredAt()!).toBeGreaterThanOrEqual(pieces - 2);
    } finally {
      clearInterval(timer);
    }
  });
});
