/** The result store's key of one FLUX video job: everything that makes the job, media by content digest, never the key. */
import type { FluxCredentials, FluxVideoRequest, VideoMedia } from '../flux';
import { VIDEO_MODEL, videoRequestBody } from '../flux';
import type { FluxJobIdentity } from '../fluxN8n/fluxJobKey';
import { sharedReferenceImages } from '../fluxN8n/sharedReferenceImages';
import { apiKeyHash } from '../account';
import { jobKey } from '../store';

const digest = (media: VideoMedia): string => (media.kind === 'url' ? media.url : sharedReferenceImages().digestOf(media));

/** n-th identical request of one node run (keyed by the run's n8n context object). */
const occurrencesByRun = new WeakMap<object, Map<string, number>>();

function nextOccurrence(run: object, baseKey: string): number {
	let counts = occurrencesByRun.get(run);
	if (!counts) occurrencesByRun.set(run, (counts = new Map()));
	const occurrence = counts.get(baseKey) ?? 0;
	counts.set(baseKey, occurrence + 1);
	return occurrence;
}

/** The job identity of one item; the n-th identical request of a run gets occurrence n (as for images). */
export function fluxVideoJobIdentity(run: object, credentials: FluxCredentials, request: FluxVideoRequest, seed: number | undefined): FluxJobIdentity {
	const base = {
		apiStyle: credentials.apiStyle,
		baseUrl: credentials.baseUrl,
		model: VIDEO_MODEL,
		upstream: videoRequestBody(request, digest),
		seed: seed ?? '',
		apiKeyHash: apiKeyHash(credentials.apiKey),
	};
	const baseKey = jobKey({ ...base, occurrence: 0 });
	const occurrence = nextOccurrence(run, baseKey);
	const key = occurrence === 0 ? baseKey : jobKey({ ...base, occurrence });
	return { key, apiStyle: base.apiStyle, baseUrl: base.baseUrl, model: base.model, apiKeyHash: base.apiKeyHash };
}
