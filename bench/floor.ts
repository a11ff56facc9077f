/**
 * The physical references for W10: a plain async loop with no persistence (`floor.bare`), and the
 * same loop writing the runtime's rows through raw better-sqlite3 (`floor.bare+sqlite`: one
 * transaction per step; `floor.bare+sqlite.writeahead`: the runtime's commit pattern — tool_call
 * rows committed before the tool runs, results + receipts after).
 */
import { join } from "node:path";
import { loopFields, loopPlan, measureSequential } from "./lib/measure.js";
import { countEvents, migrateFile, openRawLedger, type RawLedger } from "./lib/rawLedger.js";
import type { BenchOptions, BenchResult } from "./lib/types.js";
import { closingRows, newW10Run, toolCallRow, toolResultRows, userInputEvent } from "./lib/w10Rows.js";
import { lookup, W10_INPUT, W10_ROWS_PER_RUN, W10_STEPS, type W10Reply, w10Reply } from "./workloads/w10.js";

type Message =
  | { readonly role: "user"; readonly content: string }
  | {
      readonly role: "assistant";
      readonly content: string;
      readonly toolCalls: ReadonlyArray<{ id: string; name: string; arguments: unknown }>;
    }
  | { readonly role: "tool"; readonly callId: string; readonly toolName: string; readonly content: string };

/** The scripted model behind an async boundary, as a real client would be. */
async function sampleModel(messages: ReadonlyArray<Message>): Promise<W10Reply> {
  let toolResults = 0;
  for (const message of messages) if (message.role === "tool") toolResults += 1;
  return w10Reply(toolResults);
}

async function runLookup(args: { readonly i: number }) {
  return lookup(args.i);
}

export type FloorPersistence = "none" | "step" | "writeahead";

/** One W10 run of the floor loop; rows go to `ledger` unless `persistence` is "none". */
export async function floorRun(runId: string, persistence: FloorPersistence, ledger?: RawLedger): Promise<string> {
  const now = () => new Date().toISOString();
  const messages: Message[] = [{ role: "user", content: W10_INPUT }];
  if (persistence !== "none") {
    const run = newW10Run(runId, "bench");
    const startedAt = now();
    if (persistence === "step") {
      ledger!.transaction(() => {
        ledger!.createRun(run, startedAt);
        ledger!.appendEvents(runId, [userInputEvent()], startedAt);
      });
    } else {
      ledger!.createRun(run, startedAt);
      ledger!.transaction(() => ledger!.appendEvents(runId, [userInputEvent()], startedAt));
    }
  }
  for (let step = 1; step <= W10_STEPS; step++) {
    const reply = await sampleModel(messages);
    if (reply.kind === "final") {
      messages.push({ role: "assistant", content: reply.text, toolCalls: [] });
      if (persistence !== "none") {
        const closing = closingRows(step - 1);
        const endedAt = now();
        ledger!.transaction(() => {
          ledger!.appendEvents(runId, [closing.answer], endedAt);
          ledger!.appendEvents(
            runId,
            [{ sequence: closing.terminalSequence, type: "terminal", payload: closing.terminal }],
            endedAt,
          );
          ledger!.closeRun(runId, closing.terminal, endedAt);
        });
      }
      return reply.text;
    }
    const call = { id: reply.callId, name: "lookup", arguments: reply.args };
    messages.push({ role: "assistant", content: "", toolCalls: [call] });
    const startedAt = now();
    const called = persistence === "none" ? undefined : toolCallRow(step);
    if (called && persistence === "writeahead") {
      // The call row must be durable before the tool runs: its own commit.
      ledger!.transaction(() => ledger!.appendEvents(runId, [called.event], startedAt));
    }
    const output = await runLookup(reply.args);
    if (called) {
      const finishedAt = now();
      const rows = toolResultRows(runId, step, called, output, startedAt, finishedAt);
      ledger!.transaction(() => {
        if (persistence === "step") ledger!.appendEvents(runId, [called.event], finishedAt);
        ledger!.appendEvents(runId, [rows.event], finishedAt);
        ledger!.insertReceipts([rows.receipt]);
      });
    }
    messages.push({ role: "tool", callId: call.id, toolName: call.name, content: JSON.stringify(output) });
  }
  throw new Error(`floor run ${runId} did not finish in ${W10_STEPS} steps`);
}

export const FLOOR_IDS = {
  none: "floor.bare",
  step: "floor.bare+sqlite",
  writeahead: "floor.bare+sqlite.writeahead",
} as const satisfies Record<FloorPersistence, string>;

const FLOOR_WHAT: Record<FloorPersistence, string> = {
  none: "plain async loop over the scripted model and the tool, no persistence",
  step: "the same loop + the runtime's rows via raw better-sqlite3 on a migrated file: one transaction per step (11 commits/run)",
  writeahead:
    "the same loop + rows with the runtime's commit pattern: tool_call committed before the tool, result + receipt after (21 commits/run)",
};

export async function benchFloor(persistence: FloorPersistence, options: BenchOptions): Promise<BenchResult> {
  let ledger: RawLedger | undefined;
  const filename = join(options.dir, "floor.db");
  if (persistence !== "none") {
    await migrateFile(filename);
    ledger = openRawLedger(filename);
  }
  try {
    const measured = await options.measured(() =>
      measureSequential(loopPlan(options.quick, persistence === "none" ? 5_000 : 200, W10_STEPS), async (label) => {
        const text = await floorRun(`run-${label}`, persistence, ledger);
        if (text.length === 0) throw new Error("the floor run ended without an answer");
      }),
    );
    const rows = ledger ? countEvents(filename, "run-r0-") : null;
    if (rows !== null && rows !== measured.runs * W10_ROWS_PER_RUN) {
      throw new Error(`floor ledger holds ${rows} rows for the first repetition, expected ${measured.runs * 21}`);
    }
    return { id: FLOOR_IDS[persistence], what: FLOOR_WHAT[persistence], ...loopFields(measured) };
  } finally {
    ledger?.close();
  }
}
