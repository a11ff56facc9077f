import { type Command, Option } from "commander";
import { EvidenceMode as EvidenceModes } from "../domain/contract.js";
import { PROVIDER_NAMES } from "../services/providers/names.js";
import { dbOption } from "./dbOption.js";
import type { CliIO } from "./output.js";
import { POLICIES, type RunCommandOptions } from "./runOptions.js";

export type { RunCommandOptions } from "./runOptions.js";

/**
 * `agentloop run`: the command's definition. It loads only light modules, so `--help` and usage
 * errors stay fast; the implementation (runtime, provider SDKs, ledger) is src/cli/runCommandImpl.ts,
 * imported when the command runs.
 */

const collect = (value: string, previous: ReadonlyArray<string> | undefined): string[] => [...(previous ?? []), value];

/**
 * `agentloop run "TASK"`: one run against a real provider. Prints the run's final text (for any
 * state but `completed` the runtime's honest statement), or the AgentRunResult with `--json`.
 * Exit 0 only for `completed`; configuration errors are one line with exit code 2.
 * With `--workspace` the built-in tools act on that folder; each `--mcp` server adds its tools;
 * without either no tools are offered, so an evidence contract ends unverified. Loads the
 * implementation on first use.
 */
export async function runCommand(io: CliIO, task: string, options: RunCommandOptions = {}): Promise<number> {
  const implementation = await import("./runCommandImpl.js");
  return implementation.runCommand(io, task, options);
}

/** Adds `run` to a commander program; the action reports its exit code through `setExit`. */
export function registerRunCommand(program: Command, io: CliIO, setExit: (code: number) => void): Command {
  return program
    .command("run")
    .description("run one task against a real model provider")
    .argument("<task>", "what the agent should do")
    .addOption(new Option("--provider <name>", "model provider (default: AGENTLOOP_PROVIDER)").choices(PROVIDER_NAMES))
    .option("--model <model>", "model name (default: AGENTLOOP_MODEL or the provider's default)")
    .option("--base-url <url>", "API base URL (default: OPENAI_BASE_URL / ANTHROPIC_BASE_URL)")
    .addOption(dbOption())
    .addOption(new Option("--contract <mode>", "completion contract").choices(EvidenceModes.options))
    .option("--no-stream", "ask for whole responses instead of streams")
    .option("--workspace <dir>", "workspace: prompt files, skills and the built-in tools act on it")
    .option("--session <id>", "continue this session (earlier turns replayed from the ledger)")
    .addOption(
      new Option("--policy <policy>", "deliver through the console channel with this policy").choices([...POLICIES]),
    )
    .option(
      "--mcp <server>",
      'an MCP server\'s tools for the run: a command line ("node server.mjs") or an http(s) URL; repeatable',
      collect,
    )
    .option(
      "--mcp-kind <tool=kind>",
      "the kind (observe|mutate|deliver) of an MCP tool, by its MCP name; repeatable",
      collect,
    )
    .addOption(
      new Option(
        "--approve <mode>",
        "mutate and deliver tools wait for approval: ask (y/n/edit), always, never",
      ).choices(["ask", "always", "never"]),
    )
    .option("--json", "print the AgentRunResult as JSON")
    .action(async (task: string, options: RunCommandOptions) => {
      setExit(await runCommand(io, task, options));
    });
}
