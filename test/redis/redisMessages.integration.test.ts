/**
 * What the package says about a Redis it cannot use, in n8n's log and in the collector's report: a URL that is
 * not a Redis URL (one clear warning naming the variable and what it expects, not a line the log's URL
 * redaction garbles), and a real redis-server with `--requirepass` given a wrong password or none ("refused
 * the credentials", not "unreachable"). The password never appears.
 */
import { LoggerProxy } from 'n8n-workflow';

import { storeWarnings } from '../../src/fluxN8n/fluxNode';
import { obtainFluxImage } from '../../src/fluxN8n/imageJobs';
import { processRedis, redisWarnings } from '../../src/redis';
import type { RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { preparedImageJob, jobContext } from '../support/preparedJobs';
import type { TestRedis } from '../support/redisServer';
import { until } from '../support/until';
import { sharedRedisAt } from './sharedRedisAt';
import { useRedisServer } from './useRedisServer';

const PASSWORD = 'Right-Secret-pw';
const WRONG = 'Wr0ng-Secret-pw';
const CREDENTIALS = /^Redis at 127\.0\.0\.1:\d+ refused the credentials: check the password in COMFLY_REDIS_URL \(or QUEUE_BULL_REDIS_PASSWORD\)/;

let redis: TestRedis;
useRedisServer((started) => (redis = started), { password: PASSWORD });

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 0 }, (started) => (sim = started));

let logged: string[];
beforeEach(() => {
	logged = [];
	LoggerProxy.init({ error: jest.fn(), warn: (message: string) => logged.push(message), info: jest.fn(), debug: jest.fn() });
});
const saved = process.env.COMFLY_REDIS_URL;
afterEach(() => {
	if (saved === undefined) delete process.env.COMFLY_REDIS_URL;
	else process.env.COMFLY_REDIS_URL = saved;
});

const noSecret = (texts: string[]) => {
	for (const text of texts) for (const secret of [PASSWORD, WRONG, 'userinfo-pw']) expect(text).not.toContain(secret);
};

describe('COMFLY_REDIS_URL that is not a Redis URL', () => {
	it('one warning naming the variable and what it expects, logged whole and in every report; jobs run without Redis', async () => {
		process.env.COMFLY_REDIS_URL = 'http://nope';
		const expected = 'COMFLY_REDIS_URL must start with redis:// or rediss:// (it starts with http:); Redis is not used: the account-wide limit is per process and the journal is local.';
		const result = await obtainFluxImage(preparedImageJob(sim, 'a wren'), jobContext('j-1'));
		expect(result.outcome).toBe('success');
		expect(logged).toEqual([`[n8n-nodes-flux-concurrent] ${expected}`]); // not garbled by the log's URL redaction
		expect(storeWarnings()).toEqual([expected]); // the collector's report
		expect(storeWarnings()).toEqual([expected]); // every report, while it is wrong; logged once
		expect(logged).toHaveLength(1);
		expect(processRedis()).toBeUndefined();
	});

	it('user info in a wrong URL is never echoed', () => {
		process.env.COMFLY_REDIS_URL = 'http://user:userinfo-pw@nope:6379';
		const warnings = redisWarnings();
		expect(warnings).toEqual([expect.stringMatching(/^COMFLY_REDIS_URL must start with redis:\/\/ or rediss:\/\//)]);
		noSecret([...warnings, ...logged]);
	});
});

describe('a redis-server that requires a password', () => {
	it.each([
		['a wrong password', () => `redis://:${WRONG}@127.0.0.1:${redis.port}`],
		['no password', () => `redis://127.0.0.1:${redis.port}`],
	])('%s: "refused the credentials", once, in the log and the report; commands resolve not usable', async (_, url) => {
		process.env.COMFLY_REDIS_URL = url();
		const shared = processRedis();
		expect(shared).toBeDefined();
		await until(() => logged.length > 0, 'the refusal is logged');
		expect(await shared!.run(async (client) => await client.ping())).toMatchObject({ ok: false });
		expect(logged).toEqual([expect.stringMatching(/^\[n8n-nodes-flux-concurrent\] Redis at 127\.0\.0\.1:\d+ refused the credentials/)]);
		expect(storeWarnings()).toEqual([expect.stringMatching(CREDENTIALS)]);
		for (const text of [...logged, ...storeWarnings()]) expect(text).not.toMatch(/unreachable/);
		noSecret([...logged, ...storeWarnings()]);
	});

	it('the right password: no warning, commands run', async () => {
		const shared = sharedRedisAt(redis.url, { warn: (m) => logged.push(m) });
		try {
			expect(await shared.run(async (client) => await client.ping())).toEqual({ ok: true, value: 'PONG' });
			expect(shared.warnings()).toEqual([]);
			expect(logged).toEqual([]);
		} finally {
			await shared.close();
		}
	});
});
