import { NodeOperationError, type INode } from 'n8n-workflow';

import { redact } from '../flux/redact';
import { toNodeError, type ErrorHints } from '../n8n/nodeErrors';
import { FLUX_CREDENTIAL_LABELS, parameterLabel, type ParameterLabels } from './parameterLabels';

/**
 * A node parameter failed validation. `field` names it by its internal path (`prompt`,
 * `referenceImages[3]`, `options.timeoutMinutes`, …) and `problem` says what is wrong; the node's
 * error names the parameter as the editor shows it and adds the item ({@link parameterErrorMessage}).
 */
export class InvalidParameterError extends Error {
	override name = 'InvalidParameterError';

	readonly problem: string;

	constructor(
		readonly field: string,
		problem: string,
	) {
		super(redact(`Invalid parameter "${field}": ${problem}`, [], 1000));
		this.problem = problem;
	}
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

/** A short, safe description of a rejected value for an error message. */
export function describeValue(value: unknown): string {
	if (value === undefined) return 'nothing';
	if (value === null) return 'null';
	if (typeof value === 'string') return `"${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;
	if (typeof value === 'number' || typeof value === 'boolean') return String(value);
	if (Array.isArray(value)) return 'a list';
	return `a ${typeof value}`;
}

/** `referenceImages[3]`, `options.timeoutMinutes`: the field an issue path names. */
export function fieldOf(path: ReadonlyArray<string | number>): string {
	return path.reduce<string>((field, key) => (typeof key === 'number' ? `${field}[${key}]` : field ? `${field}.${key}` : key), '') || 'parameters';
}

/** The raw value at an issue path (undefined where the path leaves the object). */
export function valueAt(raw: unknown, path: ReadonlyArray<string | number>): unknown {
	let value = raw;
	for (const key of path) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
	return value;
}
