import { parseFluxVideoParameters } from '../../src/fluxN8n/fluxParameters';
import { isMp4 } from '../../src/flux/videoType';
import { makePromptMp4, readPromptFromMp4 } from '../../relay-sim';
import { modelRequestBody, modelRequestPayload } from '../../src/flux/request';
import { flux3Video, type FluxVideoRequest } from '../../src/models';

const url = (n: string) => ({ source: `https://example.com/${n}.png` });

describe('parseFluxVideoParameters: as BFL validates, before anything is sent', () => {
	it('takes the defaults: t2v, auto, hd, auto duration, audio on, reuse cache, a video-sized cap and timeout', () => {
		expect(parseFluxVideoParameters({ prompt: ' a kite ' })).toEqual({
			mode: 't2v',
			prompt: 'a kite',
			aspectRatio: 'auto',
			resolution: 'hd',
			duration: 'auto',
			generateAudio: true,
			safetyTolerance: 2,
			draft: false,
			modelVersion: 'latest',
			skipError: false,
			seed: undefined,
			timeoutMs: 30 * 60_000,
			maxDownloadBytes: 1024 * 1024 * 1024,
			cacheMode: 'reuse',
			maxNewJobsPerExecution: 0,
		});
	});

	it('refuses a field outside its mode, naming it (a JSON import or API call can carry one)', () => {
		expect(() => parseFluxVideoParameters({ prompt: 'p', mode: 't2v', keyframes: { frames: [url('a')] } })).toThrow(/"keyframes": is only used with Mode Image to Video.*\(Mode is (Text to Video|Continue a Video)\)/);
		expect(() => parseFluxVideoParameters({ prompt: 'p', mode: 'v2v', startVideo: 'clip', keyframes: [url('a')] })).toThrow(/"keyframes": is only used with Mode Image to Video.*\(Mode is (Text to Video|Continue a Video)\)/);
		expect(() => parseFluxVideoParameters({ prompt: 'p', mode: 'i2v', keyframes: [url('a')], startVideo: 'clip' })).toThrow(/"startVideo": is only used with Mode Continue a Video.*\(Mode is Image to Video\)/);
	});

	it('accepts 1, 2 and (with a duration) 3–10 keyframes; timestamps increasing by ≥ 1/24 s within the duration', () => {
		expect(parseFluxVideoParameters({ prompt: 'p', mode: 'i2v', keyframes: { frames: [url('a')] } }).keyframes).toHaveLength(1);
		expect(parseFluxVideoParameters({ prompt: 'p', mode: 'i2v', duration: '10', keyframes: { frames: ['a', 'b', 'c'].map(url) } }).duration).toBe(10);
		const timed = parseFluxVideoParameters({
			prompt: 'p',
			mode: 'i2v',
			duration: 5,
			keyframes: { frames: [{ ...url('a'), seconds: '0' }, { ...url('b'), seconds: 1 / 24 }, { ...url('c'), seconds: '5' }] },
		});
		expect((timed.keyframes as Array<{ seconds?: number }>).map((k) => k.seconds)).toEqual([0, 1 / 24, 5]);
		expect(() => parseFluxVideoParameters({ prompt: 'p', mode: 'i2v', keyframes: { frames: [{ ...url('a'), seconds: '1' }] } })).toThrow(/"duration": timestamped keyframes need a numeric Duration/);
		expect(() => parseFluxVideoParameters({ prompt: 'p', mode: 'i2v', duration: 5, keyframes: { frames: [{ ...url('a'), seconds: '2' }, { ...url('b'), seconds: '1' }] } })).toThrow(/"keyframes\[1\]\.seconds": must come at least 1\/24 s/);
		expect(() => parseFluxVideoParameters({ prompt: 'p', mode: 'i2v', keyframes: { frames: [{ source: 'ftp://x/a.png' }] } })).toThrow(/"keyframes\[0\]": "ftp:" is not supported/);
		expect(() => parseFluxVideoParameters({ prompt: 'p', mode: 'i2v', duration: 5, keyframes: { frames: [{ ...url('a'), seconds: 'soon' }] } })).toThrow(/"keyframes\[0\]\.seconds": must be a number of seconds/);
	});

	it('refuses a keyframe row with a timestamp but no image (it would be dropped silently: a different paid clip)', () => {
		const frames = [{ ...url('a'), seconds: '0' }, { source: '', seconds: '2' }];
		expect(() => parseFluxVideoParameters({ prompt: 'p', mode: 'i2v', duration: 5, keyframes: { frames } })).toThrow(/"keyframes\[1\]": has a timestamp \(2 s\) but no image/);
		// A wholly empty row (as n8n adds it) is still ignored.
		expect(parseFluxVideoParameters({ prompt: 'p', mode: 'i2v', keyframes: { frames: [url('a'), { source: '', seconds: '' }] } }).keyframes).toHaveLength(1);
	});

	it('checks every enum and option with a clear message', () => {
		expect(() => parseFluxVideoParameters({ prompt: 'p', mode: 'x2v' })).toThrow(/"mode": must be one of t2v, i2v, v2v, draft_enhance \(got "x2v"\)/);
		expect(() => parseFluxVideoParameters({ prompt: 'p', aspectRatio: '3:2' })).toThrow(/"aspectRatio": must be one of auto, 21:9, 2:1, 16:9, 4:3, 1:1, 3:4, 9:16/);
		expect(() => parseFluxVideoParameters({ prompt: 'p', duration: 5.5 })).toThrow(/"duration": must be auto or a whole number/);
		expect(() => parseFluxVideoParameters({ prompt: 'p', options: { maxDownloadMb: 0 } })).toThrow(/"options.maxDownloadMb": must be a number from 1 to 10240/);
		expect(() => parseFluxVideoParameters({ prompt: 'p', options: { maxDownloadMb: 0.5 } })).toThrow(/"options.maxDownloadMb": must be a number from 1 to 10240/);
		expect(() => parseFluxVideoParameters({ prompt: '' })).toThrow(/"prompt": is required/);
	});
});

