/** Runs the work given for one key one at a time, in the order given (another key's work runs alongside); a failure does not stop the next. */
export class OneAtATime {
	private readonly tails = new Map<string, Promise<unknown>>();

	run<T>(key: string, work: () => Promise<T>): Promise<T> {
		const run = (this.tails.get(key) ?? Promise.resolve()).catch(() => undefined).then(work);
		const tail = run.catch(() => undefined);
		this.tails.set(key, tail);
		void tail.then(() => {
			if (this.tails.get(key) === tail) this.tails.delete(key);
		});
		return run;
	}
}
