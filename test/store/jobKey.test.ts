import { createHash } from 'node:crypto';
import { apiKeyHash } from '../../src/account';
import { type JobKeyInput, contentDigest, jobKey } from '../../src/store';

const base: JobKeyInput = {
	apiStyle: 'relay',
	baseUrl: 'https://relay.example.test',
	model: 'flux-3',
	upstream: { prompt: 'a red fox', resolution: '1k', aspect_ratio: '16:9', images: ['sha256:aa', 'sha256:bb'] },
	seed: 42,
	apiKeyHash: apiKeyHash('sk-account-one'),
	occurrence: 0,
};

describe('apiKeyHash', () => {
	it('is short hex, stable, differs per key, and does not contain the key', () => {
		const h = apiKeyHash('sk-account-one');
		expect(h).toMatch(/^[0-9a-f]{16}$/);
		expect(apiKeyHash('sk-account-one')).toBe(h);
		expect(apiKeyHash('sk-account-two')).not.toBe(h);
		expect(h).not.toContain('account');
	});

	it('is salted: not the plain SHA-256 of the key', () => {
		const plain = createHash('sha256').update('sk-account-one').digest('hex');
		expect(plain.startsWith(apiKeyHash('sk-account-one'))).toBe(false);
	});
});

describe('contentDigest', () => {
	it('digests bytes; same bytes same digest', () => {
		expect(contentDigest(Buffer.from('png'))).toBe(contentDigest(Buffer.from('png')));
		expect(contentDigest(Buffer.from('png'))).not.toBe(contentDigest(Buffer.from('jpg')));
		expect(contentDigest(Buffer.from('png'))).toMatch(/^sha256:[0-9a-f]{64}$/);
	});
});

describe('jobKey', () => {
	const key = jobKey(base);

	it('is a 64-hex digest, stable across calls', () => {
		expect(key).toMatch(/^[0-9a-f]{64}$/);
		expect(jobKey({ ...base })).toBe(key);
	});

	it('does not depend on object key order (top level or nested)', () => {
		const reordered: JobKeyInput = {
			occurrence: 0,
			seed: 42,
			upstream: { images: ['sha256:aa', 'sha256:bb'], aspect_ratio: '16:9', resolution: '1k', prompt: 'a red fox' },
			model: 'flux-3',
			apiKeyHash: base.apiKeyHash,
			baseUrl: 'https://relay.example.test',
			apiStyle: 'relay',
		};
		expect(jobKey(reordered)).toBe(key);
	});

	it('ignores undefined upstream fields, a trailing slash on the base URL, and 42 vs "42"', () => {
		expect(jobKey({ ...base, upstream: { ...base.upstream, grounding: undefined } })).toBe(key);
		expect(jobKey({ ...base, baseUrl: 'https://relay.example.test/' })).toBe(key);
		expect(jobKey({ ...base, seed: '42' })).toBe(key);
	});

	it.each<[string, Partial<JobKeyInput>]>([
		['apiStyle', { apiStyle: 'bfl' }],
		['baseUrl', { baseUrl: 'https://other.example.test' }],
		['model', { model: 'flux-3-pro' }],
		['seed', { seed: 43 }],
		['account', { apiKeyHash: apiKeyHash('sk-account-two') }],
		['occurrence', { occurrence: 1 }],
		['prompt', { upstream: { ...base.upstream, prompt: 'a blue fox' } }],
		['an extra upstream field', { upstream: { ...base.upstream, grounding: true } }],
		['reference image order', { upstream: { ...base.upstream, images: ['sha256:bb', 'sha256:aa'] } }],
		['a reference image digest', { upstream: { ...base.upstream, images: ['sha256:aa', 'sha256:cc'] } }],
	])('changes with %s', (_name, change) => {
		expect(jobKey({ ...base, ...change })).not.toBe(key);
	});

	it('rejects bad input naming the field, and binary data in the upstream fields', () => {
		expect(() => jobKey({ ...base, occurrence: -1 })).toThrow(/occurrence/);
		expect(() => jobKey({ ...base, apiKeyHash: 'sk-plain-key' })).toThrow(/apiKeyHash/);
		expect(() => jobKey({ ...base, upstream: { image: Buffer.from('x') } })).toThrow(/upstream\.image.*contentDigest/);
		expect(() => jobKey({ ...base, upstream: { strength: Number.NaN } })).toThrow(/strength/);
	});
});
