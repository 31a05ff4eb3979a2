/** An image model's descriptor from its declarations, and the Reference Images parameter every image model takes. */
import type { Media, ReferenceImage } from '../flux/request';
import { mediaListSchema } from '../parameters/mediaSources';
import { describeModel, type ModelDescriptor } from './modelDescriptor';
import type { Parameter } from './parameter';
import { prompt } from './sharedParameters';

/** An image model (the FLUX image node and its twin). */
export interface ImageModelDescriptor extends ModelDescriptor {
	output: 'image';
	/** Its reference images at most (the body's `referenceImages` value: the resolved images). */
	maxReferenceImages: number;
}

type ImageModelSpec = Pick<ImageModelDescriptor, 'id' | 'name' | 'maxReferenceImages' | 'parameters' | 'check' | 'listPrice'> & Partial<Pick<ImageModelDescriptor, 'accountLimit' | 'endpoint'>>;

/** An image model: 24 active tasks per account (BFL's default), PNG unless its bytes say otherwise, its id as endpoint. */
export function describeImageModel(spec: ImageModelSpec): ImageModelDescriptor {
	return describeModel({ output: 'image' as const, accountLimit: 24, mediaType: 'image/png', endpoint: spec.id, ...spec });
}

/** The Prompt of an image model. */
export const imagePrompt = prompt('A studio photo of a ceramic mug on oak, soft window light', 'What to generate, or how to edit the reference images');

/** Reference Images: up to `max` rows (for `owner`, when it says), each a binary property or an http(s) URL, written into the body by `wire`. */
export const referenceImages = (max: number, wire: (images: ReferenceImage[], media: Media) => Record<string, unknown>, owner?: string): Parameter => ({
	name: 'referenceImages',
	property: {
		displayName: 'Reference Images',
		name: 'referenceImages',
		type: 'fixedCollection',
		placeholder: 'Add Reference Image',
		typeOptions: { multipleValues: true, multipleValueButtonText: 'Add Reference Image' },
		default: {},
		description: 'Up to ten images (FLUX 3 Image), eight (FLUX.2 [pro], [flex], [max]) or four (FLUX.2 [klein]) to edit or take style from, in this order',
		options: [
			{
				displayName: 'Image',
				name: 'images',
				values: [
					{
						displayName: 'Binary Property or URL',
						name: 'source',
						type: 'string',
						default: '',
						placeholder: 'data',
						description: 'The name of a binary property on the input item (e.g. data), or an http(s) URL of an image',
					},
				],
			},
		],
	},
	schema: mediaListSchema('images', max, 'reference images', owner),
	wire,
});
