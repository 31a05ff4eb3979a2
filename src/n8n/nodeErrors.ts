import { NodeApiError, NodeOperationError, type INode } from 'n8n-workflow';

import { redact } from '../redact';

/**
 * Hints shown as a node error's description, keyed by the error's `kind`
 * (or, when it has none, its `code`). A source provides its own; this module
 * knows no source.
 */
export type ErrorHints = Readonly<Partial<Record<string, string>>>;

/** A field of an error, read by value (the error may come from another copy of the package). */
function stringField(error: unknown, field: 'kind' | 'code' | 'name'): string | undefined {
	if (typeof error !== 'object' || error === null) return undefined;
	const value = (error as Record<string, unknown>)[field];
	return typeof value === 'string' && value !== '' ? value : undefined;
}

function messageOf(error: unknown): string {
	if (error instanceof Error) return error.message;
	if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
		return (error as { message: string }).message;
	}
	return String(error);
}

/**
 * Turn any error into an n8n node error with the item index, classifying it by
 * value: an n8n error is kept; a cancelled pool wait/job (`name`
 * PoolCancelledError) becomes "Execution canceled" (how n8n recognises a
 * cancelled run); an error with a `kind` (typed, already-redacted errors such as
 * the FLUX client's) gets `hints[kind]` as description; anything else gets
 * `hints[code]` when it has a `code`. Every message is redacted.
 */
export function toNodeError(
	node: INode,
	error: unknown,
	itemIndex?: number,
	hints: ErrorHints = {},
): NodeOperationError | NodeApiError {
	if (error instanceof NodeOperationError || error instanceof NodeApiError) return error;
	// A cancelled wait or job is recognised by name, so that another package copy's error counts.
	if (stringField(error, 'name') === 'PoolCancelledError') {
		return new NodeOperationError(node, 'Execution canceled', { itemIndex, description: messageOf(error) });
	}
	const kind = stringField(error, 'kind');
	if (kind !== undefined) {
		return new NodeOperationError(node, redact(messageOf(error)), {
			itemIndex,
			description: hints[kind] ?? `Error kind: ${kind}`,
		});
	}
	const code = stringField(error, 'code');
	const description = code === undefined ? undefined : hints[code];
	return new NodeOperationError(node, redact(messageOf(error)), { itemIndex, ...(description ? { description } : {}) });
}
