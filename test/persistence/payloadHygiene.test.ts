import { describe, expect, it } from "@effect/vitest";
import { Effect } from "effect";
import fc from "fast-check";
import type { JsonValue } from "../../src/domain/index.js";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import {
  DEFAULT_PAYLOAD_CAP_BYTES,
  REDACTED,
  redact,
  redactEverywhere,
  redactText,
  sanitizePayload,
  sanitizeText,
  sha256Hex,
} from "../../src/persistence/payloadHygiene.js";
import {
  closure,
  dumpTable,
  newRun,
  receipt,
  toolCall,
  toolResult,
  userInput,
  useTempDir,
  withLedger,
} from "../support/tempDir.js";

const tmp = useTempDir();
const KEY_BODY = "abcdefghijklmnopqrstuvwxyz123456";
const PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq\n-----END RSA PRIVATE KEY-----";
const json = (value: unknown) => JSON.stringify(value);

describe("redaction of secrets inside text", () => {
  it.each([
    { kind: "an sk- key", text: `use sk-${KEY_BODY} now`, secret: KEY_BODY },
    { kind: "an sk-proj- key", text: `key=sk-proj-${KEY_BODY}`, secret: KEY_BODY },
    { kind: "a Bearer token", text: "Authorization: Bearer eyJhbGciOi.J9abc", secret: "eyJhbGciOi" },
    { kind: "a password= pair", text: "login?user=bob&password=hunter22", secret: "hunter22" },
    { kind: "a token= pair", text: "token=tok_123456 rest", secret: "tok_123456" },
    { kind: "an api_key= pair", text: "api_key=XYZ987 rest", secret: "XYZ987" },
    { kind: "a PEM private-key block", text: `before\n${PEM}\nafter`, secret: "MIIEowIBAAKCAQEA7bq" },
    { kind: "a PEM block with no END line", text: "-----BEGIN PRIVATE KEY-----\nMIIEowIBAAK", secret: "MIIEowIBAAK" },
  ])("removes $kind and marks the place", ({ text, secret }) => {
    const clean = sanitizePayload({ text });
    expect(json(clean)).not.toContain(secret);
    expect(json(clean)).toContain(REDACTED);
  });

  it("keeps the text around a redacted key", () => {
    expect(redact(`use sk-${KEY_BODY} now`)).toBe(`use ${REDACTED} now`);
  });

  it.each(["the token count is 5", "password reset link sent", "task-abcdefghijklmnopqrstuvwxyz"])(
    "leaves harmless text unchanged: %s",
    (text) => {
      expect(redact({ text })).toEqual({ text });
    },
  );

  it("conservatively redacts a token: pair even when the value is harmless ('the token: 5')", () => {
    expect(redact("the token: 5")).toBe(`the token: ${REDACTED}`);
  });
});

describe("redaction of secret-named keys", () => {
  it.each([
    "authorization",
    "Authorization",
    "api_key",
    "apiKey",
    "x-api-key",
    "password",
    "token",
    "client_secret",
    "private_key",
  ])("replaces the value under %s whole", (key) => {
    expect(redact({ [key]: "anything at all", keep: "visible" })).toEqual({ [key]: REDACTED, keep: "visible" });
  });

  it("replaces nested and non-string values under secret-named keys", () => {
    const value = { headers: { Authorization: { scheme: "Basic", value: "x" } }, secret: 42 };
    expect(redact(value)).toEqual({ headers: { Authorization: REDACTED }, secret: REDACTED });
  });

  it("leaves empty and null values under secret-named keys as they are", () => {
    expect(redact({ password: "", token: null })).toEqual({ password: "", token: null });
  });

  it("keeps a parsed __proto__ key as data", () => {
    const value = JSON.parse('{"__proto__":{"a":"x"},"b":1}') as JsonValue;
    expect(json(redact(value))).toBe('{"__proto__":{"a":"x"},"b":1}');
  });
});

