import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { it } from "@effect/vitest";
import { Effect } from "effect";
import { afterEach, describe, expect } from "vitest";
import { AgentRunStore } from "../../../src/persistence/AgentRunStore.js";
import { thisHost } from "../../../src/persistence/runOwners.js";
import { SCOPE_ENV } from "../../../src/services/processes/commandScope.js";
import { endStrayToolProcesses } from "../../../src/services/processes/processLedger.js";
import { bootId, listProcesses, processStartTime, readStat } from "../../../src/services/processes/procfs.js";
import { closure, newRun, toolCall, userInput, useTempDir, withLedger } from "../../support/tempDir.js";

/**
 * Recovery of tool processes: a group recorded in the ledger whose run ended is ended when it is
 * still the same process (its start time matches) or still carries the call's marker, and left
 * alone when its pid now names another process.
 */

const tmp = useTempDir("agentloop-strays-");
const children: ChildProcess[] = [];
afterEach(() => {
  // The whole group: the shell's background sleep too.
  for (const child of children.splice(0)) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {
      // Ended by the test.
    }
  }
});

/** Running and not a zombie. */
const running = (pid: number) => {
  const stat = readStat(pid);
  return stat !== undefined && stat.state !== "Z";
};

const until = (probe: () => boolean) =>
  Effect.promise(async () => {
    for (let attempt = 0; attempt < 400 && !probe(); attempt++) await new Promise((r) => setTimeout(r, 25));
    return probe();
  });

/** A detached shell (a group and session of its own) with a background child, marked like a command. */
function startGroup(marker: string, script = "sleep 300 & wait"): ChildProcess {
  const child = spawn("/bin/sh", ["-c", script], {
    detached: true,
    stdio: "ignore",
    env: { PATH: process.env.PATH ?? "", [SCOPE_ENV]: marker },
  });
  children.push(child);
  return child;
}

const seedEndedRun = (marker: string, pgid: number, startTime: string | null) =>
  Effect.gen(function* () {
    const store = yield* AgentRunStore;
    yield* store.createRun(newRun("r1"), [userInput(1), toolCall(2, "c1")]);
    yield* store.recordToolProcess({
      runId: "r1",
      callId: "c1",
      host: thisHost(),
      pgid,
      startTime,
      bootId: bootId() ?? null,
      marker,
      cgroup: null,
      recordedAt: new Date().toISOString(),
    });
    yield* store.finishRun("r1", closure(3, "failed", "interrupted"));
  });

describe("ending the tool processes a dead process left running", () => {
  it.effect("ends a recorded group that is still the same process and marks its row", () =>
    Effect.gen(function* () {
      const child = startGroup("call-same");
      const pid = child.pid!;
      expect(yield* until(() => processStartTime(pid) !== undefined)).toBe(true);
      yield* seedEndedRun("call-same", pid, processStartTime(pid)!);
      const ended = yield* endStrayToolProcesses();
      expect(ended).toEqual([expect.objectContaining({ runId: "r1", callId: "c1", pgid: pid, outcome: "ended" })]);
      expect(yield* until(() => !running(pid))).toBe(true);
      const again = yield* Effect.flatMap(AgentRunStore, (store) => store.findStrayToolProcesses(thisHost()));
      expect(again).toEqual([]);
    }).pipe(withLedger({ filename: tmp.path("ledger.db") })),
  );

  it.effect("leaves a pid alone that now belongs to another process (its start time differs)", () =>
    Effect.gen(function* () {
      const other = startGroup("call-someone-else");
      const pid = other.pid!;
      expect(yield* until(() => processStartTime(pid) !== undefined)).toBe(true);
      const earlier = String(Number(processStartTime(pid)) - 1);
      yield* seedEndedRun("call-recorded", pid, earlier);
      const ended = yield* endStrayToolProcesses();
      expect(ended).toEqual([expect.objectContaining({ pgid: pid, outcome: "not_same_process", signalled: 0 })]);
      expect(running(pid)).toBe(true);
    }).pipe(withLedger({ filename: tmp.path("ledger.db") })),
  );

  it.effect("ends a process of the call that left its group, by the call's marker, after the leader is gone", () =>
    Effect.gen(function* () {
      const leader = startGroup("call-escaped", "setsid sleep 300 & echo started; exit 0");
      const pgid = leader.pid!;
      const startTime = yield* until(() => processStartTime(pgid) !== undefined).pipe(
        Effect.map(() => processStartTime(pgid) ?? null),
      );
      // The escaped sleep: a session of its own, found by its environment.
      const escaped = yield* Effect.promise(async () => {
        for (let attempt = 0; attempt < 400; attempt++) {
          const found = listProcesses().find(
            (stat) => stat.session === stat.pid && stat.pid !== pgid && stat.ppid !== 0 && isSleepMarked(stat.pid),
          );
          if (found) return found.pid;
          await new Promise((r) => setTimeout(r, 25));
        }
        throw new Error("the escaped process never appeared");
      });
      yield* seedEndedRun("call-escaped", pgid, startTime);
      const ended = yield* endStrayToolProcesses();
      expect(ended).toEqual([expect.objectContaining({ outcome: "ended" })]);
      expect(yield* until(() => !running(escaped))).toBe(true);
    }).pipe(withLedger({ filename: tmp.path("ledger.db") })),
  );
});

function isSleepMarked(pid: number): boolean {
  try {
    return (
      readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith("sleep") &&
      readFileSync(`/proc/${pid}/environ`, "utf8").includes(`${SCOPE_ENV}=call-escaped`)
    );
  } catch {
    return false;
  }
}
