import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import * as Data from "effect/Data";
import type { z } from "zod";
import { type Cassette, CassetteFile } from "../../domain/index.js";

export interface LoadedCase {
  readonly file: string;
  readonly cassette: Cassette;
}

export type CassetteErrorReason =
  /** A path names no file or directory, or none of them holds a cassette. */
  | "not_found"
  | "no_cassettes"
  /** A file is not JSON, or a case does not match the cassette format. */
  | "invalid_json"
  | "invalid_case"
  /** Two cases share a name. */
  | "duplicate_name"
  /** A case asks for what the evaluation cannot give it (a workspace file outside the workspace, an unknown built-in tool, a missing skill). */
  | "unsatisfiable";

/** A cassette that cannot be used, described in one line naming the file and the field. */
export class CassetteError extends Data.TaggedError("CassetteError")<{
  readonly reason: CassetteErrorReason;
  readonly message: string;
}> {}

function listJsonFiles(path: string): string[] {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) throw new CassetteError({ reason: "not_found", message: `${path}: no such file or directory` });
  if (stat.isFile()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const full = join(path, entry.name);
      if (entry.isDirectory()) return listJsonFiles(full);
      return entry.isFile() && entry.name.endsWith(".json") ? [full] : [];
    });
}

function describeIssue(file: string, issue: z.core.$ZodIssue, isArray: boolean): string {
  const path = issue.path.map(String);
  const where =
    isArray && path.length > 0
      ? `case ${path[0]}${path.length > 1 ? `, field ${path.slice(1).join(".")}` : ""}`
      : path.length > 0
        ? `field ${path.join(".")}`
        : "top level";
  if (issue.code === "unrecognized_keys") {
    const keys = (issue as { keys: string[] }).keys;
    const parent = where === "top level" ? "" : ` in ${where}`;
    return `${file}: unknown field ${keys.map((key) => `"${key}"`).join(", ")}${parent}`;
  }
  if (issue.code === "invalid_type" && (issue as { input?: unknown }).input === undefined) {
    return `${file}: missing required ${where}`;
  }
  return `${file}: ${where}: ${issue.message}`;
}

function parseFile(file: string, displayName: string): Cassette[] {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new CassetteError({
      reason: "invalid_json",
      message: `${displayName}: not valid JSON (${(error as Error).message.split("\n")[0]})`,
    });
  }
  // `reportInput` keeps the offending value on each issue: a wrong type is not a missing field.
  const parsed = CassetteFile.safeParse(json, { reportInput: true });
  if (!parsed.success) {
    const issue = pickIssue(parsed.error.issues, Array.isArray(json));
    throw new CassetteError({
      reason: "invalid_case",
      message: describeIssue(displayName, issue, Array.isArray(json)),
    });
  }
  return Array.isArray(parsed.data) ? parsed.data : [parsed.data];
}

/** For a union (object | array) zod reports one "invalid_union" issue; dig to the branch that matches the input. */
function pickIssue(issues: ReadonlyArray<z.core.$ZodIssue>, isArray: boolean): z.core.$ZodIssue {
  const first = issues[0]!;
  if (first.code !== "invalid_union") return first;
  const branches = (first as unknown as { errors: z.core.$ZodIssue[][] }).errors;
  const branch = branches[isArray ? 1 : 0] ?? branches[0] ?? [];
  return branch[0] ?? first;
}

/** Loads every case from files and directories (`*.json`, sorted), validating the public format. */
export function loadCassettes(paths: ReadonlyArray<string>, cwd = process.cwd()): LoadedCase[] {
  const cases: LoadedCase[] = [];
  const names = new Map<string, string>();
  for (const path of paths) {
    for (const file of listJsonFiles(path)) {
      const displayName = relative(cwd, file) || file;
      for (const cassette of parseFile(file, displayName)) {
        const previous = names.get(cassette.name);
        if (previous) {
          throw new CassetteError({
            reason: "duplicate_name",
            message: `${displayName}: field name: "${cassette.name}" is already used in ${previous}`,
          });
        }
        names.set(cassette.name, displayName);
        cases.push({ file: displayName, cassette });
      }
    }
  }
  if (cases.length === 0) {
    throw new CassetteError({ reason: "no_cassettes", message: `${paths.join(", ")}: no cassettes found` });
  }
  return cases;
}
