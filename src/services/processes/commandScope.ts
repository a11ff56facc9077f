import { randomUUID } from "node:crypto";
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { environmentHolds, hasProcfs, listProcesses, type ProcessStat, pidExists } from "./procfs.js";

/**
 * Every process one command started, whatever it did to leave its process group (`setsid`, a
 * double fork, `setpgid`), so that ending the call ends all of them.
 *
 * - `cgroup`: the command runs in a cgroup v2 leaf of its own under this process's cgroup (where
 *   this user may create one: root, or a delegated systemd unit). Nothing the command forks can
 *   leave it; ending writes `cgroup.kill` (or freezes and kills each member on kernels before 5.14).
 * - `marker`: Linux without such a cgroup. The command's environment carries a random marker
 *   ({@link SCOPE_ENV}); ending kills the process group, every process of this user whose
 *   environment holds the marker, and every descendant of those still linked by parent pid — in
 *   rounds until a scan of /proc finds none left. A process that both leaves the group and starts
 *   itself with a scrubbed environment (`env -i`) after its parent died escapes this.
 * - `group`: no /proc (macOS, the BSDs): the process group only; a child that calls `setsid`
 *   escapes it.
 */

export type Containment = "cgroup" | "marker" | "group";

/** The environment variable that marks every process of one command (inherited by its children). */
export const SCOPE_ENV = "AGENTLOOP_COMMAND_SCOPE";

/** Scans of /proc per ending at most: each round kills what the previous one found forking. */
const MAX_ROUNDS = 20;

interface CgroupSite {
  /** The cgroup v2 directory of this process, where per-command leaves are created. */
  readonly parent: string;
}

let cgroupSite: CgroupSite | null | undefined;

/** This process's cgroup v2 directory when this user may create leaves in it and move processes there. */
export function cgroupParent(): string | undefined {
  if (cgroupSite === undefined) cgroupSite = findCgroupSite();
  return cgroupSite?.parent;
}

function findCgroupSite(): CgroupSite | null {
  try {
    const own = readFileSync("/proc/self/cgroup", "utf8")
      .split("\n")
      .find((line) => line.startsWith("0::"))
      ?.slice(3);
    if (!own) return null;
    // mountinfo: id parent major:minor root mount-point options … - fstype source super-options
    const mount = readFileSync("/proc/self/mountinfo", "utf8")
      .split("\n")
      .map((line) => line.split(" "))
      .find((fields) => fields[fields.indexOf("-") + 1] === "cgroup2");
    const root = mount?.[3];
    const point = mount?.[4];
    if (!root || !point || !own.startsWith(root)) return null;
    const parent = join(point, own.slice(root.length));
    accessSync(join(parent, "cgroup.procs"), constants.W_OK);
    const probe = join(parent, `agentloop-probe-${process.pid}-${randomUUID().slice(0, 8)}`);
    mkdirSync(probe);
    rmdirSync(probe);
    // Leaves of processes that are gone (one that exited before its last leaf emptied, or was
    // killed): removed when empty — rmdir refuses a leaf that still holds a process.
    for (const entry of readdirSync(parent)) {
      const owner = /^agentloop-(\d+)-/.exec(entry);
      if (owner && !pidExists(Number(owner[1]))) removeCgroupLeaf(join(parent, entry));
    }
    return { parent };
  } catch {
    return null;
  }
}

/** What this host offers, best first: `auto` picks it. */
export function availableContainment(): Containment {
  if (cgroupParent()) return "cgroup";
  return hasProcfs() ? "marker" : "group";
}

export interface CommandScope {
  /** The value of {@link SCOPE_ENV} in the command's environment. */
  readonly marker: string;
  readonly containment: Containment;
  /** The cgroup leaf, once the command's first process is in it. */
  readonly cgroup: string | undefined;
  /**
   * Puts the command's first process (still waiting to exec the program) into the cgroup leaf and
   * notes its process group. Where the leaf cannot take it the scope falls back to `marker`.
   */
  attach(pid: number): void;
  /** Signals SIGKILL to every process of the command still running; the pids signalled. */
  end(): number[];
  /** Ends what is left and removes the cgroup leaf (once its last process has exited). */
  release(): void;
}

