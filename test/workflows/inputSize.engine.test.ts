/**
 * Input media measured before anything is sent, through n8n's real engine and the relay simulator: a reference photo
 * under 256×256 (FLUX 3 Image), a keyframe under 256×256 and a start video over 15 s (FLUX 3 Video) are refused
 * naming the field as the editor shows it and the item, and the simulator sees no submit; media within BFL's limits go
 * through.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import { type RelaySimulator } from '../../relay-sim';
import { solidPng } from '../../relay-sim/pngCodec';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { mp4WithDuration } from '../support/mediaBytes';
import { connect, manualTrigger, runWorkflow } from '../engine/harness';
import { fluxCredentials, imageNode, nodeTypes, submitNode } from './setup';
import { runSerialVideo, videoNodeTypes, videoSubmitNode } from './videoSetup';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 20 }, (started) => (sim = started));

const binaryOf = (buffer: Buffer, mimeType: string) => ({ data: buffer.toString('base64'), mimeType });
const style = 'https://example.com/style.png';

/** Three items, each with two binary photos; item 2's `photo` is `side`×`side`, the others 256×256. */
function photoItems(side: number): INodeExecutionData[] {
	return [256, 256, side].map((photo, i) => ({
		json: { prompt: `relight ${i}` },
		binary: { photo: binaryOf(solidPng(photo, photo, [i * 40, 90, 200]), 'image/png'), backdrop: binaryOf(solidPng(300, 256, [9, 9, 9]), 'image/png') },
	}));
}

async function runImages(triggerItems: INodeExecutionData[], node = imageNode, settings = {}) {
	return await runWorkflow({
		nodes: [manualTrigger('Trigger'), node('FLUX', { prompt: '={{ $json.prompt }}', referenceImages: { images: [{ source: 'backdrop' }, { source: style }, { source: 'photo' }] } }, settings)],
		connections: connect(['Trigger', 'FLUX']),
		nodeTypes,
		credentials: fluxCredentials(sim),
		triggerItems,
	});
}

const refusal = 'Invalid parameter "Reference Images → Image 3": binary property "photo" is 100×100 pixels; FLUX 3 Image needs at least 256×256 [item 2]';

describe('FLUX 3 Image reference images', () => {
	it('a 100×100 reference photo is refused by the twin before anything is sent, naming the reference and the item', async () => {
		const result = await runImages(photoItems(100), submitNode);
		expect(result.errorOf('FLUX')?.message).toBe(refusal);
		expect(sim.log.submits).toHaveLength(0);
	});

	it('the serial node checks every item before it sends one: a refused item 2 stops the node with nothing paid', async () => {
		const result = await runImages(photoItems(100));
		expect(result.errorOf('FLUX')?.message).toBe(refusal);
		expect(sim.log.submits).toHaveLength(0);
	});

	it('the serial node with continue-on-fail sends the valid items and outputs the refused one as its error, in item order', async () => {
		const result = await runImages(photoItems(100), imageNode, { onError: 'continueRegularOutput' });
		expect(sim.log.submits.map((submit) => submit.prompt)).toEqual(['relight 0', 'relight 1']);
		const output = result.outputOf('FLUX');
		expect(output.map((item) => [item.json.status ?? item.json.error, item.pairedItem])).toEqual([
			['success', { item: 0 }],
			['success', { item: 1 }],
			[refusal, { item: 2 }],
		]);
	});

	it('256×256 reference photos go through, sent as they are', async () => {
		const triggerItems = photoItems(256);
		const result = await runImages(triggerItems);
		expect(result.status).toBe('success');
		expect(sim.log.submits.map((submit) => submit.body)).toEqual(
			triggerItems.map((item) => expect.objectContaining({ images: [item.binary!.backdrop.data, style, item.binary!.photo.data] })),
		);
	});
});

describe('FLUX 3 Video media', () => {
	it('a keyframe under 256×256 is refused before anything is sent, naming the keyframe and the item', async () => {
		const photo = (side: number) => ({ json: {}, binary: { photo: binaryOf(solidPng(side, side, [1, 2, 3]), 'image/png') } });
		const parameters = { prompt: 'the mug turns', mode: 'i2v', keyframes: { frames: [{ source: 'https://example.com/a.png' }, { source: 'photo' }] } };
		const result = await runWorkflow({
			nodes: [manualTrigger('Trigger'), videoSubmitNode('Video', parameters)],
			connections: connect(['Trigger', 'Video']),
			nodeTypes: videoNodeTypes,
			credentials: fluxCredentials(sim),
			triggerItems: [photo(256), photo(255)],
		});
		expect(result.errorOf('Video')?.message).toBe(
			'Invalid parameter "Keyframes → Keyframe 2": binary property "photo" is 255×255 pixels; FLUX 3 Video needs at least 256×256 [item 1]',
		);
		expect(sim.log.submits).toHaveLength(0);
	});

	it('an 18-second start video is refused before anything is sent; a 15-second one goes through', async () => {
		const clip = (seconds: number) => [{ json: {}, binary: { clip: binaryOf(mp4WithDuration(seconds), 'video/mp4') } }];
		const long = await runSerialVideo(sim, { prompt: 'and then it rains', mode: 'v2v', startVideo: 'clip' }, clip(18));
		expect(long.errorOf('Video')?.message).toBe(
			'Invalid parameter "Start Video": binary property "clip" is 18 s long; FLUX 3 Video continues clips of at most 15 s [item 0]',
		);
		expect(sim.log.submits).toHaveLength(0);

		const fifteen = await runSerialVideo(sim, { prompt: 'and then it rains', mode: 'v2v', startVideo: 'clip' }, clip(15));
		expect(fifteen.error).toBeUndefined();
		expect(sim.log.submits.map((submit) => submit.body)).toEqual([expect.objectContaining({ mode: 'v2v', start_video: mp4WithDuration(15).toString('base64') })]);
	});
});
