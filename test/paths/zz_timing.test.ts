import { it } from "vitest";
import { runMachine } from "../../src/machines/run.machine.js";
import { buildGraph, graphNodes, NONE, OBSERVE_LOOKUP, runEvents, runInput, shortestPaths } from "./coverage.js";
it("timing", () => {
  const t = (label: string, f: () => unknown) => { const s = performance.now(); const r = f(); console.log(label, Math.round(performance.now() - s), "ms", Array.isArray(r) ? r.length : graphNodes(r as never).length); };
  t("enforce 3", () => buildGraph(runMachine, { input: runInput(OBSERVE_LOOKUP), events: runEvents }));
  t("enforce 2", () => buildGraph(runMachine, { input: runInput(OBSERVE_LOOKUP, { maxSteps: 2 }), events: runEvents }));
  t("none 3", () => buildGraph(runMachine, { input: runInput(NONE), events: runEvents }));
  t("none 2", () => buildGraph(runMachine, { input: runInput(NONE, { maxSteps: 2 }), events: runEvents }));
  t("observe 3", () => buildGraph(runMachine, { input: runInput(OBSERVE_LOOKUP, { receiptVerification: "observe" }), events: runEvents }));
  t("observe 2", () => buildGraph(runMachine, { input: runInput(OBSERVE_LOOKUP, { receiptVerification: "observe", maxSteps: 2 }), events: runEvents }));
  const v = runMachine.provide({ guards: { correctionAllowed: () => true } });
  t("variant 3", () => buildGraph(v, { input: runInput(OBSERVE_LOOKUP), events: runEvents }));
  t("variant 2", () => buildGraph(v, { input: runInput(OBSERVE_LOOKUP, { maxSteps: 2 }), events: runEvents }));
  t("shortest 3", () => shortestPaths(runMachine, { input: runInput(OBSERVE_LOOKUP), events: runEvents }));
}, 120_000);
