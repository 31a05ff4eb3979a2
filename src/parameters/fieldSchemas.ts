/**
 * The zod pieces every FLUX node's parameters are read with (image and video): n8n hands over what the editor
 * holds, expressions may send text, and a blank value takes the parameter's default.
 */
import { z } from 'zod';

import { cacheModeSchema, DEFAULT_CACHE_MODE, type CacheMode } from '../store/cacheMode';

/** Maximum prompt length in characters (Unicode code points). */
export const MAX_PROMPT_CHARS = 20_480;
/** Timeout (Minutes): the maximum (24 h, far below what a Node timer holds: 2^31-1 ms ≈ 24.8 days). */
export const MAX_TIMEOUT_MINUTES = 1_440;
/** Max New Jobs per Execution: the largest value (0 = no limit). */
export const MAX_NEW_JOBS_PER_EXECUTION = 1_000_000;
/** A decimal number as text ("2.5", "1e3"); not "0x10" or "0b11", which Number() would read in another base. */
export const DECIMAL = /^\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i;

export const isEmpty = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
/** An absent or blank value takes the parameter's default. */
export const blankIsAbsent = (v: unknown) => (isEmpty(v) ? undefined : v);
export const numberLike = (v: unknown) => (typeof v === 'string' && DECIMAL.test(v) ? Number(v) : blankIsAbsent(v));

/** An integer (expressions may send digits as text) from `min` to `max`; blank is absent. */
export const integerRange = (min: number, max: number) => {
	const range = `must be an integer from ${min} to ${max}`;
	const integer = z
		.number({ invalid_type_error: 'must be an integer' })
		.int({ message: 'must be an integer' })
		.min(min, { message: range })
		.max(max, { message: range });
	return z.preprocess(
		(v) => (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v.trim()) : blankIsAbsent(v)),
		integer.optional(),
	);
};

/** A number option: > 0 (or at least `min`) and at most `max`; blank takes `fallback`. */
export const positiveNumber = (max: number, fallback: number, min?: number) => {
	const message = min === undefined ? `must be a number greater than 0 and at most ${max}` : `must be a number from ${min} to ${max}`;
	const number = z.number({ invalid_type_error: message }).finite({ message }).gt(0, { message });
	return z.preprocess(numberLike, (min === undefined ? number : number.min(min, { message })).max(max, { message }).default(fallback));
};

/** true/false (expressions may send text); blank takes `fallback`. */
export const booleanLike = (fallback: boolean) =>
	z.preprocess((v) => {
		if (typeof v !== 'string') return blankIsAbsent(v);
		const s = v.trim().toLowerCase();
		return s === 'true' ? true : s === 'false' ? false : blankIsAbsent(v);
	}, z.boolean({ invalid_type_error: 'must be true or false' }).default(fallback));

/** One of `values`; blank takes `fallback`. */
export const choice = <T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) =>
	z.preprocess(blankIsAbsent, z.enum(values, { errorMap: () => ({ message: `must be one of ${values.join(', ')}` }) }).default(fallback));

export const promptSchema = z
	.string({ required_error: 'is required', invalid_type_error: 'must be text' })
	.transform((s) => s.trim())
	.refine((s) => s.length > 0, { message: 'is required and must not be empty' })
	.refine((s) => [...s].length <= MAX_PROMPT_CHARS, { message: `must be at most ${MAX_PROMPT_CHARS} characters` });

/** The Options every FLUX node shares: Timeout (Minutes), the download cap in MB (`download`), Cache, Max New Jobs. */
export const jobOptionsSchema = (timeoutMinutes: number, download: { max: number; fallback: number; min: number }) =>
	z.preprocess(
		(v) => (isEmpty(v) ? {} : v),
		z.object(
			{
				timeoutMinutes: positiveNumber(MAX_TIMEOUT_MINUTES, timeoutMinutes),
				maxDownloadMb: positiveNumber(download.max, download.fallback, download.min),
				cache: z.preprocess(
					(v) => (typeof v === 'string' ? blankIsAbsent(v.trim().toLowerCase()) : blankIsAbsent(v)),
					z
						.enum(cacheModeSchema.options, { errorMap: () => ({ message: `must be one of ${cacheModeSchema.options.join(', ')}` }) })
						.default(DEFAULT_CACHE_MODE),
				),
				maxNewJobsPerExecution: integerRange(0, MAX_NEW_JOBS_PER_EXECUTION).transform((v) => v ?? 0),
			},
			{ invalid_type_error: 'must be a collection of options' },
		),
	);

/** What the Options mean to a job run: milliseconds, bytes, a cache mode, a count. */
export function jobRunOptions(options: { timeoutMinutes: number; maxDownloadMb: number; cache: CacheMode; maxNewJobsPerExecution: number }) {
	return {
		timeoutMs: Math.max(1, Math.round(options.timeoutMinutes * 60_000)),
		maxDownloadBytes: Math.max(1, Math.round(options.maxDownloadMb * 1024 * 1024)),
		cacheMode: options.cache,
		maxNewJobsPerExecution: options.maxNewJobsPerExecution,
	};
}
