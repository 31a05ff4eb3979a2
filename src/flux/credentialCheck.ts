import type { Dispatcher } from 'undici';
import type { FluxCredentials } from './endpoints';
import { settingsFor } from './generateImage';
import { drainBody } from './body';
import { JobRuntime } from './job';
import { redact } from './redact';
import { statusOutcome } from './statusTable';

/** Result of {@link checkFluxCredentials}. */
export interface CredentialTestResult {
	ok: boolean;
	message: string;
	statusCode?: number;
}

/**
 * The credential test: one cheap authenticated `GET …/credits`, not retried. Never throws;
 * the message is redacted.
 */
export async function checkFluxCredentials(
	creds: FluxCredentials,
	opts: { signal?: AbortSignal; timeoutMs?: number; dispatcher?: Dispatcher } = {},
): Promise<CredentialTestResult> {
	const timeoutMs = opts.timeoutMs ?? 15_000;
	let rt: JobRuntime;
	try {
		rt = new JobRuntime(settingsFor(creds, { signal: opts.signal, timeoutMs, requestTimeoutMs: timeoutMs, dispatcher: opts.dispatcher }));
	} catch (err) {
		return { ok: false, message: redact(err instanceof Error ? err.message : String(err), [String(creds?.apiKey ?? '')]) };
	}
	try {
		const headers = { ...rt.endpoints.authHeaders, accept: 'application/json' };
		const res = await rt.send('check', rt.endpoints.creditsUrl, { method: 'GET', headers });
		const status = res.statusCode;
		await drainBody(res.body);
		if (status >= 200 && status < 300) return { ok: true, message: 'Connection successful: the API key was accepted', statusCode: status };
		const outcome = statusOutcome('check', status);
		return { ok: false, message: outcome.retry ? outcome.detail : outcome.message, statusCode: status };
	} catch (err) {
		return { ok: false, message: `Could not reach the FLUX API: ${rt.toFluxError(err).message}` };
	} finally {
		rt.dispose();
	}
}
