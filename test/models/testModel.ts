/**
 * A model known only to the tests, registered on import (before the node descriptions are built): it calls the
 * simulator's FLUX.2 [klein 4B] endpoint with a body of its own (the prompt and one Width parameter).
 */
import { registerImageModel, type ImageModelDescriptor } from '../../src/models';
import { InvalidParameterError } from '../../src/parameters/invalidParameter';

export const testModel: ImageModelDescriptor = {
	id: 'test-model',
	name: 'Test Model',
	output: 'image',
	accountLimit: 24,
	takesSeed: false,
	mediaType: 'image/png',
	endpoint: 'flux-2-klein-4b',
	maxReferenceImages: 1,
	properties: [{ displayName: 'Test Width', name: 'testWidth', type: 'number', default: 256, description: 'A multiple of 16' }],
	fields: (values) => {
		if (typeof values.testWidth !== 'number' || values.testWidth % 16 !== 0) throw new InvalidParameterError('testWidth', 'must be a multiple of 16');
		return { width: values.testWidth };
	},
	body: (request) => ({ prompt: request.prompt, ...request.modelFields }),
};

registerImageModel(testModel);
