import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The package's own package.json. Resolved from this module rather than the working directory, so
 * the same path works from `src/cli/` (tsx, vitest) and from the compiled `dist/cli/`.
 */
const PACKAGE_JSON = new URL("../../package.json", import.meta.url);

/** The version field of the package.json at `packageJson`, read at run time so a release never needs a code change. */
export function readPackageVersion(packageJson: URL = PACKAGE_JSON): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(packageJson, "utf8"));
  } catch (error) {
    throw new Error(
      `cannot read the agentloop version from ${fileURLToPath(packageJson)}: ${(error as Error).message}`,
    );
  }
  const version = (parsed as { version?: unknown } | null)?.version;
  if (typeof version !== "string" || version.length === 0) {
    throw new Error(`${fileURLToPath(packageJson)} has no version`);
  }
  return version;
}
