import { readdirSync, readFileSync } from "node:fs";

/**
 * What Linux's /proc says about processes: their parent, process group, session, state and start
 * time. A pid alone does not name a process for long (pids are reused); a pid with its start time
 * (clock ticks since boot, field 22 of /proc/<pid>/stat) and the boot's id does. Elsewhere (no
 * /proc) every reader answers undefined and callers fall back to what POSIX gives.
 */

export interface ProcessStat {
  readonly pid: number;
  readonly ppid: number;
  readonly pgrp: number;
  readonly session: number;
  /** One letter: R, S, D, Z (zombie: it runs nothing, its parent has not reaped it yet), T … */
  readonly state: string;
  /** Clock ticks after boot at which the process started, as text (it may exceed 2^53 in theory). */
  readonly startTime: string;
}

/** Whether this host has a Linux /proc to read. */
export const hasProcfs = (): boolean => {
  try {
    readFileSync("/proc/self/stat");
    return true;
  } catch {
    return false;
  }
};

/** Parses a /proc/<pid>/stat line; the command name in parentheses may itself hold spaces and ')'. */
export function parseStat(line: string): ProcessStat | undefined {
  const close = line.lastIndexOf(")");
  const pid = Number.parseInt(line, 10);
  if (close < 0 || !Number.isInteger(pid)) return undefined;
  const fields = line.slice(close + 2).split(" ");
  const [state, ppid, pgrp, session] = fields;
  const startTime = fields[19];
  if (state === undefined || startTime === undefined || !/^\d+$/.test(startTime)) return undefined;
  return { pid, ppid: Number(ppid), pgrp: Number(pgrp), session: Number(session), state, startTime };
}

export function readStat(pid: number | "self"): ProcessStat | undefined {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}

/** The start time of a process (see {@link ProcessStat.startTime}), or undefined when it is gone or unknown. */
export const processStartTime = (pid: number | "self"): string | undefined => readStat(pid)?.startTime;

/** This boot's id: start times count from boot, so they name a process only within one boot. */
export function bootId(): string | undefined {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    return undefined;
  }
}

/** Every process /proc lists now (not this one), with its stat; zombies included. */
export function listProcesses(): ProcessStat[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const stats: ProcessStat[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const stat = readStat(pid);
    if (stat) stats.push(stat);
  }
  return stats;
}

/**
 * Whether a process's environment holds `NAME=value` exactly. A process reads only its own
 * user's environments (others answer false): the marker is set by this user's processes.
 */
export function environmentHolds(pid: number, entry: Buffer): boolean {
  try {
    const environ = readFileSync(`/proc/${pid}/environ`);
    let at = environ.indexOf(entry);
    while (at >= 0) {
      const startsEntry = at === 0 || environ[at - 1] === 0;
      const endsEntry = at + entry.length === environ.length || environ[at + entry.length] === 0;
      if (startsEntry && endsEntry) return true;
      at = environ.indexOf(entry, at + 1);
    }
    return false;
  } catch {
    return false;
  }
}

/**
 * Whether `pid` is still the process that started at `startTime` (in this boot). Where /proc is
 * missing the start time cannot be checked: only whether the pid exists.
 */
export function sameProcess(pid: number, startTime: string | null | undefined): boolean {
  if (!hasProcfs()) return pidExists(pid);
  const stat = readStat(pid);
  return stat !== undefined && stat.state !== "Z" && (startTime == null || stat.startTime === startTime);
}

/** Signal 0 checks existence only; EPERM means the process exists but belongs to someone else. */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
