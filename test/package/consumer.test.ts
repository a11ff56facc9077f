/**
 * The package as a consumer gets it: `npm pack` of this tree, installed with npm (offline, from the
 * npm cache) into a scratch host project outside the repository, then used by a plain-node ESM
 * host, by `node -e import(...)`, by TypeScript (the project's tsc) and through its bin. How the
 * pack and the offline install work is described in scratchProject.ts.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScratchProject, PROJECT_TSC, type RunResult, run, type ScratchProject } from "./scratchProject.js";

const HOSTS = fileURLToPath(new URL("./hosts/", import.meta.url));
/** Packing builds dist/ from scratch (tsc) and npm installs ~90 packages; generous for a loaded 2-core machine. */
const SETUP_TIMEOUT = 450_000;
const CHECK_TIMEOUT = 180_000;
const SUBPATHS = ["agentloop", "agentloop/tools", "agentloop/providers", "agentloop/testing", "agentloop/machines"];

let work: string | undefined;
let project: ScratchProject;
const timings: Record<string, number> = {};

/** Fails with the child's output, so a broken consumer shows why. */
function expectSuccess(result: RunResult, what: string): void {
  if (result.code !== 0) {
    throw new Error(`${what} exited ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`);
  }
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "agentloop-consumer-"));
  project = await createScratchProject(work);
  timings.pack = project.packed.packMs;
  timings.install = project.installMs;
}, SETUP_TIMEOUT);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
  console.info(`consumer test timings (ms): ${JSON.stringify(timings)}`);
  // Removing the scratch project's node_modules can take long on a busy disk.
}, SETUP_TIMEOUT);

describe("the packed tarball", () => {
  it("contains the built entry points with declarations, every exports target, bin/agentloop.mjs and LICENSE", () => {
    const files = new Set(project.packed.entries);
    for (const file of [
      "package/package.json",
      "package/dist/index.js",
      "package/dist/index.d.ts",
      "package/dist/entries/tools.js",
      "package/dist/entries/tools.d.ts",
      "package/dist/entries/providers.js",
      "package/dist/entries/providers.d.ts",
      "package/dist/entries/testing.js",
      "package/dist/entries/testing.d.ts",
      "package/dist/entries/machines.js",
      "package/dist/entries/machines.d.ts",
      "package/dist/cli/process.js",
      "package/bin/agentloop.mjs",
      "package/LICENSE",
    ]) {
      expect(files, file).toContain(file);
    }
    // Whatever `exports` points at is in the tarball.
    const exportsField = (project.packed.manifest as { exports?: Record<string, unknown> }).exports ?? {};
    const targets = Object.values(exportsField).flatMap((target) =>
      typeof target === "string" ? [target] : Object.values(target as Record<string, string>),
    );
    expect(targets.length).toBeGreaterThan(5);
    for (const target of targets) expect(files, target).toContain(`package/${target.replace(/^\.\//, "")}`);
  });

  it("leaves out test/, bench/, node_modules and the build info", () => {
    const leaked = project.packed.entries.filter((file) =>
      /^package\/(test|bench|node_modules)\/|\.tsbuildinfo$|\/node_modules\//.test(file),
    );
    expect(leaked).toEqual([]);
  });
});

describe("the offline install of the tarball", () => {
  it(
    "leaves a complete tree: npm ls --all finds no missing, invalid or extraneous package",
    async () => {
      const result = await run("npm", ["ls", "--all", "--offline"], { cwd: project.dir });
      timings["npm ls"] = result.ms;
      expectSuccess(result, "npm ls --all");
      expect(result.stdout).toContain(`agentloop@${project.packed.manifest.version}`);
      expect(result.stdout).not.toMatch(/\b(missing|invalid|extraneous)\b/i);
    },
    CHECK_TIMEOUT,
  );

  it("installs agentloop from the packed tarball, with the project's build of better-sqlite3 in place", () => {
    const installed = JSON.parse(
      readFileSync(join(project.dir, "node_modules", "agentloop", "package.json"), "utf8"),
    ) as { version: string };
    expect(installed.version).toBe(project.packed.manifest.version);
    const lock = JSON.parse(readFileSync(join(project.dir, "package-lock.json"), "utf8")) as {
      packages: Record<string, { resolved?: string; integrity?: string }>;
    };
    expect(lock.packages["node_modules/agentloop"]).toMatchObject({
      resolved: `file:${project.packed.filename}`,
      integrity: project.packed.integrity,
    });
    expect(
      existsSync(join(project.dir, "node_modules", "better-sqlite3", "build", "Release", "better_sqlite3.node")),
    ).toBe(true);
  });
});