const scopes = new Set<CommandScope>();
let exitHookInstalled = false;

/** A process that exits (a second Ctrl-C, `process.exit`) ends every command it still runs. */
function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const scope of scopes) scope.end();
  });
}

export function openCommandScope(requested: Containment | "auto" = "auto"): CommandScope {
  installExitHook();
  const best = availableContainment();
  // A mode the host does not offer degrades to the next one down.
  const order: Containment[] = ["cgroup", "marker", "group"];
  let containment = order[Math.max(order.indexOf(best), order.indexOf(requested === "auto" ? best : requested))]!;
  const marker = `call-${randomUUID()}`;
  const markerEntry = Buffer.from(`${SCOPE_ENV}=${marker}`);
  let leaf: string | undefined;
  let pgid: number | undefined;
  const signalled = new Set<number>();
  let ended = false;

  const kill = (pid: number) => {
    try {
      process.kill(pid, "SIGKILL");
      signalled.add(pid);
      return true;
    } catch {
      return false;
    }
  };

  const endCgroup = (cgroup: string): number[] => {
    const members = cgroupMembers(cgroup);
    if (members.length === 0) return [];
    if (existsSync(join(cgroup, "cgroup.kill"))) {
      try {
        writeFileSync(join(cgroup, "cgroup.kill"), "1");
        for (const pid of members) signalled.add(pid);
        return members;
      } catch {
        // Fall through to killing the members one by one.
      }
    }
    return killFrozen(cgroup, kill);
  };

  const endMarked = (): number[] => {
    const killed: number[] = [];
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const found = markedProcesses(listProcesses(), pgid, markerEntry).filter((pid) => !signalled.has(pid));
      if (found.length === 0) break;
      for (const pid of found) if (kill(pid)) killed.push(pid);
    }
    return killed;
  };

  const scope: CommandScope = {
    marker,
    get containment() {
      return containment;
    },
    get cgroup() {
      return leaf;
    },
    attach(pid) {
      pgid = pid;
      if (containment !== "cgroup") return;
      const parent = cgroupParent()!;
      const candidate = join(parent, `agentloop-${process.pid}-${marker.slice(5, 17)}`);
      try {
        mkdirSync(candidate);
        writeFileSync(join(candidate, "cgroup.procs"), String(pid));
        leaf = candidate;
      } catch {
        try {
          rmdirSync(candidate);
        } catch {
          // Never created.
        }
        containment = "marker";
      }
    },
    end() {
      // One ending leaves nothing it can track alive (each round kills what the last one found
      // forking), so later calls — the program's exit after a timeout, the release — have nothing to do.
      if (ended) return [];
      ended = true;
      const killed: number[] = [];
      if (pgid !== undefined) {
        try {
          process.kill(-pgid, "SIGKILL");
        } catch {
          // The group is gone already.
        }
      }
      if (leaf) killed.push(...endCgroup(leaf));
      if (containment !== "group") killed.push(...endMarked());
      return killed;
    },
    release() {
      scope.end();
      scopes.delete(scope);
      if (leaf) removeLeafWhenEmpty(leaf);
    },
  };
  scopes.add(scope);
  return scope;
}

