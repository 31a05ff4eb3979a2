/* eslint-disable @n8n/community-nodes/require-node-api-error -- src/flux knows nothing of n8n: it throws typed FluxError / FluxParameterError, which the node layer turns into NodeApiError / NodeOperationError. */
import { getDomain, parse as parseDomain } from 'tldts';
import { FluxError } from './errors';

/** `relay` (Bearer, `/bfl/v1/...`) or `bfl` (x-key, `/v1/...`). */
export type ApiStyle = 'relay' | 'bfl';

/** The FLUX API credential (CONTRACTS.md). */
export interface FluxCredentials {
	apiStyle: ApiStyle;
	baseUrl: string;
	apiKey: string;
}

/** Everything needed to talk to one API: URLs and the auth header. */
export interface FluxEndpoints {
	style: ApiStyle;
	/** Normalised base URL without trailing slash. */
	baseUrl: string;
	base: URL;
	submitUrl: string;
	/** Cheap authenticated GET for the credential test. */
	creditsUrl: string;
	authHeaders: Record<string, string>;
	/** The API key (trimmed), for redaction. */
	apiKey: string;
}

/**
 * Validates and normalises a base URL: http(s) only, no credentials, query or
 * fragment; trailing slashes removed. Returns the normalised string.
 * Throws a {@link FluxError} of kind `bad_request` otherwise.
 */
export function normalizeBaseUrl(baseUrl: unknown): string {
	if (typeof baseUrl !== 'string' || baseUrl.trim() === '') {
		throw new FluxError('bad_request', 'The FLUX API credential has no Base URL: check the FLUX API credential');
	}
	let url: URL;
	try {
		url = new URL(baseUrl.trim());
	} catch {
		throw new FluxError('bad_request', 'The Base URL of the FLUX API credential is not a valid URL');
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		throw new FluxError(
			'bad_request',
			`The Base URL of the FLUX API credential must start with http:// or https:// (got "${url.protocol}")`,
		);
	}
	if (url.username || url.password || url.search || url.hash) {
		throw new FluxError(
			'bad_request',
			'The Base URL of the FLUX API credential must not contain a user name, password, query or fragment',
		);
	}
	return url.toString().replace(/\/+$/, '');
}

/**
 * Validates the credential and derives endpoints. Throws a {@link FluxError}
 * (`bad_request` for a bad base URL or style, `auth` for a missing/invalid key).
 */
export function resolveEndpoints(creds: FluxCredentials): FluxEndpoints {
	if (!creds || typeof creds !== 'object') {
		throw new FluxError('auth', 'No FLUX API credential: check the FLUX API credential');
	}
	const style = creds.apiStyle ?? 'relay';
	if (style !== 'relay' && style !== 'bfl') {
		throw new FluxError('bad_request', `Unknown API style "${String(style)}": use "relay" or "bfl"`);
	}
	const apiKey = typeof creds.apiKey === 'string' ? creds.apiKey.trim() : '';
	if (apiKey === '') {
		throw new FluxError('auth', 'The API key is empty: check the FLUX API credential');
	}
	if (!/^[\x21-\x7e]+$/.test(apiKey)) {
		throw new FluxError(
			'auth',
			'The API key contains spaces or characters not allowed in an HTTP header: check the FLUX API credential',
			{ secrets: [apiKey] },
		);
	}
	const baseUrl = normalizeBaseUrl(creds.baseUrl);
	const prefix = style === 'relay' ? `${baseUrl}/bfl/v1` : `${baseUrl}/v1`;
	return {
		style,
		baseUrl,
		base: new URL(baseUrl),
		submitUrl: `${prefix}/flux-3-image`,
		creditsUrl: `${prefix}/credits`,
		authHeaders: style === 'relay' ? { authorization: `Bearer ${apiKey}` } : { 'x-key': apiKey },
		apiKey,
	};
}

/** The status URL for a task in the given style's own route (relay always; BFL when no polling_url came back). */
export function defaultPollUrl(endpoints: FluxEndpoints, taskId: string): string {
	const prefix = endpoints.style === 'relay' ? `${endpoints.baseUrl}/bfl/v1` : `${endpoints.baseUrl}/v1`;
	return `${prefix}/get_result?id=${encodeURIComponent(taskId)}`;
}

function bareHostname(hostname: string): string {
	return hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
}

/**
 * The registrable domain of a host name (`api.bfl.ai` → `bfl.ai`), or
 * `undefined` for an IP address, `localhost` or a single-label name.
 */
export function registrableDomain(hostname: string): string | undefined {
	const host = bareHostname(hostname);
	const info = parseDomain(host, { allowPrivateDomains: true });
	if (info.isIp) return undefined;
	const domain = getDomain(host, { allowPrivateDomains: true });
	return domain ?? undefined;
}

function effectivePort(url: URL): string {
	return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/**
 * May the API key be sent to `candidate`, given the credential's base URL?
 * Yes for a host under the base host's registrable domain (`api.bfl.ai` →
 * any host under `bfl.ai`), never downgrading https to http; for an IP,
 * `localhost` or single-label base only the exact same host and port.
 */
export function isCredentialHostAllowed(base: URL, candidate: URL): boolean {
	if (candidate.protocol !== 'http:' && candidate.protocol !== 'https:') return false;
	if (base.protocol === 'https:' && candidate.protocol !== 'https:') return false;
	if (candidate.username || candidate.password) return false;
	const baseHost = bareHostname(base.hostname);
	const host = bareHostname(candidate.hostname);
	const domain = registrableDomain(baseHost);
	if (domain === undefined) {
		return host === baseHost && effectivePort(candidate) === effectivePort(base);
	}
	return host === domain || host.endsWith(`.${domain}`);
}

/**
 * Checks a BFL `polling_url` before any request is sent to it. Throws a
 * {@link FluxError} of kind `forbidden_host` when the key may not go there,
 * `invalid_response` when it is not an absolute http(s) URL.
 */
export function checkPollingUrl(endpoints: FluxEndpoints, pollingUrl: string, taskId?: string): URL {
	let url: URL;
	try {
		url = new URL(pollingUrl);
	} catch {
		throw new FluxError('invalid_response', 'The API returned a polling URL that is not a valid URL', {
			taskId,
			secrets: [endpoints.apiKey],
		});
	}
	if (!isCredentialHostAllowed(endpoints.base, url)) {
		const where = registrableDomain(endpoints.base.hostname) ?? bareHostname(endpoints.base.hostname);
		throw new FluxError(
			'forbidden_host',
			`The API returned a polling URL on host "${bareHostname(url.hostname)}" (${url.protocol.replace(':', '')}), outside "${where}": the API key is only sent to the API's own hosts, so the task was not polled`,
			{ taskId, secrets: [endpoints.apiKey] },
		);
	}
	return url;
}
