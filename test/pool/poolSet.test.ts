import { LoggerProxy } from 'n8n-workflow';
import '../../src/n8n/log'; // the package's log goes to n8n's LoggerProxy, as when n8n loads a node
import { resetProcessWide } from '../../src/processWide';
import * as pool from '../../src/pool';

const KEY = Symbol.for('n8n-nodes-flux-concurrent.poolSet'); // processWide's name for it
type Store = Record<symbol, unknown>;
const ENV_NAMES = ['COMFLY_IMAGE_CONCURRENCY', 'COMFLY_IMAGE_PENDING', 'COMFLY_VIDEO_CONCURRENCY', 'COMFLY_VIDEO_PENDING'];

function loadIsolatedCopy(): typeof pool {
	let copy!: typeof pool;
	jest.isolateModules(() => {
		copy = jest.requireActual<typeof pool>('../../src/pool');
	});
	return copy;
}

describe('the process-wide pool set', () => {
	const savedEnv = { ...process.env };
	afterEach(async () => {
		await resetProcessWide(['settings', 'poolSet']);
		for (const name of ENV_NAMES) delete process.env[name];
		Object.assign(process.env, savedEnv);
		jest.restoreAllMocks();
	});

	it('is created once, from process.env, on the globalThis symbol', () => {
		const warn = jest.fn();
		LoggerProxy.init({ error: jest.fn(), warn, info: jest.fn(), debug: jest.fn() });
		process.env.COMFLY_IMAGE_CONCURRENCY = '3';
		process.env.COMFLY_VIDEO_PENDING = 'many';

		const set = pool.getPoolSet();
		expect((globalThis as unknown as Store)[KEY]).toBe(set);
		expect(set.image).toMatchObject({ kind: 'image', workers: 3, pending: 3 });
		expect(set.video).toMatchObject({ kind: 'video', workers: 10, pending: 10 });
		expect(warn).toHaveBeenCalledTimes(1);
		expect(warn).toHaveBeenCalledWith('[n8n-nodes-flux-concurrent] COMFLY_VIDEO_PENDING="many" is not an integer; using 10.', expect.any(Object));

		process.env.COMFLY_IMAGE_CONCURRENCY = '7';
		expect(pool.getPoolSet()).toBe(set);
		expect(pool.poolFor('image')).toBe(set.image);
		expect(pool.poolFor('video')).toBe(set.video);
		expect(set.image.workers).toBe(3);
		expect(warn).toHaveBeenCalledTimes(1);
	});

	it('is shared by two isolated copies of the module', async () => {
		const first = loadIsolatedCopy();
		const second = loadIsolatedCopy();
		expect(first.WorkerPool).not.toBe(second.WorkerPool); // really two copies
		expect(first.getPoolSet()).toBe(second.getPoolSet());
		expect(first.poolFor('video')).toBe(second.poolFor('video'));

		// A job submitted through one copy is visible, and its errors recognisable, through the other.
		const id = await first.poolFor('image').submit(async () => 'shared');
		expect(await second.poolFor('image').wait(id)).toMatchObject({ state: 'succeeded', result: 'shared' });
		const rejected = first.poolFor('image').submit(async () => 'x', { signal: AbortSignal.abort() });
		await expect(rejected).rejects.toBeInstanceOf(second.PoolCancelledError);
		expect(() => second.getPoolSet().registry.get('nope')).toThrow(first.UnknownJobError);
	});

	it('createPoolSet builds isolated pools that share one registry', async () => {
		const a = pool.createPoolSet({ image: { workers: 1, pending: 0 }, video: { workers: 1, pending: 0 }, resultTtlMs: 1_000, resultMaxBytes: 10 });
		const b = pool.createPoolSet(a.config);
		expect(a.image).not.toBe(b.image);
		const id = await a.video.submit(async () => 'v');
		expect((await a.image.wait(id)).kind).toBe('video');
		expect(() => b.image.get(id)).toThrow(pool.UnknownJobError);
		expect((globalThis as unknown as Store)[KEY]).toBeUndefined();
	});
});
