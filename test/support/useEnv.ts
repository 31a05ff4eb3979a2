/**
 * Jest lifecycle for environment variables a test file needs: set before all its tests (a function value is
 * read then, e.g. a server's URL started in an earlier beforeAll), put back as they were after all.
 */
export function useEnv(values: Record<string, string | (() => string)>): void {
	const saved = new Map<string, string | undefined>();
	beforeAll(() => {
		for (const [name, value] of Object.entries(values)) {
			saved.set(name, process.env[name]);
			process.env[name] = typeof value === 'function' ? value() : value;
		}
	});
	afterAll(() => {
		for (const [name, value] of saved) {
			if (value === undefined) delete process.env[name];
			else process.env[name] = value;
		}
	});
}
