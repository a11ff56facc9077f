import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "@effect/vitest";
import { Effect, Metric, MetricBoundaries } from "effect";
import { METRICS } from "../../../src/services/observability/metrics.js";
import {
  familiesFromSnapshot,
  metricsHandler,
  metricsText,
  PROMETHEUS_CONTENT_TYPE,
  renderFamilies,
} from "../../../src/services/observability/prometheus.js";
import { samples } from "./support.js";

const SEED_METRICS = [
  "agent_runs_total",
  "agent_terminal_without_tool_calls_total",
  "agent_provider_tool_protocol_invalid_total",
  "agent_receipt_missing_total",
  "agent_claim_receipt_mismatch_total",
  "agent_correction_turn_total",
  "agent_history_legacy_fallback_total",
  "agent_memory_candidate_total",
  "agent_memory_rejected_total",
  "agent_channel_progress_suppressed_total",
];

describe("Prometheus exposition", () => {
  it("renders a counter family as HELP, TYPE and one line per labelled series", () => {
    const text = renderFamilies([
      {
        name: "agent_runs_total",
        help: "runs by state",
        type: "counter",
        series: [
          { labels: { terminal_state: "unverified" }, value: 2 },
          { labels: { terminal_state: "completed" }, value: 5 },
        ],
      },
    ]);
    expect(text).toBe(
      [
        "# HELP agent_runs_total runs by state",
        "# TYPE agent_runs_total counter",
        'agent_runs_total{terminal_state="completed"} 5',
        'agent_runs_total{terminal_state="unverified"} 2',
        "",
      ].join("\n"),
    );
  });

  it("escapes backslashes, quotes and newlines in label values", () => {
    const text = renderFamilies([
      { name: "m_total", help: "h", type: "counter", series: [{ labels: { reason: 'a"b\\c\nd' }, value: 1 }] },
    ]);
    expect(text).toContain('m_total{reason="a\\"b\\\\c\\nd"} 1');
  });

  it("renders a histogram as cumulative buckets ending in +Inf, then _sum and _count", () => {
    const text = renderFamilies([
      {
        name: "agent_run_steps",
        help: "steps",
        type: "histogram",
        series: [
          {
            labels: {},
            buckets: [
              [1, 1],
              [2, 3],
              [Number.POSITIVE_INFINITY, 4],
            ],
            sum: 9,
            count: 4,
          },
        ],
      },
    ]);
    expect(text.split("\n").slice(2, 7)).toEqual([
      'agent_run_steps_bucket{le="1"} 1',
      'agent_run_steps_bucket{le="2"} 3',
      'agent_run_steps_bucket{le="+Inf"} 4',
      "agent_run_steps_sum 9",
      "agent_run_steps_count 4",
    ]);
  });

  it.effect("reads Effect's histogram state as cumulative buckets", () =>
    Effect.gen(function* () {
      const histogram = Metric.histogram("test_prom_hist", MetricBoundaries.fromIterable([1, 5]), "h");
      yield* Effect.all([Metric.update(histogram, 0.5), Metric.update(histogram, 3), Metric.update(histogram, 9)]);
      const text = renderFamilies(
        familiesFromSnapshot(yield* Metric.snapshot).filter((family) => family.name === "test_prom_hist"),
      );
      expect(samples(text)).toEqual([
        { name: "test_prom_hist_bucket", labels: { le: "1" }, value: 1 },
        { name: "test_prom_hist_bucket", labels: { le: "5" }, value: 2 },
        { name: "test_prom_hist_bucket", labels: { le: "+Inf" }, value: 3 },
        { name: "test_prom_hist_sum", labels: {}, value: 12.5 },
        { name: "test_prom_hist_count", labels: {}, value: 3 },
      ]);
    }),
  );

  it.effect("merges metric keys that share a name into one family", () =>
    Effect.gen(function* () {
      yield* Metric.incrementBy(Metric.counter("test_prom_shared_total", { description: "first" }), 2);
      yield* Metric.incrementBy(Metric.counter("test_prom_shared_total", { description: "second" }), 3);
      const families = familiesFromSnapshot(yield* Metric.snapshot).filter(
        (family) => family.name === "test_prom_shared_total",
      );
      expect(families).toHaveLength(1);
      expect(samples(renderFamilies(families))).toEqual([{ name: "test_prom_shared_total", labels: {}, value: 5 }]);
    }),
  );
});

describe("metricsHandler", () => {
  const serve = async (handler: ReturnType<typeof metricsHandler>) => {
    const server = createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return { base: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(resolve)) };
  };

  it("answers GET /metrics with the exposition text and its content type", async () => {
    const { base, close } = await serve(metricsHandler({ metricsSnapshot: () => "agent_runs_total 1\n" }));
    try {
      const response = await fetch(`${base}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe(PROMETHEUS_CONTENT_TYPE);
      expect(await response.text()).toBe("agent_runs_total 1\n");
    } finally {
      await close();
    }
  });

  it("answers 404 for any other path", async () => {
    const { base, close } = await serve(metricsHandler({ metricsSnapshot: () => "" }));
    try {
      expect((await fetch(`${base}/other`)).status).toBe(404);
    } finally {
      await close();
    }
  });
});

describe("the metric catalogue", () => {
  it("holds the ten metrics of the specification", () => {
    const names = Object.values(METRICS).map((info) => info.name);
    for (const name of SEED_METRICS) expect(names).toContain(name);
  });

  it("exposes HELP and TYPE for every seed metric before anything incremented it", () => {
    const text = metricsText();
    for (const name of SEED_METRICS) {
      expect(text).toContain(`# HELP ${name} `);
      expect(text).toContain(`# TYPE ${name} counter`);
    }
  });
});