describe('the video request on the wire', () => {
	const request: FluxVideoRequest = {
		model: flux3Video,
		mode: 'i2v',
		prompt: 'p "quoted"',
		aspectRatio: '16:9',
		resolution: 'fhd',
		duration: 6,
		generateAudio: false,
		keyframes: [{ image: { kind: 'base64', data: 'QUJD', mimeType: 'image/png' } }, { image: { kind: 'url', url: 'https://e.example/b.png' } }],
	};

	it('sends only the mode’s fields, in BFL names; the payload parts are the same JSON', () => {
		expect(modelRequestBody(request)).toEqual({ mode: 'i2v', prompt: 'p "quoted"', aspect_ratio: '16:9', resolution: 'fhd', duration: 6, generate_audio: false, keyframes: ['QUJD', 'https://e.example/b.png'] });
		const payload = modelRequestPayload(request);
		const text = Buffer.concat([...payload.parts]).toString('utf8');
		expect(JSON.parse(text)).toEqual(modelRequestBody(request));
		expect(payload.length).toBe(Buffer.byteLength(text));
	});
});

describe('MP4 detection by the ftyp box', () => {
	it('knows the simulator’s clips and refuses PNG, HTML and short bodies', () => {
		const clip = makePromptMp4('a clip', { sizeBytes: 4096 });
		expect(clip.length).toBe(4096);
		expect(isMp4(clip)).toBe(true);
		expect(readPromptFromMp4(clip)).toBe('a clip');
		expect(isMp4(Buffer.from('<!DOCTYPE html><html>'))).toBe(false);
		expect(isMp4(Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'))).toBe(false);
		expect(isMp4(clip.subarray(0, 8))).toBe(false);
	});
});

describe('FLUX 3 Video as BFL ships it: safety tolerance, continuation length, drafts, Model Version', () => {
	/** The body of an item's request, media resolved as given (keyframes and start video as URLs here). */
	const bodyOf = (raw: Record<string, unknown>, media: Partial<FluxVideoRequest> = {}) => {
		const { keyframes: _k, startVideo: _s, draftCache: _d, ...params } = parseFluxVideoParameters(raw);
		return modelRequestBody({ ...(params as Omit<FluxVideoRequest, 'model'>), ...media, model: flux3Video });
	};
	const frame = { kind: 'url' as const, url: 'https://e.example/a.png' };

	it('sends safety_tolerance, draft and version only when they are not the defaults (saved workflows keep their bodies)', () => {
		expect(bodyOf({ prompt: 'p' })).toEqual({ mode: 't2v', prompt: 'p', aspect_ratio: 'auto', resolution: 'hd', duration: 'auto', generate_audio: true });
		expect(bodyOf({ prompt: 'p', safetyTolerance: 3, draft: true, options: { modelVersion: 'flux-3-video-2026-10' } })).toMatchObject({ safety_tolerance: 3, draft: true, version: 'flux-3-video-2026-10' });
		expect(bodyOf({ prompt: 'p', safetyTolerance: 0 })).toMatchObject({ safety_tolerance: 0 });
	});

	it('allows tolerance up to 2 with keyframes or a start video, and refuses more naming Safety Tolerance', () => {
		expect(bodyOf({ prompt: 'p', mode: 'i2v', safetyTolerance: 1, keyframes: [url('a')], draft: true }, { keyframes: [{ image: frame }] })).toMatchObject({ mode: 'i2v', safety_tolerance: 1, draft: true, keyframes: [frame.url] });
		expect(() => parseFluxVideoParameters({ prompt: 'p', mode: 'i2v', safetyTolerance: 3, keyframes: [url('a')] })).toThrow(/"safetyTolerance": must be at most 2 when the request carries keyframes \(got 3\)/);
		expect(() => parseFluxVideoParameters({ prompt: 'p', mode: 'v2v', safetyTolerance: 4, startVideo: 'clip' })).toThrow(/"safetyTolerance": must be at most 2 when the request carries a start video \(got 4\)/);
	});

	it('continues a clip by at most 15 s (auto allowed); other modes up to 20 s', () => {
		expect(bodyOf({ prompt: 'p', mode: 'v2v', startVideo: 'clip', duration: 15 }, { startVideo: frame })).toMatchObject({ duration: 15, start_video: frame.url });
		expect(parseFluxVideoParameters({ prompt: 'p', mode: 'v2v', startVideo: 'clip' }).duration).toBe('auto');
		expect(() => parseFluxVideoParameters({ prompt: 'p', mode: 'v2v', startVideo: 'clip', duration: '18' })).toThrow(/"duration": must be auto or at most 15 s with Mode Continue a Video/);
		expect(parseFluxVideoParameters({ prompt: 'p', duration: 20 }).duration).toBe(20);
	});

	it('Enhance a Draft sends the draft cache alone (and a pinned version): no prompt or other generation field', () => {
		const raw = { mode: 'draft_enhance', prompt: 'left over', resolution: 'fhd', safetyTolerance: 4, draft: true, duration: 99 };
		const params = parseFluxVideoParameters(raw);
		expect(params.draftCache).toEqual({ kind: 'binary', property: 'draftCache' });
		expect(bodyOf(raw, { draftCache: { kind: 'base64', data: 'Q0FDSEU=', mimeType: 'application/octet-stream' } })).toEqual({ mode: 'draft_enhance', draft_cache: 'Q0FDSEU=' });
		expect(bodyOf({ mode: 'draft_enhance', draftCache: 'https://cdn.example/cache.bin', options: { modelVersion: 'v2' } }, { draftCache: { kind: 'url', url: 'https://cdn.example/cache.bin' } })).toEqual({ mode: 'draft_enhance', draft_cache: 'https://cdn.example/cache.bin', version: 'v2' });
		expect(() => parseFluxVideoParameters({ mode: 'draft_enhance', draftCache: 'ftp://x/cache' })).toThrow(/"draftCache": "ftp:" is not supported/);
	});

	it('Draft is offered in Text to Video, Image to Video and Continue a Video only; there is no batch', () => {
		const draft = flux3Video.parameters.find((p) => p.name === 'draft');
		expect(draft?.modes).toEqual(['t2v', 'i2v', 'v2v']);
		expect(flux3Video.parameters.some((p) => p.name === 'batch' || p.wire === 'batch')).toBe(false);
	});
});
