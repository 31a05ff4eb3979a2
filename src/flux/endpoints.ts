import { getDomain, parse as parseDomain } from 'tldts';
import { bareHostname } from './addresses';
import { FluxError } from './errors';

/** `relay` (Bearer, `/bfl/v1/...`) or `bfl` (x-key, `/v1/...`). */
export type ApiStyle = 'relay' | 'bfl';

/** The FLUX API credential. */
export interface FluxCredentials {
	apiStyle: ApiStyle;
	baseUrl: string;
	apiKey: string;
}

/** Everything needed to talk to one API: URLs and the auth header. */
export interface FluxEndpoints {
	style: ApiStyle;
	/** Where the API's routes are: `<base URL>/bfl/v1` (relay) or `<base URL>/v1` (bfl), without a trailing slash. */
	routes: string;
	base: URL;
	/** The model endpoint's submit URL (`…/v1/<endpoint>`). */
	submitUrl: string;
	/** Cheap authenticated GET for the credential test. */
	creditsUrl: string;
	authHeaders: Record<string, string>;
	/** The API key, for redaction. */
	apiKey: string;
}

/**
 * Derives the endpoints of a credential for the model `endpoint`: URLs (trailing slashes of the base URL dropped) and
 * the auth header. The credential is already valid: the glue layer checks it once, fully
 * (http(s) base URL without user, query or fragment; a key usable in a header).
 */
export function resolveEndpoints(creds: FluxCredentials, endpoint = ''): FluxEndpoints {
	const baseUrl = creds.baseUrl.trim().replace(/\/+$/, '');
	const prefix = creds.apiStyle === 'relay' ? `${baseUrl}/bfl/v1` : `${baseUrl}/v1`;
	return {
		style: creds.apiStyle,
		routes: prefix,
		base: new URL(baseUrl),
		submitUrl: `${prefix}/${endpoint}`,
		creditsUrl: `${prefix}/credits`,
		authHeaders: creds.apiStyle === 'relay' ? { authorization: `Bearer ${creds.apiKey}` } : { 'x-key': creds.apiKey },
		apiKey: creds.apiKey,
	};
}

/** The status URL for a task in the given style's own route (relay always; BFL when no polling_url came back). */
export function defaultPollUrl(endpoints: FluxEndpoints, taskId: string): string {
	return `${endpoints.routes}/get_result?id=${encodeURIComponent(taskId)}`;
}

/**
 * The registrable domain of a host name (`api.bfl.ai` → `bfl.ai`), or
 * `undefined` for an IP address, `localhost` or a single-label name.
 */
export function registrableDomain(hostname: string): string | undefined {
	const host = bareHostname(hostname);
	const info = parseDomain(host, { allowPrivateDomains: true });
	if (info.isIp) return undefined;
	return getDomain(host, { allowPrivateDomains: true }) ?? undefined;
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
