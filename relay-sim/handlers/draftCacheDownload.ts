/** GET /files/<taskId>.draft?se=...&sig=...: a draft's cache (relay-sim/draftCache.ts), signed and expiring like its clip. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimContext } from '../context';
import { sendStorageError } from '../http';

export function handleDraftCacheDownload(ctx: SimContext, req: IncomingMessage, res: ServerResponse, taskId: string, url: URL): void {
	if (req.headers.authorization !== undefined || req.headers['x-key'] !== undefined) ctx.log.credentialOnDownload = true;
	const task = ctx.tasks.byId.get(taskId);
	if (!task?.draft || task.reported !== 'Ready' || task.sampleExpiresAt === undefined) {
		return sendStorageError(res, 404, 'BlobNotFound', 'The specified blob does not exist.');
	}
	if (url.searchParams.get('sig') !== task.sig) return sendStorageError(res, 403, 'AuthenticationFailed', 'Signature did not match.');
	if (ctx.now() > task.sampleExpiresAt) return sendStorageError(res, 403, 'AuthenticationFailed', 'Signed expiry time has passed.');
	const status = ctx.faults.downloadStatus(task.prompt, `${task.id}.draft`);
	if (status) return sendStorageError(res, status.status, 'SimulatedFailure', `Simulated HTTP ${status.status}`);
	ctx.log.draftCacheDownloads++;
	const bytes = ctx.drafts.bytes(task.draft);
	res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': bytes.length, 'x-ms-blob-type': 'BlockBlob' });
	res.end(bytes);
}
