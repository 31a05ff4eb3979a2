/** The result store's key of one FLUX job (image or clip): everything that makes the job, never base64 or the API key. */
import type { FluxCredentials, FluxImageRequest, ModelRequest, ReferenceImage } from '../flux';
import { modelRequestBody, requestBody, requestEndpoint } from '../flux';
import { credentialsKeyHash } from '../account';
import { ExecutionOccurrences, jobKey, type JobKeyInput } from '../store';
import { processWide } from '../processWide';
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

/** A medium in the key: its URL, or its content digest. */
const mediaDigest = (media: ReferenceImage): string => (media.kind === 'url' ? media.url : sharedReferenceImages().digestOf(media));

/** Counts of a context without an execution id (never in n8n; tests passing a bare object): per context object. */
const occurrencesByRun = new WeakMap<object, ExecutionOccurrences>();

/**
 * The key of `base` at its occurrence for the node run `run`: the n-th request with its key at occurrence 0,
 * counted per n8n execution (`run.getExecutionId()`), across every FLUX node and every run of a node; a context
 * without an execution id counts on its own.
 */
function keyAtOccurrence(run: object, base: Omit<JobKeyInput, 'occurrence'>): string {
	const baseKey = jobKey({ ...base, occurrence: 0 });
	const executionId = (run as { getExecutionId?: () => unknown }).getExecutionId?.();
	let occurrence: number;
	// The process-wide counts per execution: shared by every copy of the package and by images and videos.
	if (typeof executionId === 'string' && executionId !== '') occurrence = processWide('occurrences', () => new ExecutionOccurrences()).next(executionId, baseKey);
	else {
		let own = occurrencesByRun.get(run);
		if (!own) occurrencesByRun.set(run, (own = new ExecutionOccurrences()));
		occurrence = own.next('', baseKey);
	}
	return occurrence === 0 ? baseKey : jobKey({ ...base, occurrence });
}

/**
 * The job identity of one item of any model: its account, the model and the upstream fields (binary inputs as
 * their content digest), the Seed. `run` is the node run's context (n8n's IExecuteFunctions): the n-th identical
 * request of its execution gets occurrence n (occurrenceOf), so 30 identical rows are 30 jobs, also when a loop
 * feeds them in batches, and a re-run finds the same 30.
 */
export function jobIdentity(run: object, credentials: FluxCredentials, model: string, upstream: Record<string, unknown>, seed: number | undefined): FluxJobIdentity {
	const { apiStyle, baseUrl } = credentials; // baseUrl: normalised once by parseFluxCredentials
	const apiKeyHash = credentialsKeyHash(credentials); // a run's items share one parsed credential (credentialsParserForRun)
	return { key: keyAtOccurrence(run, { apiStyle, baseUrl, model, upstream, seed: seed ?? '', apiKeyHash }), apiStyle, baseUrl, model, apiKeyHash };
}

/** The job identity of an image item (jobIdentity): the model's endpoint and body, reference images by content digest. */
export function fluxJobIdentity(run: object, credentials: FluxCredentials, request: FluxImageRequest, seed: number | undefined): FluxJobIdentity {
	return jobIdentity(run, credentials, requestEndpoint(request), requestBody(request, mediaDigest), seed);
}

/** The job identity of a clip item (jobIdentity): its model and body, media by content digest. */
export function fluxVideoJobIdentity(run: object, credentials: FluxCredentials, request: ModelRequest, seed: number | undefined): FluxJobIdentity {
	return jobIdentity(run, credentials, requestEndpoint(request), modelRequestBody(request, mediaDigest), seed);
}
