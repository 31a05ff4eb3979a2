/**
 * What `npm pack` (and so `npm publish`) ships, and the package metadata n8n and npm read. The e2e test
 * test/e2e/packedInstall.test.ts installs the real tarball into a real n8n.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
	name: string;
	keywords: string[];
	files: string[];
	n8n: { strict: boolean; nodes: string[]; credentials: string[] };
	publishConfig?: { provenance?: boolean; access?: string };
	scripts: Record<string, string>;
};

/** The file list `npm pack` would put in the tarball (nothing is built or written). */
function packedFiles(): string[] {
	const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
		cwd: ROOT,
		encoding: 'utf8',
		env: { ...process.env, NODE_ENV: '' },
	});
	const [report] = JSON.parse(out.slice(out.indexOf('['))) as Array<{ files: Array<{ path: string }> }>;
	return report.files.map((file) => file.path).sort();
}

describe('npm pack', () => {
	const files = packedFiles();

	it('ships dist/ and the docs (README, LICENSE) only', () => {
		const outside = files.filter((file) => !file.startsWith('dist/') && !['README.md', 'LICENSE', 'package.json'].includes(file));
		expect(outside).toEqual([]);
		expect(files).toEqual(expect.arrayContaining(['README.md', 'LICENSE', 'package.json']));
		// No sources, tests or tooling, not even under dist (tsconfig.build.json compiles nodes, credentials, src).
		expect(files.filter((file) => /(^|\/)(test|scripts|bench|relay-sim)\//.test(file) || /\.test\./.test(file))).toEqual([]);
		expect(files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([]);
	});

	it('every node and credential n8n loads is in the tarball (once built)', () => {
		const entries = [...pkg.n8n.nodes, ...pkg.n8n.credentials];
		expect(entries.every((entry) => entry.startsWith('dist/') && entry.endsWith('.js'))).toBe(true);
		if (!existsSync(path.join(ROOT, 'dist'))) return; // `npm run build` first (.ci/run does)
		expect(files).toEqual(expect.arrayContaining(entries));
		// Each node's codex file (its categories in the nodes panel) and icon ship next to it, and the credential's icon.
		for (const node of pkg.n8n.nodes) {
			expect(files).toContain(node.replace(/\.node\.js$/, '.node.json'));
			expect(files.some((file) => file.startsWith(path.posix.dirname(node) + '/') && file.endsWith('.svg'))).toBe(true);
		}
		for (const credential of pkg.n8n.credentials) {
			expect(files.some((file) => file.startsWith(path.posix.dirname(credential) + '/') && file.endsWith('.svg'))).toBe(true);
		}
	});
});

describe('package metadata', () => {
	it('is found by n8n and npm as a community node package', () => {
		expect(pkg.name).toMatch(/^(@[a-z0-9-]+\/)?n8n-nodes-[a-z0-9-]+$/);
		expect(pkg.keywords).toContain('n8n-community-node-package');
	});

	it('n8n.strict is false because our eslint config changes n8n’s community-node rules', () => {
		// `n8n-node lint` in strict mode requires n8n's eslint config unchanged; ours turns rules off on purpose
		// (runtime dependencies, globals for the pool, n8n-core as an optional peer), each with a comment.
		const config = readFileSync(path.join(ROOT, 'eslint.config.mjs'), 'utf8');
		const turnedOff = [...config.matchAll(/'(@n8n\/community-nodes\/[a-z-]+)':\s*'off'/g)].map((m) => m[1]);
		expect(turnedOff.length).toBeGreaterThan(0);
		expect(pkg.n8n.strict).toBe(false);
	});

	it('publishes only with provenance, from the release workflow', () => {
		expect(pkg.publishConfig).toMatchObject({ provenance: true, access: 'public' });
		const workflow = readFileSync(path.join(ROOT, '.github/workflows/release.yml'), 'utf8');
		expect(workflow).toMatch(/id-token:\s*write/);
		expect(workflow).toMatch(/npm publish[^\n]*--provenance/);
		expect(workflow).toMatch(/npm ci/);
		// The release runs the same checks as CI before publishing.
		for (const step of ['npm run lint', 'npm run typecheck', 'npm run build', 'npm test', 'npm run test:integration']) expect(workflow).toContain(step);
		// The integration tests need a real redis-server (test/support/redisServer.ts), which GitHub's runner lacks.
		const install = workflow.search(/apt-get install[^\n]*redis-server/);
		expect(install).toBeGreaterThanOrEqual(0);
		expect(install).toBeLessThan(workflow.indexOf('npm run test:integration'));
	});
});
