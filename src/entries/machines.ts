/** `agentloop/machines`: the pure statecharts, for the Stately visualizer and model-based tests. */
export { agentRunMachine } from "../machines/agentRun/machine.js";
export { type ApprovalEvent, type ApprovalInput, approvalMachine } from "../machines/approval/machine.js";
export { deliveryMachine } from "../machines/delivery.machine.js";
export type { RunContext, RunInput } from "../machines/run/context.js";
export type { RunEvent } from "../machines/run/events.js";
export { runMachine } from "../machines/run/machine.js";
export { type ToolBatchContext, type ToolBatchInput, toolBatchMachine } from "../machines/toolBatch/machine.js";
