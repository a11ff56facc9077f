import { describe, expect, it } from "vitest";
import { machineGraph } from "../../../src/host/charts/graph.js";
import { edgeFor, highlightOf, overlayOf } from "../../../src/host/charts/highlight.js";
import { runPathOf } from "../../../src/host/charts/runPath.js";
import { runMachine } from "../../../src/machines/run/machine.js";

const graph = machineGraph(runMachine);

describe("machineGraph of the run machine", () => {
  it("names states by dotted key path and nests them as the machine does", () => {
    const active = graph.root.children.find((node) => node.id === "active")!;
    expect(active.kind).toBe("parallel");
    expect(active.children.map((node) => node.id)).toEqual(["active.work", "active.cancellation", "active.approval"]);
    expect(active.children[0]!.initial).toBe("active.work.opening");
    expect(graph.root.children.filter((node) => node.kind === "final").map((node) => node.id)).toEqual([
      "completed",
      "unverified",
      "incomplete",
      "failed",
      "cancelled",
    ]);
  });

  it("puts every transition between the same two states on one edge, one label line each", () => {
    const failed = graph.edges.find((edge) => edge.id === "finalizing->failed")!;
    expect(failed.labels).toEqual(["FINISHED [outcomeFailed]", "LEDGER_FAILED"]);
    expect(new Set(graph.edges.map((edge) => edge.id)).size).toBe(graph.edges.length);
  });
});

describe("edgeFor", () => {
  it("finds the edge by its exact ids", () => {
    expect(edgeFor(graph, "active.work", "finalizing")).toBe("active.work->finalizing");
  });

  it("maps two leaf states onto the edge declared by the nearest ancestor of the source", () => {
    expect(edgeFor(graph, "active.work.recordingResults", "active.work.sampling")).toBe(
      "active.work->active.work.sampling",
    );
  });

  it("finds nothing for two states no transition joins", () => {
    expect(edgeFor(graph, "completed", "active.work.sampling")).toBeUndefined();
  });
});

describe("highlightOf", () => {
  const path = runPathOf(
    ["active.work.opening", "active.work.sampling", "active.work.verifying", "finalizing", "completed"],
    {
      taken: [
        { from: "active.work", to: "active.work.sampling" },
        { from: "active.work.sampling", to: "active.work.verifying" },
        { from: "active.work", to: "finalizing" },
        { from: "finalizing", to: "completed" },
      ],
      terminal: "completed",
      eventsByState: { "active.work.opening": [{ sequence: 1, type: "user_input", summary: "user: hi" }] },
    },
  );

  it("marks visited states, their containers, the edges taken and the terminal state", () => {
    const marks = highlightOf(graph, path);
    expect(marks.visits).toMatchObject({ active: 1, "active.work": 1, "active.work.sampling": 1, completed: 1 });
    expect(marks.visits["active.work.recordingCalls"]).toBeUndefined();
    expect(marks.edges).toEqual({
      "active.work->active.work.sampling": 1,
      "active.work.sampling->active.work.verifying": 1,
      "active.work->finalizing": 1,
      "finalizing->completed": 1,
    });
    expect(marks.terminal).toBe("completed");
    expect(marks.events).toEqual({ "active.work.opening": 1 });
    expect(marks.unmatched).toEqual([]);
  });

  it("counts a state entered twice twice", () => {
    const twice = highlightOf(
      graph,
      runPathOf(["active.work.sampling", "active.work.recordingCalls", "active.work.sampling"]),
    );
    expect(twice.visits["active.work.sampling"]).toBe(2);
  });

  it("reports a transition no edge carries instead of drawing it", () => {
    const marks = highlightOf(graph, runPathOf(["completed", "active.work.sampling"]));
    expect(marks.unmatched).toEqual([{ from: "completed", to: "active.work.sampling", count: 1 }]);
    expect(marks.edges).toEqual({});
  });

  it("ignores state ids the machine does not have", () => {
    expect(highlightOf(graph, runPathOf(["nowhere"])).visits).toEqual({});
  });
});

describe("overlayOf", () => {
  it("counts runs, not times: a run that took an edge three times counts once", () => {
    const loop = runPathOf(["active.work.sampling", "active.work.recordingCalls"], {
      taken: [
        { from: "active.work.sampling", to: "active.work.recordingCalls" },
        { from: "active.work.sampling", to: "active.work.recordingCalls" },
        { from: "active.work.sampling", to: "active.work.recordingCalls" },
      ],
    });
    const answer = runPathOf(["active.work.sampling", "active.work.verifying"]);
    const overlay = overlayOf(graph, [loop, answer, loop]);
    expect(overlay.runs).toBe(3);
    expect(overlay.edges["active.work.sampling->active.work.recordingCalls"]).toBe(2);
    expect(overlay.edges["active.work.sampling->active.work.verifying"]).toBe(1);
    expect(overlay.visits["active.work.sampling"]).toBe(3);
  });
});
