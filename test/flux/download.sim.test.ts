import { detectImageType } from '../../src/flux/imageType';
import { readPromptFromPng, RelaySimulator, startRelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { expectRedacted, failureOf, generate, uniquePrompt } from './helpers';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 5 }, (started) => (sim = started));

describe.each(['relay', 'bfl'] as const)('download (%s)', (style) => {
	it('sends no credential to the download host', async () => {
		const result = await generate(sim, uniquePrompt('no creds on download'), style);
		expect(sim.log.credentialOnDownload).toBe(false);
		expect(detectImageType(result.buffer)?.mimeType).toBe('image/png');
	});

	it.each([301, 302, 303, 307, 308] as const)('follows %i redirects (3 hops)', async (redirectStatus) => {
		const prompt = uniquePrompt(`redirect ${redirectStatus}`);
		sim.setFault(prompt, { on: 'download', redirects: 3, redirectStatus });
		const result = await generate(sim, prompt, style);
		expect(readPromptFromPng(result.buffer)).toBe(prompt);
		expect(sim.log.redirects).toBe(3);
		expect(result.attempts.download).toBe(4);
		expect(sim.log.credentialOnDownload).toBe(false);
	});

	it('follows exactly 5 redirects', async () => {
		const prompt = uniquePrompt('redirect 5');
		sim.setFault(prompt, { on: 'download', redirects: 5 });
		const result = await generate(sim, prompt, style);
		expect(readPromptFromPng(result.buffer)).toBe(prompt);
	});

	it('more than 5 redirects → download_failed', async () => {
		const prompt = uniquePrompt('redirect 6');
		sim.setFault(prompt, { on: 'download', redirects: 6 });
		const err = await failureOf(generate(sim, prompt, style));
		expect(err.kind).toBe('download_failed');
		expect(err.message).toMatch(/more than 5/);
		expect(sim.log.downloads).toBe(0);
	});

	it('a truncated body is retried as transient, then download_failed', async () => {
		const prompt = uniquePrompt('truncated');
		sim.setFault(prompt, { on: 'download', truncated: true });
		const err = await failureOf(generate(sim, prompt, style));
		expect(err.kind).toBe('download_failed');
		expect(err.message).toMatch(/cut off|truncated/);
		expect(sim.log.downloads).toBe(3); // FAST download policy: 3 attempts
		expectRedacted(err.message, sim);
	});

	it('an HTML page served as image/png → not_an_image, not retried', async () => {
		const prompt = uniquePrompt('non image');
		sim.setFault(prompt, { on: 'download', nonImage: true });
		const err = await failureOf(generate(sim, prompt, style));
		expect(err.kind).toBe('not_an_image');
		expect(sim.log.downloads).toBe(1);
	});

	it('Content-Length above the cap → too_large, not retried; a cap below 1 MB is not "0 MB"', async () => {
		const prompt = uniquePrompt('too large declared');
		sim.setFault(prompt, { on: 'download', sizeBytes: 300_000 });
		const err = await failureOf(generate(sim, prompt, style, { maxDownloadBytes: 100_000 }));
		expect(err.kind).toBe('too_large');
		expect(err.message).toMatch(/larger than the 97\.7 KB download limit \(Content-Length 29\d(\.\d)? KB\)/);
		expect(err.message).not.toMatch(/\b0 MB/);
		expect(sim.log.downloads).toBe(1);
	});

	it('a small image above the cap (body already received) is discarded without an uncaught error', async () => {
		const prompt = uniquePrompt('too large small body');
		sim.setFault(prompt, { on: 'download', sizeBytes: 10_000 });
		const err = await failureOf(generate(sim, prompt, style, { maxDownloadBytes: 5_000 }));
		expect(err.kind).toBe('too_large');
		// Destroying an unread, complete undici body emits 'error' (UND_ERR_ABORTED); with no listener
		// that is an uncaught exception in the n8n process, which fails this test when it happens.
		for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
	});

	it('a chunked body above the cap → too_large (counted while streaming)', async () => {
		const prompt = uniquePrompt('too large chunked');
		sim.setFault(prompt, { on: 'download', sizeBytes: 300_000, chunked: true });
		const err = await failureOf(generate(sim, prompt, style, { maxDownloadBytes: 100_000 }));
		expect(err.kind).toBe('too_large');
	});

	it('a large image under the cap downloads whole', async () => {
		const prompt = uniquePrompt('large ok');
		sim.setFault(prompt, { on: 'download', sizeBytes: 2_000_000, chunked: true });
		const result = await generate(sim, prompt, style);
		expect(result.buffer.length).toBeGreaterThanOrEqual(1_900_000);
		expect(readPromptFromPng(result.buffer)).toBe(prompt);
	});

	it.each([429, 500, 502, 503, 504])('download HTTP %i is retried, then succeeds', async (status) => {
		const prompt = uniquePrompt(`download ${status}`);
		sim.setFault(prompt, { on: 'download', status, times: 2 });
		const result = await generate(sim, prompt, style);
		expect(readPromptFromPng(result.buffer)).toBe(prompt);
		expect(sim.log.downloads).toBe(3);
	});

	it('persistent download 500 → download_failed after the attempt cap', async () => {
		const prompt = uniquePrompt('download 500 forever');
		sim.setFault(prompt, { on: 'download', status: 500 });
		const err = await failureOf(generate(sim, prompt, style));
		expect(err.kind).toBe('download_failed');
		expect(sim.log.downloads).toBe(3);
	});

	it.each([403, 404])('download HTTP %i → download_failed, not retried', async (status) => {
		const prompt = uniquePrompt(`download ${status}`);
		sim.setFault(prompt, { on: 'download', status });
		const err = await failureOf(generate(sim, prompt, style));
		expect(err.kind).toBe('download_failed');
		expect(err.statusCode).toBe(status);
		expect(sim.log.downloads).toBe(1);
	});

	it('a download slower than the job timeout → timeout', async () => {
		const prompt = uniquePrompt('slow download');
		sim.setFault(prompt, { on: 'download', slowBytesPerSecond: 20 });
		// 2 s: submit, polls and the start of the download fit in it even on a loaded machine; 20 bytes a second never end it.
		const err = await failureOf(generate(sim, prompt, style, { timeoutMs: 2000 }));
		expect(err.kind).toBe('timeout');
		expect(err.message).toMatch(/downloading/);
	});
});

describe('expired signed URL', () => {
	it('a sample URL that expired before the download → download_failed (403), not retried', async () => {
		const short = await startRelaySimulator({ latencyMs: 5, signedUrlTtlMs: -1 });
		try {
			const err = await failureOf(generate(short, uniquePrompt('expired'), 'relay'));
			expect(err.kind).toBe('download_failed');
			expect(err.statusCode).toBe(403);
			expect(err.message).toMatch(/expired/);
			expect(short.log.downloads).toBe(1);
		} finally {
			await short.close();
		}
	});
});
