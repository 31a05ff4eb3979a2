/**
 * The `flux-3-video` submit body as BFL's FLUX 3 Video reference has it (FLUX_API.md): strict and per `mode` —
 * t2v (prompt), i2v (prompt + keyframes), v2v (prompt + start_video, at most 15 s), draft_enhance (draft_cache, and
 * optionally version, nothing else). `draft_cache` must be one this simulator issued (`resolveDraftCache`).
 */
import { z } from 'zod';
import { MB, checkedString, clipProblem, imageProblem, promptField } from './media';

export const FLUX3_VIDEO_ASPECT_RATIOS = ['auto', '21:9', '2:1', '16:9', '4:3', '1:1', '3:4', '9:16'] as const;
export const FLUX3_VIDEO_RESOLUTIONS = ['hd', 'fhd'] as const;
export const FLUX3_VIDEO_MODES = ['t2v', 'i2v', 'v2v', 'draft_enhance'] as const;

const KEYFRAME = { maxBytes: 20 * MB, minSide: 256 };
/** The most safety tolerance a request with media (keyframes or a start video) may ask for. */
export const MEDIA_SAFETY_TOLERANCE = 2;

const durationField = (max: number) =>
	z.unknown().superRefine((v, ctx) => {
		if (v === 'auto' || (typeof v === 'number' && Number.isInteger(v) && v >= 5 && v <= max)) return;
		ctx.addIssue({ code: 'custom', message: `duration must be 'auto' or a whole number of seconds from 5 to ${max}` });
	});

const keyframe = z.unknown().superRefine((v, ctx) => {
	const timed = Array.isArray(v);
	if (timed && (v.length !== 2 || typeof v[0] !== 'number' || v[0] < 0)) {
		return ctx.addIssue({ code: 'custom', message: 'a timestamped keyframe is [seconds (at least 0), image]' });
	}
	const image: unknown = timed ? v[1] : v;
	const why = typeof image === 'string' ? imageProblem(image, KEYFRAME) : 'a keyframe is an image (http(s) URL or base64) or [seconds, image]';
	if (why) ctx.addIssue({ code: 'custom', message: why });
});

/** One image, or 1–10 images or [seconds, image] pairs. */
const keyframes = z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(keyframe).min(1).max(10));

const generation = {
	prompt: promptField,
	aspect_ratio: z.enum(FLUX3_VIDEO_ASPECT_RATIOS).optional(),
	resolution: z.enum(FLUX3_VIDEO_RESOLUTIONS).optional(),
	duration: durationField(20).optional(),
	generate_audio: z.boolean().optional(),
	safety_tolerance: z.number().int().min(0).max(4).optional(),
	draft: z.boolean().optional(),
	version: z.string().min(1).optional(),
};

/** Checks a draft_cache value: the draft it names, or why it is refused. */
export type DraftCacheResolver = (value: string) => { prompt: string } | { problem: string };

type Body = Record<string, unknown>;

/** Keyframe timing (FLUX_API.md): all timestamped or none; 3+ or timed need a whole duration containing increasing times ≥ 1/24 s apart. */
function checkKeyframeTiming(body: Body, issue: (path: string, message: string) => void): void {
	const frames = body.keyframes as unknown[];
	const times = frames.filter(Array.isArray).map((f) => f[0] as number);
	if (times.length > 0 && times.length !== frames.length) issue('keyframes', 'timestamp every keyframe or none');
	if ((times.length > 0 || frames.length >= 3) && typeof body.duration !== 'number') issue('duration', 'a whole number of seconds is required with timestamped keyframes or 3 or more');
	times.forEach((t, i) => {
		if (i > 0 && t - times[i - 1] < 1 / 24 - 1e-9) issue('keyframes', 'keyframe times must increase by at least 1/24 s');
		if (typeof body.duration === 'number' && t > body.duration) issue('keyframes', `keyframe time ${t} s is past the duration`);
	});
}

/** The flux-3-video body schema, with `resolveDraftCache` deciding which draft caches are the simulator's own. */
export function flux3VideoBody(resolveDraftCache: DraftCacheResolver): z.ZodTypeAny {
	return z
		.discriminatedUnion('mode', [
			z.object({ mode: z.literal('t2v'), ...generation }).strict(),
			z.object({ mode: z.literal('i2v'), ...generation, keyframes }).strict(),
			z.object({ mode: z.literal('v2v'), ...generation, duration: durationField(15).optional(), start_video: checkedString((s) => clipProblem(s, { maxBytes: 50 * MB, maxSeconds: 15 })) }).strict(),
			z.object({ mode: z.literal('draft_enhance'), draft_cache: z.string(), version: generation.version }).strict(),
		])
		.superRefine((body: Body, ctx) => {
			const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
			const withMedia = body.keyframes !== undefined || body.start_video !== undefined;
			if (withMedia && typeof body.safety_tolerance === 'number' && body.safety_tolerance > MEDIA_SAFETY_TOLERANCE) {
				issue('safety_tolerance', `safety_tolerance must be at most ${MEDIA_SAFETY_TOLERANCE} with keyframes or a start video`);
			}
			if (Array.isArray(body.keyframes)) checkKeyframeTiming(body, issue);
			if (typeof body.draft_cache === 'string') {
				const draft = resolveDraftCache(body.draft_cache);
				if ('problem' in draft) issue('draft_cache', draft.problem);
			}
		});
}
