/**
 * Test support for the consumer test: packs agentloop exactly as `npm publish` would, and installs
 * the tarball into a scratch host project with npm, OFFLINE, from the npm cache `npm ci` filled.
 *
 * Why it is done this way:
 *
 * - Packing. `npm pack` runs the package's `prepack` (clean + `tsc -p tsconfig.build.json`), which
 *   deletes and rebuilds dist/. Doing that in the working tree while the rest of `npm test` runs in
 *   parallel would pull dist/ away from the tests that spawn bin/agentloop.mjs. So the package is
 *   packed from a staging copy of the working tree (everything but .git, node_modules and dist/,
 *   with node_modules a symlink to the project's, so `tsc` and the type packages resolve): the
 *   same package.json, `files`, sources and lifecycle scripts, and a dist/ built from scratch.
 *
 * - Installing offline. The project's package-lock.json has no `resolved` URLs (it is written with
 *   omit-lockfile-registry-resolved), so installing `name@version` from it needs the registry's
 *   metadata (packuments), which `npm ci` does not leave in the cache. Instead the scratch project
 *   gets its own lockfile (v3) derived from the project's: the root depends on agentloop (`file:`
 *   the tarball), its peers and @types/node at the project's locked versions; every package those
 *   reach (dependencies, required peers, optional dependencies, resolved the way Node resolves
 *   them over the lockfile's `node_modules/...` paths) is copied with its version, integrity,
 *   os/cpu etc., and given the registry tarball URL as `resolved`. With `resolved` + `integrity`
 *   npm (pacote) reads each tarball from the cache by its integrity, so
 *   `npm ci --offline --ignore-scripts` needs no network. agentloop's own entry is the tarball
 *   (`file:`, sha512 integrity, its package.json's dependencies/peers/bin).
 *
 * - better-sqlite3. `--ignore-scripts` skips its node-gyp build (~80 s); the scratch project gets a
 *   copy of the project's own build/Release/better_sqlite3.node (same package version, same node).
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The agentloop working tree (this file is test/package/scratchProject.ts). */
export const PROJECT_ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** The project's TypeScript: the consumer's types are checked with exactly it. */
export const PROJECT_TSC = join(PROJECT_ROOT, "node_modules", "typescript", "bin", "tsc");

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/**
 * The environment for child processes: without what a parent `npm test` / `npx` injects about
 * *this* package (npm_package_*, npm_lifecycle_*, npm_config_local_prefix, INIT_CWD), which a child
 * npm or node must not take for the scratch project's, and without NODE_OPTIONS (plain node: no
 * loader). The user's npm config passed down as npm_config_* (cache, registry) is kept.
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_(package_|lifecycle_|command$|config_local_prefix$)/i.test(key)) continue;
    if (key === "INIT_CWD" || key === "NODE_OPTIONS") continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

/** Runs a command to its end; never rejects (the exit code and output are the result). */
export function run(
  command: string,
  args: ReadonlyArray<string>,
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<RunResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      command,
      [...args],
      {
        cwd: options.cwd,
        env: options.env ?? cleanEnv(),
        timeout: options.timeoutMs ?? 120_000,
        killSignal: "SIGKILL",
        maxBuffer: 64 * 1024 * 1024,
        encoding: "utf8",
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout, stderr, ms: Math.round(performance.now() - started) });
      },
    );
  });
}

/** The `npm` on PATH (the one that runs `npm test`). */
const npm = (args: ReadonlyArray<string>, cwd: string, timeoutMs?: number) =>
  run("npm", args, { cwd, ...(timeoutMs ? { timeoutMs } : {}) });

const describeFailure = (what: string, result: RunResult) =>
  new Error(`${what} exited ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`);

// --- Packing -------------------------------------------------------------------------------------

export interface PackedPackage {
  /** Absolute path of the .tgz. */
  readonly tarball: string;
  readonly filename: string;
  /** `sha512-…` of the tarball, as a lockfile records it. */
  readonly integrity: string;
  /** The package.json inside the tarball. */
  readonly manifest: PackageManifest;
  /** Every entry of the tarball (`tar -tzf`), e.g. `package/dist/index.js`. */
  readonly entries: ReadonlyArray<string>;
  readonly packMs: number;
}

export interface PackageManifest {
  readonly name: string;
  readonly version: string;
  readonly license?: string;
  readonly bin?: Record<string, string>;
  readonly engines?: Record<string, string>;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
}

/** Not copied to the staging tree: git, installs, the build (rebuilt by prepack), and local run output outside `files`. */
const STAGING_SKIP = new Set([".git", "node_modules", "dist", "scratch", "agentloop-report", "coverage"]);

/**
 * `npm pack` of the working tree, from a staging copy under `workDir` (see the file comment), with
 * the tarball written to `workDir/pack`.
 */
