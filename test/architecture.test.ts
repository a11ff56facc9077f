import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The layering of the architecture map (README), checked on every import of every `src/**\/*.ts`:
 *
 *   domain ← machines / persistence / config ← services ← runtime ← host ← cli
 *
 * A layer may import its own folder and the layers below it, nothing above. `src/index.ts` and
 * `src/entries/*` are the public surface and may import anything. Besides, `services` know neither
 * XState nor the runtime, nothing below `runtime` imports `xstate` / `@xstate/*`, and the machines
 * stay free of Effect: the runtime is the one place that wires both.
 *
 * Import and export-from declarations, `import x = require(…)`, dynamic `import(…)` and
 * `typeof import(…)` types are all checked; type-only imports count like any other.
 */

const SRC = fileURLToPath(new URL("../src/", import.meta.url));

const LAYERS = [
  "domain",
  "machines",
  "persistence",
  "config",
  "services",
  "runtime",
  "host",
  "cli",
  "surface",
] as const;
type Layer = (typeof LAYERS)[number];

/** What each layer may import (besides packages). */
const ALLOWED: Readonly<Record<Layer, ReadonlyArray<Layer>>> = {
  domain: ["domain"],
  machines: ["domain", "machines"],
  persistence: ["domain", "persistence"],
  config: ["domain", "config"],
  services: ["domain", "persistence", "config", "services"],
  runtime: ["domain", "machines", "persistence", "config", "services", "runtime"],
  host: ["domain", "machines", "persistence", "config", "services", "runtime", "host"],
  cli: ["domain", "machines", "persistence", "config", "services", "runtime", "host", "cli"],
  surface: LAYERS,
};

const XSTATE = /^(xstate|@xstate\/.+)$/;
const EFFECT = /^(effect|@effect\/.+)$/;

/** Packages a layer must not import. */
const FORBIDDEN_PACKAGES: Readonly<Partial<Record<Layer, ReadonlyArray<{ pattern: RegExp; why: string }>>>> = {
  domain: [{ pattern: XSTATE, why: "domain knows no XState" }],
  persistence: [{ pattern: XSTATE, why: "persistence knows no XState" }],
  config: [{ pattern: XSTATE, why: "config knows no XState" }],
  services: [{ pattern: XSTATE, why: "services know no XState (the runtime provides the machines)" }],
  machines: [{ pattern: EFFECT, why: "machines are pure statecharts: no Effect" }],
};

/** The layer of a path relative to src/ (with `/`), or undefined for a folder the map does not know. */
function layerOf(path: string): Layer | undefined {
  if (path === "index.ts" || path.startsWith("entries/")) return "surface";
  const folder = path.split("/")[0] ?? "";
  return (LAYERS as ReadonlyArray<string>).includes(folder) && folder !== "surface" ? (folder as Layer) : undefined;
}

interface ImportSite {
  readonly specifier: string | undefined;
  readonly line: number;
  readonly kind: "static" | "export" | "dynamic" | "type" | "require";
}

/** Every module specifier a source text names, with its line (1-based). */
function importsOf(fileName: string, text: string): ImportSite[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const sites: ImportSite[] = [];
  const add = (node: ts.Node, expression: ts.Node | undefined, kind: ImportSite["kind"]) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    const specifier = expression && ts.isStringLiteralLike(expression) ? expression.text : undefined;
    sites.push({ specifier, line, kind });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) add(node, node.moduleSpecifier, "static");
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier) add(node, node.moduleSpecifier, "export");
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node, node.moduleReference.expression, "require");
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node, node.arguments[0], "dynamic");
    } else if (ts.isImportTypeNode(node)) {
      const argument = node.argument;
      add(node, ts.isLiteralTypeNode(argument) ? argument.literal : undefined, "type");
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sites;
}

/** The package a bare specifier names (`@scope/name` or `name`), or undefined for a relative one or a builtin. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("node:")) return undefined;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

interface Violation {
  readonly at: string;
  readonly specifier: string;
  readonly rule: string;
}

interface FileReport {
  readonly layer: Layer | undefined;
  /** The layers (and packages, as `pkg:<name>`) it imports, one entry per import. */
  readonly targets: ReadonlyArray<string>;
  readonly violations: ReadonlyArray<Violation>;
}

