/** Error messages name parameters as the editor shows them: the labels are the node descriptions' own display names. */
import { FluxApi } from '../../credentials/FluxApi.credentials';
import { fluxImageDescription } from '../../nodes/FluxImage/FluxImage.description';
import { fluxVideoDescription } from '../../nodes/FluxVideo/FluxVideo.description';
import { fluxNodeLabels } from '../../src/fluxN8n/fluxParameters';
import { FLUX_CREDENTIAL_LABELS, labelsOf, parameterErrorMessage, parameterLabel } from '../../src/fluxN8n/invalidInput';
import { InvalidParameterError } from '../../src/parameters/invalidParameter';

const IMAGE = fluxNodeLabels('image');
const VIDEO = fluxNodeLabels('video');

it('the nodes’ labels are their descriptions’ display names; the credential’s are its form’s', () => {
	expect(IMAGE).toEqual(labelsOf(fluxImageDescription.properties));
	expect(VIDEO).toEqual(labelsOf(fluxVideoDescription.properties));
	expect(FLUX_CREDENTIAL_LABELS).toEqual(labelsOf(new FluxApi().properties));
});

describe('parameterLabel', () => {
	it.each([
		['prompt', IMAGE, 'Prompt'],
		['safetyTolerance', IMAGE, 'Safety Tolerance'],
		['promptUpsampling', IMAGE, 'Prompt Upsampling'],
		['options.timeoutMinutes', IMAGE, 'Options → Timeout (Minutes)'],
		['options.maxDownloadMb', IMAGE, 'Options → Max Image Size (MB)'],
		['options.modelVersion', IMAGE, 'Options → Model Version'],
		['options.maxDownloadMb', VIDEO, 'Options → Max Video Size (MB)'],
		['options.modelVersion', VIDEO, 'Options → Model Version'],
		['referenceImages[3]', IMAGE, 'Reference Images → Image 4'],
		['keyframes[0].seconds', VIDEO, 'Keyframes → Keyframe 1 → Timestamp (Seconds)'],
		['draftCache', VIDEO, 'Draft Cache'],
		['draft', VIDEO, 'Draft'],
		['baseUrl', FLUX_CREDENTIAL_LABELS, 'Base URL'],
		['parameters', IMAGE, 'parameters'],
	])('%s → %s', (field, labels, expected) => {
		expect(parameterLabel(field, labels)).toBe(expected);
	});

	it('a node error names the parameter as shown and the item as n8n numbers it in its own errors', () => {
		const error = new InvalidParameterError('referenceImages[0]', 'binary property "photo" not found on the input item');
		expect(parameterErrorMessage(error, IMAGE, 2)).toBe('Invalid parameter "Reference Images → Image 1": binary property "photo" not found on the input item [item 2]');
	});
});
