import type { IExecuteFunctions } from 'n8n-workflow';

/** Node names by n8n context: one node run's context keeps its node. */
const names = new WeakMap<object, string>();

/**
 * The name of the node `ctx` runs, asked of n8n once per context: n8n's `getNode()` deep-copies the node, its
 * parameters too, on every call (a cost per item in a loop over 30 items); a node run's name does not change.
 */
export function nodeNameOf(ctx: Pick<IExecuteFunctions, 'getNode'>): string {
	let name = names.get(ctx);
	if (name === undefined) names.set(ctx, (name = ctx.getNode().name));
	return name;
}
