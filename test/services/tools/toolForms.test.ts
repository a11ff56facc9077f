import { Effect } from "effect";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { scriptedProvider } from "../../../src/services/providers/scripted.js";
import {
  type AnyToolDefinition,
  defineTool,
  describeTool,
  jsonSchemaInput,
  type StandardSchemaV1,
  type ToolContext,
  type ToolOutput,
  type ToolResult,
} from "../../../src/services/tools/Tool.js";
import { callStep, finish, receiptSummary, textStep, useRuntimeHarness } from "../../support/runtimeHarness.js";

/**
 * Issue L: a tool's executor may be an Effect or an async function, and its input may be zod, any
 * Standard Schema validator, or a JSON Schema with a validate function — every form gives the
 * same receipts, timeouts and cancellation.
 */

const harness = useRuntimeHarness("agentloop-toolforms-");

/** A hand-written Standard Schema (what valibot or arktype hand over): `{ id: string }`. */
function idSchema(options: { async?: boolean } = {}): StandardSchemaV1<unknown, { id: string }> {
  const check = (value: unknown) =>
    typeof value === "object" && value !== null && typeof (value as { id?: unknown }).id === "string"
      ? { value: value as { id: string } }
      : { issues: [{ message: "expected a string", path: [{ key: "id" }] }] };
  return {
    "~standard": {
      version: 1,
      vendor: "handwritten",
      validate: (value) => (options.async ? Promise.resolve(check(value)) : check(value)),
    },
  };
}

/** An ajv-shaped validator: a boolean function that leaves its reasons in `errors`. */
function ajvLikeValidator() {
  const validate = Object.assign(
    (value: unknown): value is { count: number } => {
      const ok = typeof (value as { count?: unknown })?.count === "number";
      validate.errors = ok ? null : [{ instancePath: "/count", message: "must be number" }];
      return ok;
    },
    { errors: null as null | Array<{ instancePath: string; message: string }> },
  );
  return validate;
}

async function runOneCall(tool: AnyToolDefinition, args: Record<string, unknown>, overrides = {}) {
  const runtime = await harness.makeRuntime(overrides);
  const handle = runtime.startRun({
    sessionId: "s",
    input: "go",
    tools: [tool],
    provider: scriptedProvider([callStep("c1", tool.name, args as never), textStep("done")]),
  });
  return finish(runtime, handle);
}

describe("executor forms", () => {
  it("an async-function executor produces the same receipt as an Effect executor", async () => {
    const result = { status: "ok" as const, output: { state: "shipped" }, evidence: { order_id: "7" } };
    const asPromise = defineTool({
      name: "lookup",
      description: "d",
      kind: "observe",
      input: z.object({ id: z.string() }),
      execute: async () => result,
    });
    const asEffect = { ...asPromise, execute: () => Effect.succeed(result) };
    const viaPromise = await runOneCall(asPromise, { id: "7" });
    const viaEffect = await runOneCall(asEffect, { id: "7" });
    const shape = (receipt: (typeof viaPromise.receipts)[number]) => ({
      status: receipt.status,
      evidence: receipt.evidence,
      verificationStatus: receipt.verificationStatus,
    });
    expect(viaPromise.receipts.map(shape)).toEqual(viaEffect.receipts.map(shape));
    expect(viaPromise.receipts[0]).toMatchObject({ status: "ok", evidence: { order_id: "7" } });
  });

  it("an async executor receives the validated (transformed) arguments", async () => {
    let seen: unknown;
    const tool = defineTool({
      name: "lookup",
      description: "d",
      kind: "observe",
      input: z.object({ id: z.string().transform((id) => id.toUpperCase()), limit: z.number().default(3) }),
      execute: async (args) => {
        seen = args;
        return { status: "ok", output: "ok" };
      },
    });
    await runOneCall(tool, { id: "ab" });
    expect(seen).toEqual({ id: "AB", limit: 3 });
  });

  it("an output and evidence typed by a TypeScript interface type-check and reach the tool result as JSON", async () => {
    interface Ticket {
      readonly ticketId: string;
      readonly tags: ReadonlyArray<string>;
      readonly assignee: { readonly name: string } | null;
    }
    const ticket: Ticket = { ticketId: "T-9", tags: ["billing"], assignee: { name: "Ana" } };
    const tool = defineTool({
      name: "open_ticket",
      description: "d",
      kind: "observe",
      input: z.object({ id: z.string() }),
      // Typed by the interface, not by a type alias: JsonValue's index signature would refuse it.
      execute: async (): Promise<ToolResult> => ({ status: "ok", output: [ticket], evidence: { ticket } }),
    });
    expectTypeOf<Ticket>().toMatchTypeOf<ToolOutput>();
    expectTypeOf<{ readonly tickets: ReadonlyArray<Ticket> }>().toMatchTypeOf<ToolOutput>();
    expectTypeOf<undefined>().not.toMatchTypeOf<ToolOutput>();
    const { events, receipts } = await runOneCall(tool, { id: "7" });
    const toolResult = events.find((event) => event.type === "tool_result");
    expect(JSON.stringify(toolResult?.payload)).toContain('"ticketId":"T-9"');
    expect(receipts[0]).toMatchObject({ status: "ok", evidence: { ticket } });
  });

  it("a rejected Promise becomes an error/tool_threw receipt with the rejection's message", async () => {
    const tool = defineTool({
      name: "lookup",
      description: "d",
      kind: "observe",
      input: z.object({}),
      execute: async () => {
        throw new Error("database unreachable");
      },
    });
    const { receipts, events } = await runOneCall(tool, {});
    expect(receiptSummary({ run: undefined, events, receipts })).toEqual([
      { toolName: "lookup", status: "error", reason: "tool_threw" },
    ]);
    const toolResult = events.find((event) => event.type === "tool_result");
    expect(JSON.stringify(toolResult?.payload)).toContain("database unreachable");
  });

  it("a Promise resolving to something that is not a tool result becomes an error receipt saying so", async () => {
    const tool = defineTool({
      name: "lookup",
      description: "d",
      kind: "observe",
      input: z.object({}),
      execute: async () => ({ ok: true }) as never,
    });
    const { receipts, events } = await runOneCall(tool, {});
    expect(receipts[0]).toMatchObject({ status: "error", reason: "tool_threw" });
    expect(JSON.stringify(events.find((event) => event.type === "tool_result")?.payload)).toContain(
      'status undefined; expected \\"ok\\" or \\"error\\"',
    );
  });

  it("a Promise executor that outlives its timeout gets a timed_out receipt and its signal aborts", async () => {
    let aborted = false;
    const tool = defineTool({
      name: "slow",
      description: "d",
      kind: "observe",
      input: z.object({}),
      timeoutMs: 50,
      execute: (_args, context: ToolContext) =>
        new Promise((resolve) => {
          context.signal.addEventListener("abort", () => {
            aborted = true;
            setTimeout(() => resolve({ status: "ok", output: "too late" }), 10);
          });
        }),
    });
    const { receipts } = await runOneCall(tool, {});
    expect(receipts[0]).toMatchObject({ status: "timed_out", reason: "timed_out" });
    expect(aborted).toBe(true);
  });
});

