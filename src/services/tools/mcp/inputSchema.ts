import type {
  JsonSchemaType,
  jsonSchemaValidator as SdkSchemaValidators,
} from "@modelcontextprotocol/sdk/validation/types.js";
import { errorText } from "../../../domain/errorText.js";
import type { JsonSchemaValidator } from "../Tool.js";

/**
 * How an MCP tool's input schema becomes the check its arguments pass before anything is sent.
 * A server's schema may point at documents agentloop will not fetch (`$ref` to a URL, or to a
 * place the schema does not have): such a reference accepts anything at its place, and every
 * other part of the schema is still checked. A schema that cannot be compiled for any other reason
 * leaves the tool unoffered, with the reason, rather than offered without a check.
 */

export type InputSchemaCheck =
  | {
      readonly ok: true;
      readonly validate: JsonSchemaValidator<Record<string, unknown>>;
      /** The references (as resolved) that could not be followed and accept anything. */
      readonly unresolvedRefs: ReadonlyArray<string>;
    }
  | { readonly ok: false; readonly reason: string };

/** Makes a validator set; the SDK's ajv one in production. */
export type ValidatorSource = () => SdkSchemaValidators;

/** Keywords whose values are data (instances), not schemas: a `$ref` inside them is a value. */
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples"]);

const withoutEmptyFragment = (id: string) => (id.endsWith("#") ? id.slice(0, -1) : id);
const normalised = (uri: string) => (URL.canParse(uri) ? new URL(uri).href : uri);

/** A reference resolved against the base of the schema resource it is in, as ajv resolves it. */
function resolve(base: string, ref: string): string {
  const target = withoutEmptyFragment(ref);
  if (URL.canParse(target)) return new URL(target).href;
  if (base !== "" && URL.canParse(target, base)) return new URL(target, base).href;
  if (target.startsWith("#")) return `${base.replace(/#.*$/, "")}${target}`;
  return target;
}

/** Removes each `$ref` that resolves to `missing` (its sibling keywords stay); returns how many. */
function dropReference(node: unknown, missing: string, base: string): number {
  if (Array.isArray(node)) return node.reduce((count: number, item) => count + dropReference(item, missing, base), 0);
  if (typeof node !== "object" || node === null) return 0;
  const schema = node as Record<string, unknown>;
  const here = typeof schema.$id === "string" ? resolve(base, schema.$id) : base;
  let dropped = 0;
  if (typeof schema.$ref === "string") {
    const ref = schema.$ref;
    if (resolve(here, ref) === missing || normalised(withoutEmptyFragment(ref)) === missing) {
      delete schema.$ref;
      dropped += 1;
    }
  }
  for (const [key, value] of Object.entries(schema)) {
    if (!DATA_KEYWORDS.has(key)) dropped += dropReference(value, missing, here);
  }
  return dropped;
}

const messageOf = (error: unknown) => errorText(error, { firstLine: true });

/**
 * The check of `schema`'s arguments. `shared` compiles schemas without an `$id`; a schema that
 * names itself gets validators of its own, so that two tools with the same `$id` are not checked
 * against each other's schema (ajv keeps one schema per id).
 */
export function compileInputSchema(
  schema: Readonly<Record<string, unknown>>,
  shared: SdkSchemaValidators,
  fresh: ValidatorSource,
): InputSchemaCheck {
  const text = JSON.stringify(schema);
  let current = JSON.parse(text) as Record<string, unknown>;
  const validators = text.includes('"$id"') ? fresh : () => shared;
  const unresolvedRefs: string[] = [];
  // Each round drops at least one `$ref`, so the rounds are bounded by the schema's own size.
  for (;;) {
    let check: (input: unknown) => { valid: boolean; errorMessage?: string | undefined };
    try {
      check = validators().getValidator(current as JsonSchemaType);
    } catch (error) {
      const missing = (error as { missingRef?: unknown }).missingRef;
      if (typeof missing !== "string" || missing === "") {
        return { ok: false, reason: `its input schema cannot be compiled: ${messageOf(error)}` };
      }
      const next = JSON.parse(JSON.stringify(current)) as Record<string, unknown>;
      if (dropReference(next, normalised(missing), "") === 0) {
        return { ok: false, reason: `its input schema's reference ${missing} cannot be resolved here` };
      }
      unresolvedRefs.push(missing);
      current = next;
      continue;
    }
    const validate = (value: unknown): boolean => {
      const outcome = check(value);
      (validate as { errors?: unknown }).errors = outcome.valid
        ? null
        : [{ message: outcome.errorMessage ?? "invalid" }];
      return outcome.valid;
    };
    return { ok: true, validate, unresolvedRefs };
  }
}
