/**
 * The CPU of validating one item's parameters (parseFluxParameters), as a node run's items do it: the same constant
 * parameters and Options object, a prompt per item. Not part of `npm run bench`; run it in two checkouts to compare:
 * `npx ts-node --transpile-only bench/probeItemParse.ts [items per round, default 30000]`.
 */
import { parseFluxParameters } from '../src/fluxN8n/fluxParameters';

const items = Number(process.argv[2] ?? 30_000);
const options = { cache: 'refresh' };
const shared = { model: 'flux-3-image', resolution: '1k', aspectRatio: 'auto', grounding: true, safetyTolerance: 2, referenceImages: [], options };
for (let round = 1; round <= 3; round++) {
	const from = process.cpuUsage();
	for (let i = 0; i < items; i++) parseFluxParameters({ ...shared, prompt: `a red fox ${i % 30}`, seed: 0, skipError: false });
	const used = process.cpuUsage(from);
	console.log(`round ${round}: ${((used.user + used.system) / items).toFixed(1)} µs of CPU per item`);
}
