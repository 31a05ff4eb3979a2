import { z } from 'zod';

import type { FluxCredentials } from '../flux';

const httpUrl = z
	.string({ required_error: 'is required', invalid_type_error: 'must be text' })
	.trim()
	.min(1, 'is required')
	.refine((value) => {
		try {
			const url = new URL(value);
			return url.protocol === 'http:' || url.protocol === 'https:';
		} catch {
			return false;
		}
	}, 'must be an http(s) URL such as https://api.bfl.ai');

const credentialsSchema = z.object({
	apiStyle: z.enum(['relay', 'bfl'], { errorMap: () => ({ message: 'must be relay or bfl' }) }).default('relay'),
	baseUrl: httpUrl,
	apiKey: z.string({ required_error: 'is required' }).trim().min(1, 'is required'),
});

/** Thrown for an unusable FLUX API credential; the message names the field, never the key. */
export class FluxCredentialsError extends Error {
	constructor(readonly field: string, message: string) {
		super(`FLUX API credential: '${field}' ${message}`);
		this.name = 'FluxCredentialsError';
	}
}

/** Validate the `fluxApi` credential's data. */
export function parseFluxCredentials(raw: unknown): FluxCredentials {
	const parsed = credentialsSchema.safeParse(raw ?? {});
	if (!parsed.success) {
		const issue = parsed.error.issues[0];
		throw new FluxCredentialsError(String(issue.path[0] ?? 'credential'), issue.message);
	}
	return parsed.data;
}
