/**
 * FLUX 3 Image (`flux-3-image`, the image nodes' default model; FLUX_API.md): Resolution, Aspect Ratio, Grounding,
 * Safety Tolerance 0–4, up to ten reference images as `images`, a pinned Model Version; no seed upstream.
 */
import { booleanLike, choice } from '../parameters/fieldSchemas';
import { modelVersion, safetyTolerance } from './sharedParameters';
import { describeImageModel, imagePrompt, referenceImages } from './imageModel';
import type { Parameter } from './parameter';

/** What each Resolution means (BFL's tiers, read as the side of a square: 768sq is 768 × 768, 1k is 1024 × 1024 …). */
const RESOLUTIONS = {
	'768sq': 'About 768 × 768 pixels (0.6 megapixels): the cheapest, for drafts and thumbnails',
	'1k': 'About 1 megapixel (1024 × 1024 at 1:1): the API default',
	'1.5k': 'About 2.4 megapixels (1536 × 1536 at 1:1)',
	'2k': 'About 4 megapixels (2048 × 2048 at 1:1)',
	'4k': 'About 16 megapixels (4096 × 4096 at 1:1): the most expensive; can take several minutes',
};

/** The shapes BFL accepts, as width : height, in BFL's order. */
const ASPECT_RATIOS = {
	auto: 'The shape of the first reference image; a square without one',
	'21:9': 'Ultra-wide landscape (cinema)',
	'2:1': 'Wide landscape (banners, panoramas)',
	'16:9': 'Wide landscape (video, slides)',
	'3:2': 'Landscape (classic photo)',
	'7:5': 'Landscape (print sizes such as 7 × 5 in)',
	'4:3': 'Landscape (classic screen)',
	'5:4': 'Nearly square, landscape',
	'1:1': 'Square',
	'4:5': 'Nearly square, portrait (social feed)',
	'3:4': 'Portrait',
	'5:7': 'Portrait (print sizes such as 5 × 7 in)',
	'2:3': 'Portrait (classic photo)',
	'9:16': 'Tall portrait (phone screen, stories)',
	'1:2': 'Tall portrait (posters, tall banners)',
	'9:21': 'Ultra-tall portrait',
};

/** An options parameter whose values are `help`'s keys, each with its help text; blank takes `fallback`. */
function options<T extends Record<string, string>>(name: string, displayName: string, help: T, fallback: keyof T & string, wire: string, description: string): Parameter {
	const values = Object.keys(help) as [keyof T & string, ...Array<keyof T & string>];
	const choices = Object.entries(help).map(([value, text]) => ({ name: value, value, description: text }));
	return { name, property: { displayName, name, type: 'options', default: fallback, options: choices, description }, schema: choice(values, fallback), wire };
}

export const flux3Image = describeImageModel({
	id: 'flux-3-image',
	name: 'FLUX 3 Image',
	maxReferenceImages: 10,
	parameters: [
		imagePrompt,
		options(
			'resolution',
			'Resolution',
			RESOLUTIONS,
			'1k',
			'resolution',
			'How many pixels the image has: about 768 × 768 (768sq), 1 megapixel (1k, e.g. 1024 × 1024 at 1:1), 2.4 MP (1.5k), 4 MP (2k) or 16 MP (4k). Aspect Ratio sets the shape. BFL prices each image by this tier; 4k can take several minutes.',
		),
		options('aspectRatio', 'Aspect Ratio', ASPECT_RATIOS, 'auto', 'aspect_ratio', 'Width : height of the image. Auto takes the shape of the first reference image, or makes a square when there is none.'),
		{
			name: 'grounding',
			property: {
				displayName: 'Grounding',
				name: 'grounding',
				type: 'boolean',
				default: true,
				description:
					'Whether the model may look the prompt up (web and image search) before generating, so that real products, places and current events come out right. It can take longer; BFL lists no separate price for it (an image is priced by its Resolution).',
			},
			schema: booleanLike(true),
			wire: 'grounding',
		},
		safetyTolerance(4, ' (FLUX 3)'),
		referenceImages(10, (images, media) => (images.length > 0 ? { images: images.map(media) } : {})),
		modelVersion,
	],
});
