import type * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import * as FiberMap from "effect/FiberMap";
import type * as ManagedRuntime from "effect/ManagedRuntime";
import { type ActorOptions, createActor, fromCallback, type InputFrom } from "xstate";
import type { RunCommand } from "../domain/index.js";
import { runMachine } from "../machines/run/machine.js";
import type { AgentRunStore } from "../persistence/AgentRunStore.js";
import type { RunObserver } from "../services/observability/tracing.js";
import { type CommandHandlers, type CommandIO, fiberKeyOf } from "./commandHandlers.js";

/**
 * The one bridge between the run machine and Effect: the run's I/O actor. Each command the
 * machine (or its tool batch) sends is handed to its handler and forked inside one span, and the
 * handler's answer goes back to whoever asked — the batch for a command that names `replyTo`, the
 * run otherwise. Every fiber runs in the runtime's `FiberMap` under a key of the run's (`sample`,
 * `tool:<callId>`, `approvals`), so leaving `sampling` or giving up on a call interrupts exactly
 * that fiber; closing the run's scope stops the actor, which interrupts everything left.
 */

type Runtime = ManagedRuntime.ManagedRuntime<AgentRunStore | SqlClient.SqlClient, unknown>;

export interface RunBridge {
  readonly runtime: Runtime;
  readonly handlers: CommandHandlers;
  readonly observer: RunObserver;
  /**
   * The interruptible work of every run on the runtime, each run's under keys of its own. One map
   * for all runs rather than one per run: a fiber map costs its owner some 3 KB for its life.
   */
  readonly fibers: FiberMap.FiberMap<string>;
}

/**
 * Each run's bridge, found through the run actor that invokes the I/O actor: not through the
 * actor system, which a run shares with the host's statechart when one invokes it.
 */
const bridges = new WeakMap<object, RunBridge>();

const runIO = fromCallback<RunCommand, { runId: string }>(({ input, receive, sendBack, self }) => {
  const bridge = self._parent === undefined ? undefined : bridges.get(self._parent);
  if (bridge === undefined) throw new Error("the run I/O actor started outside a run created by createRunActor");
  const { runtime, handlers, observer, fibers } = bridge;
  const prefix = `${input.runId}\u0000`;
  // Work nothing needs to interrupt by name still lives in the map, under a key of its own.
  let unnamed = 0;
  let stopped = false;
  const io: CommandIO = {
    tellRun: (event) => {
      if (!stopped) sendBack(event);
    },
    tell: (sink, event) => {
      if (!stopped) sink.send(event);
    },
    fork: (key, effect) => FiberMap.run(fibers, prefix + key, effect),
    interrupt: (key) => FiberMap.remove(fibers, prefix + key),
  };
  receive((command) => {
    const handle = handlers[command.type] as (command: RunCommand, io: CommandIO) => Effect.Effect<unknown, never>;
    // Called on the table: a run's handlers may be methods.
    const handled = handle.call(handlers, command, io).pipe(
      observer.command(command),
      // Whether an answer was delivered (a map, not a tap: one step less on every command).
      Effect.map((reply) => {
        if (reply === undefined) return false;
        if ("replyTo" in command) io.tell(command.replyTo, reply as never);
        else io.tellRun(reply as never);
        return true;
      }),
      // A handler answers its own failures; what is left is a bug, and the run's own limits end it.
      Effect.catchAllDefect((defect) => Effect.logError(`run ${command.type} crashed`, defect)),
    );
    // Forked once and put in the map as it is (FiberMap.run would fork a second fiber to do it).
    FiberMap.unsafeSet(fibers, prefix + (fiberKeyOf(command) ?? `#${++unnamed}`), runtime.runFork(handled));
  });
  // The actor stops when the run's scope closes (or the run ends): what the run still has in
  // flight is interrupted, without waiting — a provider call or a tool that ignores interruption
  // must not hold the run's end.
  return () => {
    stopped = true;
    const keys: string[] = [];
    for (const [key] of fibers) if (key.startsWith(prefix)) keys.push(key);
    if (keys.length > 0)
      runtime.runFork(Effect.forEach(keys, (key) => FiberMap.remove(fibers, key), { discard: true }));
  };
});

/**
 * The run machine with the bridge as its I/O actor, made once: a machine built per run would
 * hold its own copy of every state node for as long as the run lives.
 */
const bridgedRunMachine = runMachine.provide({ actors: { runIO } });

/** A run actor whose I/O goes to `bridge` (its handlers, its share of the fiber map). Not started. */
export function createRunActor(
  bridge: RunBridge,
  options: ActorOptions<typeof bridgedRunMachine> & { readonly input: InputFrom<typeof bridgedRunMachine> },
) {
  const actor = createActor(bridgedRunMachine, options);
  bridges.set(actor, bridge);
  return actor;
}
