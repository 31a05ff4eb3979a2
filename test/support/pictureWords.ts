/**
 * Reads back the words the relay simulator writes on its pictures (relay-sim/promptPicture.ts): each character
 * cell of the text block is matched against the font's glyphs (white pixels), so a test can check that a picture
 * a person opens shows its prompt.
 */
import { CELL_WIDTH, GLYPH_HEIGHT, GLYPH_WIDTH, LINE_HEIGHT, glyphRows } from '../../relay-sim/bitmapFont';
import { decodeRgbPng } from '../../relay-sim/pngCodec';
import { promptTextBlock } from '../../relay-sim/promptPicture';

const FONT = ' ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,:;!?\'"-_()/&+=#%*<>[]@$';

/** The lines written on decoded pixels where `prompt`'s text block would be; an unknown glyph reads as "¿". */
export function readWords(pixels: Buffer, width: number, height: number, prompt: string): string[] {
	const block = promptTextBlock(prompt, width, height);
	if (!block) return [];
	const white = (x: number, y: number) => {
		const i = 3 * (y * width + x);
		return pixels[i] === 255 && pixels[i + 1] === 255 && pixels[i + 2] === 255;
	};
	return block.lines.map((line, lineIndex) => {
		let read = '';
		for (let column = 0; column < line.length; column++) {
			const rows = Array.from({ length: GLYPH_HEIGHT }, (_, row) => {
				let bits = 0;
				for (let bit = 0; bit < GLYPH_WIDTH; bit++) {
					const x = block.x + column * CELL_WIDTH * block.scale + bit * block.scale;
					const y = block.y + lineIndex * LINE_HEIGHT * block.scale + row * block.scale;
					bits = (bits << 1) | (white(x, y) ? 1 : 0);
				}
				return bits;
			});
			read += [...FONT].find((char) => glyphRows(char).every((bits, row) => bits === rows[row])) ?? '¿';
		}
		return read;
	});
}

/** The picture's size and the words written on it, read from a PNG the simulator made for `prompt`. */
export function pictureOf(png: Buffer, prompt: string): { width: number; height: number; words: string } {
	const { width, height, pixels } = decodeRgbPng(png);
	return { width, height, words: readWords(pixels, width, height, prompt).join(' ') };
}
