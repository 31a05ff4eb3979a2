/**
 * A relay simulator for the image-size and latency-range rows: latencies uniform in [min, max], seeded by
 * prompt (so the same prompts get the same latencies in every approach), except prompts containing
 * "probe" (Ready at once: a download-time probe); the image size picked by a tag in the prompt
 * (" [1m]", " [4m]", " [16m]": a valid PNG padded to 1, 4 or 16 MiB; the padding is built once and
 * served as shared parts, so the simulator does not copy images per request).
 */
import { startRelaySimulator, type RelaySimulator } from '../relay-sim';
import { uniformFor } from '../relay-sim/prng';
import { MB } from './config';

export const SIZE_TAGS = { '1m': 1 * MB, '4m': 4 * MB, '16m': 16 * MB } as const;
export type SizeTag = keyof typeof SIZE_TAGS;

/** The prompt suffix that asks for an image of this size. */
export const sizeSuffix = (tag: SizeTag) => ` [${tag}]`;

export interface SizedSim {
	sim: RelaySimulator;
	ref: { url: string; apiKey: string };
	range: { min: number; max: number };
	/** Clears the log and tasks, keeping the size faults. */
	reset(): void;
}

export async function startSizedSim(range: { min: number; max: number }, seed: string): Promise<SizedSim> {
	const latencyMs = (prompt: string) => (prompt.includes('probe') ? 0 : uniformFor(`${seed}\u0000${prompt}`, range.min, range.max));
	const sim = await startRelaySimulator({ latencyMs, imageSize: { width: 8, height: 8 } });
	const sizeFaults = () => {
		for (const [tag, bytes] of Object.entries(SIZE_TAGS)) sim.setFault(sizeSuffix(tag as SizeTag).trim(), { on: 'download', sizeBytes: bytes });
	};
	sizeFaults();
	return {
		sim,
		ref: { url: sim.url, apiKey: sim.apiKey },
		range,
		reset() {
			sim.reset();
			sizeFaults();
		},
	};
}

/** The most polls that arrived in any one-second window (or `windowMs`) between `from` and `to` (epoch ms; `pollTimes` in order). */
export function peakPollsPerSecond(pollTimes: readonly number[], from = -Infinity, to = Infinity, windowMs = 1000): number {
	const times = pollTimes.filter((t) => t >= from && t <= to);
	let peak = 0;
	for (let i = 0, j = 0; i < times.length; i++) {
		while (times[i] - times[j] >= windowMs) j++;
		peak = Math.max(peak, i - j + 1);
	}
	return peak;
}
