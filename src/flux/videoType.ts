/** MP4 detection by its `ftyp` box (never by URL or Content-Type). */

/** Bytes needed to tell: the box size (4), `ftyp` (4), the major brand (4). */
export const MP4_SNIFF_BYTES = 12;

/**
 * True when `head` starts with an ISO base media `ftyp` box: a 32-bit size of at least 8 (or 1: a 64-bit size
 * follows), the type `ftyp`, and a printable four-character major brand (`isom`, `mp42`, `avc1`, …).
 */
export function isMp4(head: Uint8Array): boolean {
	if (head.length < MP4_SNIFF_BYTES) return false;
	const size = ((head[0] << 24) | (head[1] << 16) | (head[2] << 8) | head[3]) >>> 0;
	if (size !== 1 && size < 16) return false;
	if (String.fromCharCode(head[4], head[5], head[6], head[7]) !== 'ftyp') return false;
	for (let i = 8; i < 12; i++) if (head[i] < 0x20 || head[i] > 0x7e) return false;
	return true;
}
