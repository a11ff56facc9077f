import { describe, expect, it } from "vitest";
import { LazyAbort } from "../../src/runtime/toolExecution.js";

/** A call's abort signal is made only when its tool reads it, and tells the same as an eager one. */
describe("LazyAbort", () => {
  it("gives one signal, which aborts when the call is aborted after it was read", () => {
    const abort = new LazyAbort();
    const signal = abort.signal;
    expect(abort.signal).toBe(signal);
    expect(signal.aborted).toBe(false);
    abort.abort();
    expect(signal.aborted).toBe(true);
  });

  it("gives an aborted signal when the call was aborted before the tool read it", () => {
    const abort = new LazyAbort();
    abort.abort();
    expect(abort.signal.aborted).toBe(true);
  });
});
