import type { INodeType, INodeTypeDescription } from 'n8n-workflow';

import { IMAGE_MODEL } from '../flux/options';
import type { ConcurrentSource } from '../twin/concurrentSource';
import { FLUX_ERROR_HINTS } from './fluxErrorHints';
import { fluxApiTest } from './fluxApiTest';
import { imageJobResultSize, type ImageJobResult } from './imageJobResult';
import { prepareFluxImageJob, type PreparedFluxImageJob } from './prepareFluxImageJob';
import { runFluxImageJob, runPooledFluxImageJob } from './imageJobs';

export { prepareFluxImageJob, runFluxImageJob, type PreparedFluxImageJob };

/** The FLUX nodes' methods: the credential test. */
export const fluxImageMethods: INodeType['methods'] = { credentialTest: { fluxApiTest } };

/** The FLUX 3 Image node as a source for its concurrent twin (image pool), given the node's description. */
export function makeFluxImageSource(
	description: INodeTypeDescription,
): ConcurrentSource<PreparedFluxImageJob, ImageJobResult> {
	return {
		description,
		outputKind: 'image',
		model: IMAGE_MODEL,
		prepare: prepareFluxImageJob,
		run: runPooledFluxImageJob,
		sizeOf: imageJobResultSize,
		errorHints: FLUX_ERROR_HINTS,
		methods: fluxImageMethods,
	};
}
