import { makeConcurrentCollector } from '../../src/collect';
import { redact } from '../../src/flux';
import { fluxCollectorParts } from '../../src/fluxN8n/fluxNode';
import type { JobResult } from '../../src/fluxN8n/jobResult';
import { fluxVideoNode } from '../../src/fluxVideoN8n/videoJobs';

/** The video collector: up to 10 FLUX video tasks in, their clips out in slot order (MP4), plus a report. */
export const ConcurrentCollectVideos = makeConcurrentCollector<JobResult>({
	identity: {
		name: 'concurrentCollectVideos',
		displayName: 'Concurrent Collect Videos',
		description: 'Wait for up to 10 concurrent video tasks and return their clips in slot order, with a status report',
		icon: 'file:concurrentCollectVideos.svg',
		defaultName: 'Concurrent Collect Videos',
		noun: { one: 'video', many: 'videos' },
		submitNodeName: 'FLUX 3 Video Concurrent Submit',
	},
	kind: 'video',
	maxSlots: 10,
	// No failedSlot: a failed or skipped video slot carries no binary (there is no placeholder clip).
	redact: (text) => redact(text),
	credentials: [{ name: 'fluxApi', required: false }],
	...fluxCollectorParts(fluxVideoNode),
});
