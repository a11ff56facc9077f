import type { SqlClient } from "@effect/sql";
import { Effect, Exit, FiberMap, type ManagedRuntime, Scope } from "effect";
import { type ActorOptions, createActor, fromCallback, type InputFrom } from "xstate";
import type { RunCommand } from "../domain/index.js";
import { runMachine } from "../machines/run/machine.js";
import type { AgentRunStore } from "../persistence/AgentRunStore.js";
import type { RunObserver } from "../services/observability/tracing.js";
import { type CommandHandlers, type CommandIO, fiberKeyOf } from "./commandHandlers.js";

/**
 * The one bridge between the run machine and Effect: the run's I/O actor. Each command the
 * machine (or its tool batch) sends is handed to its handler, forked in the run's scope inside one
 * span, and the handler's answer goes back to whoever asked — the batch for a command that names
 * `replyTo`, the run otherwise. Interruptible work (sampling, each tool call, the approval poller)
 * runs in a `FiberMap` under a key, so leaving `sampling` or giving up on a call interrupts
 * exactly that fiber; closing the run's scope interrupts everything left.
 */

type Runtime = ManagedRuntime.ManagedRuntime<AgentRunStore | SqlClient.SqlClient, unknown>;

export interface RunBridge {
  readonly runtime: Runtime;
  readonly handlers: CommandHandlers;
  readonly observer: RunObserver;
  /** The run's scope: the bridge's fibers live in it and end with it. */
  readonly scope: Scope.Scope;
}

/** Each run's bridge, found by the actor system its run created (one system per run actor). */
const bridges = new WeakMap<object, RunBridge>();

const runIO = fromCallback<RunCommand, { runId: string }>(({ receive, sendBack, system }) => {
  const bridge = bridges.get(system);
  if (bridge === undefined) throw new Error("the run I/O actor started outside a run created by createRunActor");
  const { runtime, handlers, observer } = bridge;
  // The fibers live in a scope of their own whose closing the run's scope starts but does not
  // wait for: a provider call or a tool that ignores interruption must not hold the run's end.
  const { work, fibers } = runtime.runSync(
    Effect.gen(function* () {
      const work = yield* Scope.make();
      yield* Scope.addFinalizer(bridge.scope, Effect.forkDaemon(Scope.close(work, Exit.void)));
      return { work, fibers: yield* FiberMap.make<string>().pipe(Scope.extend(work)) };
    }),
  );
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
    fibers,
  };
  receive((command) => {
    const handle = handlers[command.type] as (command: RunCommand, io: CommandIO) => Effect.Effect<unknown, never>;
    // Called on the table: a run's handlers may be methods.
    const handled = handle.call(handlers, command, io).pipe(
      observer.command(command),
      Effect.tap((reply) =>
        Effect.sync(() => {
          if (reply === undefined) return;
          if ("replyTo" in command) io.tell(command.replyTo, reply as never);
          else io.tellRun(reply as never);
        }),
      ),
      // A handler answers its own failures; what is left is a bug, and the run's own limits end it.
      Effect.catchAllDefect((defect) => Effect.logError(`run ${command.type} crashed`, defect)),
    );
    runtime.runFork(FiberMap.run(fibers, fiberKeyOf(command) ?? `#${++unnamed}`, handled));
  });
  return () => {
    stopped = true;
    runtime.runFork(Scope.close(work, Exit.void));
  };
});

/**
 * The run machine with the bridge as its I/O actor, made once: a machine built per run would
 * hold its own copy of every state node for as long as the run lives.
 */
const bridgedRunMachine = runMachine.provide({ actors: { runIO } });

/** A run actor whose I/O goes to `bridge` (its handlers, in its scope). Not started. */
export function createRunActor(
  bridge: RunBridge,
  options: ActorOptions<typeof bridgedRunMachine> & { readonly input: InputFrom<typeof bridgedRunMachine> },
) {
  const actor = createActor(bridgedRunMachine, options);
  bridges.set(actor.system, bridge);
  return actor;
}
