/**
 * The picture the relay simulator draws for a prompt: a pattern (stripes, checker, rings or a
 * gradient) in two colours, every choice taken from a hash of the prompt, so a person can tell two
 * prompts' images apart at a glance and the same prompt always gives the same picture; with the
 * prompt's words written across the top (bitmapFont.ts), so a person sees which prompt it answers.
 */
import { createHash } from 'node:crypto';

import { CELL_WIDTH, drawText, LINE_HEIGHT, wrapText, type TextBlock } from './bitmapFont';

export const PATTERN_KINDS = ['stripes', 'checker', 'rings', 'gradient'] as const;
export type PatternKind = (typeof PATTERN_KINDS)[number];
export type Rgb = readonly [number, number, number];

export interface PictureSpec {
	kind: PatternKind;
	/** Light and dark colour (the gradient runs from the first to the second). */
	colours: readonly [Rgb, Rgb];
	/** Direction of stripes, squares and gradients, degrees: 0, 45, 90 or 135. */
	angle: number;
	/** Stripe, square or ring width as a fraction of the shorter side. */
	period: number;
	/** Centre of the rings as fractions of width and height. */
	centre: readonly [number, number];
}

/** The picture chosen for `prompt` (deterministic). */
export function pictureFor(prompt: string): PictureSpec {
	// SHA-256, not a small hash: prompts that differ in one character ("… 1", "… 2") must look unrelated.
	const digest = createHash('sha256').update(prompt, 'utf8').digest();
	let offset = 0;
	const unit = () => digest.readUInt16BE((offset += 2) - 2) / 0x10000;
	const pick = (n: number) => Math.floor(unit() * n);
	const kind = PATTERN_KINDS[pick(PATTERN_KINDS.length)];
	const hue = unit() * 360;
	const light = hsv(hue, 0.55 + 0.35 * unit(), 0.85 + 0.15 * unit());
	const dark = hsv(hue + 100 + 160 * unit(), 0.6 + 0.4 * unit(), 0.25 + 0.25 * unit());
	return {
		kind,
		colours: [light, dark],
		angle: 45 * pick(4),
		period: 1 / (4 + pick(9)),
		centre: [0.25 + 0.5 * unit(), 0.25 + 0.5 * unit()],
	};
}

/** Pictures are drawn in square cells: about 256 across the shorter side (cheap, still smooth). */
const CELLS_PER_SIDE = 256;

/** width*height*3 bytes of RGB, row by row. */
export function renderPicture(spec: PictureSpec, width: number, height: number): Buffer {
	const pixels = Buffer.alloc(width * height * 3);
	const shade = shader(spec, width, height);
	const palette = rampPalette(spec.colours[0], spec.colours[1]);
	const cell = Math.max(1, Math.floor(Math.min(width, height) / CELLS_PER_SIDE));
	const stride = width * 3;
	for (let y = 0; y < height; y += cell) {
		const row = y * stride;
		for (let x = 0; x < width; x += cell) {
			const p = 3 * Math.round(shade(x + cell / 2, y + cell / 2) * 255);
			for (let i = row + 3 * x; i < row + 3 * Math.min(width, x + cell); i += 3) {
				pixels[i] = palette[p];
				pixels[i + 1] = palette[p + 1];
				pixels[i + 2] = palette[p + 2];
			}
		}
		for (let copy = y + 1; copy < Math.min(height, y + cell); copy++) pixels.copy(pixels, copy * stride, row, row + stride);
	}
	return pixels;
}

/** 256 colours from `a` to `b`, 3 bytes each. */
function rampPalette(a: Rgb, b: Rgb): Uint8Array {
	const palette = new Uint8Array(256 * 3);
	for (let step = 0; step < 256; step++) {
		for (let c = 0; c < 3; c++) palette[3 * step + c] = Math.round(a[c] + ((b[c] - a[c]) * step) / 255);
	}
	return palette;
}

/** (x, y) → 0 (first colour) … 1 (second colour). */
function shader(spec: PictureSpec, width: number, height: number): (x: number, y: number) => number {
	const period = Math.max(2, Math.round(spec.period * Math.min(width, height)));
	const radians = (spec.angle * Math.PI) / 180;
	const [dx, dy] = [Math.cos(radians), Math.sin(radians)];
	switch (spec.kind) {
		case 'stripes':
			return (x, y) => Math.floor((x * dx + y * dy) / period) & 1;
		case 'checker':
			// squares turned by the angle: 45° and 135° give diamonds
			return (x, y) => (Math.floor((x * dx + y * dy) / period) + Math.floor((y * dx - x * dy) / period)) & 1;
		case 'rings': {
			const [cx, cy] = [spec.centre[0] * width, spec.centre[1] * height];
			return (x, y) => Math.floor(Math.sqrt((x - cx) * (x - cx) + (y - cy) * (y - cy)) / period) & 1;
		}
		case 'gradient': {
			// projections of the four corners bound the ramp, so it spans the whole image
			const ends = [0, width - 1].flatMap((x) => [0, height - 1].map((y) => x * dx + y * dy));
			const [lo, hi] = [Math.min(...ends), Math.max(...ends)];
			return (x, y) => (hi > lo ? (x * dx + y * dy - lo) / (hi - lo) : 0);
		}
	}
}

/** HSV (hue in degrees, any value; s and v in 0..1) to 8-bit RGB. */
function hsv(hue: number, s: number, v: number): Rgb {
	const h = (((hue % 360) + 360) % 360) / 60;
	const c = v * s;
	const x = c * (1 - Math.abs((h % 2) - 1));
	const [r, g, b] = h < 1 ? [c, x, 0] : h < 2 ? [x, c, 0] : h < 3 ? [0, c, x] : h < 4 ? [0, x, c] : h < 5 ? [x, 0, c] : [c, 0, x];
	const m = v - c;
	return [Math.round((r + m) * 255), Math.round((g + m) * 255), Math.round((b + m) * 255)];
}

/** The prompt's words as they are laid out on a picture of this size; undefined when it is too small for text. */
export function promptTextBlock(prompt: string, width: number, height: number): TextBlock | undefined {
	const scale = Math.max(1, Math.round(width / 180));
	const margin = 3 * scale;
	const columns = Math.floor((width - 2 * margin) / (CELL_WIDTH * scale));
	const maxLines = Math.min(6, Math.floor((0.45 * height - 2 * margin) / (LINE_HEIGHT * scale)));
	if (columns < 4 || maxLines < 1) return undefined;
	const lines = wrapText(prompt, columns, maxLines);
	return lines.length === 0 ? undefined : { lines, scale, x: margin, y: margin };
}

/** The prompt's picture (renderPicture) with its words in white on a darkened band across the top. */
export function renderPromptPicture(prompt: string, width: number, height: number): Buffer {
	const pixels = renderPicture(pictureFor(prompt), width, height);
	const block = promptTextBlock(prompt, width, height);
	if (!block) return pixels;
	const bandHeight = Math.min(height, 2 * block.y + block.lines.length * LINE_HEIGHT * block.scale - 2 * block.scale);
	for (let i = 0; i < bandHeight * width * 3; i++) pixels[i] = pixels[i] >> 2; // a quarter of the brightness
	drawText(pixels, width, height, block, [255, 255, 255]);
	return pixels;
}
