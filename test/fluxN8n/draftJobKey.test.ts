/**
 * The job key of FLUX 3 Video drafts: Enhance a Draft is keyed by its draft cache's bytes (a binary cache by its
 * content digest, never its base64), plus Seed; `draft: true` is its own job; a clip that is no draft keeps its key.
 */
import { flux3Video, type FluxVideoRequest } from '../../src/models';
import { parseFluxCredentials } from '../../src/fluxN8n/fluxCredentials';
import { fluxVideoJobIdentity } from '../../src/fluxN8n/fluxJobKey';
import { sharedReferenceImages } from '../../src/fluxN8n/sharedReferenceImages';
import { jobKey } from '../../src/store';

const creds = parseFluxCredentials({ apiStyle: 'relay', baseUrl: 'http://127.0.0.1:9/', apiKey: 'key-one-0123456789' });
const clip: FluxVideoRequest = { model: flux3Video, mode: 't2v', prompt: 'a spot', aspectRatio: 'auto', resolution: 'hd', duration: 'auto', generateAudio: true };
const enhance = (cache: Buffer): FluxVideoRequest => ({ ...clip, mode: 'draft_enhance', draftCache: sharedReferenceImages().encode(cache, 'application/octet-stream') });
const keyOf = (request: FluxVideoRequest, seed: number | undefined = 0) => fluxVideoJobIdentity({}, creds, request, seed).key;

it('the same cache bytes give the same key (another copy, another run); other bytes another key; the seed counts', () => {
	const a = keyOf(enhance(Buffer.from('draft cache A')));
	expect(keyOf(enhance(Buffer.from('draft cache A')))).toBe(a);
	expect(keyOf(enhance(Buffer.from('draft cache B')))).not.toBe(a);
	expect(keyOf(enhance(Buffer.from('draft cache A')), 7)).not.toBe(a);
});

it('keys a binary cache by its content digest and a URL by its URL; the prompt and other fields of an enhance are not sent, so do not count', () => {
	const cache = Buffer.from('draft cache C');
	const byBytes = enhance(cache);
	expect(keyOf({ ...byBytes, prompt: 'another prompt', duration: 9 })).toBe(keyOf(byBytes));
	const byUrl = keyOf({ ...clip, mode: 'draft_enhance', draftCache: { kind: 'url', url: 'https://example.com/cache.bin' } });
	expect(byUrl).not.toBe(keyOf(byBytes));
});

it('a draft is its own job; a clip that is no draft keeps the key it always had', () => {
	expect(keyOf({ ...clip, draft: true })).not.toBe(keyOf(clip));
	expect(keyOf({ ...clip, draft: false })).toBe(keyOf(clip));
	// The key of a saved Text to Video workflow, built from the body it always sent (no draft field).
	const upstream = { mode: 't2v', prompt: 'a spot', aspect_ratio: 'auto', resolution: 'hd', duration: 'auto', generate_audio: true };
	const base = { apiStyle: 'relay', baseUrl: 'http://127.0.0.1:9', model: 'flux-3-video', upstream, seed: 0, apiKeyHash: fluxVideoJobIdentity({}, creds, clip, 0).apiKeyHash, occurrence: 0 };
	expect(keyOf(clip)).toBe(jobKey(base));
});