describe("each string is redacted on its own (no over-redaction)", () => {
  it("never lets a key's match run into the next string", () => {
    expect(redact([`key sk-${KEY_BODY}`, "tool_error", "(next)"])).toEqual([`key ${REDACTED}`, "tool_error", "(next)"]);
    expect(redact({ a: `token ghp_${KEY_BODY}`, b: "plain_words" })).toEqual({
      a: `token ${REDACTED}`,
      b: "plain_words",
    });
  });

  it("keeps the fields that hold no secret", () => {
    expect(redact({ callId: "call_1", a: `sk-proj-${KEY_BODY}`, b: "visible" })).toEqual({
      callId: "call_1",
      a: REDACTED,
      b: "visible",
    });
  });

  it("keeps finishReason and role of an answer whose text ends in a key", () => {
    const payload = { step: 1, text: `here: sk-${KEY_BODY}`, finishReason: "stop", toolCallCount: 0, role: "answer" };
    expect(redact(payload)).toEqual({ ...payload, text: `here: ${REDACTED}` });
  });

  it("keeps the terminal state, reason and verdict of a terminal payload whose final text ends in a key", () => {
    const payload = {
      terminalState: "completed",
      reason: "answered",
      finalText: `the token is ghp_${KEY_BODY}`,
      steps: 1,
      correctionTurns: 0,
      verification: { mode: "enforce", verdict: "completed", reason: "answered", missing: [] },
    };
    expect(redact(payload)).toEqual({ ...payload, finalText: `the token is ${REDACTED}` });
  });

  it("never redacts structural fields (ids, hashes, enums), even when they look like a secret", () => {
    const payload = {
      step: 2,
      callId: `sk-${KEY_BODY}`,
      toolName: "read_file",
      status: "ok",
      output: { text: `sk-${KEY_BODY}`, status: `sk-${KEY_BODY}` },
      outputHash: `token=${KEY_BODY}`,
      inputFingerprint: `AKIA${"A".repeat(16)}`,
    };
    expect(redact(payload)).toEqual({ ...payload, output: { text: REDACTED, status: REDACTED } });
  });

  it("still replaces a secret-named key's value whole", () => {
    expect(redact({ status: "ok", token: "x" })).toEqual({ status: "ok", token: REDACTED });
  });
});

describe("environment-variable style secrets", () => {
  it.each([
    { text: `export OPENAI_API_KEY=sk-${KEY_BODY}`, out: `export OPENAI_API_KEY=${REDACTED}`, secret: KEY_BODY },
    {
      text: "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCY rest",
      out: `AWS_SECRET_ACCESS_KEY=${REDACTED} rest`,
      secret: "wJalrXUtnFEMI",
    },
    { text: "GITHUB_TOKEN=abc123def456", out: `GITHUB_TOKEN=${REDACTED}`, secret: "abc123def456" },
    { text: 'STRIPE_SECRET_KEY="q1w2e3r4"', out: `STRIPE_SECRET_KEY="${REDACTED}"`, secret: "q1w2e3r4" },
    { text: "MY_APP_SECRET = hunter2hunter2", out: `MY_APP_SECRET = ${REDACTED}`, secret: "hunter2" },
  ])("redacts $text", ({ text, out, secret }) => {
    expect(redactText(text)).toBe(out);
    expect(redact({ text })).toEqual({ text: out });
    expect(json(sanitizePayload({ output: { stdout: text } }))).not.toContain(secret);
  });

  it("leaves ordinary upper-case assignments alone", () => {
    expect(redact({ text: "NODE_ENV=production PATH=/usr/bin MAX_KEYS_SEEN" })).toEqual({
      text: "NODE_ENV=production PATH=/usr/bin MAX_KEYS_SEEN",
    });
  });
});