/** Checks one file (`path` relative to src/, with `/`) against the rule table. */
function checkFile(path: string, text: string): FileReport {
  const layer = layerOf(path);
  const violations: Violation[] = [];
  const targets: string[] = [];
  if (!layer) {
    violations.push({ at: `src/${path}`, specifier: "", rule: "the file is in no layer of the map" });
    return { layer, targets, violations };
  }
  for (const site of importsOf(path, text)) {
    const at = `src/${path}:${site.line}`;
    if (site.specifier === undefined) {
      violations.push({ at, specifier: "<computed>", rule: `a ${site.kind} import whose target cannot be checked` });
      continue;
    }
    const pkg = packageOf(site.specifier);
    if (pkg !== undefined) {
      targets.push(`pkg:${pkg}`);
      for (const { pattern, why } of FORBIDDEN_PACKAGES[layer] ?? []) {
        if (pattern.test(pkg)) violations.push({ at, specifier: site.specifier, rule: `${layer} → ${pkg}: ${why}` });
      }
      continue;
    }
    if (!site.specifier.startsWith(".")) continue; // node: builtins
    const target = relative(SRC, resolve(SRC, dirname(path), site.specifier))
      .split(sep)
      .join("/");
    const targetLayer = target.startsWith("..") ? undefined : layerOf(target);
    if (!targetLayer) {
      violations.push({ at, specifier: site.specifier, rule: `${layer} → outside the layers of src/` });
      continue;
    }
    targets.push(targetLayer);
    if (!ALLOWED[layer].includes(targetLayer)) {
      violations.push({ at, specifier: site.specifier, rule: `${layer} → ${targetLayer}: points up the layers` });
    }
  }
  return { layer, targets, violations };
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.isFile() && entry.name.endsWith(".ts") ? [full] : [];
  });
}

describe("architecture: imports point down the layers", () => {
  const files = sourceFiles(SRC).sort();
  const reports = files.map((file) => {
    const path = relative(SRC, file).split(sep).join("/");
    return { path, ...checkFile(path, readFileSync(file, "utf8")) };
  });

  it("every src file belongs to a layer and imports only what its layer may", () => {
    const byLayer = new Map<string, { files: number; imports: number; into: Map<string, number> }>();
    for (const report of reports) {
      const row = byLayer.get(report.layer ?? "?") ?? { files: 0, imports: 0, into: new Map<string, number>() };
      row.files += 1;
      row.imports += report.targets.length;
      for (const target of report.targets) {
        const key = target.startsWith("pkg:") ? "packages" : target;
        row.into.set(key, (row.into.get(key) ?? 0) + 1);
      }
      byLayer.set(report.layer ?? "?", row);
    }
    const lines = [...LAYERS, "?"]
      .filter((layer) => byLayer.has(layer))
      .map((layer) => {
        const row = byLayer.get(layer)!;
        const into = [...LAYERS, "packages"]
          .filter((target) => row.into.has(target))
          .map((target) => `${target} ${row.into.get(target)}`)
          .join(", ");
        return `${layer.padEnd(11)} ${String(row.files).padStart(3)} files ${String(row.imports).padStart(4)} imports  (${into})`;
      });
    console.log(`architecture: ${reports.length} files under src/\n${lines.join("\n")}`);

    const violations = reports.flatMap((report) => report.violations);
    expect(violations.map((v) => `${v.at} "${v.specifier}": ${v.rule}`)).toEqual([]);
    expect(reports.length).toBeGreaterThan(50);
  });

  it("the checker sees every form of import (so a clean run means something)", () => {
    const text = [
      'import type { AgentRuntime } from "../runtime/AgentRuntime.js";',
      'export { runMachine } from "../machines/run/machine.js";',
      'import { createActor } from "xstate";',
      'const lazy = await import("../host/router.js");',
      'type Module = typeof import("../cli/main.js");',
      "const text = 'import { createMachine } from \"xstate\";'; // a string, not an import",
      "const computed = await import(someName);",
      'import { Data } from "effect";',
    ].join("\n");
    const report = checkFile("services/example.ts", text);
    expect(report.violations.map((v) => `${v.at}: ${v.rule}`)).toEqual([
      "src/services/example.ts:1: services → runtime: points up the layers",
      "src/services/example.ts:2: services → machines: points up the layers",
      "src/services/example.ts:3: services → xstate: services know no XState (the runtime provides the machines)",
      "src/services/example.ts:4: services → host: points up the layers",
      "src/services/example.ts:5: services → cli: points up the layers",
      "src/services/example.ts:7: a dynamic import whose target cannot be checked",
    ]);
    expect(checkFile("machines/example.ts", 'import { Effect } from "effect";').violations).toHaveLength(1);
    expect(checkFile("entries/example.ts", text.split("\n").slice(0, 5).join("\n")).violations).toEqual([]);
    expect(checkFile("host/example.ts", 'import { x } from "../../test/support/tempDir.js";').violations).toHaveLength(
      1,
    );
    expect(checkFile("somewhere/example.ts", "").violations).toHaveLength(1);
  });
});

const TEST = fileURLToPath(new URL("./", import.meta.url));
/** Test folders that are suites of their own (path coverage, fuzz smoke, the packed package, helpers, fixtures), not mirrors of a src folder. */
const SUITES = new Set(["paths", "support", "fuzz", "package", "fixtures"]);
/** The project-wide checks that sit at the top of test/. */
const TOP_LEVEL = new Set(["architecture.test.ts", "bench.test.ts"]);

function testFolders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const path = relative(TEST, join(dir, entry.name)).split(sep).join("/");
      return SUITES.has(path.split("/")[0]!) ? [] : [path, ...testFolders(join(dir, entry.name))];
    });
}

