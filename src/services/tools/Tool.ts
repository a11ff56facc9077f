import type * as Effect from "effect/Effect";
import { z } from "zod";
import type { JsonValue, ToolDescriptor, ToolKind } from "../../domain/index.js";

export interface ToolContext {
  readonly runId: string;
  readonly callId: string;
  readonly step: number;
  /** Aborted when the call times out or the run is cancelled. */
  readonly signal: AbortSignal;
  /**
   * Notes facts the call has before it returns (which server, which request): when it times out or
   * is cancelled, the runtime's receipt carries them; evidence the executor returns adds to them
   * (its values win). Absent where nothing writes receipts.
   */
  readonly noteEvidence?: ((evidence: Readonly<Record<string, JsonValue>>) => void) | undefined;
  /**
   * Where a tool that starts processes records them (the runtime writes them to the ledger), so
   * that recovery can end them when this process dies before the call ends. Absent: not recorded.
   */
  readonly processes?: ToolProcessLog | undefined;
}

/** A process group a tool started, as recovery needs it to find and recognise its processes. */
export interface StartedToolProcess {
  /** The process group (its leader's pid). */
  readonly pgid: number;
  /** The leader's start time in clock ticks after boot (/proc/<pid>/stat), null where unknown. */
  readonly startTime: string | null;
  readonly bootId: string | null;
  /** The value of the command's marker environment variable, inherited by its children. */
  readonly marker: string;
  /** The cgroup v2 leaf that holds every process of the command, when one does. */
  readonly cgroup: string | null;
}

export interface ToolProcessLog {
  /** Recorded before the program runs; a failure to record is logged, not fatal to the call. */
  readonly started: (process: StartedToolProcess) => Effect.Effect<void>;
  /** Every process of the group has been signalled: recovery has nothing left to end. */
  readonly ended: (process: StartedToolProcess) => Effect.Effect<void>;
}

/**
 * A JSON value as a tool returns it. Objects may be typed by an `interface`, which `JsonValue`'s
 * index signature refuses (TypeScript gives interfaces no implicit one); their fields are not
 * checked here, so a tool keeps to what `JSON.stringify` writes faithfully.
 */
export type ToolOutput =
  | string
  | number
  | boolean
  | null
  | ReadonlyArray<ToolOutput>
  // biome-ignore lint/suspicious/noExplicitAny: only an index signature of `any` admits interface-typed objects
  | { readonly [key: string]: any };

/** What an executor returns; `evidence` is merged into the receipt (message id, hashes, exit code …). */
export interface ToolResult {
  readonly status: "ok" | "error";
  readonly output: ToolOutput;
  readonly evidence?: Readonly<Record<string, ToolOutput>> | undefined;
}

/**
 * The Standard Schema v1 interface (standardschema.dev), as far as agentloop reads it: zod (3.24+,
 * 4), valibot, arktype and others implement it. When the schema also implements Standard JSON
 * Schema (`~standard.jsonSchema`, zod ≥ 4.2), the model is shown that JSON Schema.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    validate(value: unknown, options?: unknown): StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    readonly jsonSchema?:
      | {
          input(options: {
            readonly target: string;
            readonly libraryOptions?: Record<string, unknown>;
          }): Record<string, unknown>;
        }
      | undefined;
  };
}

export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | {
      readonly issues: ReadonlyArray<{
        readonly message: string;
        readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
      }>;
    };

/**
 * A plain JSON Schema object with an optional validator. An ajv `ValidateFunction` fits as it is:
 * it returns whether the value is valid and leaves the reasons in `errors`. Without `validate`,
 * any JSON object is accepted.
 */
export interface JsonSchemaInput<Args = unknown> {
  readonly jsonSchema: Readonly<Record<string, unknown>>;
  readonly validate?: JsonSchemaValidator<Args> | undefined;
}

export type JsonSchemaValidator<Args> = ((value: unknown) => value is Args) | ((value: unknown) => boolean);

/** What a tool's arguments may be described with: zod 4, any Standard Schema, or JSON Schema + validator. */
export type ToolInputSchema<Args> = z.ZodType<Args> | StandardSchemaV1<unknown, Args> | JsonSchemaInput<Args>;

/** An executor's return: an Effect, or a Promise (an async function). Both get the same receipts. */
export type ToolExecution = Effect.Effect<ToolResult, unknown> | PromiseLike<ToolResult>;

/**
 * A tool a run may call: an input schema, risk kind, and an executor. A tool declared without
 * an executor is still offered (hosts may declare before they wire), and every call to it gets an
 * `error` / `tool_executor_missing` receipt without anything running.
 */
