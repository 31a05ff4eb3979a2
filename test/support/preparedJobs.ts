/**
 * FLUX jobs as the glue prepares them (prepareFluxImageJob / prepareFluxVideoJob), aimed at the relay
 * simulator, and the job context the pool hands a job: the setup every stored-job test (journal, store,
 * account limit through obtainFluxImage / obtainFluxVideo) starts from.
 */
import type { RelaySimulator } from '../../relay-sim';
import type { FluxCredentials } from '../../src/flux';
import { fluxJobIdentity } from '../../src/fluxN8n/fluxJobKey';
import type { PreparedFluxImageJob } from '../../src/fluxN8n/prepareFluxImageJob';
import type { PreparedFluxVideoJob } from '../../src/fluxVideoN8n/prepareFluxVideoJob';
import { fluxVideoJobIdentity } from '../../src/fluxN8n/fluxJobKey';
import type { CacheMode } from '../../src/store';
import { requestFor } from '../flux/helpers';
import { flux3Video, type FluxVideoRequest } from '../../src/models';

export interface PreparedJobOptions {
	/** The job's timeout (default 60 s). */
	timeoutMs?: number;
	/** Cache mode (default Reuse, the node's default). */
	cacheMode?: CacheMode;
}

/** Relay-style credentials for the simulator, as the credential parser returns them. */
export function simCredentials(sim: RelaySimulator): FluxCredentials {
	return { apiStyle: 'relay', baseUrl: sim.url, apiKey: sim.apiKey };
}

/** A text-to-image job for `prompt` with the parameters' defaults (1k, auto aspect ratio, no reference images). */
export function preparedImageJob(sim: RelaySimulator, prompt: string, options: PreparedJobOptions = {}): PreparedFluxImageJob {
	const credentials = simCredentials(sim);
	const request = requestFor(prompt);
	return { ...jobLimits(options), credentials, request, identity: fluxJobIdentity({}, credentials, request, 1) };
}

/** A text-to-video job for `prompt` with the parameters' defaults (HD, auto aspect ratio and duration, audio on). */
export function preparedVideoJob(sim: RelaySimulator, prompt: string, options: PreparedJobOptions = {}): PreparedFluxVideoJob {
	const credentials = simCredentials(sim);
	const request: FluxVideoRequest = { model: flux3Video, mode: 't2v', prompt, aspectRatio: 'auto', resolution: 'hd', duration: 'auto', generateAudio: true };
	return { ...jobLimits(options), credentials, request, identity: fluxVideoJobIdentity({}, credentials, request, 1) };
}

function jobLimits(options: PreparedJobOptions) {
	return { skipError: false, timeoutMs: options.timeoutMs ?? 60_000, maxDownloadBytes: 50 * 1024 * 1024, cacheMode: options.cacheMode ?? ('reuse' as CacheMode) };
}

/** The context the pool gives a job (its id, the execution's cancel signal, where it reports its attempts). */
export function jobContext(jobId: string, signal: AbortSignal = new AbortController().signal) {
	return { jobId, signal, setAttempts: (): void => undefined };
}
