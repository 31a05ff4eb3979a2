/**
 * Job keys are the result store's and the journal's names: a FLUX 3 Image or Video job keeps the key it had before
 * models became descriptors (the values below were computed by the code before that change), so stored results
 * and unfinished jobs of earlier runs are found again. A FLUX.2 job's key names its model and its seed.
 */
import type { FluxImageRequest } from '../../src/flux';
import { fluxJobIdentity, fluxVideoJobIdentity } from '../../src/fluxN8n/fluxJobKey';
import { flux2Flex, flux2Pro, flux3Image, flux3Video, type FluxVideoRequest } from '../../src/models';
import { parseFluxParameters, toFluxImageRequest } from '../../src/fluxN8n/fluxParameters';

const creds = { apiStyle: 'bfl' as const, baseUrl: 'https://api.bfl.ai', apiKey: 'key-for-the-key-test' };
const image: FluxImageRequest = {
	model: flux3Image,
	prompt: 'a ceramic mug',
	values: { resolution: '2k', aspectRatio: '4:3', grounding: false, safetyTolerance: 3, modelVersion: 'latest' },
	images: [{ kind: 'url', url: 'https://example.com/ref.png' }],
};
const video: FluxVideoRequest = { model: flux3Video, safetyTolerance: 2, draft: false, modelVersion: 'latest', mode: 't2v', prompt: 'a mug turning', aspectRatio: '16:9', resolution: 'hd', duration: 5, generateAudio: false };

it('a FLUX 3 Image job keeps its key', () => {
	expect(fluxJobIdentity({}, creds, image, 7)).toEqual({
		key: '2fdd80873d4f66456d70660aa99b0727924c66801e1b56dae51b1427eeb8d392',
		apiStyle: 'bfl',
		baseUrl: 'https://api.bfl.ai',
		model: 'flux-3-image',
		apiKeyHash: 'f3091b4a9a0e4469',
	});
});

it('a FLUX 3 Video job keeps its key', () => {
	expect(fluxVideoJobIdentity({}, creds, video, 7).key).toBe('5ff799eb3c3eb5aff238570146afb6ff167b7081c97e3485d78760ae05e1e91b');
});

it('a FLUX.2 job is keyed by its model, its fields and its seed', () => {
	const flux2 = (model: typeof flux2Pro, seed: number) => {
		const params = parseFluxParameters({ model: model.id, prompt: image.prompt, width: 1024, height: 768, seed, referenceImages: ['https://example.com/ref.png'] });
		return fluxJobIdentity({}, creds, toFluxImageRequest(params, image.images), seed);
	};
	const pro = flux2(flux2Pro, 7);
	expect(pro.model).toBe('flux-2-pro');
	expect(new Set([fluxJobIdentity({}, creds, image, 7).key, pro.key, flux2(flux2Flex, 7).key, flux2(flux2Pro, 8).key]).size).toBe(4);
	expect(flux2(flux2Pro, 7).key).toBe(pro.key);
});
