/**
 * Process-wide state survives n8n loading the package twice: two copies of a module (jest.isolateModules: each
 * has its own module objects, as two copies on disk or a reload have) reach one value per name; reset is
 * explicit; and no other module of src/ keeps process-wide state on globalThis by hand.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

import * as processWideModule from '../src/processWide';
import * as redisModule from '../src/redis';
import * as storeModule from '../src/store';
import * as admissionModule from '../src/fluxN8n/accountAdmission';
import * as referenceModule from '../src/fluxN8n/sharedReferenceImages';
import * as configModule from '../src/config';

function isolatedCopy<T extends object>(path: string): T {
	let copy!: T;
	jest.isolateModules(() => {
		copy = jest.requireActual<T>(path);
	});
	return copy;
}

afterEach(async () => {
	await processWideModule.resetProcessWide();
});

describe('processWide', () => {
	it('two copies of the module reach one value per name; create runs once; reset through either copy forgets it', async () => {
		const a = isolatedCopy<typeof processWideModule>('../src/processWide');
		const b = isolatedCopy<typeof processWideModule>('../src/processWide');
		expect(a.processWide).not.toBe(b.processWide); // really two copies
		const create = jest.fn(() => ({ made: 'by a' }));
		const value = a.processWide('poolSet', create);
		expect(b.processWide('poolSet', () => ({ made: 'by b' }))).toBe(value);
		expect(a.processWide('poolSet', create)).toBe(value);
		expect(create).toHaveBeenCalledTimes(1);
		expect((globalThis as unknown as Record<symbol, unknown>)[Symbol.for('n8n-nodes-flux-concurrent.poolSet')]).toBe(value);

		const none = jest.fn(() => undefined);
		expect(a.processWide('redis', none)).toBeUndefined();
		expect(b.processWide('redis', none)).toBeUndefined();
		expect(none).toHaveBeenCalledTimes(1); // "no Redis" is kept too, not created again on every call

		await b.resetProcessWide(['poolSet']);
		expect(a.processWide('poolSet', () => ({ made: 'again' }))).toEqual({ made: 'again' });
	});

	it('reset closes what it forgets, dependents first', async () => {
		const closed: string[] = [];
		processWideModule.processWide('redis', () => ({ close: async () => void closed.push('redis') }));
		processWideModule.processWide('accountLimiter', () => ({ close: () => void closed.push('accountLimiter') }));
		processWideModule.processWide('settings', () => ({}));
		await processWideModule.resetProcessWide();
		expect(closed).toEqual(['accountLimiter', 'redis']);
	});

	it('two copies of the package share the settings, the store, the Redis connection, the account limiter and the reference cache', () => {
		process.env.COMFLY_REDIS_URL = 'redis://127.0.0.1:1'; // nothing listens: no command is ever needed here
		try {
			const config = isolatedCopy<typeof configModule>('../src/config');
			const store = isolatedCopy<typeof storeModule>('../src/store');
			const redis = isolatedCopy<typeof redisModule>('../src/redis');
			const admission = isolatedCopy<typeof admissionModule>('../src/fluxN8n/accountAdmission');
			const reference = isolatedCopy<typeof referenceModule>('../src/fluxN8n/sharedReferenceImages');
			expect(store.getStore).not.toBe(storeModule.getStore);
			expect(config.settings()).toBe(configModule.settings());
			expect(store.getStore()).toBe(storeModule.getStore());
			expect(redis.processRedis()).toBeDefined();
			expect(redis.processRedis()).toBe(redisModule.processRedis());
			expect(admission.processAccountLimiter()).toBe(admissionModule.processAccountLimiter());
			const image = Buffer.from('one image');
			expect(reference.sharedReferenceImages().encode(image, 'image/png')).toBe(referenceModule.sharedReferenceImages().encode(image, 'image/png'));
		} finally {
			delete process.env.COMFLY_REDIS_URL;
		}
	});
});

describe('one way to keep process-wide state', () => {
	it('Symbol.for and globalThis appear in src/ only in src/processWide.ts', () => {
		const offenders: string[] = [];
		const walk = (dir: string): void => {
			for (const name of readdirSync(dir)) {
				const path = join(dir, name);
				if (statSync(path).isDirectory()) walk(path);
				else if (path.endsWith('.ts') && !path.endsWith('processWide.ts') && /Symbol\.for\(|globalThis\s*(as\b|\[|\.)/.test(readFileSync(path, 'utf8'))) offenders.push(path);
			}
		};
		walk(join(__dirname, '../src'));
		expect(offenders).toEqual([]);
	});
});
