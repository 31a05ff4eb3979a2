import type { IExecuteFunctions } from 'n8n-workflow';

/**
 * True when n8n runs the node as an AI Agent tool. n8n serves a node with `usableAsTool` as the extra
 * type `<type>Tool` (outputs `ai_tool`); the agent calls it either through n8n-core's tool wrapper
 * (a SupplyDataContext: `isToolExecution()` is true, n8n >= 2.x with that method) or, with engine
 * requests, as a regular node run of that `…Tool` type (`isToolExecution()` is false there). The type
 * name covers both, and n8n 2.0 (no `isToolExecution`).
 */
export function isToolCall(ctx: Pick<IExecuteFunctions, 'getNode'>): boolean {
	const asTool = (ctx as { isToolExecution?: () => boolean }).isToolExecution?.();
	return asTool === true || ctx.getNode().type.endsWith('Tool');
}
