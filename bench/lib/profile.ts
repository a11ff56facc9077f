/**
 * `--cpu-prof`: a V8 CPU profile of the measured part of one benchmark (module loading excluded),
 * with TypeScript positions restored through the loader's source maps, plus a hot-spot summary
 * (self and inclusive time by function, file:line) next to it.
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { findSourceMap } from "node:module";
import { join } from "node:path";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const ROOT_URL = new URL("../../", import.meta.url).href;

/** Rewrites generated positions of transpiled files to their TypeScript sources. */
function restoreSourcePositions(profile: Profile): void {
  for (const node of profile.nodes) {
    const frame = node.callFrame;
    if (!frame.url.startsWith("file://") || frame.lineNumber < 0) continue;
    const map = findSourceMap(frame.url);
    const entry = map?.findEntry(frame.lineNumber, frame.columnNumber);
    if (entry && "originalSource" in entry && entry.originalSource) {
      frame.url = entry.originalSource;
      frame.lineNumber = entry.originalLine;
      frame.columnNumber = entry.originalColumn;
    }
  }
}

const where = (frame: CallFrame) =>
  `${frame.functionName || "(anonymous)"} ${frame.url.replace(ROOT_URL, "").replace(/^file:\/\//, "") || "(native)"}:${frame.lineNumber + 1}`;

const packageOf = (frame: CallFrame) => {
  const url = frame.url.replace(ROOT_URL, "");
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (match) return `npm:${match[1]}`;
  if (url.startsWith("src/") || url.startsWith("bench/")) return url;
  return url.startsWith("node:") ? "node internals" : frame.functionName || "(native)";
};

/** Self and inclusive time per function, and self time per package / source file. */
export function hotSpots(profile: Profile, top = 40): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const timeOf = new Map<number, number>();
  profile.samples.forEach((id, index) => {
    timeOf.set(id, (timeOf.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const packages = new Map<string, number>();
  const charged = new Map<string, number>();
  /**
   * Native and Node-internal frames charged to the nearest caller in a package, src/ or bench/:
   * better-sqlite3's `Statement.run` (SQLite itself) under @effect/sql-sqlite-node, a hash under
   * fingerprint.ts. GC and the VM's own entries stay as they are.
   */
  const chargedPackageOf = (id: number): string => {
    const frame = byId.get(id)!.callFrame;
    const own = packageOf(frame);
    if (frame.functionName.startsWith("(") && frame.url === "") return own;
    if (frame.url !== "" && !frame.url.startsWith("node:")) return own;
    for (let current = parent.get(id); current !== undefined; current = parent.get(current)) {
      const caller = byId.get(current)!.callFrame;
      if (caller.url !== "" && !caller.url.startsWith("node:"))
        return `${packageOf(caller)} (native/node code it called)`;
    }
    return own;
  };
  let total = 0;
  // Samples taken while the profiler itself is stopped and serialised are no part of the workload.
  const isProfilerFrame = (frame: CallFrame) => frame.url === "node:inspector" && frame.functionName === "post";
  const underProfiler = (id: number) => {
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      if (isProfilerFrame(byId.get(current)!.callFrame)) return true;
    }
    return false;
  };
  for (const [id, time] of timeOf) {
    const node = byId.get(id)!;
    if (underProfiler(id)) continue;
    total += time;
    self.set(where(node.callFrame), (self.get(where(node.callFrame)) ?? 0) + time);
    packages.set(packageOf(node.callFrame), (packages.get(packageOf(node.callFrame)) ?? 0) + time);
    const bucket = chargedPackageOf(id);
    charged.set(bucket, (charged.get(bucket) ?? 0) + time);
    const seen = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const key = where(byId.get(current)!.callFrame);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + time);
    }
  }
  const section = (title: string, map: Map<string, number>, filter: (key: string) => boolean = () => true) =>
    [
      `== ${title}`,
      ...[...map]
        .filter(([key]) => filter(key))
        .sort((a, b) => b[1] - a[1])
        .slice(0, top)
        .map(
          ([key, time]) =>
            `${((100 * time) / total).toFixed(1).padStart(5)}%  ${(time / 1000).toFixed(0).padStart(7)} ms  ${key}`,
        ),
    ].join("\n");
  return [
    `total sampled: ${(total / 1000).toFixed(0)} ms`,
    section("self time by package / source file", packages),
    section("self time by package / source file, native and node: frames charged to their caller", charged),
    section("self time by function", self),
    section("inclusive time, project functions (src/, bench/)", inclusive, (key) => / (src|bench)\//.test(key)),
    section("inclusive time, all functions", inclusive),
  ].join("\n\n");
}

/** Runs `fn` under the V8 sampling profiler; writes `<dir>/<name>.cpuprofile` and `<name>.hotspots.txt`. */
export async function withCpuProfile<A>(dir: string, name: string, fn: () => Promise<A>): Promise<A> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 200 });
  await session.post("Profiler.start");
  try {
    return await fn();
  } finally {
    const { profile } = (await session.post("Profiler.stop")) as unknown as { profile: Profile };
    session.disconnect();
    restoreSourcePositions(profile);
    writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    writeFileSync(join(dir, `${name}.hotspots.txt`), `${hotSpots(profile)}\n`);
  }
}
