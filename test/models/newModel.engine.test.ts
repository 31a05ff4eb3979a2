/** A new model descriptor appears in the serial image node and its twin with no other edit, and its jobs run. */
import { testModel } from './testModel'; // first: registers the model before the node descriptions are built
import { connect, manualTrigger, runWorkflow } from '../engine/harness';
import { readPromptFromPng, type RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { collectNode, fluxCredentials, imageNode, items, nodeTypes, submitNode, TYPES } from '../workflows/setup';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 20 }, (started) => (sim = started));

describe.each([TYPES.image, TYPES.submit])('%s', (type) => {
	const { properties } = nodeTypes[type].description;

	it('offers the model and shows its own parameter only for it', () => {
		const model = properties.find((p) => p.name === 'model');
		expect(model?.options).toContainEqual(expect.objectContaining({ name: 'Test Model', value: testModel.id }));
		const own = properties.find((p) => p.name === 'testWidth');
		expect(own).toMatchObject({ displayName: 'Test Width', displayOptions: { show: { model: [testModel.id] } } });
	});
});

it('its jobs run through the serial node and the twin, with its body at its endpoint', async () => {
	const serial = await runWorkflow({
		nodes: [manualTrigger('Trigger'), imageNode('FLUX', { model: testModel.id, prompt: '={{ $json.prompt }}', testWidth: 320 })],
		connections: connect(['Trigger', 'FLUX']),
		nodeTypes,
		credentials: fluxCredentials(sim),
		triggerItems: items({ prompt: 'serial test model' }),
	});
	expect(serial.status).toBe('success');
	expect(readPromptFromPng(await serial.binaryBuffer(serial.outputOf('FLUX')[0]))).toBe('serial test model');

	const twin = await runWorkflow({
		nodes: [manualTrigger('Trigger'), submitNode('Submit', { model: testModel.id, prompt: '={{ $json.prompt }}', testWidth: 64 }), collectNode('Collect', {})],
		connections: connect(['Trigger', 'Submit'], ['Submit', 'Collect']),
		nodeTypes,
		credentials: fluxCredentials(sim),
		triggerItems: items({ prompt: 'twin test model a' }, { prompt: 'twin test model b' }),
	});
	expect(twin.status).toBe('success');
	const out = twin.outputOf('Collect');
	expect(await Promise.all(out.map(async (item) => readPromptFromPng(await twin.binaryBuffer(item))))).toEqual(['twin test model a', 'twin test model b']);
	// The twin's two jobs run at once: their submits may arrive in either order.
	expect(sim.log.submits.map((s) => [s.endpoint, s.body]).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual([
		['flux-2-klein-4b', { prompt: 'serial test model', width: 320 }],
		['flux-2-klein-4b', { prompt: 'twin test model a', width: 64 }],
		['flux-2-klein-4b', { prompt: 'twin test model b', width: 64 }],
	]);
});

it('its bad value is refused naming its editor label and the item', async () => {
	const result = await runWorkflow({
		nodes: [manualTrigger('Trigger'), imageNode('FLUX', { model: testModel.id, prompt: 'x', testWidth: 100 })],
		connections: connect(['Trigger', 'FLUX']),
		nodeTypes,
		credentials: fluxCredentials(sim),
		triggerItems: items({}),
	});
	expect(result.errorOf('FLUX')?.message).toMatch(/"Test Width": must be a multiple of 16 \[item 0\]$/);
	expect(sim.log.submits).toHaveLength(0);
});
