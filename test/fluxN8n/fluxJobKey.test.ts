/** The FLUX job's store key: what changes it, what does not. */
import { parseFluxCredentials } from '../../src/fluxN8n/fluxCredentials';
import { fluxJobIdentity } from '../../src/fluxN8n/fluxJobKey';
import { sharedReferenceImages } from '../../src/fluxN8n/sharedReferenceImages';
import type { FluxImageRequest } from '../../src/flux';
import { apiKeyHash } from '../../src/account';
import { contentDigest } from '../../src/store';
import { flux3ImageRequest } from '../support/imageRequest';

// As the glue hands them over: parsed (and the base URL normalised) once by parseFluxCredentials.
const creds = parseFluxCredentials({ apiStyle: 'relay', baseUrl: 'http://127.0.0.1:9/', apiKey: 'key-one-0123456789' });
type Over = Parameters<typeof flux3ImageRequest>[1] & { prompt?: string };
const request = ({ prompt = 'a fox', ...over }: Over = {}): FluxImageRequest => flux3ImageRequest(prompt, over);
const keyOf = (over: Over = {}, seed: number | undefined = 0, c = creds) => fluxJobIdentity({}, c, request(over), seed).key;

describe('fluxJobIdentity', () => {
	it('is the same for the same job in another run, and carries no secret', () => {
		const identity = fluxJobIdentity({}, creds, request(), 0);
		expect(identity.key).toMatch(/^[0-9a-f]{64}$/);
		expect(keyOf()).toBe(identity.key);
		expect(identity).toEqual({ key: identity.key, apiStyle: 'relay', baseUrl: 'http://127.0.0.1:9', model: 'flux-3-image', apiKeyHash: apiKeyHash(creds.apiKey) });
		expect(JSON.stringify(identity)).not.toContain(creds.apiKey);
	});

	it('changes with every field sent, the seed, the account, the base URL and the API style', () => {
		const keys = [
			keyOf(),
			keyOf({ prompt: 'a hare' }),
			keyOf({ resolution: '2k' }),
			keyOf({ aspectRatio: '16:9' }),
			keyOf({ grounding: false }),
			keyOf({ safetyTolerance: 3 }),
			keyOf({ images: [{ kind: 'url', url: 'https://example.com/a.png' }] }),
			keyOf({}, 1),
			keyOf({}, 0, { ...creds, apiKey: 'another-account-key' }),
			keyOf({}, 0, { ...creds, baseUrl: 'http://127.0.0.1:10' }),
			keyOf({}, 0, { ...creds, apiStyle: 'bfl' as never }),
		];
		expect(new Set(keys).size).toBe(keys.length);
	});

	it('changes with the order and the content of each reference image; not with what is never sent', () => {
		const a = sharedReferenceImages().encode(Buffer.from('image A'), 'image/png');
		const b = sharedReferenceImages().encode(Buffer.from('image B'), 'image/png');
		const c = sharedReferenceImages().encode(Buffer.from('image C'), 'image/png');
		const keys = [keyOf({ images: [a, b] }), keyOf({ images: [b, a] }), keyOf({ images: [a, c] }), keyOf({ images: [c, b] }), keyOf({ images: [a] })];
		expect(new Set(keys).size).toBe(keys.length);
		// The same bytes under another MIME type are the same upstream body; a base URL with a trailing slash is the same API.
		expect(keyOf({ images: [sharedReferenceImages().encode(Buffer.from('image A'), 'image/jpeg'), b] })).toBe(keys[0]);
		const slashless = parseFluxCredentials({ apiStyle: 'relay', baseUrl: 'http://127.0.0.1:9', apiKey: 'key-one-0123456789' });
		expect(keyOf({}, 0, slashless)).toBe(keyOf());
	});

	it('the n-th identical request of one run is occurrence n; another run counts again from 0', () => {
		const run = {};
		const inRun = [0, 1, 2].map(() => fluxJobIdentity(run, creds, request(), 0).key);
		expect(new Set(inRun).size).toBe(3);
		const again = {};
		expect([0, 1, 2].map(() => fluxJobIdentity(again, creds, request(), 0).key)).toEqual(inRun);
		// A different request in the same run does not shift the count of the first.
		const mixed = {};
		expect(fluxJobIdentity(mixed, creds, request(), 0).key).toBe(inRun[0]);
		fluxJobIdentity(mixed, creds, request({ prompt: 'other' }), 0);
		expect(fluxJobIdentity(mixed, creds, request(), 0).key).toBe(inRun[1]);
	});

	it('counts per n8n execution: every run of a node (a loop) and every node continue the count; a new execution starts at 0', () => {
		const firstBatch = { getExecutionId: () => 'exec-loop' }; // one node run, e.g. the first batch of Loop Over Items
		const secondBatch = { getExecutionId: () => 'exec-loop' }; // the next run of the node (or another FLUX node)
		const keys = [firstBatch, firstBatch, secondBatch, secondBatch].map((run) => fluxJobIdentity(run, creds, request(), 0).key);
		expect(new Set(keys).size).toBe(4);
		const rerun = { getExecutionId: () => 'exec-rerun' };
		expect([0, 1, 2, 3].map(() => fluxJobIdentity(rerun, creds, request(), 0).key)).toEqual(keys);
	});

	it('keys a binary reference image by the digest of its bytes (same bytes, same key; never the base64)', () => {
		const bytes = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
		const copy = sharedReferenceImages().encode(bytes, 'image/png');
		expect(sharedReferenceImages().digestOf(copy)).toBe(contentDigest(bytes));
		const other = { kind: 'base64' as const, data: bytes.toString('base64'), mimeType: 'image/png' };
		expect(keyOf({ images: [copy] })).toBe(keyOf({ images: [other] }));
		expect(keyOf({ images: [copy] })).toBe(keyOf({ images: [{ kind: 'url', url: contentDigest(bytes) }] }));
		expect(keyOf({ images: [copy] })).not.toBe(keyOf({ images: [{ ...other, data: Buffer.from('different').toString('base64') }] }));
	});
});
