import { redact } from '../../src/flux';

const KEY = 'sk-live-0123456789abcdef';

describe('redact', () => {
	it('removes the API key wherever it appears, also URL-encoded', () => {
		const out = redact(`key=${KEY} and ${encodeURIComponent('a/b+c==')}`, [KEY, 'a/b+c==']);
		expect(out).not.toContain(KEY);
		expect(out).not.toContain('a%2Fb%2Bc%3D%3D');
		expect(out).toContain('[REDACTED]');
	});

	it('removes Bearer tokens and x-key values even without the secret list', () => {
		const out = redact('Authorization: Bearer abc.def.ghi; x-key: zzz-secret-1; {"x-key":"q1w2e3"}');
		expect(out).not.toMatch(/abc\.def\.ghi|zzz-secret-1|q1w2e3/);
		expect(out).toContain('Bearer [REDACTED]');
		expect(out).toContain('x-key: [REDACTED]');
	});

	it('replaces URLs (signed URLs carry tokens) and data URIs', () => {
		const out = redact('download https://cdn.example.com/a.png?se=1&sig=SECRET failed; polling http://127.0.0.1:9/x; data:image/png;base64,AAAA');
		expect(out).not.toMatch(/SECRET|cdn\.example|127\.0\.0\.1|AAAA/);
		expect(out).toContain('[URL]');
	});

	it('redacts credential-looking fields outside URLs', () => {
		expect(redact('failed: sig=abcdef&token=xyz api_key: foo')).not.toMatch(/abcdef|xyz|foo/);
	});

	it('cuts long text to about 500 characters', () => {
		const out = redact('x'.repeat(5000));
		expect(out.length).toBeLessThanOrEqual(500);
		expect(out.endsWith('…')).toBe(true);
	});

	it('leaves ordinary text alone and ignores too-short secrets', () => {
		expect(redact('Task not found (HTTP 404)', ['a', ''])).toBe('Task not found (HTTP 404)');
	});

	it('removes control characters', () => {
		expect(redact('a\u0000b\u001bc\nd')).toBe('abc\nd');
	});
});
