import { type Command, Option } from "commander";
import { Effect, Either, Layer } from "effect";
import { MemoryVerificationStatus } from "../domain/index.js";
import { ledgerLayer } from "../persistence/ledger.js";
import { MemoryItemStore, MemoryItemStoreLive } from "../persistence/MemoryItemStore.js";
import { renderMemoryMarkdown } from "../services/memory/retrieval.js";
import { CliFailure, type CliIO } from "./output.js";

const DEFAULT_DB = "./agentloop.db";

async function withItems<A>(
  db: string,
  use: (items: MemoryItemStore["Type"]) => Effect.Effect<A, { message: string }>,
) {
  const layer = MemoryItemStoreLive.pipe(Layer.provide(ledgerLayer({ filename: db })));
  const result = await Effect.runPromise(
    Effect.either(Effect.flatMap(MemoryItemStore, use).pipe(Effect.provide(layer))),
  );
  if (Either.isLeft(result)) throw new CliFailure(result.left.message);
  return result.right;
}

/** `agentloop memory list|approve|reject|markdown`: the admin surface for pending candidates (seed §7.3). */
export function registerMemoryCommands(program: Command, io: CliIO, setExit: (code: number) => void): void {
  const memory = program.command("memory").description("memory items with provenance: review pending candidates");
  const dbOption = () => new Option("--db <file>", "SQLite database file").default(DEFAULT_DB);

  memory
    .command("list")
    .description("list memory items (default: pending candidates)")
    .addOption(dbOption())
    .addOption(new Option("--status <status>", "verification status, or all").default("pending"))
    .option("--scope <scope>", "only this scope")
    .option("--json", "machine-readable output")
    .action(async (options: { db: string; status: string; scope?: string; json?: boolean }) => {
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
          io.out(
            `${item.id}  ${item.verificationStatus}/${item.provenance}  ${item.kind}  ${item.scope}  ${item.content}`,
          );
        }
      }
      setExit(0);
    });

  const decide = (name: "approve" | "reject") =>
    memory
      .command(name)
      .description(
        name === "approve"
          ? "approve a candidate: verified, provenance user_decision"
          : "reject a candidate (kept, never retrieved)",
      )
      .argument("<id>", "memory item id")
      .addOption(dbOption())
      .action(async (id: string, options: { db: string }) => {
        const item = await withItems(options.db, (store) =>
          store.setStatus(
            id,
            name === "approve"
              ? { status: "verified", provenance: "user_decision", confidence: 0.9 }
              : { status: "rejected" },
          ),
        );
        if (!item) throw new CliFailure(`no memory item ${id}`);
        io.out(`${item.id}: ${item.verificationStatus} (${item.provenance})`);
        setExit(0);
      });
  decide("approve");
  decide("reject");

  memory
    .command("markdown")
    .description("print the Markdown projection of active memory (pending and unverified items never appear)")
    .addOption(dbOption())
    .option("--scope <scope>", "only this scope")
    .action(async (options: { db: string; scope?: string }) => {
      const items = await withItems(options.db, (store) => store.list(options.scope ? { scope: options.scope } : {}));
      io.out(renderMemoryMarkdown(items).trimEnd());
      setExit(0);
    });
}
