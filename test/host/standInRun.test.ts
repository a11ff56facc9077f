/**
 * The stand-in run a host's tests invoke in place of `fromAgentRun`: it ends as scripted, waits
 * for the decision on a call it asks approval for, and ends cancelled when the host cancels.
 */
import { describe, expect, it } from "vitest";
import { createActor, setup, toPromise } from "xstate";
import { type LoopEvent, TerminalState } from "../../src/domain/index.js";
import { standInResult, standInRun } from "../../src/host/standInRun.js";
import type { AgentRunNotice } from "../../src/machines/agentRun/machine.js";
import { ORDER_DESK_END, orderDeskChart } from "../support/orderDeskChart.js";

const REQUEST = { sessionId: "order-7", input: "Tell the customer their order shipped." };
const ASKED = {
  type: "approval_requested",
  runId: "stand-in-order-7",
  callId: "c1",
  toolName: "send_message",
} as unknown as LoopEvent;

describe("standInRun", () => {
  it.each(TerminalState.options)("ends %s as scripted, and the host's chart branches on it", async (terminalState) => {
    const desk = createActor(orderDeskChart(standInRun({ terminalState }), REQUEST)).start();
    await toPromise(desk);
    expect(desk.getSnapshot().value).toBe(ORDER_DESK_END[terminalState]);
    expect(desk.getSnapshot().context.result).toEqual(standInResult({ terminalState }, REQUEST));
  });

  it("waits after an approval request until the host decides, then goes on to its end", async () => {
    const decided: string[] = [];
    const desk = createActor(
      orderDeskChart(
        standInRun(() => {
          decided.push("asked");
          return { terminalState: "completed", events: [ASKED] };
        }),
        REQUEST,
      ),
      {
        inspect: (inspection) => {
          // The desk's own APPROVE, not its forwarding inside the run actor.
          if (
            inspection.type === "@xstate.event" &&
            inspection.event.type === "APPROVE" &&
            inspection.sourceRef === desk
          ) {
            decided.push("approved");
          }
        },
      },
    );
    desk.start();
    await toPromise(desk);
    expect(decided).toEqual(["asked", "approved"]);
    expect(desk.getSnapshot().value).toBe("answered");
  });

  it("ends cancelled when the host cancels while it waits", async () => {
    const host = setup({
      types: { events: {} as AgentRunNotice },
      actors: { agentRun: standInRun({ terminalState: "completed", events: [ASKED] }) },
    }).createMachine({
      context: { ended: "" },
      initial: "answering",
      states: {
        answering: {
          invoke: {
            id: "run",
            src: "agentRun",
            input: REQUEST,
            onDone: {
              target: "ended",
              actions: ({ event, context }) => Object.assign(context, { ended: event.output.terminalState }),
            },
          },
          on: {
            "agentloop.event": { actions: ({ self }) => self.getSnapshot().children.run?.send({ type: "CANCEL" }) },
          },
        },
        ended: { type: "final" },
      },
    });
    const actor = createActor(host).start();
    await toPromise(actor);
    expect(actor.getSnapshot().context.ended).toBe("cancelled");
  });

  it("refuses a decision for a call it does not wait for", async () => {
    const refusals: string[] = [];
    const host = setup({
      types: { events: {} as AgentRunNotice },
      actors: { agentRun: standInRun({ terminalState: "completed", events: [ASKED] }) },
    }).createMachine({
      initial: "answering",
      states: {
        answering: {
          invoke: { id: "run", src: "agentRun", input: REQUEST, onDone: "ended" },
          on: {
            "agentloop.event": {
              actions: ({ self }) => {
                const run = self.getSnapshot().children.run;
                run?.send({ type: "APPROVE", callId: "c9" });
                run?.send({ type: "APPROVE", callId: "c1" });
              },
            },
            "agentloop.refused": { actions: ({ event }) => refusals.push(event.message) },
          },
        },
        ended: { type: "final" },
      },
    });
    await toPromise(createActor(host).start());
    expect(refusals).toEqual(["stand-in run: no call c9 waits for a decision"]);
  });
});
