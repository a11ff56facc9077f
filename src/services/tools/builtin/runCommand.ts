import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { Effect } from "effect";
import { z } from "zod";
import { defineTool, type ToolResult } from "../Tool.js";
import { resolveInWorkspace } from "./workspacePaths.js";

export interface RunCommandOptions {
  readonly defaultTimeoutMs?: number;
  /** Bytes of stdout/stderr kept in the output excerpt (the hash covers everything). */
  readonly outputCapBytes?: number;
  /** Allow `shell: true` calls (off by default: argv only). */
  readonly allowShell?: boolean;
  /**
   * The child's environment. By default it gets only a minimal one ({@link BASE_ENV_NAMES} from
   * this process), never the whole `process.env` (API keys and other secrets live there).
   * `allow` names further variables passed through from this process; `set` adds fixed values.
   */
  readonly env?: {
    readonly allow?: ReadonlyArray<string>;
    readonly set?: Readonly<Record<string, string>>;
  };
}

/** What a child gets from this process's environment by default. */
export const BASE_ENV_NAMES = ["PATH", "HOME", "LANG", "TMPDIR", "TMP", "TEMP"] as const;

/** The minimal child environment: the base names and `allow` from `source`, then `set`. */
export function childEnvironment(
  options: RunCommandOptions["env"] = {},
  source: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [...BASE_ENV_NAMES, ...(options.allow ?? [])]) {
    const value = source[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...(options.set ?? {}) };
}

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");

function killGroup(pid: number | undefined) {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // The group is already gone.
  }
}

/** Collects a stream fully for the hash, keeping only `cap` bytes for the excerpt. */
class CappedOutput {
  private readonly hash = createHash("sha256");
  private kept: Buffer[] = [];
  private keptBytes = 0;
  bytes = 0;
  constructor(private readonly cap: number) {}
  push(chunk: Buffer) {
    this.hash.update(chunk);
    this.bytes += chunk.byteLength;
    if (this.keptBytes < this.cap) {
      const slice = chunk.subarray(0, this.cap - this.keptBytes);
      this.kept.push(slice);
      this.keptBytes += slice.byteLength;
    }
  }
  digest() {
    return {
      excerpt: Buffer.concat(this.kept).toString("utf8"),
      truncated: this.bytes > this.cap,
      sha256: this.hash.digest("hex"),
    };
  }
}

/** How long output is still read after the program exited, when something outside its group holds the pipes. */
const PIPE_GRACE_MS = 500;

/**
 * `run_command`: runs a program (argv, not a shell string, unless allowed) with its working
 * directory inside the workspace, a timeout and an output cap. The process runs in its own
 * process group, which is killed on timeout or cancellation so no child outlives the call.
 * Evidence: exit code, signal, duration, stdout/stderr sha256.
 */
export const runCommandTool = (workspace: string, options: RunCommandOptions = {}) =>
  defineTool({
    name: "run_command",
    description: "Run a program inside the workspace: argv[0] is the program, the rest its arguments.",
    kind: "mutate",
    input: z.object({
      argv: z.array(z.string()).min(1),
      cwd: z.string().default("."),
      timeoutMs: z.number().int().positive().max(600_000).optional(),
      shell: z.boolean().default(false),
    }),
    execute: (args) =>
      Effect.async<ToolResult>((resume) => {
        let cwd: string;
        try {
          cwd = resolveInWorkspace(workspace, args.cwd).absolute;
        } catch (error) {
          resume(Effect.succeed({ status: "error", output: { error: (error as Error).message } }));
          return;
        }
        if (args.shell && !options.allowShell) {
          resume(Effect.succeed({ status: "error", output: { error: "shell commands are not allowed; pass argv" } }));
          return;
        }
        const cap = options.outputCapBytes ?? 16 * 1024;
        const timeoutMs = args.timeoutMs ?? options.defaultTimeoutMs ?? 60_000;
        const started = Date.now();
        const stdout = new CappedOutput(cap);
        const stderr = new CappedOutput(cap);
        const [program, ...rest] = args.argv;
        const child = spawn(program!, rest, {
          cwd,
          detached: true,
          shell: args.shell,
          stdio: ["ignore", "pipe", "pipe"],
          env: childEnvironment(options.env),
        });
        let timedOut = false;
        const timer = setTimeout(() => {
          timedOut = true;
          killGroup(child.pid);
        }, timeoutMs);
        child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
        child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
        let settled = false;
        let graceTimer: ReturnType<typeof setTimeout> | undefined;
        child.on("error", (error) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resume(
            Effect.succeed({
              status: "error",
              output: { error: `could not start ${program}: ${error.message}` },
              evidence: { argv: args.argv, exit_code: null, duration_ms: Date.now() - started },
            }),
          );
        });
        const finish = (code: number | null, signal: NodeJS.Signals | null) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          clearTimeout(graceTimer);
          // Whatever the leader did, leave no member of its group behind.
          killGroup(child.pid);
          const out = stdout.digest();
          const err = stderr.digest();
          const evidence = {
            argv: args.argv,
            exit_code: code,
            signal: signal ?? null,
            timed_out: timedOut,
            duration_ms: Date.now() - started,
            stdout_sha256: out.sha256,
            stderr_sha256: err.sha256,
            stdout_bytes: stdout.bytes,
            stderr_bytes: stderr.bytes,
          };
          resume(
            Effect.succeed({
              status: code === 0 && !timedOut ? "ok" : "error",
              output: {
                exitCode: code,
                ...(timedOut ? { error: `timed out after ${timeoutMs} ms; the process group was killed` } : {}),
                stdout: out.excerpt,
                stderr: err.excerpt,
                truncated: out.truncated || err.truncated,
              },
              evidence,
            }),
          );
        };
        // The call ends with the program: its group is killed at once (a background child would
        // otherwise hold the output pipes, and the call, open until the timeout). What is still
        // in the pipes is read until they close — or, if a process that left the group holds
        // them, for PIPE_GRACE_MS.
        child.on("exit", (code, signal) => {
          killGroup(child.pid);
          graceTimer = setTimeout(() => {
            child.stdout.destroy();
            child.stderr.destroy();
            finish(code, signal);
          }, PIPE_GRACE_MS);
        });
        child.on("close", (code, signal) => finish(code, signal));
        // Interruption (run cancel, call timeout): kill the whole group.
        return Effect.sync(() => {
          clearTimeout(timer);
          clearTimeout(graceTimer);
          killGroup(child.pid);
        });
      }),
  });

export { sha256 as commandOutputHash };
