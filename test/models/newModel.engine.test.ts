/**
 * A new model descriptor appears in the serial image node and its twin with no other edit, and its jobs run: each of
 * its declared parameters is shown for it alone (one at the top, one under Options), validated with its editor label
 * and the item, and sent under its BFL name.
 */
import { testModel } from './testModel'; // first: registers the model before the node descriptions are built
import { connect, manualTrigger, runWorkflow } from '../engine/harness';
import { readPromptFromJpeg, readPromptFromPng, type RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { collectNode, fluxCredentials, imageNode, items, nodeTypes, submitNode, TYPES } from '../workflows/setup';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 20 }, (started) => (sim = started));

describe.each([TYPES.image, TYPES.submit])('%s', (type) => {
	const { properties } = nodeTypes[type].description;

	it('offers the model and shows its own parameters only for it', () => {
		const model = properties.find((p) => p.name === 'model');
		expect(model?.options).toContainEqual(expect.objectContaining({ name: 'Test Model', value: testModel.id }));
		const own = properties.find((p) => p.name === 'testWidth');
		expect(own).toMatchObject({ displayName: 'Test Width', displayOptions: { show: { model: [testModel.id] } } });
		const options = properties.find((p) => p.name === 'options')?.options as Array<{ name: string }>;
		expect(options.find((o) => o.name === 'testFormat')).toMatchObject({ displayName: 'Test Format', displayOptions: { show: { '/model': [testModel.id] } } });
		// The prompt every model takes shows for every model; a FLUX 3 Image parameter only for FLUX 3 Image.
		expect(properties.find((p) => p.name === 'prompt')?.displayOptions).toBeUndefined();
		expect(properties.find((p) => p.name === 'resolution')?.displayOptions).toEqual({ show: { model: ['flux-3-image'] } });
	});
});

it('its jobs run through the serial node and the twin, with its body at its endpoint', async () => {
	const serial = await runWorkflow({
		nodes: [manualTrigger('Trigger'), imageNode('FLUX', { model: testModel.id, prompt: '={{ $json.prompt }}', testWidth: 320, options: { testFormat: 'jpeg' } })],
		connections: connect(['Trigger', 'FLUX']),
		nodeTypes,
		credentials: fluxCredentials(sim),
		triggerItems: items({ prompt: 'serial test model' }),
	});
	expect(serial.status).toBe('success');
	expect(readPromptFromJpeg(await serial.binaryBuffer(serial.outputOf('FLUX')[0]))).toBe('serial test model');

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
		['flux-2-klein-4b', { prompt: 'serial test model', width: 320, output_format: 'jpeg' }],
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
	expect(result.errorOf('FLUX')?.message).toMatch(/"Test Width": must be a multiple of 16 \(got 100\) \[item 0\]$/);
	expect(sim.log.submits).toHaveLength(0);
});

it('its bad option is refused by the twin too, naming Options → its label and the item', async () => {
	const result = await runWorkflow({
		nodes: [manualTrigger('Trigger'), submitNode('Submit', { model: testModel.id, prompt: '={{ $json.prompt }}', testWidth: 64, options: { testFormat: '={{ $json.format }}' } }), collectNode('Collect', {})],
		connections: connect(['Trigger', 'Submit'], ['Submit', 'Collect']),
		nodeTypes,
		credentials: fluxCredentials(sim),
		triggerItems: items({ prompt: 'a', format: 'png' }, { prompt: 'b', format: 'gif' }),
	});
	expect(result.errorOf('Submit')?.message).toMatch(/"Options → Test Format": .*\(got "gif"\) \[item 1\]$/);
	expect(sim.log.submits).toHaveLength(0);
});
