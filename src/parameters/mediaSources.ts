/**
 * Where an input medium comes from, as a parameter names it: an http(s) URL, or a binary property of the input
 * item (reference images, keyframes, a start video, a draft cache). The zod readers of such parameters.
 */
import { z } from 'zod';

import { blankIsAbsent, isEmpty, numberLike } from './fieldSchemas';
import { describeValue, InvalidParameterError } from './invalidParameter';

/** A binary property of the input item or an http(s) URL. */
export type MediaSource = { kind: 'url'; url: string } | { kind: 'binary'; property: string };
/** One non-empty row of a list of media, with its position among the raw rows (for error fields: `keyframes[2]`). */
export type MediaEntry = MediaSource & { index: number };
/** A keyframe row: its image and, when pinned, its time in seconds. */
export interface KeyframeEntry {
	source: MediaSource;
	seconds?: number;
	index: number;
}

/** Reads a binary property of the current item: its bytes and declared type, or undefined when it does not exist. */
export type ReadBinary = (property: string) => Promise<{ buffer: Buffer; mimeType?: string } | undefined>;

/** The bytes (never empty) and declared type of binary `property`, through `read`; else an InvalidParameterError naming `field`. */
export async function readMediaBinary(property: string, field: string, read: ReadBinary): Promise<{ buffer: Buffer; mimeType?: string }> {
	let binary;
	try {
		binary = await read(property);
	} catch (err) {
		// A parameter error naming the field; the node's prepare step turns it into a NodeOperationError with the item.
		// eslint-disable-next-line @n8n/community-nodes/require-node-api-error
		throw new InvalidParameterError(field, `could not read binary property "${property}": ${err instanceof Error ? err.message : String(err)}`);
	}
	if (!binary?.buffer) throw new InvalidParameterError(field, `binary property "${property}" not found on the input item (or use an http(s) URL)`);
	const buffer = Buffer.isBuffer(binary.buffer) ? binary.buffer : Buffer.from(binary.buffer);
	if (buffer.length === 0) throw new InvalidParameterError(field, `binary property "${property}" is empty`);
	return { buffer, mimeType: binary.mimeType };
}

/** Names JavaScript objects already carry (`__proto__`, `constructor`, …): never binary property names. */
export function isReservedName(name: string): boolean {
	return name === '__proto__' || name === 'prototype' || name in Object.prototype;
}

/** A value as a media source: an http(s) URL, or a binary property name; other schemes (file:, data:, …) are an error. */
function mediaSource(value: unknown): MediaSource | { error: string } {
	if (typeof value !== 'string') return { error: `must be a binary property name or an http(s) URL (got ${describeValue(value)})` };
	const entry = value.trim();
	const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(entry);
	if (scheme && !/^\d+$/.test(scheme[1])) {
		const name = scheme[1].toLowerCase();
		if (name !== 'http' && name !== 'https') return { error: `"${name}:" is not supported; use an http(s) URL or the name of a binary property on the input item` };
		let url: URL;
		try {
			url = new URL(entry);
		} catch {
			return { error: 'is not a valid http(s) URL' };
		}
		if (!url.hostname) return { error: 'is not a valid http(s) URL (no host)' };
		if (url.username || url.password) return { error: 'URL must not contain a user name or password' };
		return { kind: 'url', url: entry };
	}
	if (/^\/\//.test(entry) || /^www\./i.test(entry)) return { error: 'looks like a URL without its scheme: start it with https:// (or http://)' };
	if (isReservedName(entry)) return { error: `"${entry}" cannot be a binary property name (the name is reserved in JavaScript): rename the binary property` };
	return { kind: 'binary', property: entry };
}

/** One medium: blank is absent (the parameter's default when it has one). */
export const mediaSourceSchema = (fallback?: string) =>
	z.preprocess(
		(v) => blankIsAbsent(v) ?? fallback,
		z.unknown().transform((value, ctx) => {
			if (value === undefined) return undefined;
			const source = mediaSource(value);
			if (!('error' in source)) return source;
			ctx.addIssue({ code: 'custom', message: source.error });
			return z.NEVER;
		}),
	);

/** A fixedCollection's rows (`{ <rows>: [ … ] }`, `{}`, or a plain list) as a list; anything else as it is (an error). */
const rowsOf = (key: string) => (raw: unknown) => {
	if (isEmpty(raw)) return [];
	if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return raw;
	return key in raw ? ((raw as Record<string, unknown>)[key] ?? []) : Object.keys(raw).length === 0 ? [] : raw;
};

/** A list of media (`{ source }` rows or plain strings), blank rows skipped, at most `max` (`owner`: whose limit). */
export const mediaListSchema = (rows: string, max: number, noun: string, owner?: string) =>
	z.preprocess(
		rowsOf(rows),
		z.array(z.unknown(), { invalid_type_error: 'must be a list of binary property names or http(s) URLs' }).transform((values, ctx) => {
			const entries: MediaEntry[] = [];
			values.forEach((row, index) => {
				const value = row !== null && typeof row === 'object' && !Array.isArray(row) && 'source' in row ? (row as { source: unknown }).source : row;
				if (isEmpty(value)) return;
				const source = mediaSource(value);
				if ('error' in source) ctx.addIssue({ code: 'custom', path: [index], message: source.error });
				else entries.push({ index, ...source });
			});
			if (entries.length > max) ctx.addIssue({ code: 'custom', message: `at most ${max} ${noun} are allowed${owner ? ` for ${owner}` : ''} (got ${entries.length})` });
			return entries;
		}),
	);

/** Keyframe rows `{ source, seconds }`: a row with a time but no image is an error, a wholly blank row is skipped. */
export const keyframeListSchema = z.preprocess(
	rowsOf('frames'),
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
