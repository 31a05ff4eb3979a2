/** The result store's key of one FLUX image job: everything that makes the job, never base64 or the API key. */
import type { FluxCredentials, FluxImageRequest } from '../flux';
import { requestBody } from '../flux';
import { IMAGE_MODEL } from '../flux/options';
import { apiKeyHash } from '../account';
import { jobKey } from '../store';
import { sharedReferenceImages } from './sharedReferenceImages';

/** What a prepared job carries for the store. */
export interface FluxJobIdentity {
	/** The job key (64 hex). */
	key: string;
	apiStyle: string;
	/** Normalised base URL. */
	baseUrl: string;
	model: string;
	apiKeyHash: string;
}

/** The upstream body with every binary reference image replaced by its content digest. */
function upstreamFields(request: FluxImageRequest): Record<string, unknown> {
	const images = request.images.map((image) =>
		image.kind === 'url' ? image : ({ kind: 'url', url: sharedReferenceImages().digestOf(image) } as const),
	);
	return requestBody({ ...request, images });
}

/** What one node run (keyed by its n8n context object) remembers: the n-th identical request, account hashes. */
interface RunKeys {
	occurrences: Map<string, number>;
	/** apiKeyHash by API key: the items of a run almost always share one account. */
	accounts: Map<string, string>;
}
const keysByRun = new WeakMap<object, RunKeys>();

function runKeys(run: object): RunKeys {
	let keys = keysByRun.get(run);
	if (!keys) keysByRun.set(run, (keys = { occurrences: new Map(), accounts: new Map() }));
	return keys;
}

function nextOccurrence(keys: RunKeys, baseKey: string): number {
	const occurrence = keys.occurrences.get(baseKey) ?? 0;
	keys.occurrences.set(baseKey, occurrence + 1);
	return occurrence;
}

function accountHash(keys: RunKeys, apiKey: string): string {
	let hash = keys.accounts.get(apiKey);
	if (hash === undefined) keys.accounts.set(apiKey, (hash = apiKeyHash(apiKey)));
	return hash;
}

/**
 * The job identity of one item. `run` is the node run's context (the same object for every item of one
 * execute call): the n-th identical request of a run gets occurrence n, so 30 identical rows are 30 jobs and a
 * re-run finds the same 30.
 */
export function fluxJobIdentity(
	run: object,
	credentials: FluxCredentials,
	request: FluxImageRequest,
	seed: number | undefined,
): FluxJobIdentity {
	const keys = runKeys(run);
	const base = {
		apiStyle: credentials.apiStyle,
		baseUrl: credentials.baseUrl, // normalised once by parseFluxCredentials
		model: IMAGE_MODEL,
		upstream: upstreamFields(request),
		seed: seed ?? '',
		apiKeyHash: accountHash(keys, credentials.apiKey),
	};
	const baseKey = jobKey({ ...base, occurrence: 0 });
	const occurrence = nextOccurrence(keys, baseKey);
	const key = occurrence === 0 ? baseKey : jobKey({ ...base, occurrence });
	return { key, apiStyle: base.apiStyle, baseUrl: base.baseUrl, model: base.model, apiKeyHash: base.apiKeyHash };
}
