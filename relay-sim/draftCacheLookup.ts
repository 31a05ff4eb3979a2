/**
 * Which draft a `draft_cache` value names: the URL of a cache this simulator served (still valid, like any signed
 * URL), or the base64 of cache bytes it issued (relay-sim/draftCache.ts). Anything else is refused, as BFL refuses
 * a cache it did not make.
 */
import type { SimContext } from './context';
import type { DraftOrigin } from './draftCache';
import { MB, decodedBytes, isUrl } from './schema/media';

const CACHE_PATH = /^\/files\/([A-Za-z0-9-]+)\.draft$/;
const MAX_CACHE_BYTES = 128 * MB;

export function lookUpDraftCache(ctx: SimContext, value: string): DraftOrigin | { problem: string } {
	if (isUrl(value)) {
		const url = new URL(value);
		const id = CACHE_PATH.exec(url.pathname)?.[1];
		const task = id === undefined || url.origin !== new URL(ctx.url).origin ? undefined : ctx.tasks.byId.get(id);
		if (!task?.draft || task.sampleExpiresAt === undefined || url.searchParams.get('sig') !== task.sig) {
			return { problem: 'draft_cache URL is not a draft cache' };
		}
		if (ctx.now() > task.sampleExpiresAt) return { problem: 'draft_cache URL has expired' };
		return task.draft;
	}
	if (decodedBytes(value) > MAX_CACHE_BYTES) return { problem: 'draft_cache larger than 128 MB' };
	return ctx.drafts.read(Buffer.from(value, 'base64')) ?? { problem: 'draft_cache is not a draft cache issued by this API' };
}
