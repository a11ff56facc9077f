import type { Command } from "commander";
import { dbOption } from "./dbOption.js";
import type { CliIO } from "./output.js";

/**
 * `agentloop serve`: a local, read-only web app over the ledger. Only the command's definition;
 * src/cli/serveImpl.ts (the HTTP server, effect, SQLite) is imported when it runs.
 */
export function registerServeCommand(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command("serve")
    .description("a local web app over the ledger: runs, a run's timeline and statechart path (live), metrics, health")
    .addOption(dbOption())
    .option("--port <n>", "port to listen on (0: any free port)", "7878")
    .option("--host <address>", "address to bind (anything but loopback exposes the ledger)", "127.0.0.1")
    .option("--poll <ms>", "how often open pages look for ledger changes", "300")
    .action(async (options: { db: string; port: string; host: string; poll: string }) => {
      const { serveCommand } = await import("./serveImpl.js");
      setExit(await serveCommand(io, options));
    });
}
