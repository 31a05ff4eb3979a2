import { NodeApiError, NodeOperationError, type INode } from 'n8n-workflow';

import { FluxError, redact, type FluxErrorKind } from '../flux';
import { PoolCancelledError } from '../pool';

const HINTS: Partial<Record<FluxErrorKind, string>> = {
	auth: 'Check the FLUX API credential (API style, base URL and key).',
	credits: 'The account is out of credits.',
	maybe_submitted:
		'The job may exist upstream; it was not retried, so that it is not paid twice. Check the provider before re-running.',
	request_moderated: 'The prompt or reference images were refused by moderation.',
	content_moderated: 'The generated image was refused by moderation.',
	timeout: 'The job did not finish within its timeout (Options → Timeout).',
	rate_limited: 'The API kept answering 429. Lower COMFLY_IMAGE_CONCURRENCY.',
};

/**
 * Turn any error from our code into an n8n node error with the item index.
 * Messages are already redacted by the FLUX client; anything else is redacted here.
 */
export function toNodeError(node: INode, error: unknown, itemIndex?: number): NodeOperationError | NodeApiError {
	if (error instanceof NodeOperationError || error instanceof NodeApiError) return error;
	if (error instanceof PoolCancelledError) {
		// n8n recognises a cancelled run by "canceled" in the node error's message.
		return new NodeOperationError(node, 'Execution canceled', { itemIndex, description: error.message });
	}
	if (error instanceof FluxError) {
		return new NodeOperationError(node, error.message, {
			itemIndex,
			description: HINTS[error.kind] ?? `Error kind: ${error.kind}`,
		});
	}
	const message = error instanceof Error ? error.message : String(error);
	return new NodeOperationError(node, redact(message), { itemIndex });
}
