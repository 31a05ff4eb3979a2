/**
 * FLUX 3 Video (`flux-3-video`; FLUX_API.md): modes Text to Video, Image to Video (1–10 keyframes), Continue a
 * Video (a start video; at most 15 s) and Enhance a Draft (a draft cache alone); Safety Tolerance 0–4 (at most 2
 * with media), drafts, a pinned Model Version. Five active tasks per account, no seed upstream, no published price.
 */
import { z } from 'zod';

import type { Media, ModelRequest, ReferenceImage } from '../flux';
import { booleanLike, choice, numberLike } from '../parameters/fieldSchemas';
import { InvalidParameterError } from '../parameters/invalidParameter';
import { keyframeListSchema, mediaSourceSchema, type KeyframeEntry } from '../parameters/mediaSources';
import { describeModel } from './modelDescriptor';
import type { Values } from './parameter';
import { flag, modelVersion, prompt, safetyTolerance } from './sharedParameters';

export const MIN_VIDEO_SECONDS = 5;
export const MAX_VIDEO_SECONDS = 20;
/** BFL caps a continuation (Continue a Video) at 15 s. */
export const MAX_CONTINUATION_SECONDS = 15;
export const MAX_KEYFRAMES = 10;
/** BFL's input limits, on the decoded bytes: keyframe images ≤ 20 MB, a start video ≤ 50 MB. */
export const MAX_KEYFRAME_BYTES = 20 * 1024 * 1024;
export const MAX_START_VIDEO_BYTES = 50 * 1024 * 1024;
/** Output frame rate: timestamped keyframes must be at least one frame (1/24 s) apart. */
export const VIDEO_FPS = 24;
/** The most Safety Tolerance BFL accepts when the request carries media (keyframes or a start video). */
const MAX_TOLERANCE_WITH_MEDIA = 2;

/** One input medium as sent upstream: an http(s) URL or plain base64 (no data-URI prefix). */
export type VideoMedia = ReferenceImage;

/** One keyframe: its image, and its time in seconds when the keyframes are timestamped. */
export interface VideoKeyframe {
	image: VideoMedia;
	seconds?: number;
}

/** A valid request for one clip: the values by parameter name (the glue validates them once). Fields outside `mode` are absent. */
export interface FluxVideoRequest extends ModelRequest {
	mode: string;
	prompt?: string;
	aspectRatio?: string;
	resolution?: string;
	duration?: 'auto' | number;
	generateAudio?: boolean;
	safetyTolerance?: number;
	draft?: boolean;
	modelVersion?: string;
	keyframes?: VideoKeyframe[];
	startVideo?: VideoMedia;
	draftCache?: VideoMedia;
}

const MODES = [
	{ name: 'Text to Video', value: 't2v', description: 'A clip from the prompt alone' },
	{ name: 'Image to Video', value: 'i2v', description: 'A clip through 1–10 keyframe images' },
	{ name: 'Continue a Video', value: 'v2v', description: 'A clip that continues a start video' },
	{ name: 'Enhance a Draft', value: 'draft_enhance', description: 'The full-quality clip of an earlier draft, from its draft cache alone' },
];
/** The modes that generate from a prompt (every mode but Enhance a Draft). */
const GENERATE = ['t2v', 'i2v', 'v2v'];
export const VIDEO_ASPECT_RATIOS = ['auto', '21:9', '2:1', '16:9', '4:3', '1:1', '3:4', '9:16'] as const;

const DURATION_MESSAGE = `must be auto or a whole number of seconds from ${MIN_VIDEO_SECONDS} to ${MAX_VIDEO_SECONDS}`;
const durationSchema = z.preprocess(
	(v) => (typeof v === 'string' && v.trim().toLowerCase() === 'auto' ? 'auto' : numberLike(v)),
	z
		.custom<'auto' | number>((v) => v === 'auto' || (typeof v === 'number' && Number.isInteger(v) && v >= MIN_VIDEO_SECONDS && v <= MAX_VIDEO_SECONDS), { message: DURATION_MESSAGE })
		.optional()
		.transform((v) => v ?? 'auto'),
);

const medium = (wire: string) => (value: VideoMedia, media: Media) => ({ [wire]: media(value) });
const MEDIA_HELP = 'the name of a binary property on the input item, or an http(s) URL';

