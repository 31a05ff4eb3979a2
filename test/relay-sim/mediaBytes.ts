/** Media headers built byte by byte for the simulator's size checks: only what a decoder reads first, no pixels. */

/** A PNG signature and IHDR of `width` × `height` (no pixel data: BFL's size checks read the header). */
export function pngHeader(width: number, height: number): Buffer {
	const ihdr = Buffer.alloc(25);
	ihdr.writeUInt32BE(13, 0);
	ihdr.write('IHDR', 4, 'latin1');
	ihdr.writeUInt32BE(width, 8);
	ihdr.writeUInt32BE(height, 12);
	ihdr.writeUInt8(8, 16);
	ihdr.writeUInt8(2, 17);
	return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ihdr]);
}

/** A WebP (RIFF) header: extended (VP8X) or lossless (VP8L), of `width` × `height`. */
export function webpHeader(kind: 'VP8X' | 'VP8L', width: number, height: number): Buffer {
	const head = Buffer.alloc(30);
	head.write('RIFF', 0, 'latin1');
	head.writeUInt32LE(22, 4);
	head.write('WEBP', 8, 'latin1');
	head.write(kind, 12, 'latin1');
	head.writeUInt32LE(10, 16);
	if (kind === 'VP8X') {
		head.writeUIntLE(width - 1, 24, 3);
		head.writeUIntLE(height - 1, 27, 3);
	} else {
		head.writeUInt8(0x2f, 20);
		head.writeUInt32LE(((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14), 21);
	}
	return head;
}

function box(type: string, payload: Buffer): Buffer {
	const header = Buffer.alloc(8);
	header.writeUInt32BE(8 + payload.length, 0);
	header.write(type, 4, 'latin1');
	return Buffer.concat([header, payload]);
}

/** An MP4 whose moov/mvhd says it lasts `seconds`. */
export function mp4Lasting(seconds: number): Buffer {
	const mvhd = Buffer.alloc(100);
	mvhd.writeUInt32BE(1000, 12); // timescale
	mvhd.writeUInt32BE(seconds * 1000, 16); // duration
	return Buffer.concat([box('ftyp', Buffer.from('isom\0\0\x02\0isomiso2', 'latin1')), box('moov', box('mvhd', mvhd)), box('mdat', Buffer.alloc(16))]);
}
