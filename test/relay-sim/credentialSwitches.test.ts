import { parseArgs } from '../../relay-sim/cli';
import { RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from './useRelaySimulator';

let bare: RelaySimulator;
useRelaySimulator({ creditsRoute: false, unknownTask404: true }, (started) => (bare = started));

async function get(url: string, headers: Record<string, string>) {
	const res = await fetch(url, { headers });
	return { status: res.status, json: (await res.json()) as unknown };
}

describe('relay-sim switches for the credential test', () => {
	it('creditsRoute: false answers 404 on /credits whatever the key, like an unknown path', async () => {
		expect(await get(`${bare.url}/bfl/v1/credits`, { authorization: `Bearer ${bare.apiKey}` })).toEqual({ status: 404, json: { detail: 'Not Found' } });
		expect((await get(`${bare.url}/v1/credits`, { 'x-key': 'wrong' })).status).toBe(404);
		expect(bare.log.creditChecks).toBe(0);
	});

	it('unknownTask404: an unknown id polls as 404 + JSON; a wrong key is still 401', async () => {
		expect(await get(`${bare.url}/bfl/v1/get_result?id=nope`, { authorization: `Bearer ${bare.apiKey}` })).toEqual({
			status: 404,
			json: { detail: 'Task not found' },
		});
		expect((await get(`${bare.url}/bfl/v1/get_result?id=nope`, { authorization: 'Bearer wrong' })).status).toBe(401);
	});

	it('CLI flags --no-credits and --unknown-task-404', () => {
		expect(parseArgs(['--no-credits', '--unknown-task-404', '--port', '1'])).toMatchObject({
			port: 1,
			creditsRoute: false,
			unknownTask404: true,
		});
		const plain = parseArgs([]);
		expect(plain.creditsRoute).toBeUndefined();
		expect(plain.unknownTask404).toBeUndefined();
	});
});
