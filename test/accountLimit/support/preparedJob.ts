/** A prepared FLUX image job against the simulator (Cache: Off, so every job is a new upstream task). */
import type { RelaySimulator } from '../../../relay-sim';
import type { PreparedFluxImageJob } from '../../../src/fluxN8n/prepareFluxImageJob';
import { preparedImageJob } from '../../support/preparedJobs';

export function preparedJob(simulator: RelaySimulator, prompt: string): PreparedFluxImageJob {
	return preparedImageJob(simulator, prompt, { timeoutMs: 120_000, cacheMode: 'off' });
}
