/**
 * How the nodes word a bad parameter or credential: the editor's label and the item, as n8n counts items. An
 * internal path (`prompt`, `referenceImages[3]`, `options.timeoutMinutes`, `keyframes[2].seconds`) becomes its
 * display name (`Prompt`, `Reference Images → Image 4`, `Options → Timeout (Minutes)`, …), read from the node's own
 * properties. Rows are counted from 1, as in the editor.
 */
import { NodeOperationError, type INode, type INodeProperties, type INodePropertyCollection } from 'n8n-workflow';

import { redact } from '../redact';
import { InvalidParameterError } from '../parameters/invalidParameter';
import { toNodeError, type ErrorHints } from '../n8n/nodeErrors';

/** Display names by internal path; `name[]` is what one row of a list parameter is called. */
export type ParameterLabels = Readonly<Record<string, string>>;

/** The display names of properties by path: a collection's options under it, a fixedCollection's row (`name[]`) and its fields. */
export function labelsOf(properties: readonly INodeProperties[], prefix = ''): Record<string, string> {
	const labels: Record<string, string> = {};
	for (const property of properties) {
		const path = prefix ? `${prefix}.${property.name}` : property.name;
		labels[path] = property.displayName;
		if (property.type === 'collection') Object.assign(labels, labelsOf(property.options as INodeProperties[], path));
		if (property.type === 'fixedCollection') {
			for (const row of property.options as INodePropertyCollection[]) {
				labels[`${path}[]`] = row.displayName;
				Object.assign(labels, labelsOf(row.values, `${path}[]`));
			}
		}
	}
	return labels;
}

/** The FLUX API credential's fields. */
export const FLUX_CREDENTIAL_LABELS: ParameterLabels = {
	apiStyle: 'API Style',
	baseUrl: 'Base URL',
	apiKey: 'API Key',
	dailyCreditLimit: 'Daily Credit Limit',
	dailyJobLimit: 'Daily Job Limit',
};

/**
 * The display name of an internal parameter path, each step joined by " → " (`Options → Cache`,
 * `Keyframes → Keyframe 3 → Timestamp (Seconds)`); a step the table does not know stays as it is.
 */
export function parameterLabel(field: string, labels: ParameterLabels): string {
	const steps = field.match(/[^.[\]]+|\[\d+\]/g) ?? [field];
	const shown: string[] = [];
	let pattern = '';
	for (const step of steps) {
		const row = /^\[(\d+)\]$/.exec(step);
		if (row) {
			pattern += '[]';
			shown.push(`${labels[pattern] ?? 'Row'} ${Number(row[1]) + 1}`);
		} else {
			pattern = pattern ? `${pattern}.${step}` : step;
			shown.push(labels[pattern] ?? step);
		}
	}
	return shown.join(' → ');
}

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

/**
 * The node error of an item whose job could not be prepared: a bad parameter names it as the editor shows it
 * (`labels`), a bad credential its field, anything else goes through toNodeError with the node's `hints`.
 */
export function preparationError(node: INode, error: unknown, itemIndex: number, labels: ParameterLabels, hints: ErrorHints): Error {
	if (error instanceof InvalidParameterError) return new NodeOperationError(node, parameterErrorMessage(error, labels, itemIndex), { itemIndex });
	if (error instanceof FluxCredentialsError) return new NodeOperationError(node, `${error.message} [item ${itemIndex}]`, { itemIndex });
	return toNodeError(node, error, itemIndex, hints);
}
