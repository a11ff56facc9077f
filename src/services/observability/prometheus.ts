import type { IncomingMessage, ServerResponse } from "node:http";
import * as Effect from "effect/Effect";
import * as Metric from "effect/Metric";
import type * as MetricPair from "effect/MetricPair";
import * as MetricState from "effect/MetricState";
import * as Option from "effect/Option";
import { METRICS, type MetricInfo } from "./metrics.js";

/**
 * Prometheus text exposition (format 0.0.4) of Effect's metric registry (`Metric.snapshot`), and
 * of metric families computed elsewhere (the CLI derives them from the ledger).
 */

export type Labels = Readonly<Record<string, string>>;

export interface ValueSeries {
  readonly labels: Labels;
  readonly value: number;
}

export interface HistogramSeries {
  readonly labels: Labels;
  /** Cumulative counts per upper bound, ascending; the last bound may be +Infinity. */
  readonly buckets: ReadonlyArray<readonly [number, number]>;
  readonly sum: number;
  readonly count: number;
}

export type MetricFamily =
  | {
      readonly name: string;
      readonly help: string;
      readonly type: "counter" | "gauge";
      readonly series: ReadonlyArray<ValueSeries>;
    }
  | {
      readonly name: string;
      readonly help: string;
      readonly type: "histogram";
      readonly series: ReadonlyArray<HistogramSeries>;
    };

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

const escapeHelp = (text: string) => text.replaceAll("\\", "\\\\").replaceAll("\n", "\\n");
const escapeLabel = (text: string) => text.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");

function formatNumber(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(value);
}

function formatLabels(labels: Labels): string {
  const entries = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  return entries.length === 0 ? "" : `{${entries.map(([key, value]) => `${key}="${escapeLabel(value)}"`).join(",")}}`;
}

const seriesKey = (labels: Labels) => formatLabels(labels);

/** One family as exposition lines (HELP, TYPE, samples sorted by labels). */
function formatFamily(family: MetricFamily): string[] {
  const lines = [`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`];
  if (family.type === "histogram") {
    for (const series of [...family.series].sort((a, b) => seriesKey(a.labels).localeCompare(seriesKey(b.labels)))) {
      const hasInf = series.buckets.some(([bound]) => bound === Number.POSITIVE_INFINITY);
      for (const [bound, count] of series.buckets) {
        lines.push(`${family.name}_bucket${formatLabels({ ...series.labels, le: formatNumber(bound) })} ${count}`);
      }
      if (!hasInf) lines.push(`${family.name}_bucket${formatLabels({ ...series.labels, le: "+Inf" })} ${series.count}`);
      lines.push(`${family.name}_sum${formatLabels(series.labels)} ${formatNumber(series.sum)}`);
      lines.push(`${family.name}_count${formatLabels(series.labels)} ${series.count}`);
    }
  } else {
    for (const series of [...family.series].sort((a, b) => seriesKey(a.labels).localeCompare(seriesKey(b.labels)))) {
      lines.push(`${family.name}${formatLabels(series.labels)} ${formatNumber(series.value)}`);
    }
  }
  return lines;
}

/** The exposition text of `families` (one trailing newline, as scrapers expect). */
export function renderFamilies(families: ReadonlyArray<MetricFamily>): string {
  return `${families.flatMap(formatFamily).join("\n")}\n`;
}

const labelsOf = (pair: MetricPair.MetricPair.Untyped): Record<string, string> =>
  Object.fromEntries(pair.metricKey.tags.map((label) => [label.key, label.value]));

/**
 * Groups Effect's snapshot into families by metric name. Keys that differ only in description
 * share a family (the first description wins); series with identical labels are summed.
 */
