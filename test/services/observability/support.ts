/**
 * Test support for the observability tests: reading one sample out of Prometheus text, so tests
 * can compare a metric before and after a run (metrics are process-global: compare deltas).
 */

/** Parses `name{labels} value` lines (comments skipped) into [name, labels, value] samples. */
export function samples(text: string): Array<{ name: string; labels: Record<string, string>; value: number }> {
  const out: Array<{ name: string; labels: Record<string, string>; value: number }> = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("#") || line.trim() === "") continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1]!] = pair[2]!.replace(/\\n/g, "\n").replace(/\\"/g, '"').replace(/\\\\/g, "\\");
    }
    const value = match[3] === "+Inf" ? Number.POSITIVE_INFINITY : Number(match[3]);
    out.push({ name: match[1]!, labels, value });
  }
  return out;
}

/** The sum of every sample of `name` whose labels include `labels` (0 when there is none). */
export function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number {
  return samples(text)
    .filter((sample) => sample.name === name)
    .filter((sample) => Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}

/** Reads `names` (with labels) from `read()` before and after `act`, and returns the deltas. */
export async function deltas<K extends string>(
  read: () => string,
  series: Readonly<Record<K, readonly [name: string, labels?: Record<string, string>]>>,
  act: () => Promise<unknown>,
): Promise<Record<K, number>> {
  const before = read();
  await act();
  const after = read();
  const result = {} as Record<K, number>;
  for (const [key, [name, labels]] of Object.entries(series) as Array<[K, readonly [string, Record<string, string>?]]>) {
    result[key] = sampleValue(after, name, labels ?? {}) - sampleValue(before, name, labels ?? {});
  }
  return result;
}