/** Keyframe rules: 1–10; timestamps on all or none, increasing, ≥ 1/24 s apart, within a numeric duration. */
function checkKeyframes(frames: KeyframeEntry[], duration: 'auto' | number): void {
	if (frames.length === 0) throw new InvalidParameterError('keyframes', 'Mode Image to Video needs 1 to 10 keyframes (a binary property or an http(s) URL each)');
	if (frames.length > MAX_KEYFRAMES) throw new InvalidParameterError('keyframes', `at most ${MAX_KEYFRAMES} keyframes are allowed (got ${frames.length})`);
	const timed = frames.filter((f) => f.seconds !== undefined);
	if (timed.length === 0) {
		if (frames.length >= 3 && duration === 'auto') {
			throw new InvalidParameterError('duration', `${frames.length} keyframes are waypoints: set Duration to a number of seconds (${MIN_VIDEO_SECONDS}–${MAX_VIDEO_SECONDS}), not auto`);
		}
		return;
	}
	const missing = frames.find((f) => f.seconds === undefined);
	if (missing) throw new InvalidParameterError(`keyframes[${missing.index}].seconds`, 'is empty: give every keyframe a timestamp, or none');
	if (duration === 'auto') throw new InvalidParameterError('duration', 'timestamped keyframes need a numeric Duration (seconds), not auto');
	frames.forEach((frame, i) => {
		const seconds = frame.seconds as number;
		const field = `keyframes[${frame.index}].seconds`;
		if (seconds > duration) throw new InvalidParameterError(field, `${seconds} s is past the end of the ${duration} s clip`);
		const previous = frames[i - 1]?.seconds;
		if (previous !== undefined && seconds - previous < 1 / VIDEO_FPS - 1e-9) {
			throw new InvalidParameterError(field, `must come at least 1/${VIDEO_FPS} s (one frame) after the previous keyframe (${previous} s); got ${seconds} s`);
		}
	});
}

/** Rules across fields, as BFL applies them (a 422 after the body left would be a paid-for refusal). */
function checkVideo(values: Values): void {
	const { mode, duration, keyframes, startVideo, safetyTolerance: tolerance } = values as { mode: string; duration: 'auto' | number; keyframes?: KeyframeEntry[]; startVideo?: unknown; safetyTolerance?: number };
	if (mode === 'i2v') checkKeyframes(keyframes ?? [], duration);
	if (mode === 'v2v' && startVideo === undefined) throw new InvalidParameterError('startVideo', 'Mode Continue a Video needs a start video (a binary property or an http(s) URL of an MP4)');
	if (mode === 'v2v' && typeof duration === 'number' && duration > MAX_CONTINUATION_SECONDS) {
		throw new InvalidParameterError('duration', `must be auto or at most ${MAX_CONTINUATION_SECONDS} s with Mode Continue a Video: BFL continues a clip by at most ${MAX_CONTINUATION_SECONDS} s (got ${duration})`);
	}
	if ((mode === 'i2v' || mode === 'v2v') && tolerance !== undefined && tolerance > MAX_TOLERANCE_WITH_MEDIA) {
		const what = mode === 'i2v' ? 'keyframes' : 'a start video';
		throw new InvalidParameterError('safetyTolerance', `must be at most ${MAX_TOLERANCE_WITH_MEDIA} when the request carries ${what} (got ${tolerance})`);
	}
}

