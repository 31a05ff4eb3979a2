import { connectCollectorMessage } from '../../src/twin/makeConcurrentTwin';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { ConcurrentCollectVideos } from '../../nodes/ConcurrentCollectVideos/ConcurrentCollectVideos.node';
import { FluxVideo } from '../../nodes/FluxVideo/FluxVideo.node';
import { FluxVideoConcurrentSubmit } from '../../nodes/FluxVideoConcurrentSubmit/FluxVideoConcurrentSubmit.node';
import { VIDEO_ASPECT_RATIOS } from '../../src/models/flux3Video';

const root = path.resolve(__dirname, '../..');

describe('the FLUX 3 Video twin', () => {
	const serial = new FluxVideo().description;
	const twin = new FluxVideoConcurrentSubmit().description;

	it('has exactly the serial node’s property list, with the stable names', () => {
		expect(twin.properties).toEqual(serial.properties);
		expect(twin.properties).not.toBe(serial.properties);
		expect(serial.properties.map((p) => p.name)).toEqual([
			'mode',
			'prompt',
			'keyframes',
			'startVideo',
			'draftCache',
			'aspectRatio',
			'resolution',
			'duration',
			'generateAudio',
			'safetyTolerance',
			'draft',
			'skipError',
			'seed',
			'options',
		]);
		const option = (name: string) => serial.properties.find((p) => p.name === name);
		expect(option('mode')?.options?.map((o) => (o as { value: string }).value)).toEqual(['t2v', 'i2v', 'v2v', 'draft_enhance']);
		expect(option('resolution')?.options?.map((o) => (o as { value: string }).value)).toEqual(['hd', 'fhd']);
		expect(option('aspectRatio')?.options?.map((o) => (o as { value: string }).value)).toEqual([...VIDEO_ASPECT_RATIOS]);
		expect(option('generateAudio')?.default).toBe(true);
	});

	it('shows each media field only in the mode that uses it', () => {
		const shownIn = (name: string) => serial.properties.find((p) => p.name === name)?.displayOptions?.show?.mode;
		expect(shownIn('keyframes')).toEqual(['i2v']);
		expect(shownIn('startVideo')).toEqual(['v2v']);
		expect(shownIn('draftCache')).toEqual(['draft_enhance']);
		// Enhance a Draft takes the draft cache alone: every generation field is hidden there.
		for (const name of ['prompt', 'aspectRatio', 'resolution', 'duration', 'generateAudio', 'safetyTolerance', 'draft']) expect([name, shownIn(name)]).toEqual([name, ['t2v', 'i2v', 'v2v']]);
	});

	it('changes only identity, outputs and hints; points to the video collector; shares the credential test', () => {
		expect(twin).toMatchObject({ name: 'fluxVideoConcurrentSubmit', displayName: 'FLUX 3 Video Concurrent Submit', outputNames: ['Task'] });
		expect(twin.credentials).toEqual(serial.credentials);
		expect(twin.hints).toEqual(serial.hints); // the collector hint is a run's (when none is downstream)
		expect(connectCollectorMessage('video')).toMatch(/no Concurrent Collect Videos node is connected/);
		expect(new FluxVideoConcurrentSubmit().methods?.credentialTest?.fluxApiTest).toBe(new FluxVideo().methods?.credentialTest?.fluxApiTest);
	});

	it('is not an AI-agent tool (clips take minutes; agents drop binary tool output)', () => {
		for (const description of [serial, twin, new ConcurrentCollectVideos().description]) expect(description.usableAsTool).toBeUndefined();
	});
});

describe('video package wiring', () => {
	const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
	const nodes = [
		{ file: 'nodes/FluxVideo/FluxVideo.node.ts', description: new FluxVideo().description },
		{ file: 'nodes/FluxVideoConcurrentSubmit/FluxVideoConcurrentSubmit.node.ts', description: new FluxVideoConcurrentSubmit().description },
		{ file: 'nodes/ConcurrentCollectVideos/ConcurrentCollectVideos.node.ts', description: new ConcurrentCollectVideos().description },
	];

	it.each(nodes)('$file is registered, has its icon and codex file', ({ file, description }) => {
		expect(pkg.n8n.nodes).toContain(`dist/${file.replace(/\.ts$/, '.js')}`);
		const icon = String(description.icon).replace(/^file:/, '');
		expect(existsSync(path.join(root, path.dirname(file), icon))).toBe(true);
		const codex = JSON.parse(readFileSync(path.join(root, file.replace(/\.ts$/, '.json')), 'utf8'));
		expect(codex.node).toBe(`n8n-nodes-flux-concurrent.${description.name}`);
	});

	it('keeps the stable internal names; the collector takes 10 slots and has no failed-slot placeholder', () => {
		expect(nodes.map((n) => n.description.name)).toEqual(['fluxVideo', 'fluxVideoConcurrentSubmit', 'concurrentCollectVideos']);
		const collector = nodes[2].description;
		expect(collector.properties.map((p) => p.name)).toEqual(['notice', 'numberInputs', 'failureMode', 'binaryPropertyName']);
		expect(collector.properties[0].displayName).toMatch(/at most 10 in all/);
		expect(JSON.stringify(collector.properties[2])).toMatch(/keeps its place with no video/);
		expect(collector.outputNames).toEqual(['Videos', 'Report']);
	});
});
