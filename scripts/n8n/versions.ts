/**
 * The support matrix: the n8n versions the end-to-end suite proves, each with the Node.js it runs on.
 * `.ci/run` runs the e2e suite once per entry; `FLUX_E2E_N8N=<version>` picks the one a run uses.
 * Moving the newest version is the one line marked NEWEST below.
 */
export type NodeRuntimeSpec =
	/** The Node.js running this process (the machine's), at least `min`. */
	| { kind: 'system'; min: string }
	/** An exact Node.js from the npm registry's `node` package, installed into the cache folder. */
	| { kind: 'npm'; version: string };

export interface N8nVersionSpec {
	/** The exact n8n version (npm). */
	n8n: string;
	node: NodeRuntimeSpec;
}

export const N8N_MATRIX: readonly N8nVersionSpec[] = [
	// The oldest we support: n8n 2.0.x runs on Node >= 20.19 (the machine's Node 20).
	{ n8n: '2.0.3', node: { kind: 'system', min: '20.19.0' } },
	// NEWEST that installs from the registry (2.41.3 does not: @n8n/agents@0.26.2 is missing); n8n >= 2.36 needs Node 24.
	{ n8n: '2.41.1', node: { kind: 'npm', version: '24.9.0' } },
];

/** The environment variable that selects the n8n version of a run (default: the oldest). */
export const N8N_VERSION_ENV = 'FLUX_E2E_N8N';

export const OLDEST_N8N = N8N_MATRIX[0];
export const NEWEST_N8N = N8N_MATRIX[N8N_MATRIX.length - 1];

/**
 * The matrix entry for `FLUX_E2E_N8N` (an exact version from the matrix, or `oldest` / `newest`);
 * the oldest when unset or blank. Throws naming the variable and the allowed values otherwise.
 */
export function selectedN8nVersion(env: NodeJS.ProcessEnv = process.env): N8nVersionSpec {
	const wanted = (env[N8N_VERSION_ENV] ?? '').trim();
	if (wanted === '' || wanted === 'oldest') return OLDEST_N8N;
	if (wanted === 'newest') return NEWEST_N8N;
	return n8nVersionSpec(wanted);
}

/** The matrix entry of an exact n8n version; throws naming the allowed values. */
export function n8nVersionSpec(version: string): N8nVersionSpec {
	const spec = N8N_MATRIX.find((entry) => entry.n8n === version);
	if (!spec) {
		const allowed = [...N8N_MATRIX.map((entry) => entry.n8n), 'oldest', 'newest'].join(', ');
		throw new Error(`${N8N_VERSION_ENV}=${version} is not in the support matrix (scripts/n8n/versions.ts); use one of: ${allowed}`);
	}
	return spec;
}

/** -1, 0, 1 comparing dotted numeric versions (`20.19.0` < `24.9.0`). */
export function compareVersions(a: string, b: string): number {
	const pa = a.split('.').map((x) => parseInt(x, 10));
	const pb = b.split('.').map((x) => parseInt(x, 10));
	for (let i = 0; i < 3; i++) {
		const d = (pa[i] ?? 0) - (pb[i] ?? 0);
		if (d !== 0) return Math.sign(d);
	}
	return 0;
}
