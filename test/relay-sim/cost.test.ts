/**
 * The simulator reports cost BFL style from its price table (relay-sim/prices.ts): an image's submit answer carries
 * it (by resolution), a clip's submit answer says null and its finished poll carries it (by length and resolution);
 * `reportCost: false` (CLI --no-cost) omits it everywhere, like a relay that never reports cost; the log's `charged`
 * adds up what every created task costs, reported or not.
 */
import { parseArgs } from '../../relay-sim/cli';
import { SIM_IMAGE_CREDITS, type RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from './useRelaySimulator';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 0 }, (started) => (sim = started));

async function submit(body: unknown, model: 'flux-3-image' | 'flux-3-video', style: 'relay' | 'bfl') {
	const url = style === 'relay' ? `${sim.url}/bfl/v1/${model}` : `${sim.url}/v1/${model}`;
	const auth: Record<string, string> = style === 'relay' ? { authorization: `Bearer ${sim.apiKey}` } : { 'x-key': sim.apiKey };
	const res = await fetch(url, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
	return (await res.json()) as Record<string, unknown>;
}

async function poll(id: unknown) {
	const res = await fetch(`${sim.url}/bfl/v1/get_result?id=${String(id)}`, { headers: { authorization: `Bearer ${sim.apiKey}` } });
	return (await res.json()) as Record<string, unknown>;
}

it.each(['relay', 'bfl'] as const)('an image costs by its resolution, in the submit answer (%s style)', async (style) => {
	for (const [resolution, credits] of Object.entries(SIM_IMAGE_CREDITS)) {
		const answer = await submit({ prompt: `priced ${resolution}`, resolution }, 'flux-3-image', style);
		expect(answer.cost).toBe(credits);
		expect(await poll(answer.id)).not.toHaveProperty('cost');
	}
	expect((await submit({ prompt: 'default resolution' }, 'flux-3-image', style)).cost).toBe(4);
	expect(sim.log.charged).toBe(3 + 4 + 6 + 8 + 16 + 4);
});

it('a clip says null at submit and its cost on the finished poll: 10 credits a second in HD, 17 in FHD, auto as 10 s', async () => {
	const hd = await submit({ mode: 't2v', prompt: 'a 5 s clip', duration: 5 }, 'flux-3-video', 'bfl');
	expect(hd.cost).toBeNull();
	expect(await poll(hd.id)).toMatchObject({ status: 'Ready', cost: 50 });
	const fhd = await submit({ mode: 't2v', prompt: 'an auto clip', resolution: 'fhd', duration: 'auto' }, 'flux-3-video', 'relay');
	expect(await poll(fhd.id)).toMatchObject({ status: 'Ready', cost: 170 });
	expect(sim.log.charged).toBe(220);
});

it('reportCost off: no cost anywhere, still charged', async () => {
	sim.setReportCost(false);
	try {
		const image = await submit({ prompt: 'silent' }, 'flux-3-image', 'bfl');
		expect(image).not.toHaveProperty('cost');
		const clip = await submit({ mode: 't2v', prompt: 'silent clip', duration: 5 }, 'flux-3-video', 'bfl');
		expect(clip).not.toHaveProperty('cost');
		expect(await poll(clip.id)).not.toHaveProperty('cost');
		expect(sim.log.charged).toBe(54);
	} finally {
		sim.setReportCost(true);
	}
	expect(parseArgs(['--no-cost'])).toMatchObject({ reportCost: false });
	expect(parseArgs([])).not.toHaveProperty('reportCost');
});

it('an ambiguous submit that creates its task is charged; a refused one (429) is not', async () => {
	sim.setFault('ambiguous', { on: 'submit', status: 502 });
	sim.setFault('refused', { on: 'submit', status: 429, retryAfter: 0 });
	await submit({ prompt: 'ambiguous' }, 'flux-3-image', 'relay');
	await submit({ prompt: 'refused' }, 'flux-3-image', 'relay');
	expect(sim.log.charged).toBe(4);
});
