/**
 * Spend control through n8n's real engine (n8n-core) against the relay simulator: the collector's slot rows and
 * report carry each job's cost, the batch's cost, and the account's spend against the credential's daily limits;
 * a job over a limit is never sent and its slot is `failed` with `budget_exceeded` (Placeholder fills it, Fail
 * Fast stops the batch); results from the store cost 0 and never count; the serial node names the refused item;
 * nothing changes without a limit.
 */
import '../engine/harness'; // first: it prepares jest to load n8n-core
import { connect, manualTrigger, runWorkflow } from '../engine/harness';
import type { RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { fluxCredentials, imageNode, items, nodeTypes, runPromptBatch } from './setup';
import { poolFor } from '../../src/pool';
import { until } from '../support/until';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 20 }, (started) => (sim = started));

/** The simulator's credential with daily limits, as n8n hands the credential's data to the node. */
function limitedCredentials(limits: { dailyCreditLimit?: number; dailyJobLimit?: number }) {
	const { fluxApi } = fluxCredentials(sim);
	return { fluxApi: { ...fluxApi, ...limits } };
}

async function limitedBatch(prompts: string[], limits: { dailyCreditLimit?: number; dailyJobLimit?: number }, failureMode: 'failFast' | 'placeholder', executionId?: string) {
	return await runWorkflow({
		nodes: [
			manualTrigger('Trigger'),
			{ name: 'Submit', type: 'n8n-nodes-flux-concurrent.fluxConcurrentSubmit', parameters: { prompt: '={{ $json.prompt }}' } },
			{ name: 'Collect', type: 'n8n-nodes-flux-concurrent.concurrentCollect', parameters: { failureMode } },
		],
		connections: connect(['Trigger', 'Submit'], ['Submit', 'Collect']),
		nodeTypes,
		credentials: limitedCredentials(limits),
		triggerItems: items(...prompts.map((prompt) => ({ prompt }))),
		executionId,
	});
}

it('Placeholder: slots over the daily credit limit fail unsent with budget_exceeded; rows and the report carry the cost and the balance', async () => {
	const prompts = ['spend a', 'spend b', 'spend c', 'spend d', 'spend e'];
	const result = await limitedBatch(prompts, { dailyCreditLimit: 12 }, 'placeholder');
	expect(result.status).toBe('success');
	const slots = result.outputOf('Collect').map((item) => item.json);
	expect(slots.filter((slot) => slot.status === 'success').map((slot) => slot.cost)).toEqual([4, 4, 4]);
	const refused = slots.filter((slot) => slot.status === 'failed');
	expect(refused).toHaveLength(2);
	for (const slot of refused) {
		expect(slot).toMatchObject({ errorKind: 'budget_exceeded', cost: 0 });
		expect(String(slot.error)).toMatch(/daily credit limit .*12 credits of 12 spent in the last 24 hours by 3 jobs.*Raise "Daily Credit Limit" on the FLUX API credential/);
	}
	for (const item of result.outputOf('Collect')) expect(item.binary?.data).toBeDefined(); // the red placeholder
	expect(sim.log.submits).toHaveLength(3);
	const report = result.outputOf('Collect', 1)[0].json;
	expect(report).toMatchObject({
		total: 5,
		counts: { success: 3, failed: 2 },
		cost: 12,
		spent: { credits: 12, jobs: 3, window: '24h' },
		limits: { dailyCreditLimit: 12, dailyJobLimit: null },
	});
	expect(report.warnings).toBeUndefined();

	// The same batch again: the three bought images come from the store (cost 0, not counted); the two refused ones stay refused.
	const again = await limitedBatch(prompts, { dailyCreditLimit: 12 }, 'placeholder');
	const rows = again.outputOf('Collect').map((item) => item.json);
	expect(rows.filter((row) => row.cached === true).map((row) => row.cost)).toEqual([0, 0, 0]);
	expect(rows.filter((row) => row.status === 'failed').map((row) => row.errorKind)).toEqual(['budget_exceeded', 'budget_exceeded']);
	expect(sim.log.submits).toHaveLength(3);
	expect(again.outputOf('Collect', 1)[0].json).toMatchObject({ cost: 0, cached: 3, spent: { credits: 12, jobs: 3 } });
});