describe("the payload cap", () => {
  const big = { text: "x".repeat(20_000), note: `sk-${KEY_BODY}` };

  it("stores a payload over 16 KiB as { truncated, summary, sha256, bytes } of the redacted JSON", () => {
    const full = json(redact(big));
    expect(sanitizePayload(big)).toEqual({
      truncated: true,
      summary: full.slice(0, 1024),
      sha256: sha256Hex(full),
      bytes: Buffer.byteLength(full, "utf8"),
    });
    expect(json(sanitizePayload(big))).not.toContain(KEY_BODY);
  });

  it("leaves a payload of exactly the cap unchanged", () => {
    const value = { text: "y".repeat(DEFAULT_PAYLOAD_CAP_BYTES - json({ text: "" }).length) };
    expect(Buffer.byteLength(json(value))).toBe(DEFAULT_PAYLOAD_CAP_BYTES);
    expect(sanitizePayload(value)).toEqual(value);
  });

  it("honours a custom cap, counting UTF-8 bytes", () => {
    const value = { text: "é".repeat(60) };
    expect(sanitizePayload(value, 200)).toEqual(value);
    expect(sanitizePayload(value, 100)).toMatchObject({ truncated: true, bytes: json(value).length + 60 });
  });

  it("keeps identifier fields whole on a truncated payload, however long (item 5)", () => {
    const callId = `call_${"x".repeat(295)}`;
    const out = sanitizePayload(toolResult(3, callId, "z".repeat(20_000)).payload);
    expect(out).toMatchObject({ step: 1, callId, toolName: "read_file", status: "ok", truncated: true });
    expect(out).not.toHaveProperty("output");
  });

  it("keeps the ledger's top-level keys (callId, toolName) on a truncated tool result", () => {
    const out = sanitizePayload(toolResult(3, "c1", "z".repeat(20_000)).payload);
    expect(out).toMatchObject({ callId: "c1", toolName: "read_file", truncated: true });
  });
});

describe("sanitizeText (failure details, visible turns)", () => {
  it("redacts and leaves short text otherwise unchanged", () => {
    expect(sanitizeText(`bad key sk-${KEY_BODY}`)).toBe(`bad key ${REDACTED}`);
    expect(sanitizeText("plain")).toBe("plain");
  });

  it("caps long text at the cap in UTF-8 bytes with a marker giving the size and sha256 of the whole", () => {
    const text = "é".repeat(10_000);
    const out = sanitizeText(text, 1024);
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(1024);
    expect(out.startsWith("éé")).toBe(true);
    expect(out).not.toContain("\uFFFD");
    expect(out.endsWith(`[truncated: 20000 bytes, sha256 ${sha256Hex(text)}]`)).toBe(true);
  });
});

