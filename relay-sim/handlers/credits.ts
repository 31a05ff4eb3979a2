/** GET /bfl/v1/credits (relay, Bearer) and GET /v1/credits (bfl, x-key): a cheap credential test. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimContext } from '../context';
import { checkAuth, sendJson } from '../http';
import type { ApiStyle } from '../types';

export function handleCredits(ctx: SimContext, req: IncomingMessage, res: ServerResponse, style: ApiStyle): void {
	if (!checkAuth(ctx, req, res, style)) return;
	ctx.log.creditChecks++;
	sendJson(res, 200, { credits: ctx.settings.credits });
}
