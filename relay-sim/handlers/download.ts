/** GET /files/<taskId>.png?se=...&sig=...: the signed-URL download host (no auth, like blob storage). */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimContext } from '../context';
import type { DownloadBodyFault } from '../faults';
import { sendStorageError } from '../http';
import { increment } from '../log';
import { promptClip, writeClip, type ClipOptions } from '../mp4';
import { makePromptPngParts } from '../png';
import { promptJpeg } from '../jpeg';
import type { Task } from '../tasks';

const SLOW_TICK_MS = 100;

export function handleDownload(ctx: SimContext, req: IncomingMessage, res: ServerResponse, taskId: string, url: URL): void {
	if (req.headers.authorization !== undefined || req.headers['x-key'] !== undefined) ctx.log.credentialOnDownload = true;

	const task = ctx.tasks.byId.get(taskId);
	if (!task || task.reported !== 'Ready' || task.sampleExpiresAt === undefined) {
		return countAnd(ctx, res, taskId, () => sendStorageError(res, 404, 'BlobNotFound', 'The specified blob does not exist.'));
	}
	if (url.searchParams.get('sig') !== task.sig) {
		return countAnd(ctx, res, taskId, () => sendStorageError(res, 403, 'AuthenticationFailed', 'Signature did not match.'));
	}
	if (ctx.now() > task.sampleExpiresAt) {
		return countAnd(ctx, res, taskId, () => sendStorageError(res, 403, 'AuthenticationFailed', 'Signed expiry time has passed.'));
	}

	const redirect = ctx.faults.redirects(task.prompt);
	const hop = Number(url.searchParams.get('hop') ?? '0');
	if (redirect && hop < redirect.redirects) {
		ctx.log.redirects++;
		const next = new URL(url.toString());
		next.searchParams.set('hop', String(hop + 1));
		res.writeHead(redirect.redirectStatus ?? 302, { Location: `${ctx.url}${next.pathname}${next.search}`, 'Content-Length': 0 });
		res.end();
		return;
	}

	countAnd(ctx, res, taskId, () => {
		const status = ctx.faults.downloadStatus(task.prompt, task.id);
		if (status) return sendStorageError(res, status.status, 'SimulatedFailure', `Simulated HTTP ${status.status}`);
		if (task.model === 'video') void serveVideo(ctx, res, task, ctx.faults.downloadBody(task.prompt));
		else serveImage(ctx, res, task, ctx.faults.downloadBody(task.prompt));
	});
}

function countAnd(ctx: SimContext, res: ServerResponse, taskId: string, answer: () => void): void {
	ctx.log.downloads++;
	increment(ctx.log.downloadsByTask, taskId);
	const span: { at: number; finishedAt?: number } = { at: ctx.now() };
	ctx.log.downloadSpans.set(taskId, span);
	res.once('finish', () => (span.finishedAt = ctx.now()));
	answer();
}

/** The image's parts (the large ones cached and shared: see png.ts); joined only where a fault needs one buffer. */
function imagePartsFor(ctx: SimContext, task: Task, padToBytes?: number): Buffer[] {
	if (task.jpeg) return [promptJpeg(task.prompt, task.id)];
	return makePromptPngParts(task.prompt, {
		...(ctx.settings.imageSize ?? task.imageSize),
		padToBytes: padToBytes ?? ctx.settings.imageBytes,
		text: { task: task.id },
	});
}

function imageFor(ctx: SimContext, task: Task, padToBytes?: number): Buffer {
	return Buffer.concat(imagePartsFor(ctx, task, padToBytes));
}

/** Answers 200 with the parts written in order (no copy of the image). */
function sendParts(res: ServerResponse, headers: Record<string, string>, parts: Buffer[]): void {
	res.writeHead(200, { ...headers, 'Content-Length': parts.reduce((sum, part) => sum + part.length, 0) });
	for (const part of parts) res.write(part);
	res.end();
}

