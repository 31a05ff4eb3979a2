/**
 * A model known only to the tests, registered on import (before the node descriptions are built): it calls the
 * simulator's FLUX.2 [klein 4B] endpoint with a body of its own, made from its declarations alone: the prompt, one
 * Width parameter (sent as `width`) and one option (Options → Test Format, sent as `output_format`).
 */
import { z } from 'zod';

import { describeImageModel, imagePrompt, registerImageModel, type Parameter } from '../../src/models';

const testWidth: Parameter = {
	name: 'testWidth',
	property: { displayName: 'Test Width', name: 'testWidth', type: 'number', default: 256, description: 'A multiple of 16' },
	schema: z.number({ invalid_type_error: 'must be a number' }).refine((n) => n % 16 === 0, 'must be a multiple of 16'),
	wire: 'width',
};

const testFormat: Parameter = {
	name: 'testFormat',
	in: 'options',
	property: { displayName: 'Test Format', name: 'testFormat', type: 'options', default: 'png', options: [{ name: 'PNG', value: 'png' }, { name: 'JPEG', value: 'jpeg' }], description: 'The file type' },
	schema: z.enum(['png', 'jpeg']).default('png'),
	wire: 'output_format',
	sendIf: (v: string) => v !== 'png',
};

export const testModel = describeImageModel({ id: 'test-model', name: 'Test Model', endpoint: 'flux-2-klein-4b', maxReferenceImages: 1, parameters: [imagePrompt, testWidth, testFormat] });

registerImageModel(testModel);
