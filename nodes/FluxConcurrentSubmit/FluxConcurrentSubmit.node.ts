import { makeFluxSource } from '../../src/fluxN8n/fluxNode';
import { fluxImageNode } from '../../src/fluxN8n/imageJobs';
import { makeConcurrentTwin } from '../../src/twin/makeConcurrentTwin';
import { fluxImageDescription } from '../FluxImage/FluxImage.description';

/** The FLUX 3 Image node's concurrent twin: same parameters, outputs tasks for Concurrent Collect. */
export const FluxConcurrentSubmit = makeConcurrentTwin(makeFluxSource(fluxImageDescription, fluxImageNode), {
	name: 'fluxConcurrentSubmit',
	displayName: 'FLUX 3 Image Concurrent Submit',
	description: 'Submit FLUX 3 Image jobs to a shared pool and return a task per item at once',
	icon: 'file:fluxConcurrentSubmit.svg',
	defaultName: 'FLUX 3 Image Concurrent Submit',
});
