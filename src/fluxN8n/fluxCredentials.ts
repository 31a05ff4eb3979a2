import { z } from 'zod';

import type { FluxCredentials } from '../flux';
import { FluxCredentialsError } from './invalidInput';

export { FluxCredentialsError };

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
	.regex(/^[\x21-\x7e]+$/, 'contains spaces, line breaks or other characters not allowed in an HTTP header');

const credentialsSchema = z.object({
	apiStyle: z.enum(['relay', 'bfl'], { errorMap: () => ({ message: 'must be relay or bfl' }) }).default('relay'),
	baseUrl: baseUrlSchema,
	apiKey: apiKeySchema,
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
