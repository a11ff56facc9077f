import { errorText } from "../../domain/errorText.js";
import type { Cassette } from "../../domain/index.js";
import type { RunHandle } from "../../runtime/AgentRuntime.js";

/** a cassette's scripted decisions on the calls of its run that wait for approval. */

/**
 * Makes the case's scripted decisions on `handle` as its calls ask for approval. Each
 * decision is used once, for the first request of its call id; a refused decision is reported.
 */
export function scriptDecisions(handle: RunHandle, cassette: Cassette, failures: string[]): () => void {
  const pending = [...(cassette.approvals ?? [])];
  const timers: Array<ReturnType<typeof setTimeout>> = [];
  const onRequest = (callId: string) => {
    const index = pending.findIndex((decision) => decision.callId === callId);
    if (index < 0) return;
    const [decision] = pending.splice(index, 1);
    const decide = () =>
      (decision!.decision === "approve"
        ? handle.approve(callId, {
            scope: decision!.scope ?? "once",
            ...(decision!.arguments ? { arguments: decision!.arguments } : {}),
            decidedBy: decision!.decidedBy ?? "eval",
          })
        : handle.deny(callId, { message: decision!.message ?? "", decidedBy: decision!.decidedBy ?? "eval" })
      ).catch((error: unknown) => failures.push(errorText(error)));
    timers.push(setTimeout(decide, decision!.delayMs ?? 0));
  };
  const subscription = handle.actor.on("approval_requested", (event) => onRequest(event.callId));
  // A request announced before this subscription (a resumed run asks again at once) still waits.
  for (const request of handle.waitingApprovals()) onRequest(request.callId);
  return () => {
    subscription.unsubscribe();
    for (const timer of timers) clearTimeout(timer);
  };
}

/** The first request for approval of `handle`'s run. */
export const firstApprovalRequest = (handle: RunHandle) =>
  new Promise<void>((resolve) => {
    const subscription = handle.actor.on("approval_requested", () => {
      subscription.unsubscribe();
      resolve();
    });
    if (handle.waitingApprovals().length > 0) {
      subscription.unsubscribe();
      resolve();
    }
  });
