import { createInterface, type Interface } from "node:readline";
import { editedArgumentsProblem, errorText, type JsonValue, type LoopEvent } from "../domain/index.js";
import type { RunHandle } from "../runtime/AgentRuntime.js";
import { cliDecider } from "./approvalCommands.js";
import { CliFailure, terminalText } from "./output.js";

/**
 * `agentloop run --approve ask|always|never`: who decides on the calls that wait for
 * approval (the run's mutate and deliver tools). `ask` asks on the terminal, one call at a time:
 * y approves, n denies, e asks for edited arguments (JSON) and approves with them. `always` and
 * `never` decide at once and say so on stderr. A decision someone made meanwhile with `agentloop
 * approve`/`deny` wins; the prompt's answer is then reported as refused.
 */

export const APPROVE_MODES = ["ask", "always", "never"] as const;
export type ApproveMode = (typeof APPROVE_MODES)[number];

export function approveModeOf(text: string | undefined): ApproveMode | undefined {
  if (text === undefined) return undefined;
  if (!(APPROVE_MODES as ReadonlyArray<string>).includes(text)) {
    throw new CliFailure(`unknown --approve mode "${text}": expected one of ${APPROVE_MODES.join(", ")}`, 2);
  }
  return text as ApproveMode;
}

type Request = Extract<LoopEvent, { type: "approval_requested" }>;

/** Answers one line at a time from `input` (a terminal or a pipe). */
function lineReader(input: NodeJS.ReadableStream): { next: () => Promise<string | undefined>; close: () => void } {
  let rl: Interface | undefined;
  const queued: string[] = [];
  const waiting: Array<(line: string | undefined) => void> = [];
  let ended = false;
  const open = () => {
    if (rl) return;
    rl = createInterface({ input, terminal: false });
    rl.on("line", (line) => {
      const resolve = waiting.shift();
      if (resolve) resolve(line);
      else queued.push(line);
    });
    rl.on("close", () => {
      ended = true;
      for (const resolve of waiting.splice(0)) resolve(undefined);
    });
  };
  return {
    next: () => {
      open();
      if (queued.length > 0) return Promise.resolve(queued.shift());
      if (ended) return Promise.resolve(undefined);
      return new Promise((resolve) => waiting.push(resolve));
    },
    close: () => rl?.close(),
  };
}

/** Decides on `handle`'s approval requests as `mode` says until the run ends; returns a stop function. */
export function decideApprovals(
  handle: RunHandle,
  mode: ApproveMode,
  io: {
    readonly input: NodeJS.ReadableStream;
    readonly err: (line: string) => void;
    readonly prompt: (text: string) => void;
  },
): () => void {
  const decidedBy = cliDecider();
  const reader = lineReader(io.input);
  let chain = Promise.resolve();
  const report = (error: unknown) => io.err(terminalText(errorText(error)));
  const ask = async (request: Request): Promise<void> => {
    // The tool's name, the model's arguments and the policy's reason are escaped: the prompt is a terminal's.
    const args = terminalText(JSON.stringify(request.arguments));
    for (;;) {
      io.prompt(`approve ${terminalText(request.toolName)} ${args} (${terminalText(request.reason)})? [y/n/e] `);
      const answer = (await reader.next())?.trim().toLowerCase();
      if (answer === undefined || answer === "n" || answer === "no") {
        const message = answer === undefined ? "no answer at the terminal (input ended)" : "denied at the terminal";
        return handle.deny(request.callId, { message, decidedBy }).catch(report);
      }
      if (answer === "y" || answer === "yes") return handle.approve(request.callId, { decidedBy }).catch(report);
      if (answer === "e" || answer === "edit") {
        io.prompt("arguments (JSON, one line): ");
        const text = await reader.next();
        if (text === undefined) continue;
        let edited: JsonValue;
        try {
          edited = JSON.parse(text) as JsonValue;
        } catch (error) {
          io.err(`not JSON: ${(error as Error).message}`);
          continue;
        }
        // Over the limits the decision would be refused and the call left waiting: ask again instead.
        const problem = editedArgumentsProblem(edited);
        if (problem) io.err(`the arguments ${problem}`);
        else return handle.approve(request.callId, { arguments: edited, decidedBy }).catch(report);
      }
    }
  };
  const subscription = handle.actor.on("approval_requested", (request) => {
    if (mode === "always") {
      io.err(`approved ${terminalText(request.toolName)} (${terminalText(request.callId)}): --approve always`);
      handle.approve(request.callId, { decidedBy }).catch(report);
    } else if (mode === "never") {
      io.err(`denied ${terminalText(request.toolName)} (${terminalText(request.callId)}): --approve never`);
      handle.deny(request.callId, { message: "denied by --approve never", decidedBy }).catch(report);
    } else {
      chain = chain.then(() => ask(request));
    }
  });
  return () => {
    subscription.unsubscribe();
    reader.close();
  };
}
