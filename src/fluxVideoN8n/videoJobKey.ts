/** The result store's key of one FLUX video job: everything that makes the job, media by content digest, never the key. */
import type { FluxCredentials, FluxVideoRequest, VideoMedia } from '../flux';
import { VIDEO_MODEL, videoRequestBody } from '../flux';
import { keyAtOccurrence, type FluxJobIdentity } from '../fluxN8n/fluxJobKey';
import { sharedReferenceImages } from '../fluxN8n/sharedReferenceImages';
import { apiKeyHash } from '../account';

const digest = (media: VideoMedia): string => (media.kind === 'url' ? media.url : sharedReferenceImages().digestOf(media));

/** The job identity of one item; the n-th identical request of an execution gets occurrence n (as for images: occurrenceOf). */
export function fluxVideoJobIdentity(run: object, credentials: FluxCredentials, request: FluxVideoRequest, seed: number | undefined): FluxJobIdentity {
	const base = {
		apiStyle: credentials.apiStyle,
		baseUrl: credentials.baseUrl,
		model: VIDEO_MODEL,
		upstream: videoRequestBody(request, digest),
		seed: seed ?? '',
		apiKeyHash: apiKeyHash(credentials.apiKey),
	};
	const key = keyAtOccurrence(run, base);
	return { key, apiStyle: base.apiStyle, baseUrl: base.baseUrl, model: base.model, apiKeyHash: base.apiKeyHash };
}