describe("input forms", () => {
  it("a zod schema is shown to the model as the JSON Schema of what it accepts (defaults optional)", () => {
    const tool = defineTool({
      name: "t",
      description: "d",
      kind: "observe",
      input: z.object({ path: z.string(), cwd: z.string().default(".") }),
    });
    const schema = describeTool(tool).inputSchema as { required?: string[]; properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toEqual(["path", "cwd"]);
    expect(schema.required).toEqual(["path"]);
  });

  it("a Standard Schema validator accepts valid arguments and refuses others with an invalid_arguments receipt", async () => {
    let seen: unknown;
    const tool = defineTool({
      name: "lookup",
      description: "d",
      kind: "observe",
      input: idSchema(),
      jsonSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      execute: async (args) => {
        seen = args.id;
        return { status: "ok", output: "ok" };
      },
    });
    expect(describeTool(tool).inputSchema).toEqual({
      type: "object",
      properties: { id: { type: "string" } },
      required: ["id"],
    });
    expect((await runOneCall(tool, { id: "x" })).receipts[0]).toMatchObject({ status: "ok" });
    expect(seen).toBe("x");
    const refused = await runOneCall(tool, { id: 4 });
    expect(refused.receipts[0]).toMatchObject({ status: "error", reason: "invalid_arguments" });
    expect(JSON.stringify(refused.events.find((event) => event.type === "tool_result")?.payload)).toContain(
      "id: expected a string",
    );
  });

  it("an asynchronous Standard Schema validator is honoured when the call runs", async () => {
    let ran = false;
    const tool = defineTool({
      name: "lookup",
      description: "d",
      kind: "observe",
      input: idSchema({ async: true }),
      execute: async () => {
        ran = true;
        return { status: "ok", output: "ok" };
      },
    });
    const refused = await runOneCall(tool, { id: 4 });
    expect(refused.receipts[0]).toMatchObject({ status: "error", reason: "invalid_arguments" });
    expect(ran).toBe(false);
    expect((await runOneCall(tool, { id: "x" })).receipts[0]).toMatchObject({ status: "ok" });
    expect(ran).toBe(true);
  });

  it("a Standard Schema without a JSON Schema of its own is offered as any object", () => {
    const tool = defineTool({ name: "t", description: "d", kind: "observe", input: idSchema() });
    expect(describeTool(tool).inputSchema).toEqual({ type: "object" });
  });

  it("a JSON Schema with an ajv-style validator: the schema is shown and refusals name the path", async () => {
    const schema = { type: "object", properties: { count: { type: "number" } }, required: ["count"] };
    const tool = defineTool({
      name: "count",
      description: "d",
      kind: "observe",
      input: jsonSchemaInput(schema, ajvLikeValidator()),
      execute: async (args) => ({ status: "ok", output: args.count * 2 }),
    });
    expect(describeTool(tool).inputSchema).toEqual(schema);
    const ok = await runOneCall(tool, { count: 2 });
    expect(ok.receipts[0]).toMatchObject({ status: "ok" });
    const refused = await runOneCall(tool, { count: "two" });
    expect(refused.receipts[0]).toMatchObject({ status: "error", reason: "invalid_arguments" });
    expect(JSON.stringify(refused.events.find((event) => event.type === "tool_result")?.payload)).toContain(
      "count: must be number",
    );
  });

  it("a JSON Schema without a validator accepts any JSON object", async () => {
    const tool = defineTool({
      name: "free",
      description: "d",
      kind: "observe",
      input: jsonSchemaInput({ type: "object" }),
      execute: async () => ({ status: "ok", output: "ok" }),
    });
    expect((await runOneCall(tool, { anything: [1, 2] })).receipts[0]).toMatchObject({ status: "ok" });
  });

  it("a validator that throws refuses the call instead of failing the run", async () => {
    const tool = defineTool({
      name: "broken",
      description: "d",
      kind: "observe",
      input: jsonSchemaInput({ type: "object" }, () => {
        throw new Error("schema compile error");
      }),
      execute: async () => ({ status: "ok", output: "ok" }),
    });
    const { result, receipts } = await runOneCall(tool, {});
    expect(receipts[0]).toMatchObject({ status: "error", reason: "invalid_arguments" });
    expect(result.terminalState).toBe("completed");
  });
});
