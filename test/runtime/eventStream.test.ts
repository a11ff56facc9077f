import { describe, expect, it } from "vitest";
import { EventStream } from "../../src/runtime/eventStream.js";

/** A run's events are there for every listener, from the first, whenever it starts listening. */

async function all<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const seen: T[] = [];
  for await (const value of iterable) seen.push(value);
  return seen;
}

describe("a run's event stream", () => {
  it("gives two listeners that start together every event", async () => {
    const stream = new EventStream<number>();
    const first = all(stream);
    const second = all(stream);
    stream.push(1);
    stream.push(2);
    stream.close();
    expect(await first).toEqual([1, 2]);
    expect(await second).toEqual([1, 2]);
  });

  it("gives a listener that starts midway the events it missed, then the rest", async () => {
    const stream = new EventStream<number>();
    stream.push(1);
    const late = all(stream);
    stream.push(2);
    stream.close();
    expect(await late).toEqual([1, 2]);
  });

  it("gives a listener that starts after the run ended every event, then ends", async () => {
    const stream = new EventStream<number>();
    stream.push(1);
    stream.push(2);
    stream.close();
    expect(await all(stream)).toEqual([1, 2]);
    expect(await all(stream)).toEqual([1, 2]);
  });

  it("starts from a given position", async () => {
    const stream = new EventStream<number>();
    for (const value of [1, 2, 3]) stream.push(value);
    stream.close();
    expect(await all(stream.from(1))).toEqual([2, 3]);
    expect(await all(stream.from(5))).toEqual([]);
  });

  it("ends only the listener that breaks off", async () => {
    const stream = new EventStream<number>();
    const other = all(stream);
    stream.push(1);
    for await (const value of stream) {
      expect(value).toBe(1);
      break;
    }
    // Pushed after the first listener left: the other one still gets it.
    stream.push(2);
    stream.close();
    expect(await other).toEqual([1, 2]);
  });

  it("keeps no event pushed after it closed", async () => {
    const stream = new EventStream<number>();
    stream.close();
    stream.push(1);
    expect(await all(stream)).toEqual([]);
  });
});
