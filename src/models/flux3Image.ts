/**
 * FLUX 3 Image (`flux-3-image`, the image nodes' default model): Resolution, Aspect Ratio and Grounding are its
 * own parameters; up to ten reference images as `images`; no seed upstream (the Seed only keys the store).
 */
import type { INodeProperties } from 'n8n-workflow';

import { ASPECT_RATIOS, IMAGE_MODEL, RESOLUTIONS } from '../flux/options';
import { requestBody } from '../flux/request';
import type { ImageModelDescriptor } from './modelDescriptor';

/**
 * What each Resolution means (BFL's FLUX 3 Image tiers). BFL's reference names the tiers and prices each image
 * by tier; the pixel counts are the tiers' names read as the side of a square (768sq: 768 × 768; 1k: 1024 × 1024 …).
 */
const RESOLUTION_HELP: Record<(typeof RESOLUTIONS)[number], string> = {
	'768sq': 'About 768 × 768 pixels (0.6 megapixels): the cheapest, for drafts and thumbnails',
	'1k': 'About 1 megapixel (1024 × 1024 at 1:1): the API default',
	'1.5k': 'About 2.4 megapixels (1536 × 1536 at 1:1)',
	'2k': 'About 4 megapixels (2048 × 2048 at 1:1)',
	'4k': 'About 16 megapixels (4096 × 4096 at 1:1): the most expensive; can take several minutes',
};

/** The shapes, as width : height. */
const ASPECT_RATIO_HELP: Record<(typeof ASPECT_RATIOS)[number], string> = {
	auto: 'The shape of the first reference image; a square without one',
	'21:9': 'Ultra-wide landscape (cinema)',
	'16:9': 'Wide landscape (video, slides)',
	'3:2': 'Landscape (classic photo)',
	'4:3': 'Landscape (classic screen)',
	'5:4': 'Nearly square, landscape',
	'1:1': 'Square',
	'4:5': 'Nearly square, portrait (social feed)',
	'3:4': 'Portrait',
	'2:3': 'Portrait (classic photo)',
	'9:16': 'Tall portrait (phone screen, stories)',
	'9:21': 'Ultra-tall portrait',
};

const properties: INodeProperties[] = [
	{
		displayName: 'Resolution',
		name: 'resolution',
		type: 'options',
		default: '1k',
		options: RESOLUTIONS.map((value) => ({ name: value, value, description: RESOLUTION_HELP[value] })),
		description:
			'How many pixels the image has: about 768 × 768 (768sq), 1 megapixel (1k, e.g. 1024 × 1024 at 1:1), 2.4 MP (1.5k), 4 MP (2k) or 16 MP (4k). Aspect Ratio sets the shape. BFL prices each image by this tier; 4k can take several minutes.',
	},
	{
		displayName: 'Aspect Ratio',
		name: 'aspectRatio',
		type: 'options',
		default: 'auto',
		options: ASPECT_RATIOS.map((value) => ({ name: value, value, description: ASPECT_RATIO_HELP[value] })),
		description: 'Width : height of the image. Auto takes the shape of the first reference image, or makes a square when there is none.',
	},
	{
		displayName: 'Grounding',
		name: 'grounding',
		type: 'boolean',
		default: true,
		description:
			'Whether the model may look the prompt up (web and image search) before generating, so that real products, places and current events come out right. It can take longer; BFL lists no separate price for it (an image is priced by its Resolution).',
	},
];

/** Its fields are the node's own FluxParameters (resolution, aspectRatio, grounding): the request carries them. */
export const flux3Image: ImageModelDescriptor = {
	id: IMAGE_MODEL,
	name: 'FLUX 3 Image',
	output: 'image',
	accountLimit: 24,
	takesSeed: false,
	mediaType: 'image/png',
	endpoint: IMAGE_MODEL,
	maxReferenceImages: 10,
	properties,
	fields: () => ({}),
	body: (request) => requestBody({ ...request, model: undefined }),
};
