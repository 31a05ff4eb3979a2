/** Callers asking for the same key at once in one process share one promise (cleared when it settles). */
export class SingleFlight<T> {
	private readonly flights = new Map<string, Promise<T>>();

	/** Runs `work` unless a run for `key` is in flight, in which case its promise is returned. */
	run(key: string, work: () => Promise<T>): Promise<T> {
		const current = this.flights.get(key);
		if (current) return current;
		const flight = Promise.resolve()
			.then(work)
			.finally(() => {
				if (this.flights.get(key) === flight) this.flights.delete(key);
			});
		this.flights.set(key, flight);
		return flight;
	}

	/** True while a run for `key` has not settled. */
	has(key: string): boolean {
		return this.flights.has(key);
	}
}