function serveImage(ctx: SimContext, res: ServerResponse, task: Task, fault: DownloadBodyFault | undefined): void {
	const headers = { 'Content-Type': task.jpeg ? 'image/jpeg' : 'image/png', 'x-ms-blob-type': 'BlockBlob', ETag: `"${task.sig.slice(0, 16)}"` };
	if (fault && 'nonImage' in fault) {
		// a storage host's error page served with an image content type: only magic bytes tell
		const html = Buffer.from('<!DOCTYPE html><html><body><h1>Access denied</h1></body></html>\n');
		res.writeHead(200, { ...headers, 'Content-Length': html.length });
		res.end(html);
		return;
	}
	if (fault && 'sizeBytes' in fault) {
		if (fault.chunked) {
			res.writeHead(200, headers); // no Content-Length: Transfer-Encoding chunked
			res.write(imageFor(ctx, task, fault.sizeBytes));
			res.end();
		} else sendParts(res, headers, imagePartsFor(ctx, task, fault.sizeBytes));
		return;
	}
	if (!fault) return sendParts(res, headers, imagePartsFor(ctx, task));
	const image = imageFor(ctx, task);
	res.writeHead(200, { ...headers, 'Content-Length': image.length });
	if (fault && 'truncated' in fault) {
		// promise the whole file, send half of it, then drop the connection
		res.write(image.subarray(0, Math.floor(image.length / 2)), () => res.destroy());
		return;
	}
	if (fault && 'slowBytesPerSecond' in fault) {
		sendSlowly(ctx, res, image, fault.slowBytesPerSecond);
		return;
	}
	res.end(image);
}

function sendSlowly(ctx: SimContext, res: ServerResponse, image: Buffer, bytesPerSecond: number): void {
	const perTick = Math.max(1, Math.ceil((bytesPerSecond * SLOW_TICK_MS) / 1000));
	let offset = 0;
	const timer = setInterval(() => {
		if (res.destroyed) return stop();
		const end = Math.min(image.length, offset + perTick);
		res.write(image.subarray(offset, end));
		offset = end;
		if (offset >= image.length) {
			stop();
			res.end();
		}
	}, SLOW_TICK_MS);
	const stop = () => {
		clearInterval(timer);
		ctx.timers.delete(timer);
	};
	ctx.timers.add(timer);
	res.on('close', stop);
}

/** A clip whose content identifies the prompt; streamed (large clips never sit whole in memory); same body faults. */
async function serveVideo(ctx: SimContext, res: ServerResponse, task: Task, fault: DownloadBodyFault | undefined): Promise<void> {
	const headers = { 'Content-Type': 'video/mp4', 'x-ms-blob-type': 'BlockBlob', ETag: `"${task.sig.slice(0, 16)}"` };
	if (fault && ('nonImage' in fault || 'slowBytesPerSecond' in fault)) {
		if ('nonImage' in fault) {
			const html = Buffer.from('<!DOCTYPE html><html><body><h1>Access denied</h1></body></html>\n');
			res.writeHead(200, { ...headers, 'Content-Length': html.length });
			res.end(html);
			return;
		}
		const clip = promptClip(task.prompt, { ...clipOf(task), sizeBytes: ctx.settings.videoBytes });
		const whole = Buffer.alloc(clip.size);
		clip.head.copy(whole);
		res.writeHead(200, { ...headers, 'Content-Length': whole.length });
		sendSlowly(ctx, res, whole, fault.slowBytesPerSecond);
		return;
	}
	const sizeBytes = fault && 'sizeBytes' in fault ? fault.sizeBytes : ctx.settings.videoBytes;
	const clip = promptClip(task.prompt, { ...clipOf(task), sizeBytes });
	const chunked = fault && 'sizeBytes' in fault && fault.chunked;
	res.writeHead(200, chunked ? headers : { ...headers, 'Content-Length': clip.size });
	if (fault && 'truncated' in fault) {
		await writeClip(res, clip, Math.floor(clip.size / 2));
		res.destroy();
		return;
	}
	await writeClip(res, clip);
	res.end();
}

/** What a task's clip says about itself: its task, and whether it is a draft or an enhanced draft. */
function clipOf(task: Task): ClipOptions {
	return { task: task.id, draft: task.draft !== undefined, enhancedFrom: task.enhancedFrom };
}