export const flux3Video = describeModel({
	id: 'flux-3-video',
	name: 'FLUX 3 Video',
	output: 'video' as const,
	accountLimit: 5,
	mediaType: 'video/mp4',
	endpoint: 'flux-3-video',
	check: checkVideo,
	parameters: [
		{
			name: 'mode',
			property: { displayName: 'Mode', name: 'mode', type: 'options', noDataExpression: true, default: 't2v', options: MODES, description: 'What the clip starts from: the prompt alone, keyframe images, a clip to continue, or a draft to enhance' },
			schema: choice(['t2v', 'i2v', 'v2v', 'draft_enhance'], 't2v'),
			wire: 'mode',
		},
		prompt('A slow orbit around a ceramic mug on oak, steam rising, soft window light', 'What happens in the clip', GENERATE),
		{
			name: 'keyframes',
			property: {
				displayName: 'Keyframes',
				name: 'keyframes',
				type: 'fixedCollection',
				placeholder: 'Add Keyframe',
				typeOptions: { multipleValues: true, multipleValueButtonText: 'Add Keyframe' },
				default: {},
				description: '1 image: the opening frame; 2: opening and closing; 3–10: waypoints in order (set a numeric Duration). With timestamps on every keyframe they are pinned at those seconds.',
				options: [
					{
						displayName: 'Keyframe',
						name: 'frames',
						values: [
							{ displayName: 'Binary Property or URL', name: 'source', type: 'string', default: '', placeholder: 'data', description: `The image: ${MEDIA_HELP} of a PNG, JPEG or WebP image (at most 20 MB)` },
							{ displayName: 'Timestamp (Seconds)', name: 'seconds', type: 'string', default: '', placeholder: '2.5', description: 'Optional: where the keyframe is pinned. Set on all keyframes or none; increasing, at least 1/24 s apart, within Duration.' },
						],
					},
				],
			},
			schema: keyframeListSchema,
			modes: ['i2v'],
			refusedOutsideModes: true,
			wire: (frames: VideoKeyframe[], media: Media) => {
				const timed = frames.every((k) => k.seconds !== undefined);
				return { keyframes: frames.map((k) => (timed ? [k.seconds, media(k.image)] : media(k.image))) };
			},
		},
		{
			name: 'startVideo',
			property: { displayName: 'Start Video', name: 'startVideo', type: 'string', default: '', required: true, placeholder: 'data', description: `The clip to continue: ${MEDIA_HELP} of an MP4 (at most 50 MB, at most 15 s)` },
			schema: mediaSourceSchema(),
			modes: ['v2v'],
			refusedOutsideModes: true,
			wire: medium('start_video'),
		},
		{
			name: 'draftCache',
			property: { displayName: 'Draft Cache', name: 'draftCache', type: 'string', default: 'draftCache', required: true, placeholder: 'draftCache', description: `The draft to enhance: ${MEDIA_HELP} of its draft cache (a draft's item carries it in binary draftCache; at most 128 MB). Nothing else is sent: the draft is re-rendered exactly, at full quality.` },
			schema: mediaSourceSchema('draftCache'),
			modes: ['draft_enhance'],
			wire: medium('draft_cache'),
		},
		{
			name: 'aspectRatio',
			property: { displayName: 'Aspect Ratio', name: 'aspectRatio', type: 'options', default: 'auto', options: VIDEO_ASPECT_RATIOS.map((value) => ({ name: value, value })), description: 'Width : height of the clip, e.g. 16:9 landscape, 9:16 phone portrait. Auto leaves the shape to the API.' },
			schema: choice(VIDEO_ASPECT_RATIOS, 'auto'),
			modes: GENERATE,
			wire: 'aspect_ratio',
		},
		{
			name: 'resolution',
			property: { displayName: 'Resolution', name: 'resolution', type: 'options', default: 'hd', options: [{ name: 'HD (720p)', value: 'hd' }, { name: 'Full HD (1080p)', value: 'fhd' }], description: 'HD: 720 pixels on the shorter side; Full HD: 1080' },
			schema: choice(['hd', 'fhd'], 'hd'),
			modes: GENERATE,
			wire: 'resolution',
		},
		{
			name: 'duration',
			property: { displayName: 'Duration', name: 'duration', type: 'string', default: 'auto', placeholder: 'auto', description: `Auto, or a whole number of seconds from ${MIN_VIDEO_SECONDS} to ${MAX_VIDEO_SECONDS} (Continue a Video: at most ${MAX_CONTINUATION_SECONDS})` },
			schema: durationSchema,
			modes: GENERATE,
			wire: 'duration',
		},
		{
			name: 'generateAudio',
			property: { displayName: 'Generate Audio', name: 'generateAudio', type: 'boolean', default: true, description: 'Whether to generate synchronized audio with the clip' },
			schema: booleanLike(true),
			modes: GENERATE,
			wire: 'generate_audio',
		},
		// BFL's default is 2, and bodies before this parameter never carried it: sent only when it is not 2.
		safetyTolerance(4, `; at most ${MAX_TOLERANCE_WITH_MEDIA} with keyframes or a start video`, { modes: GENERATE, sendIf: (v: number) => v !== 2 }),
		flag('draft', 'Draft', 'draft', "Whether to make a fast, cheaper preview (about a third of the price, at HD): its item also carries the draft's cache in binary draftCache, for Mode Enhance a Draft", GENERATE),
		modelVersion,
	],
});
