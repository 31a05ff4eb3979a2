/** An MP4's duration in seconds, read from its movie header (`moov/mvhd`: timescale and duration), never decoding it. */

interface Box {
	type: string;
	/** Where its payload starts and where the box ends. */
	start: number;
	end: number;
}

/** The boxes between `from` and `to`, in order; stops at a box whose size is not a box's. */
function* boxes(bytes: Buffer, from: number, to: number): Generator<Box> {
	let at = from;
	while (at + 8 <= to) {
		let size = bytes.readUInt32BE(at);
		let header = 8;
		if (size === 1) {
			if (at + 16 > to) return;
			size = Number(bytes.readBigUInt64BE(at + 8));
			header = 16;
		} else if (size === 0) size = to - at; // the last box, to the end
		if (size < header || at + size > to) return;
		yield { type: bytes.toString('latin1', at + 4, at + 8), start: at + header, end: at + size };
		at += size;
	}
}

function find(bytes: Buffer, type: string, from: number, to: number): Box | undefined {
	for (const box of boxes(bytes, from, to)) if (box.type === type) return box;
	return undefined;
}

/**
 * The duration the movie header states, in seconds; undefined when there is no `moov/mvhd` or it states none
 * (duration 0 or all ones: unknown, as a fragmented MP4 writes it).
 */
export function mp4DurationSeconds(bytes: Buffer): number | undefined {
	const moov = find(bytes, 'moov', 0, bytes.length);
	const mvhd = moov && find(bytes, 'mvhd', moov.start, moov.end);
	if (!mvhd) return undefined;
	// Version 0: 32-bit creation and modification times and duration; version 1: 64-bit.
	const v1 = bytes[mvhd.start] === 1;
	if (mvhd.end - mvhd.start < (v1 ? 32 : 20)) return undefined;
	const timescale = bytes.readUInt32BE(mvhd.start + (v1 ? 20 : 12));
	const duration = v1 ? bytes.readBigUInt64BE(mvhd.start + 24) : BigInt(bytes.readUInt32BE(mvhd.start + 16));
	if (timescale === 0 || duration === 0n || duration === (v1 ? 0xffffffffffffffffn : 0xffffffffn)) return undefined;
	return Number(duration) / timescale;
}
