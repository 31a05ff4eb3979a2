/**
 * Parameter names as the editor shows them, for error messages: an internal path (`prompt`, `referenceImages[3]`,
 * `options.timeoutMinutes`, `keyframes[2].seconds`) becomes its display name (`Prompt`, `Reference Images → Image 4`,
 * `Options → Timeout (Minutes)`, …), read from the node's own properties. Rows are counted from 1, as in the editor.
 */
import type { INodeProperties, INodePropertyCollection } from 'n8n-workflow';

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
