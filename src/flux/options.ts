/**
 * Option values shared with the node descriptions (dependency-free, so node
 * description files can import it cheaply). Values are stable: saved workflows use them.
 */

/** The model name of the image endpoint (`…/flux-3-image`), written into task items. */
export const IMAGE_MODEL = 'flux-3-image';

/** Option values of the Resolution parameter. */
export const RESOLUTIONS = ['768sq', '1k', '1.5k', '2k', '4k'] as const;

/** Option values of the Aspect Ratio parameter. */
export const ASPECT_RATIOS = [
	'auto',
	'21:9',
	'16:9',
	'3:2',
	'4:3',
	'5:4',
	'1:1',
	'4:5',
	'3:4',
	'2:3',
	'9:16',
	'9:21',
] as const;

export type Resolution = (typeof RESOLUTIONS)[number];
export type AspectRatio = (typeof ASPECT_RATIOS)[number];
