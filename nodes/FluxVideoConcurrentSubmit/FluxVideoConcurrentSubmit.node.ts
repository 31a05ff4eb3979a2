import { makeFluxVideoSource } from '../../src/fluxVideoN8n/fluxVideoSource';
import { makeConcurrentTwin } from '../../src/twin/makeConcurrentTwin';
import { fluxVideoDescription } from '../FluxVideo/FluxVideo.description';

/** The FLUX 3 Video node's concurrent twin: same parameters, jobs in the video pool, tasks for Concurrent Collect Videos. */
export const FluxVideoConcurrentSubmit = makeConcurrentTwin(makeFluxVideoSource(fluxVideoDescription), {
	name: 'fluxVideoConcurrentSubmit',
	displayName: 'FLUX 3 Video Concurrent Submit',
	description: 'Submit FLUX 3 Video jobs to a shared pool and return a task per item at once',
	icon: 'file:fluxVideoConcurrentSubmit.svg',
	defaultName: 'FLUX 3 Video Concurrent Submit',
});
