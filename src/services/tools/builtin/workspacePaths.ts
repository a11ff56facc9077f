import { existsSync, lstatSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import * as Data from "effect/Data";

/** A path that would leave the workspace (directly, through `..`, or through a symlink), or no path at all. */
export class WorkspaceEscapeError extends Data.TaggedError("WorkspaceEscapeError")<{
  readonly reason: "invalid_path" | "outside_workspace" | "symlink_escape" | "symlink_loop";
  readonly message: string;
}> {}

function inside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** Whether `path` exists as a directory entry (a dangling symbolic link counts). */
function entryExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The deepest existing ancestor of `path` (itself when it exists), with symlinks resolved. A
 * dangling symbolic link is followed to where it points: writing through it would create its target.
 */
function realExistingAncestor(path: string, hops = 0): string {
  let current = path;
  while (!entryExists(current)) {
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  if (!existsSync(current) && lstatSync(current).isSymbolicLink()) {
    if (hops >= 40) {
      throw new WorkspaceEscapeError({ reason: "symlink_loop", message: `${path}: too many levels of symbolic links` });
    }
    return realExistingAncestor(resolve(realpathSync(dirname(current)), readlinkSync(current)), hops + 1);
  }
  return realpathSync(current);
}

/**
 * Resolves a workspace-relative path and refuses anything outside the workspace, symlink
 * escapes included: the real path of the deepest existing ancestor must stay inside the
 * workspace's real path.
 */
export function resolveInWorkspace(workspace: string, requested: string): { absolute: string; relative: string } {
  const root = realpathSync(workspace);
  if (requested.includes("\0")) {
    throw new WorkspaceEscapeError({
      reason: "invalid_path",
      message: `${JSON.stringify(requested)} is not a valid path`,
    });
  }
  const absolute = resolve(root, requested);
  if (!inside(root, absolute)) {
    throw new WorkspaceEscapeError({ reason: "outside_workspace", message: `${requested} is outside the workspace` });
  }
  if (!inside(root, realExistingAncestor(absolute))) {
    throw new WorkspaceEscapeError({
      reason: "symlink_escape",
      message: `${requested} leads outside the workspace through a symbolic link`,
    });
  }
  return { absolute, relative: relative(root, absolute) || "." };
}
