/** Small node:http helpers shared by the route handlers. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimContext } from './context';
import type { ApiStyle } from './types';

export class BodyTooLargeError extends Error {}

export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		let failed = false;
		req.on('data', (chunk: Buffer) => {
			if (failed) return;
			size += chunk.length;
			if (size > limit) {
				failed = true;
				reject(new BodyTooLargeError(`body larger than ${limit} bytes`));
				return;
			}
			chunks.push(chunk);
		});
		req.on('end', () => {
			if (!failed) resolve(Buffer.concat(chunks));
		});
		req.on('error', (err) => {
			if (!failed) reject(err);
			failed = true;
		});
	});
}

/**
 * A fault body sent as it is instead of as JSON (e.g. a proxy's HTML page answering a poll):
 * `sim.setFault(p, { on: 'poll', status: 200, body: new RawBody('<html>…</html>') })`.
 */
export class RawBody {
	constructor(
		readonly text: string,
		readonly contentType = 'text/html; charset=utf-8',
	) {}
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
	if (res.headersSent || res.destroyed) return;
	const raw = body instanceof RawBody;
	const text = raw ? body.text : JSON.stringify(body);
	res.writeHead(status, {
		'Content-Type': raw ? body.contentType : 'application/json',
		'Content-Length': Buffer.byteLength(text),
		...headers,
	});
	res.end(text);
}

/** FastAPI-style error body, like BFL's: { detail: message }. */
export function sendError(res: ServerResponse, status: number, message: string, headers?: Record<string, string>): void {
	sendJson(res, status, { detail: message }, headers);
}

/** Azure-blob-style XML error, like a signed-URL storage host answers. */
export function sendStorageError(res: ServerResponse, status: number, code: string, message: string): void {
	if (res.headersSent || res.destroyed) return;
	const text = `<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`;
	res.writeHead(status, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(text) });
	res.end(text);
}

/**
 * relay: `Authorization: Bearer KEY`; bfl: `x-key: KEY`. Answers 401 (JSON body) and returns false
 * when the credential is missing or wrong; the key itself is never echoed.
 */
export function checkAuth(ctx: SimContext, req: IncomingMessage, res: ServerResponse, style: ApiStyle): boolean {
	let presented: string | undefined;
	if (style === 'relay') {
		const match = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
		presented = match?.[1].trim();
	} else {
		const header = req.headers['x-key'];
		presented = Array.isArray(header) ? header[0] : header;
	}
	if (presented === ctx.apiKey) return true;
	ctx.log.unauthorized++;
	const how = style === 'relay' ? 'an Authorization: Bearer header' : 'an x-key header';
	const message = presented === undefined || presented === '' ? `Not authenticated: send ${how}` : 'Invalid API key';
	sendError(res, 401, message, style === 'relay' ? { 'WWW-Authenticate': 'Bearer' } : {});
	return false;
}

/** Retry-After header for 429 / 503 answers. */
export function retryHeaders(status: number, seconds: number | undefined): Record<string, string> {
	return (status === 429 || status === 503) && seconds !== undefined ? { 'Retry-After': String(seconds) } : {};
}
