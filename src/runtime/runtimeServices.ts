import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as ManagedRuntime from "effect/ManagedRuntime";
import type { RecoveredRun } from "../persistence/AgentRunStore.js";
import { AgentRunStore } from "../persistence/AgentRunStore.js";
import type { DatabaseError } from "../persistence/database.js";
import * as Ledger from "../persistence/ledger.js";
import { LedgerSignals } from "../persistence/ledgerSignals.js";
import { layer as memoryItemStoreLayer } from "../persistence/MemoryItemStore.js";
import { layer as memoryTurnStoreLayer } from "../persistence/MemoryTurnStore.js";
import { memoryServiceLayer } from "../services/memory/MemoryService.js";
import { loggingLayer } from "../services/observability/logging.js";
import { type EndedStrayProcess, endStrayToolProcesses } from "../services/processes/processLedger.js";
import type { AgentRuntimeConfig, RuntimeServices } from "./runtimeConfig.js";
import { ownerSettings } from "./runtimeConfig.js";

/**
 * What a runtime opens before it drives anything: the ledger (migrated and, if needed, backed up
 * first) with the memory stores, logging and tracing over it as one ManagedRuntime; the runs and
 * tool processes a stopped process left behind, settled; and whether decisions made elsewhere are
 * announced on this ledger.
 */
export interface RuntimeServicesOpened {
  readonly managed: ManagedRuntime.ManagedRuntime<RuntimeServices, DatabaseError>;
  readonly recovered: ReadonlyArray<RecoveredRun>;
  /** Tool process groups that processes now gone left running, which start-up ended (logged as warnings). */
  readonly strayProcesses: ReadonlyArray<EndedStrayProcess>;
  /** Decisions made elsewhere are announced (PostgreSQL): a waiting run reads them when told, not on a poll. */
  readonly decisionsAnnounced: boolean;
}

export async function openRuntimeServices(config: AgentRuntimeConfig): Promise<RuntimeServicesOpened> {
  const heartbeat = config.lease
    ? { intervalMs: config.lease.renewEveryMs, expiryMs: config.lease.durationMs }
    : (config.ownerHeartbeat ?? {});
  const ledger = Ledger.layer({
    filename: config.database,
    owner: ownerSettings(heartbeat.intervalMs, heartbeat.expiryMs),
    ...(config.payloadCapBytes ? { payloadCapBytes: config.payloadCapBytes } : {}),
  });
  const managed = ManagedRuntime.make(
    Layer.mergeAll(
      memoryTurnStoreLayer,
      memoryServiceLayer.pipe(Layer.provideMerge(memoryItemStoreLayer)),
      loggingLayer(config),
      config.tracing ?? Layer.empty,
    ).pipe(Layer.provideMerge(ledger)),
  );
  try {
    await managed.runtime(); // built before the first startRun opens a root span synchronously
    // A supervising runtime continues abandoned runs rather than closing them.
    const recovered =
      config.recoverOnStart === false || config.supervise
        ? []
        : await managed.runPromise(Effect.flatMap(AgentRunStore, (store) => store.recoverInterrupted()));
    // The commands that dead processes left running end too (their runs were just closed, or a
    // supervisor is about to continue them). A ledger that cannot be read for them only warns.
    const strayProcesses =
      config.recoverOnStart === false
        ? []
        : await managed.runPromise(
            endStrayToolProcesses().pipe(
              Effect.catchAll((error) =>
                Effect.as(Effect.logWarning(`stray tool processes were not looked for: ${error.message}`), []),
              ),
            ),
          );
    const decisionsAnnounced = (await managed.runPromise(LedgerSignals)).approvalDecided !== undefined;
    return { managed, recovered, strayProcesses, decisionsAnnounced };
  } catch (error) {
    await managed.dispose();
    throw error;
  }
}
