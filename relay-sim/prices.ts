/**
 * The simulator's price table, in BFL credits (1 credit = $0.01). The simulator's own round numbers, chosen so
 * that tests and the demo show real figures (they are not BFL's prices): an image costs by its resolution, a
 * clip by its length and resolution (`duration: 'auto'` counts as 10 s). BFL style: an image's cost comes with
 * the submit answer, a clip's with the finished poll (null at submit). `reportCost: false` omits it everywhere,
 * like a relay that never reports cost.
 */
import { modelListPrice as listPrice } from '../src/models';

/** Credits per image, by `resolution` (absent: the API's default, 1k). */
export const SIM_IMAGE_CREDITS: Readonly<Record<string, number>> = { '768sq': 3, '1k': 4, '1.5k': 6, '2k': 8, '4k': 16 };
/** Credits per second of clip, by `resolution` (absent: hd). */
export const SIM_VIDEO_CREDITS_PER_SECOND: Readonly<Record<string, number>> = { hd: 10, fhd: 17 };
/** The length a clip with `duration: 'auto'` is charged for. */
export const SIM_VIDEO_AUTO_SECONDS = 10;

/** What a task of `model` made from `body` (the parsed submit body) costs at the simulator. */
export function simCost(model: 'image' | 'video', body: unknown, endpoint?: string): number {
	const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
	if (endpoint !== undefined) return listPrice(endpoint, fields) ?? 0; // FLUX.2: BFL's list price
	if (model === 'image') return SIM_IMAGE_CREDITS[String(fields.resolution ?? '1k')] ?? SIM_IMAGE_CREDITS['1k'];
	const seconds = typeof fields.duration === 'number' ? fields.duration : SIM_VIDEO_AUTO_SECONDS;
	return seconds * (SIM_VIDEO_CREDITS_PER_SECOND[String(fields.resolution ?? 'hd')] ?? SIM_VIDEO_CREDITS_PER_SECOND.hd);
}
