import { describe, expect, it } from "@effect/vitest";
import { Effect } from "effect";
import * as Sqlite from "../../src/persistence/engine/sqlite/client.js";
import * as MemoryTurnStore from "../../src/persistence/MemoryTurnStore.js";
import { REDACTED, sha256Hex } from "../../src/persistence/payloadHygiene.js";
import { dumpTable, useTempDir, withLedger } from "../support/tempDir.js";

const tmp = useTempDir("agentloop-memory-turns-");
const KEY_BODY = "abcdefghijklmnopqrstuvwxyz123456";
const file = () => tmp.path("ledger.db");
const turn = (content: string, role: "user" | "assistant" = "assistant"): MemoryTurnStore.NewMemoryTurn => ({
  sessionId: "s1",
  role,
  content,
  source: MemoryTurnStore.AGENTLOOP_TURN_SOURCE,
});
const storedContents = () => dumpTable(file(), "memory_turns", "id").map((row) => (row as { content: string }).content);

describe("memory_turns content hygiene", () => {
  it.effect("stores input and answers redacted", () =>
    Effect.gen(function* () {
      const store = yield* MemoryTurnStore.make;
      yield* store.append([
        turn(`my key is sk-proj-${KEY_BODY}`, "user"),
        turn("use OPENAI_API_KEY=abc123secretvalue in .env"),
      ]);
      const contents = storedContents();
      expect(contents.join("\n")).not.toContain(KEY_BODY);
      expect(contents).toEqual([`my key is ${REDACTED}`, `use OPENAI_API_KEY=${REDACTED} in .env`]);
    }).pipe(withLedger({ filename: file() })),
  );

  it.effect("caps a 5 MB answer at 16 KiB with a truncation marker and the sha256 of the whole", () =>
    Effect.gen(function* () {
      const store = yield* MemoryTurnStore.make;
      const answer = "a".repeat(5 * 1024 * 1024);
      yield* store.append([turn(answer)]);
      const [content] = storedContents();
      expect(Buffer.byteLength(content!)).toBeLessThanOrEqual(MemoryTurnStore.MEMORY_TURN_CAP_BYTES);
      expect(content!.startsWith("aaaa")).toBe(true);
      expect(content).toContain(`[truncated: ${answer.length} bytes, sha256 ${sha256Hex(answer)}]`);
    }).pipe(withLedger({ filename: file() })),
  );
});

describe("a write to a read-only ledger", () => {
  it.effect("names the file and SQLite's cause", () =>
    Effect.gen(function* () {
      // Create and migrate the file first.
      yield* Effect.void.pipe(withLedger({ filename: file() }));
      const error = yield* Effect.flip(
        Effect.flatMap(MemoryTurnStore.make, (store) => store.append([turn("hello")])).pipe(
          Effect.provide(Sqlite.layer({ filename: file(), readonly: true })),
        ),
      );
      expect(error.message).toBe(
        `MemoryTurnStore.append: cannot write ${file()}: attempt to write a readonly database`,
      );
    }),
  );
});
