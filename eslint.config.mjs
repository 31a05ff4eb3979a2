// Lint: n8n's community-node rules on the package (nodes, credentials, src, package.json),
// plus typescript-eslint's recommended rules everywhere.
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import jsoncParser from 'jsonc-eslint-parser';
import tseslint from 'typescript-eslint';

const n8nRecommended = n8nCommunityNodesPlugin.configs.recommended;

export default [
	{ ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'out/**', '**/*.js', '**/*.mjs'] },
	...tseslint.configs.recommended.map((config) => ({ ...config, files: ['**/*.ts'] })),
	{
		files: ['**/*.ts'],
		rules: {
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
		},
	},
	{ files: ['package.json'], languageOptions: { parser: jsoncParser } },
	{
		files: ['credentials/**/*.ts', 'nodes/**/*.ts', 'src/**/*.ts', 'package.json'],
		plugins: n8nRecommended.plugins,
		rules: {
			...n8nRecommended.rules,
			// Deliberate: this package is for self-hosted n8n (the pool needs one long-lived
			// process), so it ships runtime dependencies (undici, p-limit, zod, ioredis, redis-semaphore) and is not for n8n Cloud.
			'@n8n/community-nodes/no-runtime-dependencies': 'off',
			'@n8n/community-nodes/no-restricted-imports': 'off',
			// Deliberate: the pool is configured from COMFLY_* environment variables, keeps its
			// singleton on globalThis, and the HTTP client needs timers for backoff and timeouts.
			'@n8n/community-nodes/no-restricted-globals': 'off',
			// Deliberate: n8n-core is an optional peer (the engine, for engine-level tests and type
			// parity); the rule allows only n8n-workflow.
			'@n8n/community-nodes/valid-peer-dependencies': 'off',
		},
	},
	{
		// Our descriptions live in *.description.ts (the twin factory copies the serial one), which
		// these two rules do not follow: icons and the credential test (testedBy: 'fluxApiTest') are
		// checked by test/nodes/descriptions.test.ts instead.
		files: ['nodes/**/*.node.ts', 'credentials/**/*.ts'],
		rules: {
			'@n8n/community-nodes/icon-validation': 'off',
			'@n8n/community-nodes/credential-test-required': 'off',
		},
	},
	{
		// src/flux is the FLUX HTTP client and knows nothing of n8n: it throws typed FluxError /
		// FluxParameterError, which the glue layer (src/fluxN8n) turns into NodeApiError /
		// NodeOperationError with the item index. One override instead of a disable header per file.
		files: ['src/flux/**/*.ts'],
		rules: { '@n8n/community-nodes/require-node-api-error': 'off' },
	},
	{
		files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts', 'relay-sim/**/*.ts'],
		rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
	},
];
