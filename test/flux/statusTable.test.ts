import { statusOutcome } from '../../src/flux/statusTable';
import { formatBytes } from '../../src/flux/body';
import { isLocalHost, nonPublicAddress } from '../../src/flux/addresses';

describe('the one status table', () => {
	const row = (status: number) => ({
		submit: summary(statusOutcome('submit', status)),
		poll: summary(statusOutcome('poll', status)),
		download: summary(statusOutcome('download', status)),
	});
	const summary = (o: ReturnType<typeof statusOutcome>) => `${o.retry ? 'retry' : 'fail'} ${o.kind}`;

	it.each([
		[400, 'fail bad_request', 'fail bad_request', 'fail download_failed'],
		[401, 'fail auth', 'fail auth', 'fail download_failed'],
		[402, 'fail credits', 'fail credits', 'fail download_failed'],
		[403, 'fail auth', 'fail auth', 'fail download_failed'],
		[404, 'fail upstream_error', 'fail task_not_found', 'fail download_failed'],
		[307, 'fail upstream_error', 'fail upstream_error', 'fail download_failed'],
		[408, 'fail upstream_error', 'retry upstream_error', 'retry download_failed'],
		[418, 'fail upstream_error', 'fail upstream_error', 'fail download_failed'],
		[422, 'fail bad_request', 'fail bad_request', 'fail download_failed'],
		[429, 'retry rate_limited', 'retry upstream_error', 'retry download_failed'],
		[500, 'fail maybe_submitted', 'retry upstream_error', 'retry download_failed'],
		[502, 'fail maybe_submitted', 'retry upstream_error', 'retry download_failed'],
		[503, 'retry upstream_error', 'retry upstream_error', 'retry download_failed'],
		[504, 'fail maybe_submitted', 'retry upstream_error', 'retry download_failed'],
	])('HTTP %i: submit %s, poll %s, download %s', (status, submit, poll, download) => {
		expect(row(status)).toEqual({ submit, poll, download });
	});

	it('a submit is retried only on 429 and 503 (provably not created); other 5xx may exist upstream', () => {
		for (let status = 300; status < 600; status++) {
			const outcome = statusOutcome('submit', status);
			expect(outcome.retry).toBe(status === 429 || status === 503);
		}
	});

	it('redirects where none is expected get the http vs https hint', () => {
		expect(statusOutcome('submit', 301)).toMatchObject({ message: expect.stringMatching(/HTTP 301, a redirect: check http vs https/) });
		expect(statusOutcome('poll', 307)).toMatchObject({ message: expect.stringMatching(/HTTP 307, a redirect: check http vs https/) });
	});

	it('an expired signed download URL says so', () => {
		expect(statusOutcome('download', 403)).toMatchObject({ message: expect.stringMatching(/may have expired/) });
	});
});

describe('formatBytes', () => {
	it.each([
		[0, '0 bytes'],
		[1, '1 byte'],
		[10, '10 bytes'],
		[100_000, '97.7 KB'],
		[1024 * 1024, '1 MB'],
		[50 * 1024 * 1024, '50 MB'],
		[1.5 * 1024 * 1024, '1.5 MB'],
	])('%i → %s', (n, text) => expect(formatBytes(n)).toBe(text));
});

describe('addresses', () => {
	it.each([
		['127.0.0.1', 'a loopback'],
		['10.0.0.1', 'a private (RFC 1918)'],
		['172.16.5.4', 'a private (RFC 1918)'],
		['192.168.1.1', 'a private (RFC 1918)'],
		['169.254.169.254', 'a link-local'],
		['100.64.0.1', 'a carrier-grade NAT'],
		['0.0.0.0', 'an unspecified ("this network")'],
		['::1', 'a loopback'],
		['[::1]', 'a loopback'],
		['fd12::1', 'a private (unique local)'],
		['fe80::1', 'a link-local'],
		['::ffff:127.0.0.1', 'a loopback'],
		['::ffff:7f00:1', 'a loopback'],
		['224.0.0.1', 'a multicast'],
	])('%s is %s address', (ip, label) => expect(nonPublicAddress(ip)).toBe(label));

	it.each(['8.8.8.8', '1.1.1.1', '2606:4700::1111', 'api.bfl.ai'])('%s is public (or not an address)', (ip) => {
		expect(nonPublicAddress(ip)).toBeUndefined();
	});

	it('local hosts: non-public literals, localhost, single-label and local-only names', () => {
		for (const host of ['127.0.0.1', '[::1]', '192.168.0.10', 'localhost', 'relay', 'relay.local', 'svc.internal', 'box.lan', 'a.localhost']) {
			expect([host, isLocalHost(host)]).toEqual([host, true]);
		}
		for (const host of ['api.bfl.ai', 'relay.example.com', '8.8.8.8', 'cdn.bfl.ai']) {
			expect([host, isLocalHost(host)]).toEqual([host, false]);
		}
	});
});
