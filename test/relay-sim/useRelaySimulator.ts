import { closeFluxAgent } from '../../src/flux';
import { startRelaySimulator } from '../../relay-sim/server';
import type { RelaySimOptions, RelaySimulator } from '../../relay-sim/types';

/**
 * Jest lifecycle for a test file that talks to the relay simulator: started before all tests
 * (handed to `use`), reset after each, closed after all together with the shared HTTP agent,
 * so no socket or timer outlives the file.
 */
export function useRelaySimulator(options: RelaySimOptions, use: (sim: RelaySimulator) => void): void {
	let sim: RelaySimulator | undefined;
	beforeAll(async () => {
		sim = await startRelaySimulator(options);
		use(sim);
	});
	afterEach(() => sim?.reset());
	afterAll(async () => {
		await sim?.close();
		await closeFluxAgent();
	});
}
