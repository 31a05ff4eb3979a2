/**
 * A bad parameter value, named by its internal path: what the models and the n8n glue both throw, below both
 * (the node turns it into its own message with the editor's label and the item: fluxN8n/invalidInput.ts).
 */
import { redact } from '../redact';

/**
 * A node parameter failed validation. `field` names it by its internal path (`prompt`,
 * `referenceImages[3]`, `options.timeoutMinutes`, …) and `problem` says what is wrong.
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
