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
import { classifyReferenceEntry, type JobRunParameters } from '../fluxN8n/fluxParameters';
import { describeValue, fieldOf, InvalidParameterError } from '../parameters/invalidParameter';
import {
	blankIsAbsent,
	booleanLike,
	choice,
	isEmpty,
	jobOptionsSchema,
	jobRunOptions,
	numberLike,
	parseItem,
	promptSchema,
	valueIssueError,
} from '../parameters/fieldSchemas';

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
	// Max Video Size from 1 MB, as in the UI: a smaller cap would fail every paid clip at its download.
	options: jobOptionsSchema(DEFAULT_VIDEO_TIMEOUT_MINUTES, { max: MAX_VIDEO_MB, fallback: DEFAULT_MAX_VIDEO_MB, min: 1 }),
});

type Parsed = z.infer<typeof parametersSchema>;

function issueError(issue: z.ZodIssue, raw: unknown): InvalidParameterError {
	if (issue.path[0] === 'keyframes' || issue.path[0] === 'startVideo') return new InvalidParameterError(fieldOf(issue.path), issue.message);
	return valueIssueError(issue, raw);
}

/** The Mode options as the editor names them. */
const MODE_NAMES: Record<(typeof VIDEO_MODES)[number], string> = { t2v: 'Text to Video', i2v: 'Image to Video', v2v: 'Continue a Video', draft_enhance: 'Enhance a Draft' };

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
	const p = parseItem(parametersSchema, raw, issueError);
	checkModeFields(p);
	if (p.mode === 'i2v') checkKeyframes(p.keyframes, p.duration);
	const { options, keyframes, startVideo, ...rest } = p;
	return {
		...rest,
		...(p.mode === 'i2v' ? { keyframes } : {}),
		...(p.mode === 'v2v' ? { startVideo } : {}),
		...jobRunOptions(options),
	};
}
