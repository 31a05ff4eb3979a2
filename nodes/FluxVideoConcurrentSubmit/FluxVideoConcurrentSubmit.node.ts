import { makeFluxSource } from '../../src/fluxN8n/fluxNode';
import { fluxVideoNode } from '../../src/fluxVideoN8n/videoJobs';
import { makeConcurrentTwin } from '../../src/twin/makeConcurrentTwin';
import { fluxVideoDescription } from '../FluxVideo/FluxVideo.description';

/** The FLUX 3 Video node's concurrent twin: same parameters, jobs in the video pool, tasks for Concurrent Collect Videos. */
export const FluxVideoConcurrentSubmit = makeConcurrentTwin(makeFluxSource(fluxVideoDescription, fluxVideoNode), {
	name: 'fluxVideoConcurrentSubmit',
	displayName: 'FLUX 3 Video Concurrent Submit',
	description: 'Submit FLUX 3 Video jobs to a shared pool and return a task per item at once',
	icon: 'file:fluxVideoConcurrentSubmit.svg',
	defaultName: 'FLUX 3 Video Concurrent Submit',
});
