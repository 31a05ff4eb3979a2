/**
 * Redaction of secrets from any text that can reach an output item, a report,
 * a thrown error or a log line (FLUX_API.md, "Redaction").
 */

/** Placeholder that replaces a secret value (API key, bearer token, x-key value). */
export const REDACTED = '[REDACTED]';
/** Placeholder that replaces a URL (signed URLs carry tokens). */
export const URL_PLACEHOLDER = '[URL]';
/** Default maximum length of a redacted text. */
export const MAX_REDACTED_LENGTH = 500;

/** Secrets shorter than this are not searched for literally (they would wipe ordinary words). */
const MIN_SECRET_LENGTH = 4;

// Any scheme://… run of non-space characters, plus data: URIs (which can be huge base64 blobs).
const URL_RE = /\b[a-z][a-z0-9+.-]{1,15}:\/\/[^\s"'<>`]+/gi;
const DATA_URI_RE = /\bdata:[a-z0-9.+/-]*(?:;[a-z0-9=.+-]*)*,[^\s"'<>`]*/gi;
const BEARER_RE = /\b(Bearer)\s+[^\s"',;]+/gi;
const XKEY_RE = /\b(x-key)(["']?\s*[:=]\s*["']?)[^\s"',;}]+/gi;
// Common credential-carrying query/JSON fields that may appear outside a URL.
const FIELD_RE =
	/\b(api[_-]?key|apikey|access[_-]?token|token|sig|signature|password|secret)(["']?\s*[:=]\s*["']?)(?!\[REDACTED\])[^\s"',;&}]+/gi;
const CONTROL_RE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/**
 * Returns `text` with the given secrets, `Bearer …` tokens, `x-key` values,
 * credential-looking fields and URLs replaced by placeholders, control
 * characters removed, and cut to `maxLength` characters (default 500).
 */
export function redact(text: string, secrets: readonly string[] = [], maxLength = MAX_REDACTED_LENGTH): string {
	let out = typeof text === 'string' ? text : String(text);
	const literals = new Set<string>();
	for (const secret of secrets) {
		if (typeof secret !== 'string') continue;
		for (const variant of [secret, secret.trim(), encodeURIComponent(secret.trim())]) {
			if (variant.length >= MIN_SECRET_LENGTH) literals.add(variant);
		}
	}
	// Longest first, so a secret that contains another is removed whole.
	for (const literal of [...literals].sort((a, b) => b.length - a.length)) {
		out = out.replaceAll(literal, REDACTED);
	}
	out = out
		.replace(DATA_URI_RE, URL_PLACEHOLDER)
		.replace(URL_RE, URL_PLACEHOLDER)
		.replace(BEARER_RE, `$1 ${REDACTED}`)
		.replace(XKEY_RE, `$1$2${REDACTED}`)
		.replace(FIELD_RE, `$1$2${REDACTED}`)
		.replace(CONTROL_RE, '');
	if (out.length > maxLength) {
		out = out.slice(0, Math.max(0, maxLength - 1)) + '…';
	}
	return out;
}
