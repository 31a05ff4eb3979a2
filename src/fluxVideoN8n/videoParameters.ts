/**
 * The one schema of a FLUX 3 Video item's parameters, validated as BFL would before anything is sent: a field
 * outside its mode is an error naming the field, keyframes are 1–10 with timestamps increasing, at least 1/24 s
 * apart and within the duration, 3–10 untimed waypoints need a numeric duration.
 */
import { z } from 'zod';

import {
	DEFAULT_VIDEO_TIMEOUT_MINUTES,
	MAX_KEYFRAMES,
	MAX_VIDEO_SECONDS,
	MIN_VIDEO_SECONDS,
	VIDEO_ASPECT_RATIOS,
	VIDEO_FPS,
	VIDEO_MODES,
	VIDEO_RESOLUTIONS,
	type VideoAspectRatio,
	type VideoMode,
	type VideoResolution,
} from '../flux/videoOptions';
import { MAX_PROMPT_CHARS, MAX_TIMEOUT_MINUTES, classifyReferenceEntry, maxNewJobsPerExecutionSchema, type JobRunParameters } from '../fluxN8n/fluxParameters';
import { describeValue, fieldOf, InvalidParameterError, valueAt } from '../parameters/invalidParameter';
import { cacheModeSchema, DEFAULT_CACHE_MODE } from '../store/resumeDecision';

/** Timeout (Minutes) default for a clip (generation takes minutes); also the client's default. */
export { DEFAULT_VIDEO_TIMEOUT_MINUTES };
/** Max Video Size (MB): default (larger than the image node's 50) and maximum. Clips stream to disk. */
export const DEFAULT_MAX_VIDEO_MB = 1024;
export const MAX_VIDEO_MB = 10_240;

/** A binary property of the input item or an http(s) URL. */
export type MediaSource = { kind: 'url'; url: string } | { kind: 'binary'; property: string };

export interface KeyframeEntry {
	source: MediaSource;
	seconds?: number;
	/** Position among the raw rows (for error fields: `keyframes[2]`). */
	index: number;
}

/** One item's video parameters, validated. Mode-specific fields are present only in their mode. */
export interface FluxVideoParameters extends JobRunParameters {
	mode: VideoMode;
	prompt: string;
	aspectRatio: VideoAspectRatio;
	resolution: VideoResolution;
	duration: 'auto' | number;
	generateAudio: boolean;
	keyframes?: KeyframeEntry[];
	startVideo?: MediaSource;
}

const isEmpty = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
const blankIsAbsent = (v: unknown) => (isEmpty(v) ? undefined : v);
const DECIMAL = /^\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i;
const numberLike = (v: unknown) => (typeof v === 'string' && DECIMAL.test(v) ? Number(v) : blankIsAbsent(v));

const booleanLike = (fallback: boolean) =>
	z.preprocess((v) => {
		if (typeof v !== 'string') return blankIsAbsent(v);
		const s = v.trim().toLowerCase();
		return s === 'true' ? true : s === 'false' ? false : blankIsAbsent(v);
	}, z.boolean({ invalid_type_error: 'must be true or false' }).default(fallback));

const choice = <T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) =>
	z.preprocess(blankIsAbsent, z.enum(values, { errorMap: () => ({ message: `must be one of ${values.join(', ')}` }) }).default(fallback));

const positiveNumber = (max: number, fallback: number, min?: number) => {
	const message = min === undefined ? `must be a number greater than 0 and at most ${max}` : `must be a number from ${min} to ${max}`;
	const number = z.number({ invalid_type_error: message }).finite({ message }).gt(0, { message });
	return z.preprocess(numberLike, (min === undefined ? number : number.min(min, { message })).max(max, { message }).default(fallback));
};

const DURATION_MESSAGE = `must be auto or a whole number of seconds from ${MIN_VIDEO_SECONDS} to ${MAX_VIDEO_SECONDS}`;
const durationSchema = z.preprocess(
	(v) => (typeof v === 'string' && v.trim().toLowerCase() === 'auto' ? 'auto' : numberLike(v)),
	z
		.custom<'auto' | number>(
			(v) => v === 'auto' || (typeof v === 'number' && Number.isInteger(v) && v >= MIN_VIDEO_SECONDS && v <= MAX_VIDEO_SECONDS),
			{ message: DURATION_MESSAGE },
		)
		.optional()
		.transform((v) => v ?? 'auto'),
);

