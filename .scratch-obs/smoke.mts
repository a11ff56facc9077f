import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { AgentRuntime } from "../src/runtime/AgentRuntime.js";
import { scriptedProvider } from "../src/services/providers/scripted.js";
import { fixtureTool } from "../src/services/tools/fixtureTool.js";
import { capturingLogger } from "../src/services/observability/logging.js";
import { otelTracingLayer } from "../src/services/observability/tracing.js";

const exporter = new InMemorySpanExporter();
const cap = capturingLogger();
const rt = await AgentRuntime.make({ database: "/tmp/obs/smoke.db", logger: cap.logger, tracing: otelTracingLayer({ spanProcessors: [new SimpleSpanProcessor(exporter)] }) });
const h = rt.startRun({ sessionId: "s", input: "look up with sk-abcdefghijklmnopqrstuvwx", provider: scriptedProvider([{ toolCalls: [{ id: "c1", name: "lookup", arguments: { q: 1 } }], finishReason: "tool_calls" }, { text: "done" }]), tools: [fixtureTool({ name: "lookup", kind: "observe", outcomes: [{ status: "ok", output: { v: "token=sk-zzzzzzzzzzzzzzzzzzzzzzzz" } }] })] });
const r = await h.result;
console.log(r.terminalState, r.traceId);
console.log(rt.metricsSnapshot());
for (const rec of cap.records) console.log(JSON.stringify(rec));
for (const s of exporter.getFinishedSpans()) console.log(s.name, s.spanContext().traceId, s.spanContext().spanId, s.parentSpanContext?.spanId);
await rt.dispose();
