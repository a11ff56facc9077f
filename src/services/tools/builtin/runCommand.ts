import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import type { Writable } from "node:stream";
import * as Effect from "effect/Effect";
import { z } from "zod";
import { type CommandScope, type Containment, openCommandScope, SCOPE_ENV } from "../../processes/commandScope.js";
import { bootId, processStartTime } from "../../processes/procfs.js";
import { defineTool, type StartedToolProcess, type ToolContext, type ToolResult } from "../Tool.js";
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
  /**
   * How the processes of a call are tracked so that none outlives it (see commandScope.ts):
   * `auto` (default) takes the best this host offers — a cgroup v2 leaf, else the environment
   * marker and /proc, else the process group.
   */
  readonly containment?: Containment | "auto";
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

/** How long output is still read after the program exited, when something left alive holds the pipes. */
const PIPE_GRACE_MS = 500;

/**
 * The command's first process is a shell that waits for one line on fd 3 before it execs the
 * program: by then its process group is in its cgroup and in the ledger. End of file instead (this
 * process died first) runs nothing.
 */
const GATE_SCRIPT = 'IFS= read -r go <&3 || exit 125; exec 3<&-; exec "$@"';

/** Why `program` cannot be started from `cwd` with `path` as PATH, as the exec would fail; undefined when it can. */
export function programProblem(program: string, cwd: string, path: string | undefined): string | undefined {
  const runnable = (candidate: string) => {
    try {
      if (!statSync(candidate).isFile()) return "not a file";
      accessSync(candidate, constants.X_OK);
      return undefined;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "EACCES" ? "permission denied" : "no such file";
    }
  };
  if (program.includes("/")) return runnable(isAbsolute(program) ? program : resolve(cwd, program));
  for (const dir of (path ?? "").split(delimiter)) {
    if (runnable(join(dir === "" ? cwd : resolve(cwd, dir), program)) === undefined) return undefined;
  }
  return "not found on PATH";
}

type Outcome =
  | { readonly kind: "error"; readonly error: Error }
  | { readonly kind: "exit"; readonly code: number | null; readonly signal: NodeJS.Signals | null };

interface Started {
  readonly child: ChildProcess;
  readonly scope: CommandScope;
  readonly process: StartedToolProcess | undefined;
  readonly stdout: CappedOutput;
  readonly stderr: CappedOutput;
  /** Settles once: the program's exit with its output read, or a failure to start. */
  readonly outcome: Promise<Outcome>;
}

function start(
  argv: ReadonlyArray<string>,
  cwd: string,
  env: Record<string, string>,
  scope: CommandScope,
  cap: number,
) {
  // The shell exports PWD of its own accord; the program gets exactly the environment asked for.
  const gate = "PWD" in env ? GATE_SCRIPT : `unset PWD; ${GATE_SCRIPT}`;
  const child = spawn("/bin/sh", ["-c", gate, "agentloop-gate", ...argv], {
    cwd,
    detached: true,
    stdio: ["ignore", "pipe", "pipe", "pipe"],
    env: { ...env, [SCOPE_ENV]: scope.marker },
  });
  const stdout = new CappedOutput(cap);
  const stderr = new CappedOutput(cap);
  child.stdout!.on("data", (chunk: Buffer) => stdout.push(chunk));
  child.stderr!.on("data", (chunk: Buffer) => stderr.push(chunk));
  (child.stdio[3] as Writable).on("error", () => undefined); // the gate closed: the program is gone
  if (child.pid !== undefined) scope.attach(child.pid);
  const outcome = new Promise<Outcome>((settle) => {
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    child.on("error", (error) => settle({ kind: "error", error }));
    // The call ends with the program: everything it started is ended at once (a background child
    // would otherwise hold the output pipes, and the call, open until the timeout). What is still
    // in the pipes is read until they close — or, if something left alive holds them, for
    // PIPE_GRACE_MS.
    child.on("exit", (code, signal) => {
      scope.end();
      graceTimer = setTimeout(() => {
        child.stdout!.destroy();
        child.stderr!.destroy();
        settle({ kind: "exit", code, signal });
      }, PIPE_GRACE_MS);
    });
    child.on("close", (code, signal) => {
      clearTimeout(graceTimer);
      settle({ kind: "exit", code, signal });
    });
  });
  const pid = child.pid;
  const process: StartedToolProcess | undefined =
    pid === undefined
      ? undefined
      : {
          pgid: pid,
          startTime: processStartTime(pid) ?? null,
          bootId: bootId() ?? null,
          marker: scope.marker,
          cgroup: scope.cgroup ?? null,
        };
  const started: Started = { child, scope, process, stdout, stderr, outcome };
  return started;
}