const promptSchema = z
	.string({ required_error: 'is required', invalid_type_error: 'must be text' })
	.transform((s) => s.trim())
	.refine((s) => s.length > 0, { message: 'is required and must not be empty' })
	.refine((s) => [...s].length <= MAX_PROMPT_CHARS, { message: `must be at most ${MAX_PROMPT_CHARS} characters` });

/** An http(s) URL or a binary property name; a message otherwise. */
function mediaSource(value: unknown): MediaSource | { error: string } {
	if (typeof value !== 'string') return { error: `must be a binary property name or an http(s) URL (got ${describeValue(value)})` };
	return classifyReferenceEntry(value);
}

const startVideoSchema = z.preprocess(
	blankIsAbsent,
	z
		.unknown()
		.transform((value, ctx) => {
			if (value === undefined) return undefined;
			const source = mediaSource(value);
			if ('error' in source) {
				ctx.addIssue({ code: 'custom', message: source.error });
				return z.NEVER;
			}
			return source;
		}),
);

/** The node's fixedCollection `{ frames: [{ source, seconds }] }` (or a plain list) as rows. */
function keyframeRows(raw: unknown): unknown {
	if (isEmpty(raw)) return [];
	if (raw !== null && typeof raw === 'object' && !Array.isArray(raw) && 'frames' in raw) return (raw as { frames: unknown }).frames ?? [];
	if (raw !== null && typeof raw === 'object' && !Array.isArray(raw) && Object.keys(raw).length === 0) return [];
	return raw;
}

const keyframesSchema = z.preprocess(
	keyframeRows,
	z.array(z.unknown(), { invalid_type_error: 'must be a list of keyframes' }).transform((rows, ctx) => {
		const entries: KeyframeEntry[] = [];
		rows.forEach((row, index) => {
			const record = row !== null && typeof row === 'object' && !Array.isArray(row) ? (row as Record<string, unknown>) : { source: row };
			if (isEmpty(record.source)) {
				if (isEmpty(record.seconds)) return; // a blank row, as the UI adds it
				return ctx.addIssue({ code: 'custom', path: [index], message: `has a timestamp (${String(record.seconds).trim()} s) but no image: set its Binary Property or URL, or remove the row` });
			}
			const source = mediaSource(record.source);
			if ('error' in source) return ctx.addIssue({ code: 'custom', path: [index], message: source.error });
			const seconds = numberLike(record.seconds);
			if (seconds !== undefined && !(typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0)) {
				return ctx.addIssue({ code: 'custom', path: [index, 'seconds'], message: `must be a number of seconds, 0 or more (got ${describeValue(record.seconds)})` });
			}
			entries.push({ source, index, ...(seconds === undefined ? {} : { seconds }) });
		});
		return entries;
	}),
);

const optionsSchema = z.preprocess(
	(v) => (isEmpty(v) ? {} : v),
	z.object(
		{
			timeoutMinutes: positiveNumber(MAX_TIMEOUT_MINUTES, DEFAULT_VIDEO_TIMEOUT_MINUTES),
			// From 1 MB, as in the UI: a smaller cap would fail every paid clip at its download.
			maxDownloadMb: positiveNumber(MAX_VIDEO_MB, DEFAULT_MAX_VIDEO_MB, 1),
			cache: z.preprocess(
				(v) => (typeof v === 'string' ? blankIsAbsent(v.trim().toLowerCase()) : blankIsAbsent(v)),
				z.enum(cacheModeSchema.options, { errorMap: () => ({ message: `must be one of ${cacheModeSchema.options.join(', ')}` }) }).default(DEFAULT_CACHE_MODE),
			),
			maxNewJobsPerExecution: maxNewJobsPerExecutionSchema,
		},
		{ invalid_type_error: 'must be a collection of options' },
	),
);

const parametersSchema = z.object({
	mode: choice(VIDEO_MODES, 't2v'),
	prompt: promptSchema,
	aspectRatio: choice(VIDEO_ASPECT_RATIOS, 'auto'),
	resolution: choice(VIDEO_RESOLUTIONS, 'hd'),
	duration: durationSchema,
	generateAudio: booleanLike(true),
	keyframes: keyframesSchema,
	startVideo: startVideoSchema,
	skipError: booleanLike(false),
	seed: z.preprocess(
		(v) => (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v.trim()) : blankIsAbsent(v)),
		z.number({ invalid_type_error: 'must be an integer' }).int({ message: 'must be an integer' }).min(0, { message: 'must be an integer from 0 to 9007199254740991' }).max(Number.MAX_SAFE_INTEGER).optional(),
	),
	options: optionsSchema,
});

