import { type Command, Option } from "commander";
import { dbOption } from "./dbOption.js";
import type { CliIO } from "./output.js";

/**
 * `agentloop memory list|approve|reject|markdown`: the admin surface for pending candidates.
 * Only the commands' definitions; src/cli/memoryImpl.ts is imported when one of them runs.
 */
export function registerMemoryCommands(program: Command, io: CliIO, setExit: (code: number) => void): void {
  const memory = program.command("memory").description("memory items with provenance: review pending candidates");

  memory
    .command("list")
    .description("list memory items (default: pending candidates)")
    .addOption(dbOption())
    .addOption(new Option("--status <status>", "verification status, or all").default("pending"))
    .option("--scope <scope>", "only this scope")
    .option("--json", "machine-readable output")
    .action(async (options: { db: string; status: string; scope?: string; json?: boolean }) => {
      const { listMemoryCommand } = await import("./memoryImpl.js");
      setExit(await listMemoryCommand(io, options));
    });

  const decide = (name: "approve" | "reject") =>
    memory
      .command(name)
      .description(
        name === "approve"
          ? "approve a candidate: verified, provenance user_decision"
          : "reject a candidate (kept, never retrieved)",
      )
      .argument("<id>", "memory item id")
      .addOption(dbOption())
      .action(async (id: string, options: { db: string }) => {
        const { decideMemoryCommand } = await import("./memoryImpl.js");
        setExit(await decideMemoryCommand(io, name, id, options));
      });
  decide("approve");
  decide("reject");

  memory
    .command("markdown")
    .description("print the Markdown projection of active memory (pending and unverified items never appear)")
    .addOption(dbOption())
    .option("--scope <scope>", "only this scope")
    .action(async (options: { db: string; scope?: string }) => {
      const { memoryMarkdownCommand } = await import("./memoryImpl.js");
      setExit(await memoryMarkdownCommand(io, options));
    });
}
