import * as Effect from "effect/Effect";
import { AgentRunStore } from "../persistence/AgentRunStore.js";
import { AgentRuntime } from "../runtime/AgentRuntime.js";
import { describeStray, endStrayToolProcesses } from "../services/processes/processLedger.js";
import { makeProvider } from "../services/providers/config.js";
import { builtinTools } from "../services/tools/builtin/index.js";
import { buildSystemPrompt } from "../services/workspace/prompt.js";
import { CliFailure, type CliIO, terminalText } from "./output.js";
import { type ProviderFlags, resolvedProvider, workspaceOf } from "./runCommandImpl.js";

export interface ResumeCommandOptions extends ProviderFlags {
  readonly db: string;
  readonly json?: boolean;
  readonly workspace?: string;
}

interface Resumed {
  readonly runId: string;
  readonly sessionId: string;
  readonly terminalState?: string;
  readonly reason?: string;
  readonly error?: string;
}

/**
 * `agentloop recover --resume`: continues the runs whose owner is gone instead of
 * closing them — each through the same takeover as a supervising runtime (a new lease epoch,
 * uncertain calls re-run only for observe/idempotent tools) against the provider the flags
 * select, with the built-in tools of `--workspace`. Runs a live process drives are left to it.
 */
export async function resumeCommand(io: CliIO, options: ResumeCommandOptions): Promise<number> {
  const provider = makeProvider(resolvedProvider(options).right);
  const workspace = workspaceOf(options.workspace);
  const tools = workspace ? [...builtinTools(workspace).values()] : [];
  const runtime = await AgentRuntime.make({ database: options.db, provider, tools, recoverOnStart: false }).catch(
    (error: unknown) => {
      throw new CliFailure((error as { message?: string }).message ?? String(error));
    },
  );
  try {
    const { abandoned, live } = await runtime.run(
      Effect.flatMap(AgentRunStore, (store) =>
        Effect.all({ abandoned: store.findAbandonedRuns(), live: store.findLiveRuns() }),
      ),
    );
    // What the dead processes' commands left running ends before their runs continue.
    const processes = await runtime.run(endStrayToolProcesses());
    const resumed: Resumed[] = [];
    for (const { run } of abandoned) {
      try {
        const handle = await runtime.resumeRun(run.runId, {
          history: [{ role: "system", content: buildSystemPrompt(workspace) }],
        });
        const result = await handle.result;
        resumed.push({
          runId: run.runId,
          sessionId: run.sessionId,
          terminalState: result.terminalState,
          reason: result.terminalReason,
        });
      } catch (error) {
        resumed.push({ runId: run.runId, sessionId: run.sessionId, error: (error as Error).message });
      }
    }
    if (options.json) {
      io.out(JSON.stringify({ resumed, live, processes }));
    } else {
      for (const stray of processes) io.out(describeStray(stray));
      if (resumed.length === 0) io.out("no interrupted runs");
      for (const run of resumed) {
        io.out(
          run.error
            ? `could not resume ${terminalText(run.runId)} (session ${terminalText(run.sessionId)}): ${terminalText(run.error)}`
            : `resumed ${terminalText(run.runId)} (session ${terminalText(run.sessionId)}); it ended ${run.terminalState}/${run.reason}`,
        );
      }
      for (const run of live) {
        io.out(
          `left ${terminalText(run.runId)} (session ${terminalText(run.sessionId)}) open: process ${run.pid} on ${terminalText(run.host)} still drives it`,
        );
      }
    }
    return resumed.some((run) => run.error) ? 1 : 0;
  } finally {
    await runtime.dispose();
  }
}
