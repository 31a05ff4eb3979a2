/**
 * The size of the picture the simulator returns for a FLUX 3 Image submit: the shape of its Aspect Ratio at the
 * pixel count of its Resolution, scaled down so pictures stay small and fast to draw (1k, the default, is
 * 512 × 512). `auto` takes the shape of the first reference image when it is a PNG sent as base64, else a square.
 */
type Resolution = '768sq' | '1k' | '1.5k' | '2k' | '4k';

/** The side of a square with each tier's pixel count, scaled down (a real 1k image is about 1024 × 1024). */
export const SIMULATED_SIDE: Readonly<Record<Resolution, number>> = { '768sq': 384, '1k': 512, '1.5k': 640, '2k': 768, '4k': 1024 };

export interface ImageSize {
	width: number;
	height: number;
}

/** What of a submit body decides the size (the validated flux-3-image body). */
export interface SizedSubmit {
	resolution?: string;
	aspect_ratio?: string;
	images?: string[];
}

const roundTo8 = (n: number) => Math.max(8, Math.round(n / 8) * 8);

/** The width : height of a PNG sent as base64, when the text is one. */
function pngShape(base64: string | undefined): [number, number] | undefined {
	if (!base64 || /^https?:/i.test(base64)) return undefined;
	const head = Buffer.from(base64.slice(0, 44), 'base64');
	if (head.length < 24 || head.readUInt32BE(0) !== 0x89504e47 || head.toString('latin1', 12, 16) !== 'IHDR') return undefined;
	const [width, height] = [head.readUInt32BE(16), head.readUInt32BE(20)];
	return width > 0 && height > 0 ? [width, height] : undefined;
}

/** The picture size for a submit body (see the module comment). */
export function simulatedImageSize(body: SizedSubmit): ImageSize {
	const side = SIMULATED_SIDE[(body.resolution ?? '1k') as Resolution] ?? SIMULATED_SIDE['1k'];
	const ratio = /^(\d+):(\d+)$/.exec(body.aspect_ratio ?? 'auto');
	const [w, h] = ratio ? [Number(ratio[1]), Number(ratio[2])] : (pngShape(body.images?.[0]) ?? [1, 1]);
	const aspect = w / h;
	return { width: roundTo8(side * Math.sqrt(aspect)), height: roundTo8(side / Math.sqrt(aspect)) };
}
