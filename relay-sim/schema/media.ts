/**
 * Media fields as BFL reads them: an http(s) URL (taken as it is: the simulator fetches nothing) or plain base64
 * (no data: URI), decoded and checked: an image must be a PNG, JPEG or WebP within its size limits, a clip an MP4.
 */
import { z } from 'zod';
import { imageHeader, mp4Header } from '../mediaHeader';

export const MB = 1024 * 1024;

export interface ImageLimits {
	maxBytes: number;
	/** Each side at least this many pixels. */
	minSide?: number;
	/** width × height at most. */
	maxPixels?: number;
}

const URL_PATTERN = /^https?:\/\/\S+$/i;
const BASE64 = /^[A-Za-z0-9+/_=\s-]+$/;
/** Enough base64 for any PNG / WebP header and most JPEG ones; a JPEG whose size lies further is decoded whole. */
const HEAD_CHARS = 64 * 1024;

export const isUrl = (s: string): boolean => URL_PATTERN.test(s);

/** Bytes the base64 text decodes to. */
export function decodedBytes(base64: string): number {
	const text = base64.replace(/\s/g, '');
	return Math.floor((text.length * 3) / 4) - (text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0);
}

/** Why `s` is not a medium reference (URL or plain base64), or undefined. */
function referenceProblem(s: string): string | undefined {
	if (/^data:/i.test(s)) return 'send plain base64, not a data: URI';
	if (!isUrl(s) && !BASE64.test(s)) return 'must be an http(s) URL or base64';
	return undefined;
}

/** Why `s` is not an acceptable image, or undefined. */
export function imageProblem(s: string, limits: ImageLimits): string | undefined {
	const reference = referenceProblem(s);
	if (reference || isUrl(s)) return reference;
	if (decodedBytes(s) > limits.maxBytes) return `image larger than ${limits.maxBytes / MB} MB`;
	const header = imageHeader(Buffer.from(s.slice(0, HEAD_CHARS), 'base64')) ?? imageHeader(Buffer.from(s, 'base64'));
	if (!header) return 'base64 is not a PNG, JPEG or WebP image';
	const { width, height } = header;
	if (limits.minSide !== undefined && (width < limits.minSide || height < limits.minSide)) {
		return `image is ${width}×${height} pixels, smaller than ${limits.minSide}×${limits.minSide}`;
	}
	if (limits.maxPixels !== undefined && width * height > limits.maxPixels) {
		return `image is ${width}×${height} pixels, more than ${limits.maxPixels} pixels`;
	}
	return undefined;
}

/** Why `s` is not an acceptable MP4 clip, or undefined. */
export function clipProblem(s: string, limits: { maxBytes: number; maxSeconds: number }): string | undefined {
	const reference = referenceProblem(s);
	if (reference || isUrl(s)) return reference;
	if (decodedBytes(s) > limits.maxBytes) return `video larger than ${limits.maxBytes / MB} MB`;
	const header = mp4Header(Buffer.from(s, 'base64'));
	if (!header) return 'base64 is not an MP4 video';
	if (header.seconds !== undefined && header.seconds > limits.maxSeconds) return `video is ${header.seconds} s long, more than ${limits.maxSeconds} s`;
	return undefined;
}

/** A string field whose value `problem` checks (a custom issue with its message when it finds one). */
export function checkedString(problem: (s: string) => string | undefined): z.ZodType<string> {
	return z.string().superRefine((s, ctx) => {
		const why = problem(s);
		if (why) ctx.addIssue({ code: 'custom', message: why });
	});
}

/** An image field within `limits`. */
export const imageField = (limits: ImageLimits): z.ZodType<string> => checkedString((s) => imageProblem(s, limits));

/** A non-empty prompt. */
export const promptField = z.string().refine((s) => s.trim().length > 0, 'prompt must not be empty');

/** BFL's optional webhook fields (FLUX 3 Image and FLUX.2). */
export const webhookFields = { webhook_url: z.string().url().optional(), webhook_secret: z.string().optional() };
