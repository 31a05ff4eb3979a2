/** GET /bfl/v1/credits (relay, Bearer) and GET /v1/credits (bfl, x-key): a cheap credential test.
 *  With creditsRoute: false they answer 404 like an unknown path (a relay that does not serve them). */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimContext } from '../context';
import { checkAuth, sendError, sendJson } from '../http';
import type { ApiStyle } from '../types';

export function handleCredits(ctx: SimContext, req: IncomingMessage, res: ServerResponse, style: ApiStyle): void {
	if (!ctx.settings.creditsRoute) {
		// A relay that does not serve the route: the router's own answer for an unknown path.
		req.resume();
		return sendError(res, 404, 'Not Found');
	}
	if (!checkAuth(ctx, req, res, style)) return;
	ctx.log.creditChecks++;
	sendJson(res, 200, { credits: ctx.settings.credits });
}