/** Records the group (when the runtime asks for it), then lets the program run. */
const release = (started: Started, context: ToolContext) =>
  Effect.zipRight(
    started.process && context.processes ? context.processes.started(started.process) : Effect.void,
    Effect.sync(() => (started.child.stdio[3] as Writable).end("go\n")),
  );

/** Waits for the program under the call's timeout; a timeout or an interruption ends every process of the call. */
const awaitProgram = (started: Started, argv: ReadonlyArray<string>, timeoutMs: number) =>
  Effect.async<ToolResult>((resume) => {
    const began = Date.now();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      started.scope.end();
    }, timeoutMs);
    void started.outcome.then((outcome) => {
      clearTimeout(timer);
      if (outcome.kind === "error") {
        resume(
          Effect.succeed({
            status: "error",
            output: { error: `could not start ${argv[0]}: ${outcome.error.message}` },
            evidence: { argv: [...argv], exit_code: null, duration_ms: Date.now() - began },
          }),
        );
        return;
      }
      // Whatever the program did, leave nothing it started behind.
      started.scope.end();
      const { code, signal } = outcome;
      const out = started.stdout.digest();
      const err = started.stderr.digest();
      resume(
        Effect.succeed({
          status: code === 0 && !timedOut ? "ok" : "error",
          output: {
            exitCode: code,
            ...(timedOut ? { error: `timed out after ${timeoutMs} ms; every process it started was killed` } : {}),
            stdout: out.excerpt,
            stderr: err.excerpt,
            truncated: out.truncated || err.truncated,
          },
          evidence: {
            argv: [...argv],
            exit_code: code,
            signal: signal ?? null,
            timed_out: timedOut,
            duration_ms: Date.now() - began,
            stdout_sha256: out.sha256,
            stderr_sha256: err.sha256,
            stdout_bytes: started.stdout.bytes,
            stderr_bytes: started.stderr.bytes,
            process_tracking: started.scope.containment,
          },
        }),
      );
    });
    // Interruption (run cancel, call timeout, shutdown): end every process of the call.
    return Effect.sync(() => {
      clearTimeout(timer);
      started.scope.end();
    });
  });

/**
 * `run_command`: runs a program (argv, not a shell string, unless allowed) with its working
 * directory inside the workspace, a timeout and an output cap. Every process the program starts —
 * in its process group or not (see commandScope.ts) — is ended on timeout, on cancellation and
 * when the program exits, so none outlives the call; under a runtime the group is in the ledger
 * before the program runs, so recovery can end it after a crash.
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
    execute: (args, context) =>
      Effect.suspend((): Effect.Effect<ToolResult> => {
        const refuse = (error: string) => Effect.succeed<ToolResult>({ status: "error", output: { error } });
        let cwd: string;
        try {
          cwd = resolveInWorkspace(workspace, args.cwd).absolute;
        } catch (error) {
          return refuse((error as Error).message);
        }
        if (args.shell && !options.allowShell) return refuse("shell commands are not allowed; pass argv");
        const env = childEnvironment(options.env);
        const [program, ...rest] = args.argv;
        const problem = args.shell ? undefined : programProblem(program!, cwd, env.PATH);
        if (problem) {
          return Effect.succeed<ToolResult>({
            status: "error",
            output: { error: `could not start ${program}: ${problem}` },
            evidence: { argv: args.argv, exit_code: null, duration_ms: 0 },
          });
        }
        // Node's `shell: true` runs the argv joined by spaces as one `sh -c` script; so does this.
        const argv = args.shell ? ["/bin/sh", "-c", [program, ...rest].join(" ")] : args.argv;
        const cap = options.outputCapBytes ?? 16 * 1024;
        const timeoutMs = args.timeoutMs ?? options.defaultTimeoutMs ?? 60_000;
        return Effect.acquireUseRelease(
          Effect.sync(() => start(argv, cwd, env, openCommandScope(options.containment), cap)),
          (started) => Effect.zipRight(release(started, context), awaitProgram(started, args.argv, timeoutMs)),
          (started) =>
            Effect.zipRight(
              Effect.sync(() => started.scope.release()),
              started.process && context.processes ? context.processes.ended(started.process) : Effect.void,
            ),
        );
      }),
  });

export { sha256 as commandOutputHash };
