/**
 * Executions sharing the pool are served in arrival order, through n8n's real engine: a submit node's
 * batch takes its places at the capacity gate (and in the worker queue) as a whole, so the items of
 * executions started together do not interleave and the first execution's collector can finish first.
 */
import { connect, manualTrigger, runWorkflow } from '../engine/harness';
import { type RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { poolFor } from '../../src/pool';
import { fluxCredentials, collectNode, items, nodeTypes, submitNode } from './setup';

// Two workers and two pending places: most of each batch waits at the gate.
process.env.COMFLY_IMAGE_CONCURRENCY = '2';
process.env.COMFLY_IMAGE_PENDING = '2';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 0, imageSize: { width: 8, height: 8 } }, (started) => (sim = started));

it('four executions of three items started at once are served execution by execution', async () => {
	const run = (execution: number) =>
		runWorkflow({
			nodes: [
				manualTrigger('Trigger'),
				submitNode('Submit', { prompt: `={{ "execution ${execution} item " + $json.i }}` }),
				collectNode('Collect', { failureMode: 'placeholder' }),
			],
			connections: connect(['Trigger', 'Submit'], ['Submit', 'Collect']),
			nodeTypes,
			credentials: fluxCredentials(sim),
			triggerItems: items({ i: 0 }, { i: 1 }, { i: 2 }),
		});
	const results = await Promise.all([0, 1, 2, 3].map(run));
	expect(results.map((result) => result.status)).toEqual(['success', 'success', 'success', 'success']);
	expect(sim.log.submits).toHaveLength(12);
	// When each execution's jobs started (a worker took them), executions in the order they were served.
	const pool = poolFor('image');
	const starts = results
		.map((result) => result.outputOf('Submit').map((item) => pool.get(String(item.json.jobId)).timings.startedAt ?? NaN))
		.sort((a, b) => Math.min(...a) - Math.min(...b));
	// Every job of an execution started no later than the first job of the next one: no interleaving.
	for (let i = 1; i < starts.length; i++) expect(Math.max(...starts[i - 1])).toBeLessThanOrEqual(Math.min(...starts[i]));
});