export function familiesFromSnapshot(pairs: ReadonlyArray<MetricPair.MetricPair.Untyped>): MetricFamily[] {
  type Mutable =
    | { name: string; help: string; type: "counter" | "gauge"; series: Map<string, ValueSeries> }
    | { name: string; help: string; type: "histogram"; series: Map<string, HistogramSeries> };
  const families = new Map<string, Mutable>();
  const family = (name: string, help: string, type: Mutable["type"]): Mutable => {
    let existing = families.get(name);
    if (!existing) {
      existing =
        type === "histogram" ? { name, help, type, series: new Map() } : { name, help, type, series: new Map() };
      families.set(name, existing);
    }
    return existing;
  };
  const addValue = (target: Mutable, labels: Labels, value: number) => {
    if (target.type === "histogram") return;
    const key = seriesKey(labels);
    const previous = target.series.get(key);
    target.series.set(key, { labels, value: (previous?.value ?? 0) + value });
  };
  for (const pair of pairs) {
    const { metricKey, metricState } = pair;
    const help = Option.getOrElse(metricKey.description, () => metricKey.name);
    const labels = labelsOf(pair);
    if (MetricState.isCounterState(metricState)) {
      addValue(family(metricKey.name, help, "counter"), labels, Number(metricState.count));
    } else if (MetricState.isGaugeState(metricState)) {
      addValue(family(metricKey.name, help, "gauge"), labels, Number(metricState.value));
    } else if (MetricState.isFrequencyState(metricState)) {
      const target = family(metricKey.name, help, "counter");
      for (const [value, count] of metricState.occurrences) addValue(target, { ...labels, key: value }, count);
    } else if (MetricState.isHistogramState(metricState)) {
      const target = family(metricKey.name, help, "histogram");
      if (target.type === "histogram") {
        target.series.set(seriesKey(labels), {
          labels,
          buckets: metricState.buckets,
          sum: metricState.sum,
          count: metricState.count,
        });
      }
    } else if (MetricState.isSummaryState(metricState)) {
      // Summaries are not used by agentloop; exposed as their count and sum.
      addValue(family(`${metricKey.name}_count`, help, "gauge"), labels, metricState.count);
      addValue(family(`${metricKey.name}_sum`, help, "gauge"), labels, metricState.sum);
    }
  }
  return [...families.values()].map((entry) =>
    entry.type === "histogram"
      ? { name: entry.name, help: entry.help, type: "histogram", series: [...entry.series.values()] }
      : { name: entry.name, help: entry.help, type: entry.type, series: [...entry.series.values()] },
  );
}

/** An empty series set for a metric nobody has touched yet (an unlabelled counter reads 0). */
export function emptyFamily(info: MetricInfo): MetricFamily {
  if (info.type === "histogram") return { name: info.name, help: info.help, type: "histogram", series: [] };
  return {
    name: info.name,
    help: info.help,
    type: "counter",
    series: info.labels.length === 0 ? [{ labels: {}, value: 0 }] : [],
  };
}

/**
 * agentloop's metrics first (in catalogue order, present even before their first increment),
 * then every other metric of the registry by name.
 */
export function withCatalogue(families: ReadonlyArray<MetricFamily>): MetricFamily[] {
  const byName = new Map(families.map((entry) => [entry.name, entry]));
  const catalogue = Object.values(METRICS).map((info) => byName.get(info.name) ?? emptyFamily(info));
  const known = new Set(catalogue.map((entry) => entry.name));
  const rest = families.filter((entry) => !known.has(entry.name)).sort((a, b) => a.name.localeCompare(b.name));
  return [...catalogue, ...rest];
}

/** The process's metrics (Effect's global registry) as Prometheus text. */
export function metricsText(): string {
  return renderFamilies(withCatalogue(familiesFromSnapshot(Effect.runSync(Metric.snapshot))));
}

/** Anything that can print its metrics (an AgentRuntime is one). */
export interface MetricsSource {
  metricsSnapshot(): string;
}

/**
 * A node:http request handler for hosts: `GET /metrics` answers the exposition text, anything
 * else 404. Mount it on its own server or call it from an existing router.
 */
export function metricsHandler(
  source: MetricsSource,
  path = "/metrics",
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    if (url.pathname !== path || (request.method !== "GET" && request.method !== "HEAD")) {
      response.writeHead(404, { "content-type": "text/plain; charset=utf-8" });
      response.end("not found\n");
      return;
    }
    const body = source.metricsSnapshot();
    response.writeHead(200, { "content-type": PROMETHEUS_CONTENT_TYPE });
    response.end(request.method === "HEAD" ? undefined : body);
  };
}
