/** generateImage (src/flux) against the relay simulator on 127.0.0.1, both API styles: submit, poll, download, the body sent, errors redacted, 30 jobs at once. */
import { generateImage } from '../../src/flux';
import { makePromptPng, readPromptFromPng, RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { FAST, credsFor, expectRedacted, failureOf, generate, requestFor, submitsFor, tasksFor, uniquePrompt } from './helpers';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 20 }, (started) => (sim = started));

describe.each(['relay', 'bfl'] as const)('%s style end to end', (style) => {
	it('submits, polls, downloads: the image carries the prompt', async () => {
		const prompt = uniquePrompt(`a lighthouse at dusk (${style})`);
		const attemptsSeen: number[] = [];
		const result = await generate(sim, prompt, style, { onAttempt: (n) => attemptsSeen.push(n.total) });
		expect(result.mimeType).toBe('image/png');
		expect(result.fileExtension).toBe('png');
		expect(readPromptFromPng(result.buffer)).toBe(prompt);
		expect(sim.log.tasks.has(result.taskId)).toBe(true);
		expect(submitsFor(sim, prompt)).toBe(1);
		expect(sim.log.submits[0]).toMatchObject({ style, status: 200 });
		expect(sim.log.credentialOnDownload).toBe(false);
		expect(sim.log.unauthorized).toBe(0);
		expect(result.attempts.submit).toBe(1);
		expect(result.attempts.poll).toBe(sim.log.pollsByTask.get(result.taskId));
		expect(result.attempts.download).toBe(1);
		expect(result.attempts.total).toBe(result.attempts.submit + result.attempts.poll + result.attempts.download);
		expect(attemptsSeen[attemptsSeen.length - 1]).toBe(result.attempts.total);
		const t = result.timings;
		expect(t.submittedAt).toBeLessThanOrEqual(t.readyAt);
		expect(t.readyAt).toBeLessThanOrEqual(t.downloadedAt);
	});

	it('sends the FLUX_API.md body: snake_case fields, plain base64 and URLs in order, no seed', async () => {
		const prompt = uniquePrompt(`body check (${style})`);
		const ref = makePromptPng('reference');
		await generateImage(
			credsFor(sim, style),
			requestFor(prompt, {
				aspectRatio: '16:9',
				resolution: '2k',
				grounding: false,
				safetyTolerance: 4,
				images: [
					{ kind: 'url', url: 'https://example.com/ref.png' },
					{ kind: 'base64', data: ref.toString('base64'), mimeType: 'image/png' },
				],
			}),
			FAST,
		);
		expect(sim.log.submits[0].body).toEqual({
			prompt,
			images: ['https://example.com/ref.png', ref.toString('base64')],
			aspect_ratio: '16:9',
			resolution: '2k',
			grounding: false,
			safety_tolerance: 4,
		});
	});

	it('omits images when there are none', async () => {
		const prompt = uniquePrompt(`no refs (${style})`);
		await generate(sim, prompt, style);
		expect(sim.log.submits[0].body).not.toHaveProperty('images');
		expect(sim.log.submits[0].body).not.toHaveProperty('seed');
	});

	it('keeps polling through unknown in-progress statuses', async () => {
		const prompt = uniquePrompt(`thinking (${style})`);
		sim.setFault(prompt, { on: 'poll', progressStatuses: ['Reasoning', 'Generating', 'Queued-Somewhere'] });
		const result = await generate(sim, prompt, style);
		expect(readPromptFromPng(result.buffer)).toBe(prompt);
		expect(result.attempts.poll).toBeGreaterThanOrEqual(4);
	});

	it('a wrong API key fails with kind auth and a redacted message', async () => {
		const prompt = uniquePrompt(`bad key (${style})`);
		const wrongKey = 'wrong-key-abcdef0123456789';
		const err = await failureOf(generateImage(credsFor(sim, style, wrongKey), requestFor(prompt), FAST));
		expect(err.kind).toBe('auth');
		expect(err.statusCode).toBe(401);
		expect(err.message).toMatch(/check the FLUX API credential/);
		expect(err.message).not.toContain(wrongKey);
		expectRedacted(err.message, sim);
		expect(submitsFor(sim, prompt)).toBe(1);
		expect(tasksFor(sim, prompt)).toHaveLength(0);
	});
});

describe('parallel jobs through the shared agent', () => {
	it('runs 30 jobs concurrently, each gets its own image', async () => {
		sim.setLatency(50);
		try {
			const prompts = Array.from({ length: 30 }, (_, i) => uniquePrompt(`batch item ${i}`));
			const results = await Promise.all(prompts.map((p, i) => generate(sim, p, i % 2 ? 'bfl' : 'relay')));
			results.forEach((r, i) => expect(readPromptFromPng(r.buffer)).toBe(prompts[i]));
			expect(sim.log.peakActiveTasks).toBeGreaterThan(1);
			expect(sim.log.submits).toHaveLength(30);
		} finally {
			sim.setLatency(20);
		}
	});
});

describe('options', () => {
	// Credentials and requests are validated once, by the glue layer (src/fluxN8n, zod): the
	// client accepts only typed, already-valid input.
	it('a signal aborted before the start sends nothing', async () => {
		const err = await failureOf(generate(sim, uniquePrompt('pre-aborted'), 'relay', { signal: AbortSignal.abort() }));
		expect(err.kind).toBe('cancelled');
		expect(sim.log.submits).toHaveLength(0);
	});

	it('messages never contain the key or URLs', async () => {
		const prompt = uniquePrompt('redaction');
		sim.setFault(prompt, { on: 'download', status: 404 });
		const err = await failureOf(generate(sim, prompt));
		expect(err.kind).toBe('download_failed');
		expectRedacted(err.message, sim);
	});
});
