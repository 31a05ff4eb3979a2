/** Option values of the FLUX 3 Image parameters, exactly as the API and saved workflows spell them. */
export const RESOLUTIONS = ['768sq', '1k', '1.5k', '2k', '4k'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

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
export type AspectRatio = (typeof ASPECT_RATIOS)[number];

/** The model name this package's image nodes call. */
export const IMAGE_MODEL = 'flux-3-image';
