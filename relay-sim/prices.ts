/**
 * The simulator's price table, in BFL credits (1 credit = $0.01). FLUX 3: the simulator's own round numbers, chosen
 * so that tests and the demo show real figures (they are not BFL's prices): an image costs by its resolution, a
 * clip by its length and resolution (`duration: 'auto'` counts as 10 s), a draft a third of that clip in HD (drafts
 * render at HD), a draft's enhancement what the draft's own settings cost in full. FLUX.2: BFL's list prices per
 * megapixel (FLUX_API.md's sources; the simulator's own copy). BFL style: an image's cost comes with the submit
 * answer, a clip's with the finished poll (null at submit). `reportCost: false` omits it everywhere.
 */
import type { DraftOrigin } from './draftCache';

/** Credits per image, by `resolution` (absent: the API's default, 1k). */
export const SIM_IMAGE_CREDITS: Readonly<Record<string, number>> = { '768sq': 3, '1k': 4, '1.5k': 6, '2k': 8, '4k': 16 };
/** Credits per second of clip, by `resolution` (absent: hd). */
export const SIM_VIDEO_CREDITS_PER_SECOND: Readonly<Record<string, number>> = { hd: 10, fhd: 17 };
/** The length a clip with `duration: 'auto'` is charged for. */
export const SIM_VIDEO_AUTO_SECONDS = 10;
/** A draft costs this share of the same clip in HD. */
export const SIM_DRAFT_SHARE = 1 / 3;
/** FLUX.2 list prices: credits for the first megapixel and for each further one (output beyond the first, each input image). */
export const SIM_FLUX2_CREDITS: Readonly<Record<string, [number, number]>> = {
	'flux-2-klein-4b': [1.4, 0.1],
	'flux-2-klein-9b': [1.5, 0.2],
	'flux-2-pro': [3, 1.5],
	'flux-2-max': [7, 3],
	'flux-2-flex': [5, 5],
};

const cents = (credits: number) => Math.round(credits * 100) / 100;

function flux2Cost(first: number, further: number, fields: Record<string, unknown>): number {
	const width = typeof fields.width === 'number' ? fields.width : 1024;
	const height = typeof fields.height === 'number' ? fields.height : 1024;
	const outputMp = Math.max(1, Math.ceil((width * height) / 1024 ** 2));
	const inputs = Object.keys(fields).filter((name) => /^input_image(_\d+)?$/.test(name) && Boolean(fields[name])).length;
	return cents(first + further * (outputMp - 1 + inputs));
}

function clipCost(duration: unknown, resolution: unknown): number {
	const seconds = typeof duration === 'number' ? duration : SIM_VIDEO_AUTO_SECONDS;
	return seconds * (SIM_VIDEO_CREDITS_PER_SECOND[String(resolution ?? 'hd')] ?? SIM_VIDEO_CREDITS_PER_SECOND.hd);
}

/** What a task of `endpoint` made from `body` (the parsed submit body) costs; `enhancing`: the draft a draft_enhance renders. */
export function simCost(endpoint: string, body: unknown, enhancing?: DraftOrigin): number {
	const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
	const flux2 = SIM_FLUX2_CREDITS[endpoint];
	if (flux2) return flux2Cost(flux2[0], flux2[1], fields);
	if (endpoint === 'flux-3-image') return SIM_IMAGE_CREDITS[String(fields.resolution ?? '1k')] ?? SIM_IMAGE_CREDITS['1k'];
	if (enhancing) return clipCost(enhancing.duration, enhancing.resolution);
	if (fields.draft === true) return cents(clipCost(fields.duration, 'hd') * SIM_DRAFT_SHARE);
	return clipCost(fields.duration, fields.resolution);
}
