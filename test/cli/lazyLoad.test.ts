import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { runNode } from "../support/childProcess.js";
import { useTempDir } from "../support/tempDir.js";

/**
 * `--help`, `--version` and usage errors must load only commander and light modules: every
 * command's implementation (effect, @effect/sql, SQLite, the provider SDKs, …) is imported by its
 * action, when the command runs. A child process runs `main` from the source (through tsx) with an
 * ESM resolve hook that records every module it loads; no timing is asserted.
 */

const tmp = useTempDir("agentloop-cli-lazy-");
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAIN_MODULE = new URL("../../src/cli/main.ts", import.meta.url).href;
/** The child process starts tsx and the CLI; allow for a loaded machine (not a timing assertion). */
const CHILD_TIMEOUT = 120_000;

/** Records the URL of every module the process resolves (the hook runs on Node's hooks thread). */
const RECORDING_HOOKS = `import { appendFileSync } from "node:fs";
let log;
export function initialize(data) {
  log = data.log;
}
export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  appendFileSync(log, result.url + "\\n");
  return result;
}
`;

/** Registers the recording hooks, then runs `main` once per argv, writing `> argv` to the log before each. */
const entrySource = (hooks: string, log: string) => `import { appendFileSync } from "node:fs";
import { register } from "node:module";
register(${JSON.stringify(hooks)}, import.meta.url, { data: { log: ${JSON.stringify(log)} } });
const { main } = await import(${JSON.stringify(MAIN_MODULE)});
const io = { out() {}, err() {}, isTTY: false };
const codes = [];
for (const argv of JSON.parse(process.argv[2])) {
  appendFileSync(${JSON.stringify(log)}, "> " + JSON.stringify(argv) + "\\n");
  codes.push(await main(argv, io));
}
process.stdout.write(JSON.stringify(codes));
`;

/** Module URLs that belong to a command's implementation, never to the command tree. */
const HEAVY = [
  /\/node_modules\/effect\//,
  /\/node_modules\/@effect\//,
  /\/node_modules\/openai\//,
  /\/node_modules\/@anthropic-ai\/sdk\//,
  /\/node_modules\/better-sqlite3\//,
  /\/node_modules\/gpt-tokenizer\//,
  /\/node_modules\/@opentelemetry\//,
  /\/node_modules\/xstate\//,
  /\/src\/(runtime|persistence|machines|host)\//,
  /\/src\/services\/(?!providers\/names\.ts$)/,
  /\/src\/cli\/(\w+Impl|dbCommands|evalCommand|readLedger|visualize)\.ts$/,
];
const isHeavy = (url: string) => HEAVY.some((pattern) => pattern.test(url));

/** A package name or a path under src/, so a failure lists what was loaded in a few lines. */
const shortName = (url: string) =>
  /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? /\/(src\/.*)$/.exec(url)?.[1] ?? url;

/** The heavy modules each argv loaded, by short name; empty when the CLI stayed light. */
const heavyByArgv = (byArgv: ReadonlyMap<string, string[]>) =>
  Object.fromEntries(
    [...byArgv]
      .map(([argv, urls]) => [argv, [...new Set(urls.filter(isHeavy).map(shortName))].sort()] as const)
      .filter(([, names]) => names.length > 0),
  );

interface Loaded {
  readonly codes: number[];
  /** Every module resolved while `main` ran with that argv (in order; the first is "(startup)"). */
  readonly byArgv: ReadonlyMap<string, string[]>;
}

/** Runs `main(argv)` for each argv in one fresh child process and reports what each one loaded. */
async function loadedModules(argvs: string[][]): Promise<Loaded> {
  const log = tmp.path("modules.log");
  const hooks = tmp.path("hooks.mjs");
  const entry = tmp.path("entry.mjs");
  writeFileSync(log, "");
  writeFileSync(hooks, RECORDING_HOOKS);
  writeFileSync(entry, entrySource(pathToFileURL(hooks).href, log));
  const { code, stdout, stderr } = await runNode(["--import", "tsx", entry, JSON.stringify(argvs)], ROOT);
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  const byArgv = new Map<string, string[]>();
  let current: string[] = [];
  byArgv.set("(startup)", current);
  for (const line of readFileSync(log, "utf8").split("\n")) {
    if (line.startsWith("> ")) {
      current = [];
      byArgv.set(line.slice(2), current);
    } else if (line) current.push(line);
  }
  return { codes: JSON.parse(stdout) as number[], byArgv };
}

/** Help, version and usage errors, with the exit code each must end with. */
const LIGHT_INVOCATIONS: ReadonlyArray<readonly [string[], number]> = [
  [["--help"], 0],
  [["--version"], 0],
  [["help"], 0],
  [["run", "--help"], 0],
  [["eval", "--help"], 0],
  [["migrate", "--help"], 0],
  [["recover", "--help"], 0],
  [["visualize", "--help"], 0],
  [["inspect", "--help"], 0],
  [["runs", "--help"], 0],
  [["memory", "list", "--help"], 0],
  [["workspace", "init", "--help"], 0],
  [["metrics", "--help"], 0],
  [["health", "--help"], 0],
  [["trace", "--help"], 0],
  [["flags", "--help"], 0],
  [["bogus"], 2],
  [["run"], 2],
  [["run", "Hi", "--provider", "gemini"], 2],
  [["runs", "--state", "nope"], 2],
  [["migrate"], 2],
];

describe("the CLI loads command implementations lazily", () => {
  it(
    "--help, --version, every command's --help and usage errors load no heavy module",
    async () => {
      const { codes, byArgv } = await loadedModules(LIGHT_INVOCATIONS.map(([argv]) => argv));
      expect(codes).toEqual(LIGHT_INVOCATIONS.map(([, code]) => code));
      const all = [...byArgv.values()].flat();
      // The recorder works: the command tree's own modules are in the list.
      expect(all.some((url) => url.includes("/node_modules/commander/"))).toBe(true);
      expect(all.some((url) => url.endsWith("/src/cli/runCommand.ts"))).toBe(true);
      expect(heavyByArgv(byArgv)).toEqual({});
    },
    CHILD_TIMEOUT,
  );

  it(
    "a command that runs loads its implementation then (migrate: effect and SQLite)",
    async () => {
      const db = tmp.path("ledger.db");
      const { codes, byArgv } = await loadedModules([["--help"], ["migrate", "--db", db]]);
      expect(codes).toEqual([0, 0]);
      expect(heavyByArgv(byArgv)).not.toHaveProperty(["(startup)"]);
      expect(heavyByArgv(byArgv)).not.toHaveProperty([JSON.stringify(["--help"])]);
      const migrate = byArgv.get(JSON.stringify(["migrate", "--db", db])) ?? [];
      expect(migrate.some((url) => url.endsWith("/src/cli/dbCommands.ts"))).toBe(true);
      expect(migrate.some((url) => url.includes("/node_modules/effect/"))).toBe(true);
      expect(migrate.some((url) => url.includes("/node_modules/better-sqlite3/"))).toBe(true);
    },
    CHILD_TIMEOUT,
  );
});
