/**
 * The recipe `agentloop/testing` offers a host for its own statechart: @xstate/graph explores the
 * host's chart with the stand-in run in place of `fromAgentRun` and `runEndings` standing for every
 * way the invoked run can end, so each terminal state is a path the host's chart is tested on.
 */
import { getShortestPaths } from "@xstate/graph";
import { describe, expect, it } from "vitest";
import type { EventFrom } from "xstate";
import { TerminalState } from "../../src/domain/index.js";
import { runEndings, standInRun } from "../../src/host/standInRun.js";
import { ORDER_DESK_END, orderDeskChart } from "../support/orderDeskChart.js";

const chart = orderDeskChart(standInRun({ terminalState: "completed" }), { sessionId: "s", input: "Hi" });
const endings = runEndings<EventFrom<typeof chart>>("run");

describe("the order desk's chart over every way its run ends", () => {
  it("offers one ending per terminal state", () => {
    const ended = runEndings("run").map((ending) => ending.output);
    expect(ended.map((result) => result.terminalState)).toEqual(TerminalState.options);
  });

  it.each(TerminalState.options)("a run that ends %s leaves the desk in its branch for it", (terminalState) => {
    const ending = endings[TerminalState.options.indexOf(terminalState)]!;
    const finals = getShortestPaths(chart, { events: [ending] })
      .filter((path) => path.state.status === "done")
      .map((path) => ({ value: path.state.value, kept: path.state.context.result?.terminalState }));
    expect(finals).toEqual([{ value: ORDER_DESK_END[terminalState], kept: terminalState }]);
  });

  it("reaches every final state of the desk over the five endings", () => {
    const reached = new Set(
      getShortestPaths(chart, { events: endings })
        .filter((path) => path.state.status === "done")
        .map((path) => path.state.value),
    );
    expect([...reached].sort()).toEqual(["answered", "handedToPerson", "withdrawn"]);
  });
});
