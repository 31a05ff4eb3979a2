/** Error messages name parameters as the editor shows them: every label the messages use is the description's own. */
import type { INodeProperties, INodePropertyCollection } from 'n8n-workflow';

import { FluxApi } from '../../credentials/FluxApi.credentials';
import { fluxImageDescription } from '../../nodes/FluxImage/FluxImage.description';
import { fluxVideoDescription } from '../../nodes/FluxVideo/FluxVideo.description';
import { parameterErrorMessage } from '../../src/fluxN8n/invalidInput';
import { InvalidParameterError } from '../../src/parameters/invalidParameter';
import {
	FLUX_CREDENTIAL_LABELS,
	FLUX_IMAGE_PARAMETER_LABELS,
	FLUX_VIDEO_PARAMETER_LABELS,
	parameterLabel,
	type ParameterLabels,
} from '../../src/fluxN8n/parameterLabels';

/**
 * Every path of a description with the name the editor shows for it: `options.cache` → Cache, a fixedCollection's
 * row `referenceImages[]` → Image (what its "Add" rows are called) and its fields `referenceImages[].source`.
 */
function displayNames(properties: INodeProperties[], prefix = ''): Record<string, string> {
	const names: Record<string, string> = {};
	for (const property of properties) {
		const path = prefix ? `${prefix}.${property.name}` : property.name;
		names[path] = property.displayName;
		if (property.type === 'collection') Object.assign(names, displayNames(property.options as INodeProperties[], path));
		if (property.type === 'fixedCollection') {
			for (const row of property.options as INodePropertyCollection[]) {
				names[`${path}[]`] = row.displayName;
				for (const field of row.values) names[`${path}[].${field.name}`] = field.displayName;
			}
		}
	}
	return names;
}

describe.each([
	['FLUX 3 Image', FLUX_IMAGE_PARAMETER_LABELS, fluxImageDescription.properties],
	['FLUX 3 Video', FLUX_VIDEO_PARAMETER_LABELS, fluxVideoDescription.properties],
	['FLUX API credential', FLUX_CREDENTIAL_LABELS, new FluxApi().properties],
])('%s', (_what, labels: ParameterLabels, properties) => {
	it('every label is the display name the editor shows', () => {
		const shown = displayNames(properties);
		for (const [path, label] of Object.entries(labels)) expect([path, shown[path]]).toEqual([path, label]);
	});

	it('every parameter has a label', () => {
		for (const property of properties.filter((p) => p.type !== 'notice')) expect(labels[property.name]).toBe(property.displayName);
	});
});

describe('parameterLabel', () => {
	it.each([
		['prompt', FLUX_IMAGE_PARAMETER_LABELS, 'Prompt'],
		['options.timeoutMinutes', FLUX_IMAGE_PARAMETER_LABELS, 'Options → Timeout (Minutes)'],
		['options.maxDownloadMb', FLUX_IMAGE_PARAMETER_LABELS, 'Options → Max Image Size (MB)'],
		['options.maxDownloadMb', FLUX_VIDEO_PARAMETER_LABELS, 'Options → Max Video Size (MB)'],
		['referenceImages[3]', FLUX_IMAGE_PARAMETER_LABELS, 'Reference Images → Image 4'],
		['keyframes[0].seconds', FLUX_VIDEO_PARAMETER_LABELS, 'Keyframes → Keyframe 1 → Timestamp (Seconds)'],
		['baseUrl', FLUX_CREDENTIAL_LABELS, 'Base URL'],
		['parameters', FLUX_IMAGE_PARAMETER_LABELS, 'parameters'],
	])('%s → %s', (field, labels, expected) => {
		expect(parameterLabel(field, labels)).toBe(expected);
	});

	it('a node error names the parameter as shown and the item as n8n numbers it in its own errors', () => {
		const error = new InvalidParameterError('referenceImages[0]', 'binary property "photo" not found on the input item');
		expect(parameterErrorMessage(error, FLUX_IMAGE_PARAMETER_LABELS, 2)).toBe(
			'Invalid parameter "Reference Images → Image 1": binary property "photo" not found on the input item [item 2]',
		);
	});
});