type Parsed = z.infer<typeof parametersSchema>;

function issueError(issue: z.ZodIssue, raw: unknown): InvalidParameterError {
	const field = fieldOf(issue.path);
	if (issue.path[0] === 'keyframes' || issue.path[0] === 'startVideo') return new InvalidParameterError(field, issue.message);
	const value = valueAt(raw, issue.path);
	const message = issue.code === 'invalid_type' && value === undefined ? 'is required' : issue.message;
	return new InvalidParameterError(field, `${message} (got ${describeValue(value)})`);
}

/** The Mode options as the editor names them. */
const MODE_NAMES: Record<(typeof VIDEO_MODES)[number], string> = { t2v: 'Text to Video', i2v: 'Image to Video', v2v: 'Continue a Video' };

/** Mode rules (BFL answers 422 to a field outside its mode): which media field each mode takes and needs. */
function checkModeFields(p: Parsed): void {
	const mode = `Mode is ${MODE_NAMES[p.mode]}`;
	if (p.mode !== 'i2v' && p.keyframes.length > 0) {
		throw new InvalidParameterError('keyframes', `are only used with Mode Image to Video; remove the keyframes or set Mode to Image to Video (${mode})`);
	}
	if (p.mode !== 'v2v' && p.startVideo !== undefined) {
		throw new InvalidParameterError('startVideo', `is only used with Mode Continue a Video; clear it or set Mode to Continue a Video (${mode})`);
	}
	if (p.mode === 'i2v' && p.keyframes.length === 0) throw new InvalidParameterError('keyframes', 'Mode Image to Video needs 1 to 10 keyframes (a binary property or an http(s) URL each)');
	if (p.mode === 'v2v' && p.startVideo === undefined) throw new InvalidParameterError('startVideo', 'Mode Continue a Video needs a start video (a binary property or an http(s) URL of an MP4)');
}

/** Keyframe rules: 1–10; timestamps on all or none, increasing, ≥ 1/24 s apart, within a numeric duration. */
function checkKeyframes(frames: KeyframeEntry[], duration: 'auto' | number): void {
	if (frames.length > MAX_KEYFRAMES) throw new InvalidParameterError('keyframes', `at most ${MAX_KEYFRAMES} keyframes are allowed (got ${frames.length})`);
	const timed = frames.filter((f) => f.seconds !== undefined);
	if (timed.length === 0) {
		if (frames.length >= 3 && duration === 'auto') {
			throw new InvalidParameterError('duration', `${frames.length} keyframes are waypoints: set Duration to a number of seconds (${MIN_VIDEO_SECONDS}–${MAX_VIDEO_SECONDS}), not auto`);
		}
		return;
	}
	if (timed.length !== frames.length) {
		const missing = frames.find((f) => f.seconds === undefined) as KeyframeEntry;
		throw new InvalidParameterError(`keyframes[${missing.index}].seconds`, 'is empty: give every keyframe a timestamp, or none');
	}
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

/**
 * Validate one item's raw video parameters once, at the boundary. Blank values take the node's defaults. Throws
 * InvalidParameterError naming the first invalid field and what was wrong.
 */
export function parseFluxVideoParameters(raw: unknown): FluxVideoParameters {
	if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
		throw new InvalidParameterError('parameters', `must be an object (got ${describeValue(raw)})`);
	}
	const parsed = parametersSchema.safeParse(raw);
	if (!parsed.success) throw issueError(parsed.error.issues[0], raw);
	const p = parsed.data;
	checkModeFields(p);
	if (p.mode === 'i2v') checkKeyframes(p.keyframes, p.duration);
	const { options, keyframes, startVideo, ...rest } = p;
	return {
		...rest,
		...(p.mode === 'i2v' ? { keyframes } : {}),
		...(p.mode === 'v2v' ? { startVideo } : {}),
		timeoutMs: Math.max(1, Math.round(options.timeoutMinutes * 60_000)),
		maxDownloadBytes: Math.max(1, Math.round(options.maxDownloadMb * 1024 * 1024)),
		cacheMode: options.cache,
		maxNewJobsPerExecution: options.maxNewJobsPerExecution,
	};
}
