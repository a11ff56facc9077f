import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Cassette } from "../../domain/index.js";
import { type ContractSignals, parseSkillManifest } from "../../services/contracts.js";
import { type BuiltinToolName, builtinTools } from "../../services/tools/builtin/index.js";
import { fixtureTool } from "../../services/tools/fixtureTool.js";
import type { AnyToolDefinition } from "../../services/tools/Tool.js";
import { CassetteError, type LoadedCase } from "./loadCassettes.js";
import { evalScratchRoot } from "./scratchRoot.js";

/** What a case needs before its run starts: its workspace, its tools and its contract signals. */

export type BuiltinToolFactory = (name: string, workspace: string) => AnyToolDefinition | undefined;

export function prepareWorkspace(cassette: Cassette): string {
  // Under this process's directory: a killed evaluation leaves one directory that the next one removes.
  const workspace = mkdtempSync(join(evalScratchRoot(), "agentloop-case-"));
  for (const [path, content] of Object.entries(cassette.workspace?.files ?? {})) {
    const target = join(workspace, path);
    if (!target.startsWith(workspace)) {
      throw new CassetteError({ reason: "unsatisfiable", message: `workspace file ${path} escapes the workspace` });
    }
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
  return workspace;
}

/** Built-in tools on the case's workspace; `send_message` delivers to an in-memory outbox with real ids. */
export const defaultBuiltinTool: BuiltinToolFactory = (name, workspace) => {
  let sent = 0;
  const outbox = {
    channelId: "outbox",
    send: async () => {
      sent += 1;
      return { messageId: `outbox-${randomUUID().slice(0, 8)}-${sent}` };
    },
  };
  return builtinTools(workspace, { senders: [outbox], runCommand: { defaultTimeoutMs: 20_000 } }).get(
    name as BuiltinToolName,
  );
};

export function caseTools(loaded: LoadedCase, workspace: string, builtinTool: BuiltinToolFactory) {
  return (loaded.cassette.tools ?? []).map((spec) => {
    if (!spec.builtin) return fixtureTool(spec);
    const tool = builtinTool(spec.name, workspace);
    if (!tool) {
      throw new CassetteError({
        reason: "unsatisfiable",
        message: `${loaded.file}: tools: builtin tool "${spec.name}" is not available`,
      });
    }
    return spec.approval ? { ...tool, requiresApproval: spec.approval } : tool;
  });
}

/** The case's contract signals: explicit, or deterministic signals (skill manifests read from its workspace). */
export function caseSignals(loaded: LoadedCase, workspace: string): ContractSignals {
  const { cassette } = loaded;
  const signals = cassette.signals ?? {};
  let skill: ReturnType<typeof parseSkillManifest> | undefined;
  if (signals.skill) {
    const path = join(workspace, "skills", signals.skill, "SKILL.md");
    if (!existsSync(path))
      throw new CassetteError({
        reason: "unsatisfiable",
        message: `${loaded.file}: signals.skill: no skills/${signals.skill}/SKILL.md in the workspace`,
      });
    skill = parseSkillManifest(readFileSync(path, "utf8"), signals.skill);
  }
  return {
    ...(cassette.contract ? { explicit: cassette.contract } : {}),
    ...(signals.command ? { command: signals.command } : {}),
    ...(skill ? { skill } : {}),
    ...(signals.jobType ? { jobType: signals.jobType } : {}),
    ...(signals.deliveryRequest ? { deliveryRequest: signals.deliveryRequest } : {}),
  };
}
