/**
 * Video benchmark worker (a child of bench/scenarios/video.ts): n8n-core's real WorkflowExecute with
 * filesystem binary data (n8n 2.x's default), FLUX 3 Video Concurrent Submit → Concurrent Collect Videos for
 * the prompts it is sent, against the simulator in the parent. Reports wall time, the peak RSS (VmHWM, reset
 * after a gc'd baseline) and each clip's size on disk, so the parent can tell memory from payload.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';

import { loadHarness } from './engine';

export interface VideoWorkerTask {
	simUrl: string;
	apiKey: string;
	prompts: string[];
	/** Options → Cache: `refresh` (the default path: every clip streamed into the result store) or `off`. */
	cache: 'refresh' | 'off';
}

export interface VideoWorkerResult {
	wallMs: number;
	baselineRss: number;
	peakRss: number;
	clipBytes: number[];
	statuses: string[];
}

const harness = loadHarness();
/* eslint-disable @typescript-eslint/no-require-imports -- loaded after n8n-core; explicit .ts (a .node.json codex sits next to each node) */
const { FluxVideoConcurrentSubmit } = require('../nodes/FluxVideoConcurrentSubmit/FluxVideoConcurrentSubmit.node.ts') as typeof import('../nodes/FluxVideoConcurrentSubmit/FluxVideoConcurrentSubmit.node');
const { ConcurrentCollectVideos } = require('../nodes/ConcurrentCollectVideos/ConcurrentCollectVideos.node.ts') as typeof import('../nodes/ConcurrentCollectVideos/ConcurrentCollectVideos.node');
/* eslint-enable @typescript-eslint/no-require-imports */

const SUBMIT = 'n8n-nodes-flux-concurrent.fluxVideoConcurrentSubmit';
const COLLECT = 'n8n-nodes-flux-concurrent.concurrentCollectVideos';

function status(name: 'VmRSS' | 'VmHWM'): number {
	const match = new RegExp(`${name}:\\s+(\\d+)\\s+kB`).exec(readFileSync('/proc/self/status', 'utf8'));
	return match ? Number(match[1]) * 1024 : process.memoryUsage().rss;
}

async function run(task: VideoWorkerTask): Promise<VideoWorkerResult> {
	await harness.configureEngine({ binaryDataMode: 'filesystem' });
	const gc = (globalThis as { gc?: () => void }).gc;
	gc?.();
	gc?.();
	try {
		writeFileSync('/proc/self/clear_refs', '5'); // reset VmHWM to the current RSS
	} catch {
		/* not Linux: VmHWM includes start-up */
	}
	const baselineRss = status('VmRSS');
	const started = performance.now();
	const result = await harness.runWorkflow({
		nodes: [
			harness.manualTrigger('Trigger'),
			{ name: 'Submit', type: SUBMIT, parameters: { prompt: '={{ $json.prompt }}', duration: '5', options: { cache: task.cache } }, credentials: { fluxApi: { id: 'bench', name: 'sim' } } },
			{ name: 'Collect', type: COLLECT, parameters: {} },
		],
		connections: harness.connect(['Trigger', 'Submit'], ['Submit', 'Collect']),
		nodeTypes: { [SUBMIT]: new FluxVideoConcurrentSubmit(), [COLLECT]: new ConcurrentCollectVideos() },
		credentials: { fluxApi: { apiStyle: 'relay', baseUrl: task.simUrl, apiKey: task.apiKey } },
		triggerItems: task.prompts.map((prompt) => ({ json: { prompt } })),
	});
	const wallMs = performance.now() - started;
	const peakRss = Math.max(status('VmHWM'), status('VmRSS'));
	if (result.error) throw new Error(result.error.message);
	const clips = result.outputOf('Collect', 0);
	return {
		wallMs,
		baselineRss,
		peakRss,
		statuses: clips.map((item) => String(item.json.status)),
		clipBytes: clips.map((item) => (item.binary?.data ? statSync(harness.binaryFilePath(item.binary.data)).size : 0)),
	};
}

process.on('message', (task: VideoWorkerTask) => {
	run(task).then(
		(result) => process.send?.({ ok: true, result }, () => process.exit(0)),
		(error: unknown) => process.send?.({ ok: false, message: error instanceof Error ? error.message : String(error) }, () => process.exit(1)),
	);
});
process.send?.({ ready: true });
