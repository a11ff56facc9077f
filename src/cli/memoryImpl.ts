import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { MemoryVerificationStatus } from "../domain/index.js";
import * as Ledger from "../persistence/ledger.js";
import { MemoryItemStore, layer as memoryItemStoreLayer } from "../persistence/MemoryItemStore.js";
import { renderMemoryMarkdown } from "../services/memory/retrieval.js";
import { recordMemoryRejected } from "../services/observability/metrics.js";
import { CliFailure, type CliIO } from "./output.js";
import { runEffect } from "./runEffect.js";

/**
 * The implementations of `agentloop memory list|approve|reject|markdown`, loaded only when one of
 * them runs (src/cli/memoryCommands.ts defines the commands).
 */

async function withItems<A>(
  db: string,
  use: (items: MemoryItemStore["Type"]) => Effect.Effect<A, { message: string }>,
) {
  const layer = memoryItemStoreLayer.pipe(Layer.provide(Ledger.layer({ filename: db, owner: false })));
  return runEffect(Effect.flatMap(MemoryItemStore, use).pipe(Effect.provide(layer)));
}

/** `agentloop memory list`: memory items (default: pending candidates). */
export async function listMemoryCommand(
  io: CliIO,
  options: { db: string; status: string; scope?: string; json?: boolean },
): Promise<number> {
  if (options.status !== "all" && !MemoryVerificationStatus.safeParse(options.status).success) {
    throw new CliFailure(`--status must be all or one of ${MemoryVerificationStatus.options.join(", ")}`, 2);
  }
  const items = await withItems(options.db, (store) =>
    store.list({
      ...(options.scope ? { scope: options.scope } : {}),
      ...(options.status === "all" ? {} : { statuses: [options.status as MemoryVerificationStatus] }),
    }),
  );
  if (options.json) io.out(JSON.stringify(items));
  else if (items.length === 0) io.out(`no ${options.status === "all" ? "" : `${options.status} `}memory items`);
  else {
    for (const item of items) {
      io.out(`${item.id}  ${item.verificationStatus}/${item.provenance}  ${item.kind}  ${item.scope}  ${item.content}`);
    }
  }
  return 0;
}

/**
 * `agentloop memory approve|reject ID`: a decision on a candidate. A rejection that moves an item to
 * `rejected` counts as `agent_memory_rejected_total{reason="admin_reject"}` (rejecting it again does not).
 */
export async function decideMemoryCommand(
  io: CliIO,
  name: "approve" | "reject",
  id: string,
  options: { db: string },
): Promise<number> {
  const decided = await withItems(options.db, (store) =>
    Effect.gen(function* () {
      const before = yield* store.get(id);
      if (!before) return undefined;
      const after = yield* store.setStatus(
        id,
        name === "approve"
          ? { status: "verified", provenance: "user_decision", confidence: 0.9 }
          : { status: "rejected" },
      );
      return after ? { before, after } : undefined;
    }),
  );
  if (!decided) throw new CliFailure(`no memory item ${id}`);
  const item = decided.after;
  if (name === "reject" && decided.before.verificationStatus !== "rejected" && item.verificationStatus === "rejected") {
    recordMemoryRejected("admin_reject");
  }
  io.out(`${item.id}: ${item.verificationStatus} (${item.provenance})`);
  return 0;
}

/** `agentloop memory markdown`: the Markdown projection of active memory. */
export async function memoryMarkdownCommand(io: CliIO, options: { db: string; scope?: string }): Promise<number> {
  const items = await withItems(options.db, (store) => store.list(options.scope ? { scope: options.scope } : {}));
  io.out(renderMemoryMarkdown(items).trimEnd());
  return 0;
}
