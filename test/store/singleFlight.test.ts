import { SingleFlight } from '../../src/store';

function deferred<T>() {
	let resolve!: (v: T) => void;
	let reject!: (e: unknown) => void;
	const promise = new Promise<T>((res, rej) => {
		resolve = res;
		reject = rej;
	});
	return { promise, resolve, reject };
}

describe('SingleFlight', () => {
	it('two callers of the same key share one run and one result', async () => {
		const flights = new SingleFlight<string>();
		const gate = deferred<string>();
		let runs = 0;
		const work = () => {
			runs += 1;
			return gate.promise;
		};
		const a = flights.run('k', work);
		const b = flights.run('k', work);
		expect(b).toBe(a);
		expect(flights.has('k')).toBe(true);
		gate.resolve('image');
		await expect(Promise.all([a, b])).resolves.toEqual(['image', 'image']);
		expect(runs).toBe(1);
		expect(flights.has('k')).toBe(false);
	});

	it('different keys run separately', async () => {
		const flights = new SingleFlight<string>();
		const results = await Promise.all([flights.run('a', async () => 'A'), flights.run('b', async () => 'B')]);
		expect(results).toEqual(['A', 'B']);
		expect([flights.has('a'), flights.has('b')]).toEqual([false, false]);
	});

	it('a failure reaches every waiter and is cleared: the next call runs again', async () => {
		const flights = new SingleFlight<string>();
		const gate = deferred<string>();
		const a = flights.run('k', () => gate.promise);
		const b = flights.run('k', () => Promise.resolve('never'));
		gate.reject(new Error('upstream 500'));
		await expect(a).rejects.toThrow('upstream 500');
		await expect(b).rejects.toThrow('upstream 500');
		expect(flights.has('k')).toBe(false);
		await expect(flights.run('k', async () => 'second')).resolves.toBe('second');
	});

	it('a synchronous throw in the work becomes a rejection and is cleared', async () => {
		const flights = new SingleFlight<string>();
		await expect(
			flights.run('k', () => {
				throw new Error('bad');
			}),
		).rejects.toThrow('bad');
		expect(flights.has('k')).toBe(false);
	});
});
