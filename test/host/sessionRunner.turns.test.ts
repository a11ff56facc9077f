import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { SessionRunner, type TurnHandle } from "../../src/host/sessionRunner.js";
import type { Provider } from "../../src/services/providers/Provider.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { textStep, useRuntimeHarness } from "../support/runtimeHarness.js";

const harness = useRuntimeHarness("agentloop-session-turns-");

/** A provider that answers `answer` once `gate` opens, and counts the requests it was sent. */
function gatedProvider(answer: string, gate: Promise<void> = Promise.resolve()) {
  const inner = scriptedProvider([textStep(answer)]);
  let requests = 0;
  const provider: Provider = {
    ...inner,
    sample: (request) =>
      Effect.suspend(() => {
        requests += 1;
        return Effect.promise(() => gate).pipe(Effect.andThen(inner.sample(request)));
      }),
  };
  return { provider, requests: () => requests };
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

const userInputs = (handle: TurnHandle) =>
  handle.history.context.messages.flatMap((message) => (message.role === "user" ? [message.content] : []));

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("SessionRunner turns of one session", () => {
  it("starts a second turn of a session only after the first has settled, and shows it the first turn", async () => {
    const runner = new SessionRunner(await harness.makeRuntime());
    const firstGate = gate();
    const firstProvider = gatedProvider("First answer.", firstGate.opened);
    const firstTurn = await runner.startTurn({ sessionId: "s", input: "first", provider: firstProvider.provider });
    let secondStarted = false;
    const second = gatedProvider("Second answer.");
    const secondTurn = runner
      .startTurn({ sessionId: "s", input: "second", provider: second.provider })
      .then((handle) => {
        secondStarted = true;
        return handle;
      });
    await later(150);
    expect(secondStarted).toBe(false);
    expect(second.requests()).toBe(0);
    expect(firstProvider.requests()).toBe(1);
    firstGate.open();
    await firstTurn.settled;
    const handle = await secondTurn;
    await handle.settled;
    expect(userInputs(handle)).toEqual(["first"]);
    expect(second.requests()).toBe(1);
  });

  it("starts waiting turns of a session in the order they were asked for", async () => {
    const runner = new SessionRunner(await harness.makeRuntime());
    const firstGate = gate();
    const started: string[] = [];
    const ask = (input: string, provider: Provider) =>
      runner.startTurn({ sessionId: "s", input, provider }).then((handle) => {
        started.push(input);
        return handle;
      });
    const turns = [
      ask("one", gatedProvider("One.", firstGate.opened).provider),
      ask("two", gatedProvider("Two.").provider),
      ask("three", gatedProvider("Three.").provider),
    ];
    await later(50);
    firstGate.open();
    const handles = await Promise.all(turns);
    await Promise.all(handles.map((handle) => handle.settled));
    expect(started).toEqual(["one", "two", "three"]);
    expect(userInputs(handles[2]!)).toEqual(["one", "two"]);
  });

  it("runs turns of different sessions at the same time", async () => {
    const runner = new SessionRunner(await harness.makeRuntime());
    const shared = gate();
    const a = gatedProvider("A.", shared.opened);
    const b = gatedProvider("B.", shared.opened);
    const turnA = await runner.startTurn({ sessionId: "a", input: "to a", provider: a.provider });
    const turnB = await runner.startTurn({ sessionId: "b", input: "to b", provider: b.provider });
    // Both runs have asked their provider before either may answer.
    await expect.poll(() => a.requests() + b.requests()).toBe(2);
    shared.open();
    const results = await Promise.all([turnA.settled, turnB.settled]);
    expect(results.map((result) => result.finalText)).toEqual(["A.", "B."]);
  });

  it("lets the next turn of a session start when a turn failed to start", async () => {
    const runner = new SessionRunner(await harness.makeRuntime());
    await expect(
      runner.startTurn({
        sessionId: "s",
        input: "bad",
        provider: gatedProvider("x").provider,
        system: () => {
          throw new Error("no prompt today");
        },
      }),
    ).rejects.toThrow("no prompt today");
    const handle = await runner.startTurn({ sessionId: "s", input: "good", provider: gatedProvider("Fine.").provider });
    expect((await handle.settled).finalText).toBe("Fine.");
  });
});
