/** One benchmark in a fresh Node process of a checkout's own `bench/worker.ts`, its result parsed. */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { RESULT_MARKER } from "./ids.js";
import type { BenchResult } from "./types.js";

/** A benchmark process that has not finished by then is stopped and reported as an error. */
export const WORKER_TIMEOUT_MS = 20 * 60_000;

export interface WorkerOptions {
  /** The checkout whose `bench/worker.ts` runs, in that checkout as its working directory. */
  readonly root: string;
  readonly quick: boolean;
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
}

/** Maps the workloads' imports of `src/` to the checkout's `dist/`: the package as a host runs it. */
const BUILT_PACKAGE = fileURLToPath(new URL("./builtPackage.mjs", import.meta.url));

/**
 * `node --expose-gc --import tsx --import builtPackage.mjs <root>/bench/worker.ts <id> [--quick]`
 * in `root`. Never rejects:
 * a process that fails (exit code, signal, time-out, no result line) becomes `{ id, error }`.
 */
export function runWorkerProcess(id: string, options: WorkerOptions): Promise<BenchResult> {
  const args = [
    "--expose-gc",
    "--import",
    "tsx",
    "--import",
    BUILT_PACKAGE,
    join(options.root, "bench", "worker.ts"),
    id,
  ];
  if (options.quick) args.push("--quick");
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: options.root,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? WORKER_TIMEOUT_MS);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ id, error: `could not start: ${error.message}` });
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const line = stdout.split("\n").find((candidate) => candidate.startsWith(RESULT_MARKER));
      if (code === 0 && line) {
        try {
          resolve(JSON.parse(line.slice(RESULT_MARKER.length)) as BenchResult);
        } catch (error) {
          resolve({ id, error: `unreadable result: ${error instanceof Error ? error.message : String(error)}` });
        }
        return;
      }
      const reason = signal ? `killed by ${signal}` : `exit code ${code}`;
      resolve({ id, error: `${reason}: ${stderr.trim().split("\n").slice(-8).join(" | ") || "no output"}` });
    });
  });
}
