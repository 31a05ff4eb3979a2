import { z } from 'zod';

import type { FluxCredentials } from '../flux';
import { FluxCredentialsError } from './invalidInput';

/** The base URL: http(s), with a host, and nothing that could carry a secret or be lost (user:pw@, ?query, #fragment). */
const baseUrlSchema = z
	.string({ required_error: 'is required', invalid_type_error: 'must be text' })
	.trim()
	.min(1, 'is required')
	.transform((value, ctx) => {
		let url: URL;
		try {
			url = new URL(value);
		} catch {
			url = new URL('invalid:');
		}
		if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
			ctx.addIssue({ code: 'custom', message: 'must be an http(s) URL such as https://api.bfl.ai' });
			return z.NEVER;
		}
		if (url.username || url.password) {
			ctx.addIssue({ code: 'custom', message: 'must not contain a user name or password (user:password@): put the key in the API Key field' });
			return z.NEVER;
		}
		if (url.search || url.hash || /[?#]/.test(value)) {
			ctx.addIssue({ code: 'custom', message: 'must not contain a query string (?…) or fragment (#…): give only the API root, e.g. https://api.bfl.ai' });
			return z.NEVER;
		}
		return url.toString().replace(/\/+$/, '');
	});

/** The key goes into an HTTP header: printable ASCII only, no spaces, line breaks or control characters. */
const apiKeySchema = z
	.string({ required_error: 'is required', invalid_type_error: 'must be text' })
	.trim()
	.min(1, 'is required')
	.regex(/^(?!bearer\s)/i, 'starts with "Bearer ": paste the key alone (the node sends it in the right header)')
	.regex(/^[\x21-\x7e]+$/, 'contains spaces, line breaks or other characters not allowed in an HTTP header');

/** The path the client adds itself, per style: a base URL that already ends in it would be sent to `/v1/v1/…`. */
const ADDED_PATH = { bfl: /\/v1$/i, relay: /\/bfl(\/v1)?$/i } as const;

const credentialsSchema = z
	.object({
		apiStyle: z.enum(['relay', 'bfl'], { errorMap: () => ({ message: 'must be relay or bfl' }) }).default('relay'),
		baseUrl: baseUrlSchema,
		apiKey: apiKeySchema,
	})
	.superRefine((creds, ctx) => {
		// Runs after a field issue too (zod keeps going): only a base URL that passed its own checks is looked at.
		if (typeof creds.baseUrl !== 'string' || !(creds.apiStyle in ADDED_PATH)) return;
		if (!ADDED_PATH[creds.apiStyle].test(new URL(creds.baseUrl).pathname)) return;
		const added = creds.apiStyle === 'bfl' ? '/v1/…' : '/bfl/v1/…';
		ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: `must be the API root without ${added.slice(0, -2)} (the node adds ${added}), e.g. https://api.bfl.ai` });
	});

/**
 * Validate the `fluxApi` credential's data once, fully, before anything is sent:
 * a normalised base URL (no trailing slash) and a trimmed key the client can use as is.
 * Throws FluxCredentialsError naming the field; the message never contains the key or URL.
 */
export function parseFluxCredentials(raw: unknown): FluxCredentials {
	const parsed = credentialsSchema.safeParse(raw ?? {});
	if (!parsed.success) {
		const issue = parsed.error.issues[0];
		throw new FluxCredentialsError(String(issue.path[0] ?? 'credential'), issue.message);
	}
	return parsed.data;
}

/**
 * parseFluxCredentials for one node run, which asks n8n for the credential once per item (a credential field may
 * hold an expression that n8n resolves per item, e.g. an API key from `$json`): data equal to the previous item's
 * is not validated again, its result (or error) is returned again.
 */
export function credentialsParserForRun(): (raw: unknown) => FluxCredentials {
	let last: { fields: unknown[]; result: { value: FluxCredentials } | { error: unknown } } | undefined;
	return (raw) => {
		const shape = raw === null || raw === undefined ? 'none' : Array.isArray(raw) ? 'array' : typeof raw;
		const data = (shape === 'object' ? raw : {}) as Record<string, unknown>;
		const fields = [shape, data.apiStyle, data.baseUrl, data.apiKey];
		if (!last || fields.some((field, i) => field !== last!.fields[i])) {
			let result: { value: FluxCredentials } | { error: unknown };
			try {
				result = { value: parseFluxCredentials(raw) };
			} catch (error) {
				result = { error };
			}
			last = { fields, result };
		}
		if ('error' in last.result) throw last.result.error;
		return last.result.value;
	};
}
