/**
 * Hand-built media headers for the size checks: a JPEG (optionally with a large metadata segment before its frame
 * header), WebP in its three forms, and an MP4 whose movie header states a given duration.
 */

function box(type: string, ...payload: Buffer[]): Buffer {
	const body = Buffer.concat(payload);
	const header = Buffer.alloc(8);
	header.writeUInt32BE(8 + body.length, 0);
	header.write(type, 4, 'latin1');
	return Buffer.concat([header, body]);
}

function segment(marker: number, payload: Buffer): Buffer {
	const head = Buffer.alloc(4);
	head.writeUInt16BE(0xff00 | marker, 0);
	head.writeUInt16BE(payload.length + 2, 2);
	return Buffer.concat([head, payload]);
}

/** SOI, APP0 (JFIF), an optional APP1 of `metadataBytes`, DQT, SOF (`frame`: 0xc0 baseline, 0xc2 progressive), SOS, EOI. */
export function jpegHeader(width: number, height: number, options: { metadataBytes?: number; frame?: number } = {}): Buffer {
	const sof = Buffer.alloc(15);
	sof.writeUInt8(8, 0);
	sof.writeUInt16BE(height, 1);
	sof.writeUInt16BE(width, 3);
	sof.writeUInt8(3, 5);
	for (let c = 0; c < 3; c++) sof.set([c + 1, 0x11, 0], 6 + 3 * c);
	return Buffer.concat([
		Buffer.from([0xff, 0xd8]),
		segment(0xe0, Buffer.from('JFIF\0\x01\x01\0\0\x01\0\x01\0\0', 'latin1')),
		...(options.metadataBytes ? [segment(0xe1, Buffer.alloc(options.metadataBytes, 0x45))] : []),
		segment(0xdb, Buffer.alloc(65)),
		Buffer.from([0xff]), // a fill byte before a marker is allowed
		segment(options.frame ?? 0xc0, sof),
		segment(0xda, Buffer.from([1, 1, 0, 0, 0x3f, 0])),
		Buffer.from([0x12, 0x34, 0xff, 0xd9]),
	]);
}

function riff(chunk: string, data: Buffer): Buffer {
	const head = Buffer.alloc(8);
	head.write(chunk, 0, 'latin1');
	head.writeUInt32LE(data.length, 4);
	const body = Buffer.concat([Buffer.from('WEBP', 'latin1'), head, data]);
	const riffHead = Buffer.alloc(8);
	riffHead.write('RIFF', 0, 'latin1');
	riffHead.writeUInt32LE(body.length, 4);
	return Buffer.concat([riffHead, body]);
}

/** A WebP header: lossy (`VP8 `), lossless (`VP8L`) or extended (`VP8X`). */
export function webpHeader(width: number, height: number, form: 'VP8 ' | 'VP8L' | 'VP8X'): Buffer {
	const data = Buffer.alloc(20);
	if (form === 'VP8 ') {
		data.set([0x30, 0x01, 0x00, 0x9d, 0x01, 0x2a], 0); // a key frame's tag and start code
		data.writeUInt16LE(width, 6);
		data.writeUInt16LE(height, 8);
	} else if (form === 'VP8L') {
		data[0] = 0x2f;
		data.writeUInt32LE(((width - 1) | ((height - 1) << 14)) >>> 0, 1);
	} else {
		data.writeUIntLE(width - 1, 4, 3);
		data.writeUIntLE(height - 1, 7, 3);
	}
	return riff(form, data);
}

/** An MP4 (ftyp, mdat, moov with mvhd) whose movie header states `seconds`; moov last, as encoders without faststart write it. */
export function mp4WithDuration(seconds: number, options: { version?: 0 | 1; timescale?: number } = {}): Buffer {
	const timescale = options.timescale ?? 1000;
	const duration = Math.round(seconds * timescale);
	const v1 = options.version === 1;
	const mvhd = Buffer.alloc(v1 ? 112 : 100);
	mvhd.writeUInt8(v1 ? 1 : 0, 0);
	if (v1) {
		mvhd.writeUInt32BE(timescale, 20);
		mvhd.writeBigUInt64BE(BigInt(duration), 24);
	} else {
		mvhd.writeUInt32BE(timescale, 12);
		mvhd.writeUInt32BE(duration, 16);
	}
	const ftyp = box('ftyp', Buffer.from('isom\0\0\x02\0isomiso2avc1mp41', 'latin1'));
	return Buffer.concat([ftyp, box('mdat', Buffer.alloc(256, 7)), box('moov', box('mvhd', mvhd), box('trak', Buffer.alloc(16)))]);
}