describe("a plain-node ESM host (no tsx, no loader)", () => {
  interface LedgerSummary {
    terminalState: string | null;
    sessionId: string | null;
    eventTypes: string[];
    receipts: Array<{
      callId: string;
      toolName: string;
      status: string;
      reason: string | null;
      evidence: Record<string, unknown>;
    }>;
  }
  interface HostSummary {
    imports: { machines: string[]; providers: string[]; tools: string[] };
    answered: {
      terminalState: string;
      terminalReason: string;
      finalText: string;
      receiptStatuses: string[];
      ledger: LedgerSummary;
    };
    cancelled: {
      terminalState: string;
      terminalReason: string;
      events: string[];
      toolSawAbort: boolean;
      ledger: LedgerSummary;
    };
    hosted: { end: string; heard: string[]; ledger: LedgerSummary; standInEnd: string };
    sse: { tabs: string[][]; live: string[] };
    uiMessage: { id: string; parts: string[]; metadata: Record<string, unknown> };
    ledgerFileExists: boolean;
  }
  let summary: HostSummary;
  let ledgerFile: string;

  beforeAll(async () => {
    copyFileSync(join(HOSTS, "host.mjs"), join(project.dir, "host.mjs"));
    ledgerFile = join(project.dir, "ledger.db");
    const result = await project.node(["host.mjs", ledgerFile]);
    timings.mjsHost = result.ms;
    expectSuccess(result, "node host.mjs");
    summary = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "") as HostSummary;
  }, CHECK_TIMEOUT);

  it("imports the agentloop/tools, agentloop/providers and agentloop/machines entries", () => {
    expect(summary.imports.tools).toEqual(expect.arrayContaining(["defineTool", "builtinTools", "describeTool"]));
    expect(summary.imports.providers).toEqual(
      expect.arrayContaining(["anthropicProvider", "openAIChatProvider", "openAIResponsesProvider", "ProviderError"]),
    );
    expect(summary.imports.machines).toContain("runMachine");
  });

  it("completes a scripted run with an async-function tool and a zod tool with an Effect executor", () => {
    expect(summary.answered).toMatchObject({
      terminalState: "completed",
      terminalReason: "receipts_satisfied",
      finalText: "Order 7 has shipped and is at the hub.",
      receiptStatuses: ["ok", "ok"],
    });
  });

  it("cancels a run through its AbortSignal while a tool runs: the run ends cancelled and the tool sees the abort", () => {
    expect(summary.cancelled).toMatchObject({
      terminalState: "cancelled",
      terminalReason: "cancelled_by_user",
      toolSawAbort: true,
    });
    expect(summary.cancelled.events.slice(0, 2)).toEqual(["tool_call", "tool_started"]);
    expect(summary.cancelled.events.at(-1)).toBe("done");
  });

  it("invokes a run from the host's own statechart, which hears its events and branches on its end; the stand-in run drives the other branch", () => {
    expect(summary.hosted.end).toBe("answered");
    expect(summary.hosted.heard).toEqual(expect.arrayContaining(["tool_started", "tool_result", "final", "done"]));
    expect(summary.hosted.ledger).toMatchObject({ terminalState: "completed", sessionId: "s4" });
    expect(summary.hosted.standInEnd).toBe("handedToPerson");
  });

  it("streams one run to two SSE clients, each of which gets every event to done", () => {
    const [first, second] = summary.sse.tabs;
    expect(first).toEqual(["commentary", "tool_call", "tool_started", "tool_result", "final", "done"]);
    expect(second).toEqual(first);
    expect(summary.sse.live).toEqual(first);
  });

  it("reads a run as the UI Message Stream with the ai package's reader: steps, the tool's output, the answer and the terminal state", () => {
    expect(summary.uiMessage.parts).toEqual([
      "step-start:",
      "tool-lookup_order:output-available",
      "step-start:",
      "text:Order 9 has shipped.",
    ]);
    expect(summary.uiMessage.metadata).toMatchObject({
      terminalState: "completed",
      reason: "receipts_satisfied",
      receipts: [{ callId: "u1", toolName: "lookup_order", status: "ok" }],
    });
  });

  it("reads the completed run back from the ledger file: terminal row, events and ok receipts with evidence", () => {
    expect(summary.ledgerFileExists).toBe(true);
    expect(statSync(ledgerFile).size).toBeGreaterThan(0);
    const { ledger } = summary.answered;
    expect(ledger.terminalState).toBe("completed");
    expect(ledger.sessionId).toBe("s1");
    expect(ledger.eventTypes[0]).toBe("user_input");
    expect(ledger.eventTypes.at(-1)).toBe("terminal");
    expect(ledger.eventTypes.filter((type) => type === "tool_call")).toHaveLength(2);
    expect(ledger.eventTypes.filter((type) => type === "tool_result")).toHaveLength(2);
    expect(ledger.receipts).toMatchObject([
      { callId: "c1", toolName: "lookup_order", status: "ok", evidence: { order_id: "7" } },
      { callId: "c2", toolName: "track_parcel", status: "ok", evidence: { tracking: "dhl-7" } },
    ]);
  });

  it("reads the cancelled run back from the ledger: cancelled row and a cancelled receipt for the running call", () => {
    const { ledger } = summary.cancelled;
    expect(ledger.terminalState).toBe("cancelled");
    expect(ledger.eventTypes.at(-1)).toBe("terminal");
    expect(ledger.receipts).toMatchObject([
      { callId: "w1", toolName: "wait_for_approval", status: "cancelled", reason: "cancelled_by_user" },
    ]);
  });
});

