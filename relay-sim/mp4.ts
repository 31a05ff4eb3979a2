/**
 * The simulator's clips: small real MP4-shaped files — an `ftyp` box, a `free` box carrying the prompt and task
 * (JSON: and whether it is a draft, or which draft it enhances), and an `mdat` box — so a test can tell which prompt
 * produced which clip, and a draft from a full-quality clip. Large clips (the bench) are
 * streamed: the `mdat` payload is a repeated pattern written chunk by chunk, never one big buffer.
 */
import type { ServerResponse } from 'node:http';

const MDAT_CHUNK = 256 * 1024;
/** Smallest clip: ftyp + free + a small mdat. */
const MIN_MDAT_PAYLOAD = 64;

function box(type: string, payload: Buffer): Buffer {
	const header = Buffer.alloc(8);
	header.writeUInt32BE(8 + payload.length, 0);
	header.write(type, 4, 'latin1');
	return Buffer.concat([header, payload]);
}

/** ftyp: major brand isom, minor 512, compatible isom iso2 avc1 mp41 (what encoders write). */
function ftypBox(): Buffer {
	return box('ftyp', Buffer.concat([Buffer.from('isom', 'latin1'), Buffer.from([0, 0, 2, 0]), Buffer.from('isomiso2avc1mp41', 'latin1')]));
}

export interface PromptClip {
	/** Everything before the mdat payload: ftyp, free (the prompt), the mdat header. */
	head: Buffer;
	/** Bytes of the mdat payload that follow `head`. */
	payloadBytes: number;
	/** Total file size. */
	size: number;
}

/** What a clip says about itself (its `free` box). */
export interface ClipInfo {
	prompt: string;
	task: string;
	draft?: true; // a draft preview
	enhancedFrom?: string; // a full-quality render of this draft task
}

export interface ClipOptions {
	task?: string;
	sizeBytes?: number;
	draft?: boolean;
	enhancedFrom?: string;
}

/** The layout of a clip for `prompt`, padded to `sizeBytes` when that is larger than the minimal clip. */
export function promptClip(prompt: string, options: ClipOptions = {}): PromptClip {
	const info: ClipInfo = { prompt, task: options.task ?? '', ...(options.draft ? { draft: true } : {}), ...(options.enhancedFrom ? { enhancedFrom: options.enhancedFrom } : {}) };
	const free = box('free', Buffer.from(JSON.stringify(info), 'utf8'));
	const fixed = ftypBox().length + free.length + 8;
	const payloadBytes = Math.max(MIN_MDAT_PAYLOAD, (options.sizeBytes ?? 0) - fixed);
	const mdatHeader = Buffer.alloc(8);
	mdatHeader.writeUInt32BE(8 + payloadBytes, 0);
	mdatHeader.write('mdat', 4, 'latin1');
	const head = Buffer.concat([ftypBox(), free, mdatHeader]);
	return { head, payloadBytes, size: head.length + payloadBytes };
}

/** A whole small clip as one buffer (tests). */
export function makePromptMp4(prompt: string, options: ClipOptions = {}): Buffer {
	const clip = promptClip(prompt, options);
	return Buffer.concat([clip.head, payload(0, clip.payloadBytes)]);
}

function payload(offset: number, length: number): Buffer {
	const out = Buffer.alloc(length);
	for (let i = 0; i < length; i++) out[i] = (offset + i) % 251;
	return out;
}

const PATTERN = payload(0, MDAT_CHUNK + 251);

/** Writes `clip` to `res` with backpressure, the payload in chunks; resolves when done or the socket closed. */
export async function writeClip(res: ServerResponse, clip: PromptClip, limit = clip.size): Promise<void> {
	const waitDrain = () => new Promise<void>((resolve) => {
		const done = () => {
			res.off('drain', done);
			res.off('close', done);
			resolve();
		};
		res.on('drain', done);
		res.on('close', done);
	});
	let sent = Math.min(limit, clip.head.length);
	if (!res.write(clip.head.subarray(0, sent))) await waitDrain();
	while (sent < limit && !res.destroyed) {
		const offset = sent - clip.head.length;
		const n = Math.min(MDAT_CHUNK, limit - sent);
		const start = offset % 251;
		if (!res.write(PATTERN.subarray(start, start + n))) await waitDrain();
		sent += n;
	}
}

/** The prompt of a clip made by the simulator, or undefined when the buffer is not one. */
export function readPromptFromMp4(buffer: Buffer): string | undefined {
	return readClipInfo(buffer)?.prompt;
}

/** What a clip made by the simulator says about itself (prompt, task, draft or enhanced), or undefined. */
export function readClipInfo(buffer: Buffer): ClipInfo | undefined {
	let at = 0;
	while (at + 8 <= buffer.length) {
		const size = buffer.readUInt32BE(at);
		const type = buffer.toString('latin1', at + 4, at + 8);
		if (size < 8) return undefined;
		if (type === 'free') {
			try {
				const json = JSON.parse(buffer.toString('utf8', at + 8, at + size)) as Partial<ClipInfo>;
				return typeof json.prompt === 'string' ? (json as ClipInfo) : undefined;
			} catch {
				return undefined;
			}
		}
		at += size;
	}
	return undefined;
}
