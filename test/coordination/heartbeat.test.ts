import { holdLease, leasesHeld } from '../../src/coordination/heartbeat';

describe('heartbeat', () => {
	beforeEach(() => jest.useFakeTimers());
	afterEach(() => jest.useRealTimers());

	it('renews every lease on its own period until released', async () => {
		const calls: string[] = [];
		const releaseA = holdLease(async () => void calls.push('a'), 1000);
		const releaseB = holdLease(async () => void calls.push('b'), 400);
		await jest.advanceTimersByTimeAsync(1000);
		expect(calls.filter((c) => c === 'a')).toHaveLength(1);
		expect(calls.filter((c) => c === 'b')).toHaveLength(2);
		releaseA();
		await jest.advanceTimersByTimeAsync(2000);
		expect(calls.filter((c) => c === 'a')).toHaveLength(1);
		expect(calls.filter((c) => c === 'b')).toHaveLength(7);
		releaseB();
		releaseB();
		expect(leasesHeld()).toBe(0);
		expect(jest.getTimerCount()).toBe(0);
	});

	it('never runs one renewal twice at once, and a failing renewal goes on being renewed', async () => {
		let running = 0;
		let most = 0;
		let calls = 0;
		const release = holdLease(async () => {
			calls++;
			running++;
			most = Math.max(most, running);
			await new Promise((resolve) => setTimeout(resolve, 250));
			running--;
			throw new Error('renewal failed');
		}, 100);
		await jest.advanceTimersByTimeAsync(1000);
		release();
		await jest.advanceTimersByTimeAsync(300);
		expect(most).toBe(1);
		expect(calls).toBeGreaterThanOrEqual(3);
	});

	it('uses one timer for all leases', () => {
		const releases = [holdLease(async () => undefined, 500), holdLease(async () => undefined, 700), holdLease(async () => undefined, 300)];
		expect(jest.getTimerCount()).toBe(1);
		for (const release of releases) release();
		expect(jest.getTimerCount()).toBe(0);
	});
});