// Independent child processes: run side by side.
describe.concurrent("module resolution from the host project", () => {
  it.for(SUBPATHS)(
    "node -e import('%s') loads the installed dist/ build",
    { timeout: CHECK_TIMEOUT },
    async (specifier, { expect }) => {
      const script = `const url = import.meta.resolve(${JSON.stringify(specifier)});
const mod = await import(${JSON.stringify(specifier)});
console.log(JSON.stringify({ url, exports: Object.keys(mod).length }));`;
      const result = await project.node(["--input-type=module", "-e", script]);
      timings[`import ${specifier}`] = result.ms;
      expectSuccess(result, `node -e import('${specifier}')`);
      const { url, exports } = JSON.parse(result.stdout) as { url: string; exports: number };
      expect(fileURLToPath(url).startsWith(join(project.dir, "node_modules", "agentloop", "dist"))).toBe(true);
      expect(exports).toBeGreaterThan(0);
    },
  );
});

describe("importing the root entry for a SQLite host", () => {
  /**
   * Packages for other engines and optional features, and the ledger's SQL client, tokenizer and
   * YAML parser: each loads on first use (the first ledger opened, context built, skill read),
   * never with the root.
   */
  const LAZY =
    /^(pg|pg-.+|graphile-worker|@effect\/sql-pg|@opentelemetry\/.+|@effect\/opentelemetry|@modelcontextprotocol\/.+|@effect\/sql|@effect\/sql-sqlite-node|@effect\/platform|@effect\/experimental|gpt-tokenizer|yaml|fast-check)$/;

  it(
    "loads neither PostgreSQL, OpenTelemetry, MCP support nor the SQL client, tokenizer or Effect's Schema and Stream (timed over five fresh processes)",
    async () => {
      copyFileSync(join(HOSTS, "coldImport.mjs"), join(project.dir, "coldImport.mjs"));
      const result = await project.node(["coldImport.mjs", "agentloop"]);
      expectSuccess(result, "node coldImport.mjs agentloop");
      const { packages, heavyEffectModules } = JSON.parse(result.stdout.trim()) as {
        packages: string[];
        heavyEffectModules: string[];
      };
      expect(packages).toContain("effect");
      expect(packages.filter((name) => LAZY.test(name))).toEqual([]);
      expect(heavyEffectModules).toEqual([]);
      // Timed without the loader hook, which slows every import down; recorded, not bounded: on a
      // shared machine the figure says more about its load than about the package.
      const times: number[] = [];
      for (let round = 0; round < 5; round++) {
        const timed = await project.node([
          "--input-type=module",
          "-e",
          'const t = performance.now(); await import("agentloop"); console.log(performance.now() - t);',
        ]);
        expectSuccess(timed, "node -e import('agentloop')");
        times.push(Number(timed.stdout.trim()));
      }
      timings["cold import agentloop (median of 5)"] = Math.round(times.sort((a, b) => a - b)[2] ?? Number.NaN);
    },
    CHECK_TIMEOUT,
  );
});

