import { checkFluxCredentials } from '../../src/flux';
import { RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { credsFor } from './helpers';

let sim: RelaySimulator;
useRelaySimulator({}, (started) => (sim = started));

describe('checkFluxCredentials (one cheap authenticated request)', () => {
	it.each(['relay', 'bfl'] as const)('%s: a good key passes', async (style) => {
		const before = sim.log.creditChecks;
		const r = await checkFluxCredentials(credsFor(sim, style));
		expect(r).toMatchObject({ ok: true, statusCode: 200 });
		expect(sim.log.creditChecks).toBe(before + 1);
	});

	it.each(['relay', 'bfl'] as const)('%s: a wrong key says to check the credential', async (style) => {
		const r = await checkFluxCredentials(credsFor(sim, style, 'nope-nope-nope-123'));
		expect(r.ok).toBe(false);
		expect(r.message).toMatch(/check the FLUX API credential/);
		expect(r.message).not.toContain('nope-nope-nope-123');
	});
});
