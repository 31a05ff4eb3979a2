/**
 * The setup most e2e test files share: a relay simulator on 127.0.0.1 with the run's API key, an output
 * folder (and, when asked, a result store folder of its own), a real n8n home with the package installed
 * and one FLUX credential pointing at the simulator. `stopSimulatedN8n` undoes it (also a half-started one:
 * `startSimulatedN8n` stops what it started before it rethrows).
 */
import { promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { REPO_ROOT } from '../../../scripts/examples';
import { createN8nHome, importCredentials, type LogFn, type N8nHome } from '../../../scripts/n8n';
import { startRelaySimulator, type RelaySimulator } from '../../../relay-sim';
import type { RelaySimOptions } from '../../../relay-sim/types';

export interface SimulatedN8nOptions {
	/** Names the temporary folders (`flux-e2e-<name>-out-…`, `flux-e2e-<name>-store-…`). */
	name: string;
	apiKey: string;
	/** The simulator's options besides the API key. */
	sim: Omit<RelaySimOptions, 'apiKey'>;
	/** The name of the FLUX credential imported into n8n. */
	credentialName: string;
	/** A result store folder of its own for n8n (COMFLY_STORE_DIR). */
	store?: boolean;
	/** More environment for every n8n process of the home. */
	env?: Record<string, string>;
	log: LogFn;
}

export interface SimulatedN8n {
	sim: RelaySimulator;
	home: N8nHome;
	/** The folder workflows may write (the home's outputDir). */
	outDir: string;
	/** n8n's result store folder (only with `store: true`). */
	storeDir: string;
	/** The FLUX credential, as a node's `credentials.fluxApi` names it. */
	credential: { id: string; name: string };
}

export async function startSimulatedN8n(options: SimulatedN8nOptions): Promise<SimulatedN8n> {
	const started: Partial<SimulatedN8n> = {};
	try {
		started.sim = await startRelaySimulator({ apiKey: options.apiKey, ...options.sim });
		started.outDir = await fsp.mkdtemp(path.join(tmpdir(), `flux-e2e-${options.name}-out-`));
		started.storeDir = options.store ? await fsp.mkdtemp(path.join(tmpdir(), `flux-e2e-${options.name}-store-`)) : '';
		const env = { ...(options.store ? { COMFLY_STORE_DIR: started.storeDir } : {}), ...options.env };
		started.home = await createN8nHome({ packageDir: REPO_ROOT, outputDir: started.outDir, env, log: options.log });
		const data = { apiStyle: 'relay', baseUrl: started.sim.url, apiKey: options.apiKey };
		const [saved] = await importCredentials(started.home, [{ name: options.credentialName, type: 'fluxApi', data }]);
		started.credential = { id: String(saved.id), name: saved.name };
		return started as SimulatedN8n;
	} catch (error) {
		await stopSimulatedN8n(started);
		throw error;
	}
}

/** Removes the home, closes the simulator and deletes the folders (whatever of them was started). */
export async function stopSimulatedN8n(started: Partial<SimulatedN8n> | undefined): Promise<void> {
	await started?.home?.cleanup();
	await started?.sim?.close();
	for (const dir of [started?.outDir, started?.storeDir]) if (dir) await fsp.rm(dir, { recursive: true, force: true });
}
