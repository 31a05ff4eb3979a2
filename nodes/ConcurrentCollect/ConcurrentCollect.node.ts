import { makeConcurrentCollector } from '../../src/collect';
import { redact } from '../../src/flux';
import { fluxCollectorParts } from '../../src/fluxN8n/fluxNode';
import { fluxImageNode } from '../../src/fluxN8n/imageJobs';
import type { JobResult } from '../../src/fluxN8n/jobResult';
import { failedSlotPng } from '../../src/images/solidPng';

/** The image collector: up to 30 FLUX image tasks in, their images out in slot order, plus a report. */
export const ConcurrentCollect = makeConcurrentCollector<JobResult>({
	identity: {
		name: 'concurrentCollect',
		displayName: 'Concurrent Collect Images',
		description: 'Wait for up to 30 concurrent tasks and return their images in slot order, with a status report',
		icon: 'file:concurrentCollect.svg',
		defaultName: 'Concurrent Collect Images',
		noun: { one: 'image', many: 'images' },
		submitNodeName: 'FLUX 3 Image Concurrent Submit',
	},
	kind: 'image',
	maxSlots: 30,
	failedSlot: {
		describe: 'a red 64×64 image',
		toBinary: async (ctx, fileBase) => await ctx.helpers.prepareBinaryData(failedSlotPng(), `${fileBase}.png`, 'image/png'),
	},
	redact: (text) => redact(text),
	// Optional: lets a collector re-run after an n8n restart re-attach to jobs still generating upstream.
	credentials: [{ name: 'fluxApi', required: false }],
	...fluxCollectorParts(fluxImageNode),
});
