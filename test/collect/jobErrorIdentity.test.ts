/**
 * Two copies of the package share one pool (a globalThis symbol), so a job's error
 * may be an instance of the other copy's classes. The collector classifies errors by value.
 */
import * as pool from '../../src/pool';
import * as flux from '../../src/flux';
import { describeJobError, waitForSlots } from '../../src/collect/waitForSlots';
import type { Slot } from '../../src/collect/slots';
import { smallConfig } from '../pool/helpers';

function isolatedCopy<T extends object>(path: string): T {
	let copy!: T;
	jest.isolateModules(() => {
		copy = jest.requireActual<T>(path);
	});
	return copy;
}

const keep = (text: string) => text;

describe('errors keep their identity across copies of the package', () => {
	const otherPool = isolatedCopy<typeof pool>('../../src/pool');
	const otherFlux = isolatedCopy<typeof flux>('../../src/flux');

	it('really are two copies', () => {
		expect(otherPool.PoolCancelledError).not.toBe(pool.PoolCancelledError);
		expect(otherFlux.FluxError).not.toBe(flux.FluxError);
	});

	it('pool errors carry a stable code, recognised from either copy', () => {
		const errors = [
			new otherPool.PoolCancelledError('stopped'),
			new otherPool.UnknownJobError('id-1'),
			new otherPool.ExpiredJobError('id-2'),
		];
		expect(errors.map((error) => error.code)).toEqual(['POOL_CANCELLED', 'UNKNOWN_JOB', 'EXPIRED_JOB']);
		expect(errors.map((error) => pool.poolErrorCode(error))).toEqual(['POOL_CANCELLED', 'UNKNOWN_JOB', 'EXPIRED_JOB']);
		expect(errors[2]).toBeInstanceOf(pool.ExpiredJobError);
		expect(pool.poolErrorCode(new Error('other'))).toBeUndefined();
		expect(pool.poolErrorCode({ code: 'ECONNRESET' })).toBeUndefined();
	});

	it('describeJobError reads kind, task id and code by value', () => {
		expect(describeJobError(new otherPool.PoolCancelledError('stopped'), keep)).toEqual({ message: 'stopped', kind: 'cancelled' });
		expect(describeJobError(new otherPool.ExpiredJobError('id-2'), keep).kind).toBe('expired');
		expect(describeJobError(new otherPool.UnknownJobError('id-1'), keep).kind).toBe('unknown_job');
		const moderated = new otherFlux.FluxError('content_moderated', 'refused by moderation', { taskId: 't-1' });
		expect(describeJobError(moderated, keep)).toEqual({
			message: 'refused by moderation',
			kind: 'content_moderated',
			taskId: 't-1',
		});
		expect(describeJobError(new Error('key sk-secret-value'), (text) => text.replace('sk-secret-value', '[REDACTED]'))).toEqual({
			message: 'key [REDACTED]',
		});
		expect(describeJobError(undefined, keep)).toEqual({ message: 'unknown error' });
	});

	it('slot rows classify jobs of the other copy’s pool: cancelled, failed, unknown, expired', async () => {
		const clock = { now: 0 };
		const set = otherPool.createPoolSet(smallConfig({ image: { workers: 1, pending: 3 } }), { now: () => clock.now });
		const expiring = await set.image.submit(async () => ({ outcome: 'success' as const }));
		await set.image.wait(expiring);
		clock.now += set.config.resultTtlMs;
		let release!: () => void;
		const running = await set.image.submit(() => new Promise<never>((_, reject) => (release = () => reject(new otherFlux.FluxError('generation_error', 'failed upstream')))));
		const queued = await set.image.submit(async () => ({ outcome: 'success' as const }));
		set.image.cancelJobs([queued], 'stopped');
		const slots: Slot[] = [expiring, 'never-submitted', running, queued].map((jobId, index) => ({
			slot: index + 1,
			inputIndex: 0,
			itemIndex: index,
			jobId,
		}));
		const waiting = waitForSlots(set.image, slots, { failFast: false, redact: keep });
		await new Promise((resolve) => setImmediate(resolve));
		release();
		const outcomes = await waiting;
		expect(outcomes.map((outcome) => [outcome.status, outcome.errorKind])).toEqual([
			['failed', 'expired'],
			['failed', 'unknown_job'],
			['failed', 'generation_error'],
			['cancelled', 'cancelled'],
		]);
		expect(outcomes[0].error).toMatch(/^The task at input 1, item 0 \(slot 1\): Job ".*" has expired/);
		expect(outcomes[1].error).toMatch(/^The task at input 1, item 1 \(slot 2\): Unknown job "never-submitted"/);
	});
});