it('Fail Fast: the first refused slot stops the batch naming the slot and the limit', async () => {
	const prompts = Array.from({ length: 6 }, (_, i) => `fail fast spend ${i}`);
	const result = await limitedBatch(prompts, { dailyJobLimit: 2 }, 'failFast');
	expect(result.status).toBe('error');
	expect(result.errorOf('Collect')?.message).toMatch(/^Slot \d failed: Not sent: the daily job limit of the FLUX API credential is reached \(2 jobs of 2/);
	expect(sim.log.submits.length).toBeLessThanOrEqual(2);
	// The jobs it bought run on after the batch failed: let them end here, not in the next test's simulator log.
	await until(() => poolFor('image').stats().admitted === 0, 'the bought jobs end');
	expect(sim.log.submits.length).toBeLessThanOrEqual(2);
});

it('the serial node: Max New Jobs per Execution refuses the item over it, naming the item; Continue on fail keeps the others', async () => {
	const run = async (continueOnFail: boolean) =>
		await runWorkflow({
			nodes: [manualTrigger('Trigger'), imageNode('FLUX', { prompt: '={{ $json.prompt }}', options: { maxNewJobsPerExecution: 2 } }, continueOnFail ? { onError: 'continueRegularOutput' } : {})],
			connections: connect(['Trigger', 'FLUX']),
			nodeTypes,
			credentials: fluxCredentials(sim),
			triggerItems: items({ prompt: `serial cap 1 ${continueOnFail}` }, { prompt: `serial cap 2 ${continueOnFail}` }, { prompt: `serial cap 3 ${continueOnFail}` }),
		});
	const thrown = await run(false);
	expect(thrown.status).toBe('error');
	expect(thrown.errorOf('FLUX')?.message).toMatch(/^Not sent: node "FLUX" may send at most 2 jobs in one execution.* \[item 2\]$/);

	const kept = await run(true);
	const out = kept.outputOf('FLUX');
	expect(out.map((item) => item.json.cost ?? null)).toEqual([4, 4, null]);
	expect(String(out[2].json.error)).toMatch(/^Not sent: node "FLUX" may send at most 2 jobs.* \[item 2\]$/);
	expect(out[2].pairedItem).toEqual({ item: 2 });
	expect(sim.log.submits).toHaveLength(4);
});

it('without a limit: every slot row and the report carry the cost, and nothing about limits', async () => {
	const result = await runPromptBatch(sim, ['free a', 'free b'], { submit: { resolution: '2k' } });
	expect(result.status).toBe('success');
	expect(result.outputOf('Collect').map((item) => item.json.cost)).toEqual([8, 8]);
	const report = result.outputOf('Collect', 1)[0].json;
	expect(report.cost).toBe(16);
	expect(report).not.toHaveProperty('spent');
	expect(report).not.toHaveProperty('limits');
	expect(report.warnings).toBeUndefined();
});

it('a relay that reports no cost: rows say null, the report cost is null', async () => {
	sim.setReportCost(false);
	try {
		const result = await runPromptBatch(sim, ['silent a', 'silent b']);
		expect(result.outputOf('Collect').map((item) => item.json.cost)).toEqual([null, null]);
		expect(result.outputOf('Collect', 1)[0].json.cost).toBeNull();
	} finally {
		sim.setReportCost(true);
	}
});

it('a credential limit that is not a number is an error naming the field and the item', async () => {
	const result = await limitedBatch(['bad limit'], { dailyCreditLimit: -3 }, 'placeholder');
	expect(result.status).toBe('error');
	expect(result.errorOf('Submit')?.message).toMatch(/FLUX API credential: "Daily Credit Limit" must be 0 or more .*\[item 0\]/);
	expect(sim.log.submits).toHaveLength(0);
});
