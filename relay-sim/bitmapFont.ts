/**
 * A 5×7 bitmap font (capitals, digits, common punctuation) and a text writer for RGB pixel buffers, so the
 * simulator's pictures can show the words of their prompt. Lower case is drawn as capitals; a character the
 * font lacks (after removing accents) is drawn as a small box.
 */

/** Glyph rows, top to bottom: 7 rows of 5 bits (bit 4 = leftmost pixel), as 14 hex digits. */
const GLYPHS: Readonly<Record<string, string>> = {
	' ': '00000000000000',
	A: '0e11111f111111',
	B: '1e11111e11111e',
	C: '0e11101010110e',
	D: '1c12111111121c',
	E: '1f10101e10101f',
	F: '1f10101e101010',
	G: '0e11101711110f',
	H: '1111111f111111',
	I: '0e04040404040e',
	J: '0702020202120c',
	K: '11121418141211',
	L: '1010101010101f',
	M: '111b1515111111',
	N: '11111915131111',
	O: '0e11111111110e',
	P: '1e11111e101010',
	Q: '0e11111115120d',
	R: '1e11111e141211',
	S: '0f10100e01011e',
	T: '1f040404040404',
	U: '1111111111110e',
	V: '11111111110a04',
	W: '1111111515150a',
	X: '11110a040a1111',
	Y: '11110a04040404',
	Z: '1f01020408101f',
	'0': '0e11131519110e',
	'1': '040c040404040e',
	'2': '0e11010204081f',
	'3': '1f02040201110e',
	'4': '02060a121f0202',
	'5': '1f101e0101110e',
	'6': '0608101e11110e',
	'7': '1f010204080808',
	'8': '0e11110e11110e',
	'9': '0e11110f01020c',
	'.': '00000000000c0c',
	',': '000000000c0408',
	':': '000c0c000c0c00',
	';': '000c0c000c0408',
	'!': '04040404040004',
	'?': '0e110102040004',
	"'": '04040800000000',
	'"': '0a0a0a00000000',
	'-': '0000001f000000',
	_: '0000000000001f',
	'(': '02040808080402',
	')': '08040202020408',
	'/': '00010204081000',
	'&': '0c12140815120d',
	'+': '0004041f040400',
	'=': '00001f001f0000',
	'#': '0a0a1f0a1f0a0a',
	'%': '18190204081303',
	'*': '0004150e150400',
	'<': '02040810080402',
	'>': '08040201020408',
	'[': '0e08080808080e',
	']': '0e02020202020e',
	'@': '0e11010d15150e',
	$: '040f140e051e04',
};

/** Drawn for a character the font lacks. */
const MISSING = '1f11111111111f';

export const GLYPH_WIDTH = 5;
export const GLYPH_HEIGHT = 7;
/** A character's cell, in font pixels: the glyph and a column of space. */
export const CELL_WIDTH = GLYPH_WIDTH + 1;
/** A line's height, in font pixels: the glyph and two rows of space. */
export const LINE_HEIGHT = GLYPH_HEIGHT + 2;

/** The 7 rows of a character's glyph (bit 4 = leftmost of 5). */
export function glyphRows(char: string): number[] {
	const hex = GLYPHS[char.toUpperCase()] ?? MISSING;
	return Array.from({ length: GLYPH_HEIGHT }, (_, row) => parseInt(hex.slice(2 * row, 2 * row + 2), 16));
}

/** The text the font can draw: accents removed, typographic dashes and quotes plain, line breaks and tabs as spaces, runs of spaces as one. */
export function drawableText(text: string): string {
	return text
		.normalize('NFD')
		.replace(/[\u0300-\u036f]/g, '')
		.replace(/[\u2010-\u2015]/g, '-')
		.replace(/[\u2018\u2019]/g, "'")
		.replace(/[\u201c\u201d]/g, '"')
		.replace(/\u2026/g, '...')
		.replace(/\u00d7/g, 'x')
		.replace(/\s+/g, ' ')
		.trim()
		.toUpperCase();
}

/**
 * `text` broken into at most `maxLines` lines of at most `columns` characters, at spaces where it can; text that
 * does not fit ends the last line with "...".
 */
export function wrapText(text: string, columns: number, maxLines: number): string[] {
	const lines: string[] = [];
	let rest = drawableText(text);
	while (rest.length > 0 && lines.length < maxLines) {
		if (rest.length <= columns) {
			lines.push(rest);
			rest = '';
			break;
		}
		const space = rest.lastIndexOf(' ', columns);
		const cut = space > columns / 2 ? space : columns;
		lines.push(rest.slice(0, cut).trimEnd());
		rest = rest.slice(cut).trimStart();
	}
	if (rest.length > 0 && lines.length > 0) {
		const last = lines[lines.length - 1];
		lines[lines.length - 1] = `${last.slice(0, Math.max(0, columns - 3)).trimEnd()}...`;
	}
	return lines;
}

export interface TextBlock {
	lines: string[];
	/** Screen pixels per font pixel. */
	scale: number;
	/** Top left corner of the first character, in screen pixels. */
	x: number;
	y: number;
}

/** Writes `block` into `pixels` (RGB, `width` pixels per row) in `rgb`; what falls outside is left out. */
export function drawText(pixels: Buffer, width: number, height: number, block: TextBlock, rgb: readonly [number, number, number]): void {
	const { scale } = block;
	block.lines.forEach((line, lineIndex) => {
		const top = block.y + lineIndex * LINE_HEIGHT * scale;
		[...line].forEach((char, column) => {
			const left = block.x + column * CELL_WIDTH * scale;
			glyphRows(char).forEach((bits, row) => {
				for (let bit = 0; bit < GLYPH_WIDTH; bit++) {
					if (((bits >> (GLYPH_WIDTH - 1 - bit)) & 1) === 0) continue;
					fillRect(pixels, width, height, left + bit * scale, top + row * scale, scale, scale, rgb);
				}
			});
		});
	});
}

/** Fills a rectangle with `rgb`, clipped to the image. */
export function fillRect(
	pixels: Buffer,
	width: number,
	height: number,
	x: number,
	y: number,
	w: number,
	h: number,
	rgb: readonly [number, number, number],
): void {
	for (let row = Math.max(0, y); row < Math.min(height, y + h); row++) {
		for (let col = Math.max(0, x); col < Math.min(width, x + w); col++) {
			const i = 3 * (row * width + col);
			pixels[i] = rgb[0];
			pixels[i + 1] = rgb[1];
			pixels[i + 2] = rgb[2];
		}
	}
}
