import type { Command } from "commander";
import type { CliIO } from "./output.js";

/**
 * `agentloop workspace init|diff DIR`: templates are written where missing, never over a file.
 * The templates are imported when a command runs, like every command's implementation.
 */
export function registerWorkspaceCommands(program: Command, io: CliIO, setExit: (code: number) => void): void {
  const workspace = program.command("workspace").description("workspace templates (AGENTS.md, SOUL.md, USER.md)");
  workspace
    .command("init")
    .description("write the template files that are missing; existing files are never overwritten")
    .argument("<dir>", "workspace folder")
    .option("--json", "machine-readable output")
    .action(async (dir: string, options: { json?: boolean }) => {
      const { initWorkspace } = await import("../services/workspace/templates.js");
      const result = initWorkspace(dir);
      if (options.json) io.out(JSON.stringify(result));
      else {
        for (const file of result.written) io.out(`wrote ${file}`);
        for (const file of result.kept) io.out(`kept  ${file} (exists; not overwritten)`);
      }
      setExit(0);
    });
  workspace
    .command("diff")
    .description("show how the workspace files differ from the current templates (reads only)")
    .argument("<dir>", "workspace folder")
    .option("--json", "machine-readable output")
    .action(async (dir: string, options: { json?: boolean }) => {
      const { diffWorkspace } = await import("../services/workspace/templates.js");
      const diffs = diffWorkspace(dir);
      if (options.json) io.out(JSON.stringify(diffs));
      else {
        for (const entry of diffs) {
          const version = entry.version === null ? "no template marker" : `template v${entry.version}`;
          io.out(`${entry.file}: ${entry.status} (${version})`);
          for (const line of entry.diff) io.out(`  ${line}`);
        }
      }
      setExit(0);
    });
}
