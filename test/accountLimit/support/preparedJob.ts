/** A prepared FLUX image job against the simulator (Cache: Off, so every job is a new upstream task). */
import type { FluxImageRequest } from '../../../src/flux';
import { fluxJobIdentity } from '../../../src/fluxN8n/fluxJobKey';
import type { PreparedFluxImageJob } from '../../../src/fluxN8n/prepareFluxImageJob';
import type { RelaySimulator } from '../../../relay-sim';

export function preparedJob(simulator: RelaySimulator, prompt: string): PreparedFluxImageJob {
	const credentials = { apiStyle: 'relay' as const, baseUrl: simulator.url, apiKey: simulator.apiKey };
	const request: FluxImageRequest = { prompt, resolution: '1k', aspectRatio: 'auto', grounding: true, safetyTolerance: 2, images: [] };
	return { credentials, request, skipError: false, timeoutMs: 120_000, maxDownloadBytes: 50 * 1024 * 1024, cacheMode: 'off', identity: fluxJobIdentity({}, credentials, request, 1) };
}

