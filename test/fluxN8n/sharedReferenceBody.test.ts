/**
 * A shared reference image is held once, as base64 ASCII bytes, and every submit body is sent from those bytes:
 * the body on the wire is byte for byte the JSON text of the request as it was built when copies held the base64 as a
 * string (FLUX 3 and FLUX.2 bodies, one image and several, with a URL among them).
 */
import { randomBytes } from 'node:crypto';

import { makePromptPng } from '../../relay-sim';
import { modelRequestBody, modelRequestPayload, requestBodyJson, requestPayload, type FluxImageRequest, type ReferenceImage } from '../../src/flux/request';
import { flux2Pro, flux3Video, type FluxVideoRequest } from '../../src/models';
import { parseFluxParameters, toFluxImageRequest } from '../../src/fluxN8n/fluxParameters';
import { flux3ImageRequest } from '../support/imageRequest';
import { base64Ascii, sharedReferenceImages } from '../../src/fluxN8n/sharedReferenceImages';

/** The copy as it was before: the base64 held as a string (what the old body JSON was built from). */
const stringCopy = (bytes: Buffer, mimeType = 'image/png'): ReferenceImage => Object.freeze({ kind: 'base64', data: bytes.toString('base64'), mimeType });

const URL_REFERENCE: ReferenceImage = { kind: 'url', url: 'https://example.com/ref "quoted".png' };

function flux3(prompt: string, images: ReferenceImage[]): FluxImageRequest {
	return flux3ImageRequest(prompt, { images });
}

function flux2(prompt: string, images: ReferenceImage[]): FluxImageRequest {
	return { ...toFluxImageRequest(parseFluxParameters({ model: flux2Pro.id, prompt, width: 1024, height: 768, outputFormat: 'png', seed: 42 })), images };
}

/** The body as sent: its parts in order, joined. */
const sent = (req: FluxImageRequest): Buffer => Buffer.concat([...requestPayload(req).parts]);

describe('base64Ascii: the base64 of an image written in steps', () => {
	it.each([1, 2, 3, 4, 49_151, 49_152, 49_153, 98_304, 3 * 49_152 + 2, 1_000_003])('equals the base64 text of %i bytes', (n) => {
		const bytes = randomBytes(n);
		expect(base64Ascii(bytes).toString('latin1')).toBe(bytes.toString('base64'));
	});
});

describe('a submit body sent from the shared copy is byte for byte the JSON of the request', () => {
	const png = makePromptPng('shared reference body', { width: 16, height: 16, padToBytes: 300_001 });
	const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(70_000)]);
	const cases: Array<[string, (prompt: string, images: ReferenceImage[]) => FluxImageRequest]> = [
		['FLUX 3', flux3],
		['FLUX.2', flux2],
	];

	it.each(cases)('%s, one binary reference image', (_, build) => {
		const shared = sharedReferenceImages().encode(png, 'image/png');
		const old = requestBodyJson(build('one image "quoted" \u0000 ✓', [stringCopy(png)]));
		const payload = requestPayload(build('one image "quoted" \u0000 ✓', [shared]));
		expect(Buffer.concat([...payload.parts]).equals(Buffer.from(old, 'utf8'))).toBe(true);
		expect(payload.length).toBe(Buffer.byteLength(old, 'utf8'));
	});

	it.each(cases)('%s, several reference images with a URL among them, one image twice', (_, build) => {
		const a = sharedReferenceImages().encode(png, 'image/png');
		const b = sharedReferenceImages().encode(jpeg, 'image/jpeg');
		const old = requestBodyJson(build('several', [stringCopy(png), URL_REFERENCE, stringCopy(jpeg, 'image/jpeg'), stringCopy(png)]));
		const payload = requestPayload(build('several', [a, URL_REFERENCE, b, a]));
		expect(Buffer.concat([...payload.parts]).equals(Buffer.from(old, 'utf8'))).toBe(true);
		expect(payload.length).toBe(Buffer.byteLength(old, 'utf8'));
	});

	it('every job sharing the copy sends the copy’s own bytes: no job makes a copy of its own', () => {
		const copy = sharedReferenceImages().encode(png, 'image/png');
		const one = requestPayload(flux3('job one', [copy, URL_REFERENCE]));
		const two = requestPayload(flux2('job two', [URL_REFERENCE, copy]));
		expect(one.parts.filter((part) => part === copy.ascii)).toHaveLength(1);
		expect(two.parts.filter((part) => part === copy.ascii)).toHaveLength(1);
		expect(sent(flux3('job one', [copy, URL_REFERENCE])).equals(Buffer.concat([...one.parts]))).toBe(true);
	});

	it('a copy still reads as { kind, data, mimeType }: data is its base64 text, built when asked', () => {
		const copy = sharedReferenceImages().encode(png, 'image/png');
		expect(copy).toEqual({ kind: 'base64', data: png.toString('base64'), mimeType: 'image/png' });
		expect(JSON.parse(JSON.stringify(copy))).toEqual({ kind: 'base64', data: png.toString('base64'), mimeType: 'image/png' });
		expect(Object.isFrozen(copy)).toBe(true);
		expect(sharedReferenceImages().encode(Buffer.from(png), 'image/png')).toBe(copy);
	});

	it('a FLUX 3 Video body sends a shared keyframe from the copy, byte for byte the JSON of the request', () => {
		const copy = sharedReferenceImages().encode(png, 'image/png');
		const video = (image: ReferenceImage): FluxVideoRequest => ({
			model: flux3Video,
			mode: 'i2v',
			prompt: 'a clip',
			aspectRatio: '16:9',
			resolution: 'hd',
			duration: 5,
			generateAudio: false,
			keyframes: [{ image, seconds: 0 }, { image: URL_REFERENCE, seconds: 2 }],
		});
		const old = JSON.stringify(modelRequestBody(video(stringCopy(png))));
		const payload = modelRequestPayload(video(copy));
		expect(Buffer.concat([...payload.parts]).equals(Buffer.from(old, 'utf8'))).toBe(true);
		expect(payload.length).toBe(Buffer.byteLength(old, 'utf8'));
		expect(payload.parts.filter((part) => part === copy.ascii)).toHaveLength(1);
	});
});
