/** Small deterministic hash and PRNG (no crypto needed: only test determinism matters). */

/** FNV-1a 32-bit hash of a string (UTF-16 code units). */
export function hash32(text: string): number {
	let h = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		h ^= text.charCodeAt(i);
		h = Math.imul(h, 0x01000193);
	}
	return h >>> 0;
}

/** mulberry32: returns a function yielding uint32 values. */
export function mulberry32(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return (t ^ (t >>> 14)) >>> 0;
	};
}

/** A deterministic number in [min, max] for the given key. */
export function uniformFor(key: string, min: number, max: number): number {
	const u = mulberry32(hash32(key))() / 0x1_0000_0000;
	return Math.round(min + u * (max - min));
}
