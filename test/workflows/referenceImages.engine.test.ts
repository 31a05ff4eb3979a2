/**
 * A shared reference image through n8n's real engine and the relay simulator: 30 items
 * sharing one binary reference image share ONE encoded copy, and each job lets
 * go of it once its submit is acknowledged (while it still polls).
 */
import { connect, manualTrigger, runWorkflow } from '../engine/harness';
import { type RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import type { ReferenceImage } from '../../src/flux';
import { makeFluxSource } from '../../src/fluxN8n/fluxNode';
import { fluxImageNode } from '../../src/fluxN8n/imageJobs';
import type { PreparedFluxImageJob } from '../../src/fluxN8n/prepareFluxImageJob';

import { sharedReferenceImages } from '../../src/fluxN8n/sharedReferenceImages';
import { solidPng } from '../../relay-sim/pngCodec';
import { poolFor } from '../../src/pool';
import { makeConcurrentTwin } from '../../src/twin/makeConcurrentTwin';
import { fluxImageDescription } from '../../nodes/FluxImage/FluxImage.description';
import { fluxCredentials, submitNode, TYPES, until } from './setup';

const makeFluxImageSource = (description: typeof fluxImageDescription) => makeFluxSource(description, fluxImageNode);

// Every job runs at once, and stays polling (Ready only after a minute) until the test cancels it.
process.env.COMFLY_IMAGE_CONCURRENCY = '30';
let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 60_000 }, (started) => (sim = started));

/** The real FLUX source, with each prepared job (and its reference image at prepare time) kept for inspection. */
const prepared: Array<{ job: PreparedFluxImageJob; image: ReferenceImage }> = [];
const source = makeFluxImageSource(fluxImageDescription);
const ObservedSubmit = makeConcurrentTwin(
	{
		...source,
		prepare: async (ctx, itemIndex) => {
			const job = await source.prepare(ctx, itemIndex);
			prepared.push({ job, image: job.request.images[0] });
			return job;
		},
	},
	{ name: 'observedSubmit', displayName: 'Observed Submit', description: 'test', icon: 'file:x.svg', defaultName: 'Submit' },
);

it('30 items sharing one binary: one encoded copy, released by each job once its submit is acknowledged', async () => {
	const png = solidPng(256, 256, [200, 40, 40]);
	const shared = png.toString('base64');
	const encodingsBefore = sharedReferenceImages().encodings;
	const result = await runWorkflow({
		nodes: [
			manualTrigger('Trigger'),
			submitNode('Submit', { prompt: '={{ "edit " + $json.i }}', referenceImages: { images: [{ source: 'data' }] } }),
		],
		connections: connect(['Trigger', 'Submit']),
		nodeTypes: { [TYPES.submit]: new ObservedSubmit() },
		credentials: fluxCredentials(sim),
		triggerItems: Array.from({ length: 30 }, (_, i) => ({ json: { i }, binary: { data: { data: shared, mimeType: 'image/png' } } })),
	});
	expect(result.status).toBe('success');
	const jobIds = result.outputOf('Submit').map((task) => String(task.json.jobId));
	expect(jobIds).toHaveLength(30);

	// One copy: every job's request held the very same encoded image, encoded once.
	expect(prepared).toHaveLength(30);
	expect(sharedReferenceImages().encodings - encodingsBefore).toBe(1);
	for (const { image } of prepared) expect(image).toBe(prepared[0].image);
	expect(prepared[0].image).toEqual({ kind: 'base64', data: shared, mimeType: 'image/png' });

	// Released on acknowledgement: all 30 submits answered, jobs still polling, no job holds the image.
	await until(() => sim.log.submits.filter((submit) => submit.status === 200).length === 30, 'all 30 submits are acknowledged');
	await until(() => prepared.every(({ job }) => job.request.images.length === 0), 'every job has let go of its reference image');
	expect(poolFor('image').stats()).toMatchObject({ running: 30 });
	for (const submit of sim.log.submits) expect(submit.body).toMatchObject({ images: [shared] });

	poolFor('image').cancelJobs(jobIds);
	await Promise.all(jobIds.map(async (id) => await poolFor('image').wait(id)));
});
