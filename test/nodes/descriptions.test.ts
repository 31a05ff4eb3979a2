import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

import type { INodeProperties, INodeTypeDescription } from 'n8n-workflow';

import { FluxApi } from '../../credentials/FluxApi.credentials';
import { ConcurrentCollect } from '../../nodes/ConcurrentCollect/ConcurrentCollect.node';
import { configuredInputs } from '../../src/collect';
import { FluxConcurrentSubmit } from '../../nodes/FluxConcurrentSubmit/FluxConcurrentSubmit.node';
import { FluxImage } from '../../nodes/FluxImage/FluxImage.node';
import { fluxImageDescription } from '../../nodes/FluxImage/FluxImage.description';
import { makeConcurrentTwinDescription } from '../../src/twin/makeConcurrentTwin';

const root = path.resolve(__dirname, '../..');
const identity = {
	name: 'fooConcurrentSubmit',
	displayName: 'Foo Concurrent Submit',
	description: 'twin',
	icon: 'file:foo.svg' as const,
	defaultName: 'Foo',
};

describe('the concurrent twin', () => {
	const serial = new FluxImage().description;
	const twin = new FluxConcurrentSubmit().description;

	/** A subtitle expression as the canvas shows it for these parameter values (plain JS over $parameter). */
	const shownSubtitle = (subtitle: unknown, parameter: Record<string, unknown>) =>
		new Function('$parameter', `return (${String(subtitle).replace(/^=\{\{([\s\S]*)\}\}$/, '$1')});`)(parameter) as string;

	it.each([
		[{ model: 'flux-3-image', resolution: '2k', aspectRatio: '16:9' }, 'task · 2k · 16:9'],
		[{ model: 'flux-2-pro', width: 1024, height: 768 }, 'task · flux-2-pro · 1024 × 768'],
	])('its canvas subtitle says the task and what the serial node says: %p', (parameter, shown) => {
		expect(shownSubtitle(twin.subtitle, parameter)).toBe(shown);
		expect(shownSubtitle(twin.subtitle, parameter)).toBe(`task · ${shownSubtitle(serial.subtitle, parameter)}`);
	});

	it('has exactly the serial node’s property list', () => {
		expect(twin.properties).toEqual(serial.properties);
		expect(twin.properties.map((p) => p.name)).toEqual([
			'model',
			'prompt',
			'resolution',
			'aspectRatio',
			'grounding',
			'safetyTolerance',
			'width',
			'height',
			'outputFormat',
			'steps',
			'guidance',
			'safetyTolerance',
			'promptUpsampling',
			'referenceImages',
			'skipError',
			'seed',
			'options',
		]);
	});

	it('is a deep copy: changing the twin’s properties leaves the serial node alone', () => {
		expect(twin.properties).not.toBe(serial.properties);
		expect(twin.properties[0]).not.toBe(serial.properties[0]);
	});

	it('changes only identity, outputs and hints', () => {
		expect(twin.name).toBe('fluxConcurrentSubmit');
		expect(twin.displayName).toBe('FLUX 3 Image Concurrent Submit');
		expect(twin.outputNames).toEqual(['Task']);
		expect(twin.credentials).toEqual(serial.credentials);
		expect(twin.inputs).toEqual(serial.inputs);
		// The serial node's hints only: the "connect a collector" hint is a run's, when no collector is downstream.
		expect(twin.hints).toEqual(serial.hints);
	});

	it('picks up a property added to the serial description with no other edit', () => {
		const extra: INodeProperties = { displayName: 'Style', name: 'style', type: 'string', default: '' };
		const changed: INodeTypeDescription = {
			...fluxImageDescription,
			properties: [...fluxImageDescription.properties, extra],
		};
		const before = structuredClone(changed);
		const made = makeConcurrentTwinDescription(changed, identity);
		expect(made.properties.map((p) => p.name)).toContain('style');
		expect(made.properties).toEqual(changed.properties);
		expect(changed).toEqual(before); // the serial description is unchanged
	});

	it('shares the serial node’s credential test', () => {
		expect(new FluxConcurrentSubmit().methods?.credentialTest?.fluxApiTest).toBe(
			new FluxImage().methods?.credentialTest?.fluxApiTest,
		);
	});
});

describe('package wiring', () => {
	const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
	const nodes = [
		{ file: 'nodes/FluxImage/FluxImage.node.ts', description: new FluxImage().description },
		{
			file: 'nodes/FluxConcurrentSubmit/FluxConcurrentSubmit.node.ts',
			description: new FluxConcurrentSubmit().description,
		},
		{ file: 'nodes/ConcurrentCollect/ConcurrentCollect.node.ts', description: new ConcurrentCollect().description },
	];

	it.each(nodes)('$file is registered, has its icon and codex file', ({ file, description }) => {
		expect(pkg.n8n.nodes).toContain(`dist/${file.replace(/\.ts$/, '.js')}`);
		const icon = String(description.icon).replace(/^file:/, '');
		expect(existsSync(path.join(root, path.dirname(file), icon))).toBe(true);
		const codex = JSON.parse(readFileSync(path.join(root, file.replace(/\.ts$/, '.json')), 'utf8'));
		expect(codex.node).toBe(`n8n-nodes-flux-concurrent.${description.name}`);
		expect(description.subtitle).toBeTruthy();
	});

	it('keeps the stable internal names', () => {
		expect(nodes.map((n) => n.description.name)).toEqual(['fluxImage', 'fluxConcurrentSubmit', 'concurrentCollect']);
		const credential = new FluxApi();
		expect(credential.name).toBe('fluxApi');
		expect(credential.properties.map((p) => p.name)).toEqual(['apiStyle', 'baseUrl', 'apiKey', 'dailyCreditLimit', 'dailyJobLimit']);
		expect(credential.properties[2].typeOptions?.password).toBe(true);
		const icons = credential.icon as { light: string; dark: string };
		for (const icon of [icons.light, icons.dark]) {
			expect(existsSync(path.join(root, 'credentials', icon.replace(/^file:/, '')))).toBe(true);
		}
		const collector = new ConcurrentCollect().description;
		expect(collector.properties.map((p) => p.name)).toEqual(
			expect.arrayContaining(['numberInputs', 'failureMode', 'binaryPropertyName']),
		);
	});

	it('every FLUX node is tested by the credential test it names', () => {
		for (const Node of [FluxImage, FluxConcurrentSubmit]) {
			const node = new Node();
			const testedBy = node.description.credentials?.[0].testedBy as string;
			expect(typeof node.methods?.credentialTest?.[testedBy]).toBe('function');
		}
	});
});

describe('the collector’s inputs expression', () => {
	it('is self-contained, as n8n evaluates its source text', () => {
		// n8n turns the function's source into an expression: it must not depend on imports.
		const revived = new Function(`return (${configuredInputs.toString()})`)() as typeof configuredInputs;
		expect(revived({ numberInputs: 3 })).toEqual([
			{ type: 'main', displayName: 'Tasks 1' },
			{ type: 'main', displayName: 'Tasks 2' },
			{ type: 'main', displayName: 'Tasks 3' },
		]);
		expect(revived({})).toHaveLength(1);
	});
});