export async function packProject(workDir: string): Promise<PackedPackage> {
  const stage = join(workDir, "stage");
  const out = join(workDir, "pack");
  mkdirSync(stage, { recursive: true });
  mkdirSync(out, { recursive: true });
  for (const entry of readdirSync(PROJECT_ROOT)) {
    if (STAGING_SKIP.has(entry)) continue;
    cpSync(join(PROJECT_ROOT, entry), join(stage, entry), {
      recursive: true,
      // nested installs (bench/peers/node_modules) are not part of the package
      filter: (source) => basename(source) !== "node_modules",
    });
  }
  symlinkSync(join(PROJECT_ROOT, "node_modules"), join(stage, "node_modules"), "dir");

  const packed = await npm(["pack", "--pack-destination", out, "--json"], stage, 240_000);
  if (packed.code !== 0) throw describeFailure("npm pack", packed);
  const report = JSON.parse(packed.stdout.slice(Math.max(0, packed.stdout.search(/^\[/m)))) as Array<{
    filename: string;
  }>;
  const filename = report[0]?.filename;
  if (!filename) throw describeFailure("npm pack (no filename in its report)", packed);
  const tarball = join(out, filename);

  const listed = await run("tar", ["-tzf", tarball], { cwd: out });
  if (listed.code !== 0) throw describeFailure("tar -tzf", listed);
  const manifestText = await run("tar", ["-xzOf", tarball, "package/package.json"], { cwd: out });
  if (manifestText.code !== 0) throw describeFailure("tar -xzOf package/package.json", manifestText);

  return {
    tarball,
    filename,
    integrity: `sha512-${createHash("sha512").update(readFileSync(tarball)).digest("base64")}`,
    manifest: JSON.parse(manifestText.stdout) as PackageManifest,
    entries: listed.stdout.split("\n").filter((line) => line.length > 0),
    packMs: packed.ms,
  };
}

// --- The scratch project's lockfile --------------------------------------------------------------

interface LockEntry {
  readonly name?: string;
  readonly version?: string;
  readonly resolved?: string;
  readonly integrity?: string;
  readonly link?: boolean;
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  readonly [field: string]: unknown;
}

interface Lockfile {
  readonly name?: string;
  readonly lockfileVersion: number;
  readonly packages: Record<string, LockEntry>;
}

const REGISTRY = "https://registry.npmjs.org/";

/** The package name at a lockfile path: `node_modules/a/node_modules/@s/b` → `@s/b`. */
const nameAtPath = (location: string) => location.slice(location.lastIndexOf("node_modules/") + "node_modules/".length);

/** Where `name`, required from the package at `from` ("" is the root), is found: nested first, then up. */
function resolveLocation(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = base ? `${base}/node_modules/${name}` : `node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!base) return undefined;
    const up = base.lastIndexOf("/node_modules/");
    base = up === -1 ? "" : base.slice(0, up);
  }
}

/** The registry tarball of a lockfile entry (what a lockfile without omit-…-resolved records). */
function registryTarball(location: string, entry: LockEntry): string {
  const name = entry.name ?? nameAtPath(location);
  return `${REGISTRY}${name}/-/${name.slice(name.lastIndexOf("/") + 1)}-${entry.version}.tgz`;
}

/** Copies what the scratch lockfile needs of a project entry: all but the project's dev/peer flags. */
function copyEntry(location: string, entry: LockEntry): LockEntry {
  const { dev: _dev, devOptional: _devOptional, peer: _peer, ...rest } = entry;
  if (rest.link) throw new Error(`${location} is a link in the project's lockfile; a consumer cannot install it`);
  return { ...rest, resolved: rest.resolved ?? registryTarball(location, entry) };
}

export interface ScratchLockInput {
  readonly projectLock: Lockfile;
  readonly packed: PackedPackage;
  /** The scratch package.json's name. */
  readonly name: string;
  /** The root's other dependencies by name; each gets the version the project's lockfile has at node_modules/<name>. */
  readonly extraRoots: ReadonlyArray<string>;
}

/**
 * The scratch project's package.json dependencies and its package-lock.json (v3): agentloop from
 * the tarball, every other package exactly as the project's lockfile has it.
 */
export function scratchLockfile(input: ScratchLockInput): {
  dependencies: Record<string, string>;
  lockfile: Lockfile;
} {
  const { projectLock, packed } = input;
  const source = projectLock.packages;
  const manifest = packed.manifest;
  const dependencies: Record<string, string> = { [manifest.name]: `file:${packed.filename}` };
  const roots = [...Object.keys(manifest.peerDependencies ?? {}), ...input.extraRoots];
  for (const name of roots) {
    const version = source[`node_modules/${name}`]?.version;
    if (!version) throw new Error(`the project's package-lock.json has no node_modules/${name}`);
    dependencies[name] = version;
  }

  const agentloopLocation = `node_modules/${manifest.name}`;
  const packages: Record<string, LockEntry> = {
    "": { name: input.name, dependencies },
    [agentloopLocation]: {
      version: manifest.version,
      resolved: `file:${packed.filename}`,
      integrity: packed.integrity,
      ...(manifest.license ? { license: manifest.license } : {}),
      ...(manifest.dependencies ? { dependencies: manifest.dependencies } : {}),
      ...(manifest.optionalDependencies ? { optionalDependencies: manifest.optionalDependencies } : {}),
      ...(manifest.bin ? { bin: manifest.bin } : {}),
      ...(manifest.engines ? { engines: manifest.engines } : {}),
      ...(manifest.peerDependencies ? { peerDependencies: manifest.peerDependencies } : {}),
    },
  };

  // Breadth-first over [the requiring location, the required name, whether it may be missing].
  const queue: Array<[from: string, name: string, optional: boolean]> = [];
  const require = (from: string, entry: LockEntry) => {
    for (const name of Object.keys(entry.dependencies ?? {})) queue.push([from, name, false]);
    for (const name of Object.keys(entry.optionalDependencies ?? {})) queue.push([from, name, true]);
    for (const name of Object.keys(entry.peerDependencies ?? {})) {
      // npm installs required peers only; an optional one is used when something else brought it
      if (!entry.peerDependenciesMeta?.[name]?.optional) queue.push([from, name, false]);
    }
  };
  for (const name of roots) queue.push(["", name, false]);
  require(agentloopLocation, packages[agentloopLocation] as LockEntry);

  for (let next = queue.shift(); next; next = queue.shift()) {
    const [from, name, optional] = next;
    if (from === "" && name === manifest.name) continue;
    const location = resolveLocation(source, from, name);
    if (!location) {
      if (optional) continue;
      throw new Error(`the project's package-lock.json cannot satisfy ${name} (required from ${from || "the root"})`);
    }
    if (packages[location]) continue;
    const entry = source[location] as LockEntry;
    packages[location] = copyEntry(location, entry);
    require(location, entry);
  }

  // agentloop's exact-pinned dependencies must be what the project locked (else npm would resolve online).
  for (const [name, range] of Object.entries({ ...manifest.dependencies, ...manifest.peerDependencies })) {
    const locked = packages[`node_modules/${name}`]?.version;
    if (/^\d+\.\d+\.\d+$/.test(range) && locked !== range) {
      throw new Error(`agentloop pins ${name}@${range} but the project's package-lock.json has ${locked ?? "none"}`);
    }
  }

  const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { dependencies, lockfile: { name: input.name, lockfileVersion: 3, packages: sorted } };
}

// --- The scratch project -------------------------------------------------------------------------

export interface ScratchProject {
  readonly dir: string;
  readonly packed: PackedPackage;
  readonly installMs: number;
  /** Runs `node <args>` (this node, no loader) in the scratch project. */
  readonly node: (args: ReadonlyArray<string>, timeoutMs?: number) => Promise<RunResult>;
}

/**
 * What the hosts need besides agentloop and its peers: the types of the TypeScript host, and the
 * `ai` package whose reader reads the UI Message Stream (a dev dependency of the project).
 */
const TYPE_ROOTS = ["@types/node", "ai"];

/**
 * Packs agentloop and installs it offline into `workDir/host` (a host project: package.json,
 * package-lock.json, node_modules), with the project's better-sqlite3 build copied in.
 */
export async function createScratchProject(workDir: string): Promise<ScratchProject> {
  const packed = await packProject(workDir);
  const dir = join(workDir, "host");
  mkdirSync(dir, { recursive: true });
  cpSync(packed.tarball, join(dir, packed.filename));

  const name = "agentloop-consumer";
  const projectLock = JSON.parse(readFileSync(join(PROJECT_ROOT, "package-lock.json"), "utf8")) as Lockfile;
  const { dependencies, lockfile } = scratchLockfile({ projectLock, packed, name, extraRoots: TYPE_ROOTS });
  const manifest = { name, version: "0.0.0", private: true, type: "module", dependencies };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(dir, "package-lock.json"), `${JSON.stringify(lockfile, null, 2)}\n`);
  // No npmrc of the working tree applies here; the user's (cache location) does.
  const installed = await npm(
    ["ci", "--offline", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
    dir,
    180_000,
  );
  if (installed.code !== 0) throw describeFailure("npm ci --offline in the scratch project", installed);

  const release = join("node_modules", "better-sqlite3", "build", "Release");
  const addon = join(PROJECT_ROOT, release, "better_sqlite3.node");
  if (!existsSync(addon)) throw new Error(`the project has no ${addon}: run npm ci (it builds better-sqlite3)`);
  const versionIn = (root: string) =>
    (JSON.parse(readFileSync(join(root, "node_modules", "better-sqlite3", "package.json"), "utf8")) as PackageManifest)
      .version;
  if (versionIn(PROJECT_ROOT) !== versionIn(dir)) {
    throw new Error(
      `better-sqlite3 ${versionIn(dir)} in the host, ${versionIn(PROJECT_ROOT)} in the project: the build does not fit`,
    );
  }
  mkdirSync(join(dir, release), { recursive: true });
  cpSync(addon, join(dir, release, "better_sqlite3.node"));

  return {
    dir,
    packed,
    installMs: installed.ms,
    node: (args, timeoutMs) => run(process.execPath, args, { cwd: dir, ...(timeoutMs ? { timeoutMs } : {}) }),
  };
}
