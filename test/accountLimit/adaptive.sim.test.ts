/**
 * Adaptive concurrency against the simulator's account cap, through the glue (obtainFluxImage and the
 * process-wide limiter, no Redis): a pool wider than the account learns the account's size from the first
 * wave of 429s and then waits for its own tasks instead of retrying into a full account.
 */
import { obtainFluxImage } from '../../src/fluxN8n/imageJobs';
import type { RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { jobContext } from '../support/preparedJobs';
import { preparedJob } from './support/preparedJob';
import { useEnv } from '../support/useEnv';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 1000, maxActiveTasks: 10, retryAfterSeconds: 1 }, (started) => (sim = started));

describe('adaptive account limit (no Redis)', () => {
	useEnv({ COMFLY_IMAGE_CONCURRENCY: '30' });

	it('account capped at 10, pool 30, 30 jobs: all succeed, a handful of 429s after the first wave, peak active <= 10', async () => {
		const results = await Promise.all(Array.from({ length: 30 }, (_, i) => obtainFluxImage(preparedJob(sim, `adaptive ${i}`), jobContext(`a-${i}`))));
		expect(results.every((r) => r.outcome === 'success')).toBe(true);
		expect(sim.log.tasks.size).toBe(30); // each paid once
		expect(sim.log.peakActiveTasks).toBeLessThanOrEqual(10);
		const refused = sim.log.submits.filter((s) => s.status === 429).length;
		// The first wave: 30 submits at once, 20 refused. After it the client waits for its own tasks:
		// a handful more, not one per waiting worker per Retry-After.
		expect(refused).toBeLessThanOrEqual(25); // without the adaptive limit: 30 here
	});
});
