import type { INodeTypeDescription } from 'n8n-workflow';

import { VIDEO_MODEL } from '../flux/videoOptions';
import { FLUX_VIDEO_ERROR_HINTS } from './videoErrorHints';
import { fluxImageMethods } from '../fluxN8n/fluxImageSource';
import type { ConcurrentSource } from '../twin/concurrentSource';
import { prepareFluxVideoJob, type PreparedFluxVideoJob } from './prepareFluxVideoJob';
import { runPooledFluxVideoJob } from './videoJobs';
import { videoJobResultSize, type VideoJobResult } from './videoJobResult';

/** The FLUX video nodes' methods: the same credential test as the image nodes. */
export const fluxVideoMethods = fluxImageMethods;

/** The FLUX 3 Video node as a source for its concurrent twin: output kind video, so the video pool. */
export function makeFluxVideoSource(description: INodeTypeDescription): ConcurrentSource<PreparedFluxVideoJob, VideoJobResult> {
	return {
		description,
		outputKind: 'video',
		model: VIDEO_MODEL,
		prepare: prepareFluxVideoJob,
		run: runPooledFluxVideoJob,
		sizeOf: videoJobResultSize,
		errorHints: FLUX_VIDEO_ERROR_HINTS,
		methods: fluxVideoMethods,
	};
}
