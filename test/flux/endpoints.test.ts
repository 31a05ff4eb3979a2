import { checkPollingUrl, defaultPollUrl, isCredentialHostAllowed, registrableDomain, resolveEndpoints } from '../../src/flux/endpoints';

const KEY = 'k-0123456789';

describe('endpoints', () => {
	// The credential itself (http(s) base URL without user/query/fragment, a key usable in a
	// header) is validated once, by the glue layer's zod schema (src/fluxN8n/fluxCredentials.ts).
	it('relay style: Bearer and /bfl/v1 routes; trailing slash tolerated', () => {
		const e = resolveEndpoints({ apiStyle: 'relay', baseUrl: 'https://relay.example.com//', apiKey: KEY }, 'flux-3-image');
		expect(e.submitUrl).toBe('https://relay.example.com/bfl/v1/flux-3-image');
		expect(defaultPollUrl(e, 'a b&c')).toBe('https://relay.example.com/bfl/v1/get_result?id=a%20b%26c');
		expect(e.authHeaders).toEqual({ authorization: `Bearer ${KEY}` });
		expect(e.creditsUrl).toBe('https://relay.example.com/bfl/v1/credits');
	});

	it('bfl style: x-key and /v1 routes', () => {
		const e = resolveEndpoints({ apiStyle: 'bfl', baseUrl: 'https://api.bfl.ai/', apiKey: KEY }, 'flux-3-image');
		expect(e.submitUrl).toBe('https://api.bfl.ai/v1/flux-3-image');
		expect(e.authHeaders).toEqual({ 'x-key': KEY });
	});
});

describe('credential host check (BFL polling URLs)', () => {
	const bfl = new URL('https://api.bfl.ai');
	it('registrable domains', () => {
		expect(registrableDomain('api.bfl.ai')).toBe('bfl.ai');
		expect(registrableDomain('api.eu.bfl.ai')).toBe('bfl.ai');
		expect(registrableDomain('a.b.co.uk')).toBe('b.co.uk');
		expect(registrableDomain('127.0.0.1')).toBeUndefined();
		expect(registrableDomain('localhost')).toBeUndefined();
	});
	it.each([
		['https://api.us1.bfl.ai/v1/get_result?id=1', true],
		['https://bfl.ai/v1/get_result?id=1', true],
		['https://api.bfl.ai:8443/x', true],
		['http://api.bfl.ai/v1/get_result', false], // no downgrade to plain http
		['https://evil-bfl.ai/x', false],
		['https://bfl.ai.evil.com/x', false],
		['https://api.bfl.ml/x', false],
		['https://user:pw@api.bfl.ai/x', false],
		['ftp://api.bfl.ai/x', false],
	])('api.bfl.ai → %s allowed=%p', (candidate, allowed) => {
		expect(isCredentialHostAllowed(bfl, new URL(candidate))).toBe(allowed);
	});
	it('an IP or localhost base allows exactly that host and port', () => {
		const ip = new URL('http://127.0.0.1:8787');
		expect(isCredentialHostAllowed(ip, new URL('http://127.0.0.1:8787/v1/get_result?id=1'))).toBe(true);
		expect(isCredentialHostAllowed(ip, new URL('http://127.0.0.2:8787/v1/get_result'))).toBe(false);
		expect(isCredentialHostAllowed(ip, new URL('http://127.0.0.1:9999/v1/get_result'))).toBe(false);
		expect(isCredentialHostAllowed(ip, new URL('http://localhost:8787/v1/get_result'))).toBe(false);
		const local = new URL('http://localhost:8787');
		expect(isCredentialHostAllowed(local, new URL('http://localhost:8787/x'))).toBe(true);
		expect(isCredentialHostAllowed(local, new URL('http://other.localhost:8787/x'))).toBe(false);
	});
	it('checkPollingUrl throws forbidden_host without leaking the URL', () => {
		const e = resolveEndpoints({ apiStyle: 'bfl', baseUrl: 'https://api.bfl.ai', apiKey: KEY });
		let err: unknown;
		try {
			checkPollingUrl(e, 'https://evil.example.com/steal?token=abc', 'task-1');
		} catch (x) {
			err = x;
		}
		expect(err).toMatchObject({ kind: 'forbidden_host', taskId: 'task-1' });
		expect((err as Error).message).not.toMatch(/steal|token=abc|https:\/\//);
	});
});