describe("property: a planted sk- secret never survives sanitizing", () => {
  const plant = (value: JsonValue, pick: number, text: (old: string) => string): JsonValue => {
    let index = 0;
    const walk = (inner: JsonValue): JsonValue => {
      if (typeof inner === "string") return index++ === pick ? text(inner) : inner;
      if (Array.isArray(inner)) return inner.map(walk);
      if (inner !== null && typeof inner === "object")
        return Object.fromEntries(Object.entries(inner).map(([k, v]) => [k, walk(v)]));
      return inner;
    };
    const planted = walk(value);
    return index > pick ? planted : { ...(planted as Record<string, JsonValue>), planted: text("") };
  };

  it("holds for random JSON objects with the secret in a random string leaf", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue>),
        fc.stringMatching(/^(proj-)?[A-Za-z0-9_]{20,40}$/),
        fc.nat({ max: 30 }),
        fc.constantFrom(" ", "=", ":", "\n", '"', "("),
        fc.string(),
        (object, body, pick, separator, prefix) => {
          const secret = `sk-${body}`;
          const value = plant(object, pick, (old) => `${old.slice(0, 10)}${prefix}${separator}${secret}`);
          expect(json(value)).toContain(secret);
          expect(json(sanitizePayload(value))).not.toContain(secret);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("property: the shortcut for payloads without a secret hint changes nothing", () => {
  // Hints planted where the walk redacts and where it never does (structural fields at the top
  // level, and below a non-content key), next to secret-named keys and plain values.
  const leaf = fc.oneof(
    fc.constantFrom(`sk-${KEY_BODY}`, "token=abc123", "Bearer abcdefghijkl", "item-3", "", "password: hunter2"),
    fc.constantFrom(
      "21b5a2bcc984ea67897b96cd2242963d4a13fb5a5fca18ddb500881c7ef2fe07",
      "ghp_abcdefghijklmnopqrstuvwxyz",
    ),
    fc.string(),
    fc.integer(),
    fc.constant(null),
  );
  const key = fc.constantFrom(
    "callId",
    "toolName",
    "inputFingerprint",
    "outputHash",
    "status",
    "output",
    "arguments",
    "text",
    "token",
    "apiKey",
    "nested",
    "x",
  );
  const payload = fc.letrec<{ value: JsonValue }>((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      leaf as fc.Arbitrary<JsonValue>,
      fc.array(tie("value"), { maxLength: 3 }),
      fc.dictionary(key, tie("value"), { maxKeys: 5 }),
    ),
  })).value;

  it("redact gives the JSON that redactEverywhere gives, for any payload", () => {
    fc.assert(
      fc.property(payload, (value) => {
        expect(json(redact(value))).toBe(json(redactEverywhere(value)));
      }),
      { numRuns: 2000 },
    );
  });

  it("still redacts a hint under a content key below a structural one", () => {
    const value = { callId: "c1", output: { callId: `sk-${KEY_BODY}` } };
    expect(json(redact(value))).toBe(json({ callId: "c1", output: { callId: REDACTED } }));
  });
});

describe("payload hygiene through the store (raw payload_json)", () => {
  const file = () => tmp.path("ledger.db");
  const rawPayloads = () =>
    dumpTable(file(), "agent_run_events", "sequence").map((row) => (row as { payload_json: string }).payload_json);

  it.effect("stores redacted text and secret-named keys, never the secrets", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r1"));
      const payload = { text: `key sk-${KEY_BODY}, Bearer abcdefghijklmnop`, headers: { authorization: "Basic zzz" } };
      yield* store.appendEvents("r1", [{ sequence: 1, type: "user_input", payload }]);
      const [raw] = rawPayloads();
      expect(raw).not.toContain(KEY_BODY);
      expect(raw).not.toContain("abcdefghijklmnop");
      expect(raw).not.toContain("zzz");
      expect(JSON.parse(raw!)).toEqual({
        text: `key ${REDACTED}, Bearer ${REDACTED}`,
        headers: { authorization: REDACTED },
      });
    }).pipe(withLedger({ filename: file() })),
  );

  it.effect("stores a redacted failure_detail on the run row", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r1"));
      yield* store.appendEvents("r1", [userInput(1)]);
      const detail = `401 Incorrect API key provided: sk-proj-${KEY_BODY}. 403 for AKIAIOSFODNN7EXAMPLE`;
      yield* store.finishRun("r1", { ...closure(2, "failed", "provider_error", "failed"), failureDetail: detail });
      const [row] = dumpTable(file(), "agent_runs") as Array<{ failure_detail: string }>;
      expect(row?.failure_detail).toBe(`401 Incorrect API key provided: ${REDACTED}. 403 for ${REDACTED}`);
      expect((yield* store.getRun("r1"))?.failureDetail).not.toContain(KEY_BODY);
    }).pipe(withLedger({ filename: file() })),
  );

  it.effect("caps a huge failure_detail with a truncation marker and the sha256 of the whole", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r1"));
      yield* store.appendEvents("r1", [userInput(1)]);
      const detail = "e".repeat(100_000);
      yield* store.finishRun("r1", { ...closure(2, "failed", "provider_error", "failed"), failureDetail: detail });
      const [row] = dumpTable(file(), "agent_runs") as Array<{ failure_detail: string }>;
      expect(Buffer.byteLength(row!.failure_detail)).toBeLessThanOrEqual(DEFAULT_PAYLOAD_CAP_BYTES);
      expect(row!.failure_detail).toContain(`[truncated: 100000 bytes, sha256 ${sha256Hex(detail)}]`);
    }).pipe(withLedger({ filename: file() })),
  );

  it.effect("records a tool call and result whose 300-character call id exceeds the cap's old key limit (item 5)", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r1"));
      const callId = `call_${"i".repeat(295)}`;
      const call = toolCall(1, callId);
      const bigCall = { ...call, payload: { ...(call.payload as object), arguments: { data: "q".repeat(20_000) } } };
      yield* store.appendEvents("r1", [bigCall, toolResult(2, callId, "r".repeat(20_000))], [receipt("r1", callId)]);
      const stored = rawPayloads().map((raw) => JSON.parse(raw));
      expect(stored).toMatchObject([
        { step: 1, callId, toolName: "read_file", truncated: true },
        { step: 1, callId, toolName: "read_file", status: "ok", outputHash: "b".repeat(64), truncated: true },
      ]);
      expect(stored[0]).not.toHaveProperty("arguments");
      expect(stored[1]).not.toHaveProperty("output");
      expect((yield* store.listReceipts("r1")).map((listed) => listed.callId)).toEqual([callId]);
    }).pipe(withLedger({ filename: file() })),
  );

  it.effect("stores a payload under the cap unchanged", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r1"));
      const payload = { text: "plain ✓", n: 1.5, list: [true, null, "x"] };
      yield* store.appendEvents("r1", [{ sequence: 1, type: "user_input", payload }]);
      expect(rawPayloads()).toEqual([json(payload)]);
    }).pipe(withLedger({ filename: file() })),
  );

  it.effect("stores a payload over payloadCapBytes as summary, sha256 and size of the full JSON", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r1"));
      const payload = { text: "w".repeat(500) };
      yield* store.appendEvents("r1", [{ sequence: 1, type: "user_input", payload }]);
      expect(JSON.parse(rawPayloads()[0]!)).toEqual({
        truncated: true,
        summary: json(payload).slice(0, 64),
        sha256: sha256Hex(json(payload)),
        bytes: json(payload).length,
      });
    }).pipe(withLedger({ filename: file(), payloadCapBytes: 256 })),
  );

  it.effect("records an oversized tool call and tool result, paired by their kept callId", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r1"));
      const call = toolCall(1, "c1");
      const bigCall = { ...call, payload: { ...(call.payload as object), arguments: { data: "q".repeat(20_000) } } };
      yield* store.appendEvents("r1", [bigCall, toolResult(2, "c1", "r".repeat(20_000))], [receipt("r1", "c1")]);
      const stored = rawPayloads().map((raw) => JSON.parse(raw));
      expect(stored).toMatchObject([
        { callId: "c1", toolName: "read_file", truncated: true },
        { callId: "c1", toolName: "read_file", truncated: true },
      ]);
    }).pipe(withLedger({ filename: file() })),
  );

  it.effect("finishes a run whose final text is over the cap", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r1"));
      yield* store.appendEvents("r1", [userInput(1)]);
      yield* store.finishRun("r1", closure(2, "completed", "answered", "long answer ".repeat(2_000)));
      expect((yield* store.getRun("r1"))?.terminalState).toBe("completed");
      expect(JSON.parse(rawPayloads()[1]!)).toMatchObject({ terminalState: "completed", truncated: true });
    }).pipe(withLedger({ filename: file() })),
  );

  it.effect("redacts receipt evidence and still round-trips the receipt's reason", () =>
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("r1"));
      yield* store.appendEvents("r1", [toolCall(1, "c1")]);
      const evidence = { stderr: `failed with sk-${KEY_BODY} (exit 1)` };
      yield* store.recordReceipt(receipt("r1", "c1", { status: "error", reason: "tool_error", evidence }));
      const [row] = dumpTable(file(), "agent_execution_receipts") as Array<{ evidence_json: string }>;
      expect(row?.evidence_json).not.toContain(KEY_BODY);
      const [listed] = yield* store.listReceipts("r1");
      expect(listed).toMatchObject({ reason: "tool_error", evidence: { stderr: `failed with ${REDACTED} (exit 1)` } });
    }).pipe(withLedger({ filename: file() })),
  );
});

