/** How the nodes word a bad parameter or credential: the editor's label and the item, as n8n counts items. */
import { NodeOperationError, type INode } from 'n8n-workflow';

import { redact } from '../redact';
import { InvalidParameterError } from '../parameters/invalidParameter';
import { toNodeError, type ErrorHints } from '../n8n/nodeErrors';
import { FLUX_CREDENTIAL_LABELS, parameterLabel, type ParameterLabels } from './parameterLabels';

/**
 * The message a node shows for a bad parameter of item `itemIndex`: the parameter as the editor names it, what is
 * wrong, and the item as n8n counts items in its own errors ("[item 0]" is the first, the "Item Index" n8n's
 * error view shows beside it).
 */
export function parameterErrorMessage(error: InvalidParameterError, labels: ParameterLabels, itemIndex: number): string {
	return redact(`Invalid parameter "${parameterLabel(error.field, labels)}": ${error.problem} [item ${itemIndex}]`, [], 1000);
}

/** An unusable FLUX API credential; the message names the field as the credential form shows it, never the key. */
export class FluxCredentialsError extends Error {
	override name = 'FluxCredentialsError';

	constructor(
		readonly field: string,
		message: string,
	) {
		super(`FLUX API credential: "${parameterLabel(field, FLUX_CREDENTIAL_LABELS)}" ${message}`);
	}
}

/** The message a node shows for an unusable credential, with the item as n8n counts it. */
export function credentialErrorMessage(error: FluxCredentialsError, itemIndex: number): string {
	return `${error.message} [item ${itemIndex}]`;
}

/**
 * The node error of an item whose job could not be prepared: a bad parameter names it as the editor shows it
 * (`labels`), a bad credential its field, anything else goes through toNodeError with the node's `hints`.
 */
export function preparationError(node: INode, error: unknown, itemIndex: number, labels: ParameterLabels, hints: ErrorHints): Error {
	if (error instanceof InvalidParameterError) return new NodeOperationError(node, parameterErrorMessage(error, labels, itemIndex), { itemIndex });
	if (error instanceof FluxCredentialsError) return new NodeOperationError(node, credentialErrorMessage(error, itemIndex), { itemIndex });
	return toNodeError(node, error, itemIndex, hints);
}
