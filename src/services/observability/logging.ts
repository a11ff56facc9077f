import * as Cause from "effect/Cause";
import * as HashMap from "effect/HashMap";
import type * as Layer from "effect/Layer";
import * as List from "effect/List";
import * as Logger from "effect/Logger";
import type * as LogLevel from "effect/LogLevel";
import type { JsonValue } from "../../domain/index.js";
import { redact, redactText } from "../../persistence/payloadHygiene.js";

/**
 * Structured run logs: JSON lines through Effect's Logger, every message and
 * annotation redacted the way the ledger redacts payloads. Off by default so CLI output stays
 * clean; `"json"` writes one JSON object per line to stderr; a host (or a test) can pass its own
 * Effect Logger instead, which gets the same redacted records.
 */
export type LogMode = "json" | "off";

export interface LoggingOptions {
  readonly logs?: LogMode | undefined;
  /** Receives the run logs instead of the JSON logger (implies logging on). */
  readonly logger?: Logger.Logger<unknown, unknown> | undefined;
}

export const loggingEnabled = (options: LoggingOptions): boolean =>
  options.logger !== undefined || (options.logs ?? "off") === "json";

/** Any loggable value, redacted: JSON through `redact`, anything else as redacted text. */
export function redactLogValue(value: unknown): unknown {
  if (value === null || value === undefined || typeof value === "number" || typeof value === "boolean") return value;
  if (typeof value === "string") return redactText(value);
  if (value instanceof Error) return redactText(value.message);
  try {
    const json = JSON.parse(JSON.stringify(value)) as JsonValue;
    return redact(json);
  } catch {
    return redactText(String(value));
  }
}

/** Annotations redacted as one object, so a value under a secret-named key (`apiKey`) goes whole. */
function redactAnnotations(annotations: HashMap.HashMap<string, unknown>): HashMap.HashMap<string, unknown> {
  const record = Object.fromEntries(HashMap.toEntries(annotations));
  const redacted = redactLogValue(record);
  return redacted !== null && typeof redacted === "object" && !Array.isArray(redacted)
    ? HashMap.fromIterable(Object.entries(redacted))
    : HashMap.map(annotations, redactLogValue);
}

/** Wraps a logger so that nothing it receives carries a secret the ledger would have redacted. */
export function redactingLogger<O>(inner: Logger.Logger<unknown, O>): Logger.Logger<unknown, O> {
  return Logger.mapInputOptions(inner, (options) => ({
    ...options,
    message: redactLogValue(options.message),
    annotations: redactAnnotations(options.annotations),
    cause: Cause.isEmpty(options.cause) ? options.cause : Cause.die(redactText(Cause.pretty(options.cause))),
  }));
}

/** The JSON-lines logger for `logs: "json"` (stderr, so stdout stays the program's output). */
export const jsonLinesLogger: Logger.Logger<unknown, void> = Logger.withConsoleError(Logger.jsonLogger);

/**
 * The runtime's logger layer: replaces Effect's default logger with the redacting JSON (or the
 * host's) logger when logging is on; leaves it alone when off (the run logs are then not emitted).
 */
export function loggingLayer(options: LoggingOptions): Layer.Layer<never> {
  // Off means off: Effect's default logger would print warnings on the host's stdout.
  if (!loggingEnabled(options)) return Logger.replace(Logger.defaultLogger, Logger.none);
  return Logger.replace(Logger.defaultLogger, redactingLogger(options.logger ?? jsonLinesLogger));
}

/** One captured log record: the shape of `Logger.jsonLogger`'s output, as an object. */
export interface CapturedLog {
  readonly level: LogLevel.LogLevel["label"];
  readonly message: unknown;
  readonly annotations: Readonly<Record<string, unknown>>;
  readonly spans: ReadonlyArray<string>;
  readonly cause: string | null;
}

/** A logger that keeps every record in memory (tests, hosts that forward logs themselves). */
export function capturingLogger(): { readonly logger: Logger.Logger<unknown, void>; readonly records: CapturedLog[] } {
  const records: CapturedLog[] = [];
  const logger = Logger.make<unknown, void>((options) => {
    records.push({
      level: options.logLevel.label,
      message: options.message,
      annotations: Object.fromEntries(HashMap.toEntries(options.annotations)),
      spans: List.toArray(options.spans).map((span) => span.label),
      cause: Cause.isEmpty(options.cause) ? null : Cause.pretty(options.cause),
    });
  });
  return { logger, records };
}

/** The `message` of a record as one string (Effect wraps several log arguments in an array). */
export const logMessage = (record: CapturedLog): string =>
  Array.isArray(record.message) ? record.message.map(String).join(" ") : String(record.message);