/** The pids in a cgroup (empty when it is gone). */
export function cgroupMembers(cgroup: string): number[] {
  try {
    return readFileSync(join(cgroup, "cgroup.procs"), "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map(Number);
  } catch {
    return [];
  }
}

/** Kernels before 5.14 have no cgroup.kill: freeze the leaf so nothing forks, kill each member, thaw. */
function killFrozen(cgroup: string, kill: (pid: number) => boolean): number[] {
  const freeze = join(cgroup, "cgroup.freeze");
  const canFreeze = existsSync(freeze);
  const killed: number[] = [];
  try {
    if (canFreeze) writeFileSync(freeze, "1");
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const members = cgroupMembers(cgroup).filter((pid) => !killed.includes(pid));
      if (members.length === 0) break;
      for (const pid of members) if (kill(pid)) killed.push(pid);
    }
  } finally {
    if (canFreeze) {
      try {
        writeFileSync(freeze, "0");
      } catch {
        // The leaf is gone.
      }
    }
  }
  return killed;
}

/**
 * The processes of one command among `all`: the members of its process group, the holders of its
 * marker, and every descendant of those that /proc still links by parent pid. Zombies are left out
 * (they run nothing; their parent or init reaps them).
 */
export function markedProcesses(
  all: ReadonlyArray<ProcessStat>,
  pgid: number | undefined,
  markerEntry: Buffer,
): number[] {
  const live = all.filter((stat) => stat.state !== "Z" && stat.pid !== 1);
  const found = new Set<number>();
  for (const stat of live) {
    if ((pgid !== undefined && stat.pgrp === pgid) || environmentHolds(stat.pid, markerEntry)) found.add(stat.pid);
  }
  let grew = found.size > 0;
  while (grew) {
    grew = false;
    for (const stat of live) {
      if (!found.has(stat.pid) && found.has(stat.ppid)) {
        found.add(stat.pid);
        grew = true;
      }
    }
  }
  return [...found];
}

/**
 * Removes a cgroup leaf: true once it is gone, false while a member has not exited yet (EBUSY).
 * Anything else (no such leaf, no right to remove it) counts as gone: there is nothing to retry.
 */
export function removeCgroupLeaf(leaf: string): boolean {
  try {
    rmdirSync(leaf);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "EBUSY";
  }
}

/** A killed process leaves its cgroup when it has exited: try to remove the leaf a few times. */
function removeLeafWhenEmpty(leaf: string, attempt = 0) {
  if (removeCgroupLeaf(leaf) || attempt >= 40) return;
  setTimeout(() => removeLeafWhenEmpty(leaf, attempt + 1), 25 * (attempt + 1)).unref();
}

/**
 * Ends the processes a recorded command left: its cgroup leaf, its marker and (while its leader is
 * the same process) its group. For recovery, which removes the leaf once it is empty.
 */
export function endRecordedCommand(record: {
  readonly pgid: number;
  readonly marker: string;
  readonly cgroup: string | null;
  readonly groupIsSame: boolean;
}): number[] {
  const markerEntry = Buffer.from(`${SCOPE_ENV}=${record.marker}`);
  const signalled = new Set<number>();
  const kill = (pid: number) => {
    try {
      process.kill(pid, "SIGKILL");
      signalled.add(pid);
      return true;
    } catch {
      return false;
    }
  };
  if (record.cgroup && existsSync(record.cgroup)) {
    const members = cgroupMembers(record.cgroup);
    if (members.length > 0 && existsSync(join(record.cgroup, "cgroup.kill"))) {
      try {
        writeFileSync(join(record.cgroup, "cgroup.kill"), "1");
        for (const pid of members) signalled.add(pid);
      } catch {
        killFrozen(record.cgroup, kill);
      }
    } else if (members.length > 0) {
      killFrozen(record.cgroup, kill);
    }
  }
  if (hasProcfs()) {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const found = markedProcesses(listProcesses(), record.groupIsSame ? record.pgid : undefined, markerEntry).filter(
        (pid) => !signalled.has(pid),
      );
      if (found.length === 0) break;
      for (const pid of found) kill(pid);
    }
  }
  if (record.groupIsSame) {
    // Without /proc the group is all there is to end; with it, whatever joined it meanwhile.
    try {
      process.kill(-record.pgid, "SIGKILL");
      signalled.add(record.pgid);
    } catch {
      // Gone already.
    }
  }
  return [...signalled];
}
