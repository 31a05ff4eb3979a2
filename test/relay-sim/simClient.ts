/** A bare client of the simulator for its own tests: submit a body to a model, poll a task, fetch a file. */
import type { RelaySimulator } from '../../relay-sim';

export interface Detail {
	type: string;
	loc: (string | number)[];
	msg: string;
	input?: unknown;
}

// Answers are read loosely: the tests assert the wire format field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

export async function submit(sim: RelaySimulator, model: string, body: unknown, style: 'relay' | 'bfl' = 'relay'): Promise<{ status: number; json: Json }> {
	const url = style === 'relay' ? `${sim.url}/bfl/v1/${model}` : `${sim.url}/v1/${model}`;
	const auth: Record<string, string> = style === 'relay' ? { authorization: `Bearer ${sim.apiKey}` } : { 'x-key': sim.apiKey };
	const res = await fetch(url, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
	return { status: res.status, json: (await res.json()) as Json };
}

/** A 422's entries, as `field: message` the way the package shows them (loc without `body`, joined by dots); [] for a 200. */
export function refusal(answer: { status: number; json: Json }): string[] {
	if (answer.status === 200) return [];
	if (answer.status !== 422) return [`HTTP ${answer.status}`];
	return (answer.json.detail as Detail[]).map((d) => `${d.loc.slice(1).join('.')}: ${d.msg}`);
}

export async function poll(sim: RelaySimulator, id: unknown): Promise<Json> {
	const res = await fetch(`${sim.url}/bfl/v1/get_result?id=${String(id)}`, { headers: { authorization: `Bearer ${sim.apiKey}` } });
	return (await res.json()) as Json;
}

export async function fetchBytes(url: string): Promise<{ status: number; bytes: Buffer }> {
	const res = await fetch(url);
	return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}
