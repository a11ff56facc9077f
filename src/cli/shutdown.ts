/**
 * Runtimes the CLI has open, so a signal can cancel their runs and close their ledgers before the
 * process exits (a killed process would leave runs `running` and tool process groups alive).
 */
interface Disposable {
  dispose(): Promise<void>;
}

const open = new Set<Disposable>();

/** Registers a runtime until the returned function is called (or the process shuts down). */
export function closeOnShutdown(runtime: Disposable): () => void {
  open.add(runtime);
  return () => {
    open.delete(runtime);
  };
}

/** How many runtimes a shutdown would dispose now. */
export const openRuntimeCount = (): number => open.size;

/** Disposes every registered runtime: each cancels its runs in flight and closes its ledger. */
export async function disposeOpenRuntimes(): Promise<void> {
  const runtimes = [...open];
  open.clear();
  await Promise.allSettled(runtimes.map((runtime) => runtime.dispose()));
}
