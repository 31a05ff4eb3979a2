/**
 * Fail fast with a pool narrower than the batch: the first failure stops the
 * collector, and the jobs still queued behind the two workers never reach the API.
 */
import '../engine/harness'; // first: it prepares jest to load n8n-core
import { type RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { poolFor } from '../../src/pool';
import { runPromptBatch } from './setup';

// Read once, when the pool set is first used (lazily, inside the run below).
process.env.COMFLY_IMAGE_CONCURRENCY = '2';
process.env.COMFLY_IMAGE_PENDING = '30';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 1_000 }, (started) => (sim = started));

it('the first failure throws naming the slot, and queued jobs are cancelled before being sent', async () => {
	sim.setFault('refused', { on: 'submit', status: 400, body: { detail: 'bad prompt' } });
	const prompts = ['refused 1', ...Array.from({ length: 29 }, (_, i) => `waiting ${i + 2}`)];
	const result = await runPromptBatch(sim, prompts);
	const pool = poolFor('image');
	expect(pool.workers).toBe(2);
	expect(result.status).toBe('error');
	const error = result.errorOf('Collect');
	expect(error?.message).toMatch(/^Slot 1 failed: .*bad prompt/);
	expect(error?.message).not.toContain(sim.apiKey);
	expect(error?.description).toMatch(/Placeholder/);

	// Let the job that was already running finish; then look at what reached the API.
	const jobIds = result.outputOf('Submit').map((item) => String(item.json.jobId));
	const snapshots = await Promise.all(jobIds.map(async (id) => await pool.wait(id)));
	const states = snapshots.map((snapshot) => snapshot.state);
	expect(states[0]).toBe('failed');
	// Slot 2 was running when slot 1 failed; slot 3 may have been picked up by the freed worker
	// in the same instant. Everything after that was still queued: cancelled, never sent.
	expect(states.slice(3).every((state) => state === 'cancelled')).toBe(true);
	for (const prompt of prompts.slice(3)) expect(sim.log.submitsByPrompt.get(prompt) ?? 0).toBe(0);
	expect(sim.log.submits.length).toBeLessThanOrEqual(3);
	expect(pool.stats()).toMatchObject({ running: 0, queued: 0, admitted: 0 });
});

it('more than 30 tasks: the collector refuses them and their queued jobs are never sent', async () => {
	sim.reset();
	const prompts = Array.from({ length: 40 }, (_, i) => `too many ${i + 1}`);
	const result = await runPromptBatch(sim, prompts);
	expect(result.errorOf('Collect')?.message).toMatch(/40 tasks .* at most 30/);
	const pool = poolFor('image');
	const states = await Promise.all(
		result.outputOf('Submit').map(async (task) => (await pool.wait(String(task.json.jobId))).state),
	);
	// The submit node waited at the gate (2 workers + 30 pending) until jobs finished, so some ran;
	// every job still queued when the collector refused the batch was cancelled and never sent.
	const cancelled = prompts.filter((_, index) => states[index] === 'cancelled');
	const sent = prompts.filter((prompt) => sim.log.submitsByPrompt.get(prompt));
	expect(cancelled.length).toBeGreaterThanOrEqual(28);
	expect(cancelled.length + sent.length).toBe(40);
	for (const prompt of cancelled) expect(sim.log.submitsByPrompt.get(prompt) ?? 0).toBe(0);
});

it('an invalid collector parameter fails naming the field, after cancelling the queued jobs', async () => {
	sim.reset();
	const prompts = Array.from({ length: 10 }, (_, i) => `bad parameter ${i + 1}`);
	const result = await runPromptBatch(sim, prompts, { collect: { numberInputs: 0 } });
	expect(result.status).toBe('error');
	expect(result.errorOf('Collect')?.message).toMatch(/^Invalid parameter "Number of Inputs"/);
	const pool = poolFor('image');
	const states = await Promise.all(
		result.outputOf('Submit').map(async (task) => (await pool.wait(String(task.json.jobId))).state),
	);
	// Two workers were running two jobs; the eight queued behind them were cancelled, never sent.
	const cancelled = prompts.filter((_, index) => states[index] === 'cancelled');
	expect(cancelled.length).toBeGreaterThanOrEqual(8);
	for (const prompt of cancelled) expect(sim.log.submitsByPrompt.get(prompt) ?? 0).toBe(0);
	expect(pool.stats()).toMatchObject({ running: 0, queued: 0, admitted: 0 });
});
