import type { SqlClient } from "@effect/sql";
import { Effect, Exit, FiberMap, FiberSet, type ManagedRuntime, Scope } from "effect";
import { fromCallback } from "xstate";
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

/** The run machine with its I/O actor bound to one run's handlers and scope. */
export function provideRunMachine(bridge: RunBridge) {
  const { runtime, handlers, observer } = bridge;
  // The fibers live in a scope of their own whose closing the run's scope starts but does not
  // wait for: a provider call or a tool that ignores interruption must not hold the run's end.
  const work = runtime.runSync(Scope.make());
  runtime.runSync(Scope.addFinalizer(bridge.scope, Effect.forkDaemon(Scope.close(work, Exit.void))));
  const fibers = runtime.runSync(FiberMap.make<string>().pipe(Effect.provideService(Scope.Scope, work)));
  const others = runtime.runSync(FiberSet.make().pipe(Effect.provideService(Scope.Scope, work)));
  const runIO = fromCallback<RunCommand, { runId: string }>(({ receive, sendBack }) => {
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
      const handled = handle(command, io).pipe(
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
      const key = fiberKeyOf(command);
      runtime.runFork(key === undefined ? FiberSet.run(others, handled) : FiberMap.run(fibers, key, handled));
    });
    return () => {
      stopped = true;
      runtime.runFork(Scope.close(work, Exit.void));
    };
  });
  return runMachine.provide({ actors: { runIO } });
}