export interface ToolDefinition<Args = unknown> {
  readonly name: string;
  readonly description: string;
  readonly kind: ToolKind;
  readonly input: ToolInputSchema<Args>;
  /** Shown to the model instead of the JSON Schema derived from `input` (for validators that cannot describe themselves). */
  readonly jsonSchema?: Readonly<Record<string, unknown>> | undefined;
  readonly timeoutMs?: number | undefined;
  /**
   * Running the call twice has the effect of running it once. A resumed run re-runs a
   * call whose outcome the crash left unknown only when this is true or the tool only observes;
   * any other such call is reported to the model as `side_effect_unknown` instead.
   */
  readonly idempotent?: boolean | undefined;
  /**
   * Every call waits for a decision before it runs; a string is the reason the host is
   * shown. A run's `approval` policy can ask for more calls.
   */
  readonly requiresApproval?: boolean | string | undefined;
  /**
   * Failures (a failed Effect, a rejected Promise, a throw) become `error` / `tool_threw` receipts.
   * A Promise executor should stop when `context.signal` aborts (timeout or cancel).
   */
  readonly execute?: ((args: Args, context: ToolContext) => ToolExecution) | undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every argument type
export type AnyToolDefinition = ToolDefinition<any>;

export function defineTool<Args>(definition: ToolDefinition<Args>): ToolDefinition<Args> {
  return definition;
}

/** Types a JSON Schema input by its validator (a type guard, e.g. ajv's compiled `ValidateFunction<T>`). */
export function jsonSchemaInput<Args = Record<string, unknown>>(
  jsonSchema: Readonly<Record<string, unknown>>,
  validate?: JsonSchemaValidator<Args>,
): JsonSchemaInput<Args> {
  return validate ? { jsonSchema, validate } : { jsonSchema };
}

const isStandardSchema = (input: unknown): input is StandardSchemaV1 =>
  typeof input === "object" && input !== null && "~standard" in input;

/** Descriptors by definition: a tool's JSON Schema is derived once, not once per run. */
const descriptors = new WeakMap<AnyToolDefinition, ToolDescriptor>();

const ANY_OBJECT_SCHEMA = { type: "object" } as const;

function inputJsonSchema(tool: AnyToolDefinition): Record<string, unknown> {
  if (tool.jsonSchema) return { ...tool.jsonSchema };
  const input: unknown = tool.input;
  if (isStandardSchema(input)) {
    // The schema describes itself (its own library's converter, so a host's zod copy is read by
    // that copy); `input` because the model writes what the schema accepts, defaults optional.
    const converter = input["~standard"].jsonSchema;
    if (converter) return converter.input({ target: "draft-2020-12", libraryOptions: { unrepresentable: "any" } });
    if ("_zod" in (input as object)) {
      return z.toJSONSchema(input as z.ZodType, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
    }
    return { ...ANY_OBJECT_SCHEMA };
  }
  return { ...(input as JsonSchemaInput).jsonSchema };
}

/** What the model is shown: name, description, kind and the JSON Schema of the input. */
export function describeTool(tool: AnyToolDefinition): ToolDescriptor {
  const known = descriptors.get(tool);
  if (known) return known;
  const descriptor: ToolDescriptor = {
    name: tool.name,
    description: tool.description,
    kind: tool.kind,
    inputSchema: inputJsonSchema(tool),
  };
  descriptors.set(tool, descriptor);
  return descriptor;
}

export type ArgumentCheck =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problem: string };

function pathText(path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined): string {
  if (!path || path.length === 0) return "arguments";
  return path.map((segment) => String(typeof segment === "object" ? segment.key : segment)).join(".");
}

function standardCheck(result: StandardResult<unknown>): ArgumentCheck {
  if (!result.issues) return { ok: true, value: result.value };
  const issue = result.issues[0];
  return {
    ok: false,
    problem: issue ? `${pathText(issue.path)}: ${issue.message}` : "arguments do not match the tool's schema",
  };
}

interface AjvLikeError {
  readonly instancePath?: string;
  readonly message?: string;
}

/**
 * Validates a call's arguments against the tool's input. Synchronous for zod and JSON Schema;
 * a Standard Schema validator may answer with a Promise (async refinements).
 */
export function checkToolArguments(tool: AnyToolDefinition, args: unknown): ArgumentCheck | Promise<ArgumentCheck> {
  const input: unknown = tool.input;
  if (isStandardSchema(input)) {
    const result = input["~standard"].validate(args);
    return result instanceof Promise ? result.then(standardCheck) : standardCheck(result);
  }
  const { validate } = input as JsonSchemaInput;
  if (!validate) {
    return typeof args === "object" && args !== null && !Array.isArray(args)
      ? { ok: true, value: args }
      : { ok: false, problem: "arguments: expected a JSON object" };
  }
  if (validate(args)) return { ok: true, value: args };
  const errors = (validate as { errors?: ReadonlyArray<AjvLikeError> | null }).errors;
  const first = errors?.[0];
  return {
    ok: false,
    problem: first
      ? `${first.instancePath ? first.instancePath.slice(1).replaceAll("/", ".") : "arguments"}: ${first.message ?? "invalid"}`
      : "arguments do not match the tool's schema",
  };
}

/** Accepts any JSON object: for fixture tools whose arguments are not modelled. */
export const AnyObjectInput = z.record(z.string(), z.unknown());

/** Whether a call of the tool may run again after an unknown outcome: it only observes, or it is idempotent. */
export const mayRepeat = (tool: Pick<AnyToolDefinition, "kind" | "idempotent">): boolean =>
  tool.kind === "observe" || tool.idempotent === true;
