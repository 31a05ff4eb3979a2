/**
 * The Concurrent Submit node's "connect a collector" hint, only where it helps: after a run that succeeded
 * (n8n records a node's execution hints only when it returns) and only when no enabled collector of its kind
 * is anywhere downstream. The collector is recognised by its node type name, whatever package prefix n8n gives it.
 */
import type { IExecuteFunctions, NodeExecutionHint } from 'n8n-workflow';

import type { JobKind } from '../pool';

/** The collector node of each job kind: its type name (after the package prefix) and its display name. */
export const COLLECTOR_OF_KIND: Readonly<Record<JobKind, { typeName: string; displayName: string; things: string }>> = {
	image: { typeName: 'concurrentCollect', displayName: 'Concurrent Collect Images', things: 'images' },
	video: { typeName: 'concurrentCollectVideos', displayName: 'Concurrent Collect Videos', things: 'videos' },
};

/** The hint's text for a submit node of `kind`. */
export function connectCollectorMessage(kind: JobKind): string {
	const { displayName, things } = COLLECTOR_OF_KIND[kind];
	return `This node outputs tasks, not ${things}, and no ${displayName} node is connected after it. Connect one: it waits for the jobs and returns the ${things} in order.`;
}

/** True when an enabled collector of `kind` is downstream of the running node. */
export function hasCollectorDownstream(ctx: IExecuteFunctions, kind: JobKind): boolean {
	const { typeName } = COLLECTOR_OF_KIND[kind];
	return ctx.getChildNodes(ctx.getNode().name).some((child) => !child.disabled && child.type.split('.').pop() === typeName);
}

/** Adds the hint to this run when no collector is downstream (see the module comment). */
export function hintWhenNoCollector(ctx: IExecuteFunctions, kind: JobKind): void {
	if (hasCollectorDownstream(ctx, kind)) return;
	const hint: NodeExecutionHint = { message: connectCollectorMessage(kind), type: 'warning', location: 'outputPane' };
	ctx.addExecutionHints(hint);
}
