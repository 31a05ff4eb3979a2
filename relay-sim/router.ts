/** Request dispatch: both API styles' routes, the files host, and bookkeeping common to all. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimContext } from './context';
import { handleCredits } from './handlers/credits';
import { handleDownload } from './handlers/download';
import { handleDraftCacheDownload } from './handlers/draftCacheDownload';
import { handlePoll } from './handlers/poll';
import { handleSubmit } from './handlers/submit';
import { sendError, sendJson } from './http';
import type { ApiStyle } from './types';
import { SUBMIT_ENDPOINTS } from './validate';

const PREFIX: Record<string, ApiStyle> = { '/bfl/v1/': 'relay', '/v1/': 'bfl' };
const FILE_PATH = /^\/files\/([A-Za-z0-9-]+)\.(png|jpg|mp4|draft)$/;

export function createRequestHandler(ctx: SimContext) {
	return (req: IncomingMessage, res: ServerResponse): void => {
		ctx.inFlight++;
		ctx.log.peakConcurrentRequests = Math.max(ctx.log.peakConcurrentRequests, ctx.inFlight);
		res.on('close', () => ctx.inFlight--);
		if (req.headers.host !== ctx.hostHeader) ctx.log.foreignHostRequests++;

		route(ctx, req, res).catch((err: unknown) => {
			if (!res.headersSent) sendError(res, 500, `relay-sim internal error: ${String(err)}`);
			else res.destroy();
		});
	};
}

async function route(ctx: SimContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
	const url = new URL(req.url ?? '/', ctx.url);
	const method = req.method ?? 'GET';
	const path = url.pathname;

	const file = FILE_PATH.exec(path);
	if (file) {
		if (method !== 'GET' && method !== 'HEAD') return methodNotAllowed(res, 'GET');
		return file[2] === 'draft' ? handleDraftCacheDownload(ctx, req, res, file[1], url) : handleDownload(ctx, req, res, file[1], url);
	}
	if (path === '/health') return sendJson(res, 200, { ok: true });

	for (const [prefix, style] of Object.entries(PREFIX)) {
		if (!path.startsWith(prefix)) continue;
		const endpoint = path.slice(prefix.length);
		if (SUBMIT_ENDPOINTS.includes(endpoint)) {
			return method === 'POST' ? handleSubmit(ctx, req, res, style, endpoint) : methodNotAllowed(res, 'POST');
		}
		if (endpoint === 'get_result') {
			return method === 'GET' ? handlePoll(ctx, req, res, style, url) : methodNotAllowed(res, 'GET');
		}
		if (endpoint === 'credits') {
			return method === 'GET' ? handleCredits(ctx, req, res, style) : methodNotAllowed(res, 'GET');
		}
	}
	req.resume();
	sendError(res, 404, 'Not Found');
}

function methodNotAllowed(res: ServerResponse, allow: string): void {
	sendError(res, 405, 'Method Not Allowed', { Allow: allow });
}