// Independent tsc processes (each with its own tsconfig): run side by side.
describe.concurrent("TypeScript consumers (the project's tsc)", () => {
  const base = {
    target: "ES2022",
    strict: true,
    exactOptionalPropertyTypes: true,
    skipLibCheck: true,
    noEmit: true,
    types: ["node"],
  };
  const resolutions = {
    nodenext: { module: "nodenext", moduleResolution: "nodenext" },
    bundler: { module: "esnext", moduleResolution: "bundler" },
  } as const;
  type Resolution = keyof typeof resolutions;

  beforeAll(() => {
    for (const file of ["host.ts", "typeErrors.ts"]) copyFileSync(join(HOSTS, `${file}.txt`), join(project.dir, file));
  });

  /** tsc -p over `file` (copied from hosts/<file>.txt) with the given resolution. */
  const typeCheck = async (
    file: string,
    resolution: Resolution,
    extraArgs: string[] = [],
    overrides: Record<string, unknown> = {},
  ) => {
    const name = Object.keys(overrides).length > 0 ? `${resolution}.${Object.keys(overrides).join("-")}` : resolution;
    const tsconfig = join(project.dir, `tsconfig.${file}.${name}.json`);
    const compilerOptions = { ...base, ...resolutions[resolution], ...overrides };
    writeFileSync(tsconfig, JSON.stringify({ compilerOptions, files: [file] }, null, 2));
    const result = await run(process.execPath, [PROJECT_TSC, "-p", tsconfig, "--pretty", "false", ...extraArgs], {
      cwd: project.dir,
    });
    timings[`tsc ${file} ${resolution}`] = result.ms;
    return result;
  };

  it.for(["nodenext", "bundler"] as const)(
    "type-checks a host that uses the API for real under %s resolution (strict, exactOptionalPropertyTypes)",
    { timeout: CHECK_TIMEOUT },
    async (resolution, { expect }) => {
      const result = await typeCheck("host.ts", resolution, ["--listFiles"]);
      expectSuccess(result, `tsc (${resolution}) host.ts`);
      // The declarations came from the installed package, each entry point's own.
      const listed = result.stdout.split("\n");
      for (const declaration of [
        "index.d.ts",
        "entries/tools.d.ts",
        "entries/testing.d.ts",
        "entries/providers.d.ts",
        "entries/machines.d.ts",
      ]) {
        const path = join(project.dir, "node_modules", "agentloop", "dist", declaration);
        expect(listed, declaration).toContain(path);
      }
    },
  );

  it("with skipLibCheck off, the package's declarations check and every declaration they pull in is installed with it", {
    timeout: CHECK_TIMEOUT,
  }, async ({ expect }) => {
    const result = await typeCheck("host.ts", "nodenext", [], { skipLibCheck: false });
    const errors = result.stdout.split("\n").filter((line) => line.includes("error TS"));
    // xstate's own declarations do not pass this TypeScript's checks (its bug, not a missing package).
    const ours = errors.filter(
      (line) =>
        line.includes("node_modules/agentloop/") ||
        /error TS(2307|7016|2688)/.test(line) || // a module or its types that nothing installed
        !line.startsWith("node_modules/"),
    );
    expect(ours).toEqual([]);
  });

  it.for(["nodenext", "bundler"] as const)(
    "fails under %s resolution on each deliberate misuse (so the types are not any)",
    { timeout: CHECK_TIMEOUT },
    async (resolution, { expect }) => {
      const result = await typeCheck("typeErrors.ts", resolution);
      expect(result.code).not.toBe(0);
      const fixture = readFileSync(join(HOSTS, "typeErrors.ts.txt"), "utf8").split("\n");
      const expectedLines = fixture.flatMap((line, index) => (line.includes("// ERROR:") ? [index + 1] : []));
      const errorLines = [...result.stdout.matchAll(/^typeErrors\.ts\((\d+),\d+\): error TS\d+/gm)].map((match) =>
        Number(match[1]),
      );
      expect(expectedLines.length).toBe(6);
      expect([...new Set(errorLines)].sort((a, b) => a - b)).toEqual(expectedLines);
    },
  );
});

describe("the agentloop bin in the host project", () => {
  it(
    "npx agentloop --version prints the packed version",
    async () => {
      // `--no`: never offer to install (the local bin must be found); `--offline`: never ask the registry;
      // `--`: the flags after it belong to agentloop, not to npx.
      const result = await run("npx", ["--offline", "--no", "--", "agentloop", "--version"], { cwd: project.dir });
      timings["npx agentloop --version"] = result.ms;
      expectSuccess(result, "npx agentloop --version");
      expect(result.stdout.trim()).toBe(project.packed.manifest.version);
    },
    CHECK_TIMEOUT,
  );

  it(
    "node_modules/.bin/agentloop --help runs the built CLI",
    async () => {
      const bin = join(project.dir, "node_modules", ".bin", "agentloop");
      expect(existsSync(bin)).toBe(true);
      const result = await run(bin, ["--help"], { cwd: project.dir });
      timings["agentloop --help"] = result.ms;
      expectSuccess(result, "node_modules/.bin/agentloop --help");
      expect(result.stdout).toMatch(/^Usage: agentloop /);
      expect(result.stdout).toContain("-V, --version");
    },
    CHECK_TIMEOUT,
  );
});