describe("architecture: test/ mirrors src/", () => {
  it("every test folder is a src folder or one of the named suites", () => {
    const orphans = testFolders(TEST).filter((folder) => !existsSync(join(SRC, folder)));
    expect(orphans).toEqual([]);
  });

  it("only the project-wide checks sit at the top of test/", () => {
    const files = readdirSync(TEST, { withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
      .map((entry) => entry.name);
    expect(files.filter((name) => !TOP_LEVEL.has(name))).toEqual([]);
  });

  it("the mirror check sees a folder that mirrors nothing", () => {
    expect(existsSync(join(SRC, "services/channels"))).toBe(false);
    expect(testFolders(TEST).length).toBeGreaterThan(10);
  });
});

/**
 * Persistence owns its engines: the database drivers are imported only by the engine folders of
 * `src/persistence/engine/`, nothing outside persistence writes SQL (no `@effect/sql` in services,
 * host or cli) nor asks the client which dialect it speaks, and the CLI's default ledger is named
 * once.
 */
const ENGINE_PACKAGES: Readonly<Record<string, string>> = {
  "better-sqlite3": "persistence/engine/sqlite/",
  "@effect/sql-sqlite-node": "persistence/engine/sqlite/",
  pg: "persistence/engine/postgres/",
  "@effect/sql-pg": "persistence/engine/postgres/",
  "graphile-worker": "persistence/engine/postgres/",
};
const NO_SQL_LAYERS: ReadonlyArray<Layer> = ["services", "host", "cli"];
/** A statement on one of the ledger's tables, as SQL text would name it. */
const LEDGER_SQL = /\b(FROM|INTO|UPDATE|JOIN)\s+(agent_[a-z_]+|memory_turns|memory_items|run_leases)\b/;

/** What a file (`path` relative to src/, with `/`) does against the rules on engines and SQL. */
function engineViolations(path: string, text: string): string[] {
  const layer = layerOf(path);
  const found: string[] = [];
  for (const site of importsOf(path, text)) {
    const pkg = site.specifier === undefined ? undefined : packageOf(site.specifier);
    if (pkg === undefined) continue;
    const home = ENGINE_PACKAGES[pkg];
    if (home !== undefined && !path.startsWith(home)) found.push(`src/${path}:${site.line}: ${pkg} outside ${home}`);
    if (pkg === "@effect/sql" && layer !== undefined && NO_SQL_LAYERS.includes(layer)) {
      found.push(`src/${path}:${site.line}: @effect/sql in ${layer} (ledger SQL lives in persistence)`);
    }
  }
  if (!path.startsWith("persistence/")) {
    text.split("\n").forEach((line, index) => {
      if (LEDGER_SQL.test(line)) found.push(`src/${path}:${index + 1}: SQL on a ledger table outside persistence`);
    });
  }
  if (/\bonDialect(OrElse)?\b/.test(text)) found.push(`src/${path}: asks the client for its dialect`);
  return found;
}

describe("architecture: persistence owns its engines", () => {
  const files = sourceFiles(SRC)
    .sort()
    .map((file) => ({ path: relative(SRC, file).split(sep).join("/"), text: readFileSync(file, "utf8") }));

  it("drivers only in their engine folder, SQL only in persistence, no dialect sniffing", () => {
    expect(files.flatMap(({ path, text }) => engineViolations(path, text))).toEqual([]);
  });

  it("defines the CLI's default ledger once", () => {
    const definitions = files.flatMap(({ path, text }) =>
      [...text.matchAll(/\b(?:const|let|var)\s+DEFAULT_DB\b/g)].map(() => `src/${path}`),
    );
    expect(definitions).toEqual(["src/cli/dbOption.ts"]);
  });

  it("the engine checker sees each kind of violation", () => {
    const text = [
      'import Sqlite from "better-sqlite3";',
      'import { PgClient } from "@effect/sql-pg";',
      'import { SqlClient } from "@effect/sql";',
      "const rows = sql`SELECT * FROM agent_runs`;",
      "sql.onDialectOrElse({ pg: () => 1, orElse: () => 2 });",
    ].join("\n");
    expect(engineViolations("cli/example.ts", text)).toEqual([
      "src/cli/example.ts:1: better-sqlite3 outside persistence/engine/sqlite/",
      "src/cli/example.ts:2: @effect/sql-pg outside persistence/engine/postgres/",
      "src/cli/example.ts:3: @effect/sql in cli (ledger SQL lives in persistence)",
      "src/cli/example.ts:4: SQL on a ledger table outside persistence",
      "src/cli/example.ts: asks the client for its dialect",
    ]);
    expect(engineViolations("persistence/engine/sqlite/example.ts", text.split("\n").slice(0, 1).join("\n"))).toEqual(
      [],
    );
    expect(engineViolations("persistence/ledger.ts", text.split("\n").slice(0, 1).join("\n"))).toHaveLength(1);
  });
});
