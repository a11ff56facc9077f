import { lstatSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processStartTime, sameProcess } from "../../services/processes/procfs.js";

/**
 * Where an evaluation's case workspaces live: one directory per process,
 * `$TMPDIR/agentloop-eval-<pid>-<start time>/`, removed when the process exits. A process that is
 * killed cannot remove it, so the next evaluation removes every such directory whose owner is gone:
 * its pid is not running, or runs a process that started at another time (a reused pid). Where
 * there is no /proc the start time is unknown (`0`) and only the pid is checked.
 */

const NAME = /^agentloop-eval-(\d+)-(\d+)$/;

const roots = new Set<string>();

/** The name of this process's directory. */
export const ownScratchName = (): string => `agentloop-eval-${process.pid}-${processStartTime("self") ?? "0"}`;

/**
 * Removes the evaluation directories in `base` whose owner is gone; the paths removed. Only
 * directories this user owns are touched (never a symlink or another user's entry in a shared TMPDIR).
 */
export function sweepAbandonedScratch(base: string = tmpdir()): string[] {
  let entries: string[];
  try {
    entries = readdirSync(base);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const entry of entries) {
    const match = NAME.exec(entry);
    if (!match) continue;
    const pid = Number(match[1]);
    const startTime = match[2] === "0" ? null : match[2]!;
    if (sameProcess(pid, startTime)) continue;
    const path = join(base, entry);
    try {
      const stat = lstatSync(path);
      if (!stat.isDirectory() || (process.getuid && stat.uid !== process.getuid())) continue;
      rmSync(path, { recursive: true, force: true });
      removed.push(path);
    } catch {
      // Removed by someone else meanwhile, or not ours to remove.
    }
  }
  return removed;
}

/**
 * This process's evaluation directory, created (after sweeping abandoned ones) on first use and
 * removed when the process exits.
 */
export function evalScratchRoot(base: string = tmpdir()): string {
  const root = join(base, ownScratchName());
  if (roots.has(root)) return root;
  sweepAbandonedScratch(base);
  mkdirSync(root, { recursive: true, mode: 0o700 });
  if (roots.size === 0) {
    process.once("exit", () => {
      for (const created of roots) rmSync(created, { recursive: true, force: true });
    });
  }
  roots.add(root);
  return root;
}
