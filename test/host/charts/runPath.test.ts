import { describe, expect, it } from "vitest";
import { countTransitions, eventsByEntry, runPathOf } from "../../../src/host/charts/runPath.js";

const event = (sequence: number, type = "tool_call") => ({ sequence, type, summary: `#${sequence}` });

describe("runPathOf", () => {
  it("counts consecutive states as transitions, repeated ones once with their count", () => {
    const path = runPathOf(["a", "b", "c", "b", "c", "d"]);
    expect(path.transitions).toEqual([
      { from: "a", to: "b", count: 1 },
      { from: "b", to: "c", count: 2 },
      { from: "c", to: "b", count: 1 },
      { from: "c", to: "d", count: 1 },
    ]);
    expect(path.states).toEqual(["a", "b", "c", "b", "c", "d"]);
    expect(path.terminal).toBeUndefined();
  });

  it("takes the transitions as taken when they are given, instead of guessing them from the states", () => {
    const path = runPathOf(["a.x", "b"], { taken: [{ from: "a", to: "b" }], terminal: "b" });
    expect(path.transitions).toEqual([{ from: "a", to: "b", count: 1 }]);
    expect(path.terminal).toBe("b");
  });

  it("a repeated state in a row is no transition", () => {
    expect(runPathOf(["a", "a", "b"]).transitions).toEqual([{ from: "a", to: "b", count: 1 }]);
  });
});

describe("countTransitions", () => {
  it("keeps the order in which each transition was first taken", () => {
    expect(
      countTransitions([
        { from: "y", to: "z" },
        { from: "x", to: "y" },
        { from: "y", to: "z" },
      ]).map((t) => `${t.from}->${t.to}:${t.count}`),
    ).toEqual(["y->z:2", "x->y:1"]);
  });
});

describe("eventsByEntry", () => {
  it("gives each event to the visit during which the ledger's high-water mark passed it", () => {
    const byState = eventsByEntry(
      [
        { state: "opening", sequenceAtEntry: 0 },
        { state: "sampling", sequenceAtEntry: 1 },
        { state: "recording", sequenceAtEntry: 1 },
        { state: "sampling", sequenceAtEntry: 4 },
        { state: "finalizing", sequenceAtEntry: 4 },
        { state: "completed", sequenceAtEntry: 5 },
      ],
      [event(5, "terminal"), event(1, "user_input"), event(2), event(3), event(4)],
    );
    expect(
      Object.fromEntries(Object.entries(byState).map(([state, list]) => [state, list.map((e) => e.sequence)])),
    ).toEqual({
      opening: [1],
      recording: [2, 3, 4],
      finalizing: [5],
    });
  });

  it("events after the last entry belong to the last state", () => {
    const byState = eventsByEntry([{ state: "only", sequenceAtEntry: 0 }], [event(1), event(2)]);
    expect(byState.only?.map((e) => e.sequence)).toEqual([1, 2]);
  });
});