describe("redact's shortcut for payloads without a secret hint", () => {
  const fragments = [
    "sk-",
    "proj-",
    "abcdefghijklmnop",
    "Bearer ",
    "token=",
    "api_key: ",
    "-----BEGIN RSA PRIVATE KEY-----",
    "ghp_",
    "AKIA",
    "OPENAI_API_KEY=",
    "GITHUB_TOKEN=",
    "item-1",
    "lookup",
    " ",
    "-",
    "s",
    "k",
  ];
  const text = fc.array(fc.constantFrom(...fragments), { maxLength: 6 }).map((parts) => parts.join(""));
  const key = fc.constantFrom("a", "b", "text", "token", "password", "note", "apiKey", "callId", "status", "output");
  const payload: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      text,
      fc.integer(),
      fc.constant(null),
      fc.array(tie("value"), { maxLength: 3 }),
      fc.dictionary(key, tie("value"), { maxKeys: 3 }),
    ),
  })).value;

  it("gives the same result as the full walk for any mix of secret fragments, split or whole", () => {
    fc.assert(
      fc.property(payload, (value) => {
        expect(redact(value)).toEqual(redactEverywhere(value));
      }),
      { numRuns: 2_000 },
    );
  });

  it("returns a payload without any hint as it is, without copying it", () => {
    const value: JsonValue = { step: 3, callId: "call_3", toolName: "lookup", arguments: { i: 3 } };
    expect(redact(value)).toBe(value);
  });
});
