import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { Effect, Tracer } from "effect";
import { describe, expect, it } from "vitest";
import { otelTracingLayer } from "../../../src/services/observability/otel.js";
import { traceDelivery } from "../../../src/services/observability/runRoots.js";
import { randomHex, SPAN } from "../../../src/services/observability/tracing.js";
import { scriptedProvider } from "../../../src/services/providers/scripted.js";
import { callStep, lookupTool, textStep, useRuntimeHarness } from "../../support/runtimeHarness.js";

const harness = useRuntimeHarness("agentloop-tracing-");

/** A runtime exporting its spans to an in-memory OpenTelemetry exporter (no network). */
async function tracedRuntime() {
  const exporter = new InMemorySpanExporter();
  const runtime = await harness.makeRuntime({
    tracing: otelTracingLayer({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  });
  return { runtime, exporter };
}

const lookupRun = () => ({
  sessionId: "session-7",
  input: "Look up item 1.",
  provider: scriptedProvider([callStep("c1", "lookup", { i: 1 }), textStep("Item 1 is 'item'.")], { model: "m-1" }),
  tools: [lookupTool()],
});

const spansOf = (exporter: InMemorySpanExporter, traceId: string) =>
  exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);

const parentId = (span: ReadableSpan) => span.parentSpanContext?.spanId;

/** The names on the path from `span` up to the top of its tree. */
function ancestry(span: ReadableSpan, spans: ReadonlyArray<ReadableSpan>): string[] {
  const byId = new Map(spans.map((candidate) => [candidate.spanContext().spanId, candidate]));
  const path = [span.name];
  let current = span;
  while (parentId(current) && byId.has(parentId(current)!)) {
    current = byId.get(parentId(current)!)!;
    path.push(current.name);
  }
  return path;
}

describe("run spans", () => {
  it("puts the token usage a provider reports on its provider span (GenAI names)", async () => {
    const { runtime, exporter } = await tracedRuntime();
    const scripted = scriptedProvider([textStep("Item 1 is 'item'.")]);
    const provider = {
      ...scripted,
      sample: (request: Parameters<typeof scripted.sample>[0]) =>
        Effect.map(scripted.sample(request), (response) => ({
          ...response,
          usage: { inputTokens: 42, outputTokens: 7 },
        })),
    };
    const result = await runtime.startRun({ sessionId: "s", input: "Item 1?", provider }).result;
    const call = spansOf(exporter, result.traceId).find((span) => span.name === SPAN.provider)!;
    expect(call.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 42, "gen_ai.usage.output_tokens": 7 });
  });

  it("puts every span of a run under one agent.run root that carries the run's trace id", async () => {
    const { runtime, exporter } = await tracedRuntime();
    const result = await runtime.startRun(lookupRun()).result;
    const spans = spansOf(exporter, result.traceId);
    const roots = spans.filter((span) => parentId(span) === undefined);
    expect(roots.map((span) => span.name)).toEqual([SPAN.run]);
    for (const span of spans) expect(ancestry(span, spans).at(-1)).toBe(SPAN.run);
  });

  it("records the provider calls, the tool call and the ledger writes as the root's children", async () => {
    const { runtime, exporter } = await tracedRuntime();
    const result = await runtime.startRun(lookupRun()).result;
    const spans = spansOf(exporter, result.traceId);
    const root = spans.find((span) => span.name === SPAN.run)!;
    const children = spans.filter((span) => parentId(span) === root.spanContext().spanId).map((span) => span.name);
    expect(children.sort()).toEqual(
      [SPAN.open, SPAN.provider, SPAN.append, SPAN.tool, SPAN.toolResults, SPAN.provider, SPAN.finish].sort(),
    );
  });

  it("records each ledger transaction as one span under the run, with no per-statement spans beneath it", async () => {
    const { runtime, exporter } = await tracedRuntime();
    const result = await runtime.startRun(lookupRun()).result;
    const spans = spansOf(exporter, result.traceId);
    const finish = spans.find((span) => span.name === SPAN.finish)!;
    expect(ancestry(finish, spans)).toEqual([SPAN.finish, SPAN.run]);
    const writes = new Set(
      spans
        .filter((span) => [SPAN.open, SPAN.append, SPAN.toolResults, SPAN.finish].includes(span.name as never))
        .map((span) => span.spanContext().spanId),
    );
    expect(spans.filter((span) => span.parentSpanContext && writes.has(span.parentSpanContext.spanId))).toEqual([]);
  });

  it("tags provider and tool spans with run, session, provider, model and step (GenAI attribute names)", async () => {
    const { runtime, exporter } = await tracedRuntime();
    const result = await runtime.startRun(lookupRun()).result;
    const spans = spansOf(exporter, result.traceId);
    const firstCall = spans.find((span) => span.name === SPAN.provider && span.attributes["agentloop.step"] === 1)!;
    expect(firstCall.attributes).toMatchObject({
      "agentloop.run.id": result.runId,
      "agentloop.session.id": "session-7",
      "gen_ai.system": "scripted",
      "gen_ai.request.model": "m-1",
      "gen_ai.operation.name": "chat",
      "agentloop.tool_calls.parsed": 1,
    });
    // @effect/opentelemetry exports array attributes JSON-encoded.
    expect(JSON.parse(String(firstCall.attributes["gen_ai.response.finish_reasons"]))).toEqual(["tool_calls"]);
    const tool = spans.find((span) => span.name === SPAN.tool)!;
    expect(tool.attributes).toMatchObject({
      "agentloop.run.id": result.runId,
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "lookup",
      "gen_ai.tool.call.id": "c1",
      "agentloop.step": 1,
      "agentloop.tool.status": "ok",
    });
  });

  it("ends the root span with the run's terminal state", async () => {
    const { runtime, exporter } = await tracedRuntime();
    const result = await runtime.startRun(lookupRun()).result;
    const root = spansOf(exporter, result.traceId).find((span) => span.name === SPAN.run)!;
    expect(root.attributes).toMatchObject({
      "agentloop.terminal_state": "completed",
      "agentloop.terminal_reason": "answered",
      "agentloop.trace.id": result.traceId,
      "gen_ai.operation.name": "invoke_agent",
    });
  });

  it("gives two concurrent runs two separate trees", async () => {
    const { runtime, exporter } = await tracedRuntime();
    const [first, second] = await Promise.all([
      runtime.startRun(lookupRun()).result,
      runtime.startRun(lookupRun()).result,
    ]);
    expect(first.traceId).not.toBe(second.traceId);
    for (const result of [first, second]) {
      const spans = spansOf(exporter, result.traceId);
      expect(spans.filter((span) => span.name === SPAN.run)).toHaveLength(1);
      expect(new Set(spans.map((span) => span.attributes["agentloop.run.id"]).filter(Boolean))).toEqual(
        new Set([result.runId]),
      );
    }
  });

  it("uses a trace id the host chose for the run's spans", async () => {
    const { runtime, exporter } = await tracedRuntime();
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const result = await runtime.startRun({ ...lookupRun(), traceId }).result;
    expect(result.traceId).toBe(traceId);
    expect(spansOf(exporter, traceId).map((span) => span.name)).toContain(SPAN.run);
  });

  it("hangs the run under the host's parent span", async () => {
    const { runtime, exporter } = await tracedRuntime();
    const parentSpan = Tracer.externalSpan({ traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331" });
    const result = await runtime.startRun({ ...lookupRun(), parentSpan }).result;
    expect(result.traceId).toBe(parentSpan.traceId);
    const root = spansOf(exporter, parentSpan.traceId).find((span) => span.name === SPAN.run)!;
    expect(parentId(root)).toBe(parentSpan.spanId);
  });

  it("records a delivery made after the run as a span of the run's tree", async () => {
    const { runtime, exporter } = await tracedRuntime();
    const handle = runtime.startRun(lookupRun());
    const result = await handle.result;
    const messageId = await traceDelivery(
      handle.trace,
      { runId: result.runId, channelId: "web", kind: "final" },
      async () => "m-42",
    );
    expect(messageId).toBe("m-42");
    const spans = spansOf(exporter, result.traceId);
    const delivery = spans.find((span) => span.name === SPAN.delivery)!;
    expect(ancestry(delivery, spans)).toEqual([SPAN.delivery, SPAN.run]);
    expect(delivery.attributes).toMatchObject({ "agentloop.channel.id": "web", "agentloop.delivery.kind": "final" });
  });

  it("still sends a delivery after the run's runtime was disposed", async () => {
    const { runtime } = await tracedRuntime();
    const handle = runtime.startRun(lookupRun());
    const result = await handle.result;
    await runtime.dispose();
    const sent = await traceDelivery(
      handle.trace,
      { runId: result.runId, channelId: "web", kind: "final" },
      async () => "m-7",
    );
    expect(sent).toBe("m-7");
  });

  it("rethrows a failed delivery's own error", async () => {
    const { runtime } = await tracedRuntime();
    const handle = runtime.startRun(lookupRun());
    const result = await handle.result;
    const failure = new Error("channel down");
    await expect(
      traceDelivery(handle.trace, { runId: result.runId, channelId: "web", kind: "final" }, () =>
        Promise.reject(failure),
      ),
    ).rejects.toBe(failure);
  });

  it("gives a run a 32-hex trace id from Effect's own tracer when no tracing layer is configured", async () => {
    const runtime = await harness.makeRuntime();
    const result = await runtime.startRun(lookupRun()).result;
    expect(result.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(await runtime.run(Effect.succeed("still usable"))).toBe("still usable");
  });
});

describe("random trace and span ids", () => {
  it("hands out lowercase hex of the asked length, never the same bytes twice, across pool refills", () => {
    // 16- and 8-byte ids in turn: 1,000 of them take 24,000 bytes, several refills of the pool.
    const ids = Array.from({ length: 1000 }, (_, index) => randomHex(index % 2 === 0 ? 16 : 8));
    for (const [index, id] of ids.entries()) expect(id).toMatch(index % 2 === 0 ? /^[0-9a-f]{32}$/ : /^[0-9a-f]{16}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // Random bytes, not a counter: each of the 16 hex digits shows up in the first position.
    expect(new Set(ids.map((id) => id[0])).size).toBe(16);
  });
});
