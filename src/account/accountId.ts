/**
 * How an API account is identified, without its secret: `apiKeyHash(key)` is the one hash of an API key (salted
 * HMAC: matches no other tool's hash of that key), and `accountId` names the account (API style, normalised base
 * URL, apiKeyHash) for everything shared per account: the account-wide limit, the poll rate cap, and later claims
 * and the spend ledger. The result store's job key takes the same three fields itself (src/store/jobKey.ts).
 */
import { createHash, createHmac } from 'node:crypto';

/** Package-specific salt (HMAC key) of `apiKeyHash`; changing it makes every stored result unreachable. */
const ACCOUNT_HASH_DOMAIN = 'n8n-nodes-flux-concurrent/account/v1';
/** Version of the account id's layout (limit names in Redis change with it). */
const ACCOUNT_ID_DOMAIN = 'n8n-nodes-flux-concurrent/account-id/v1';
/** Length of `apiKeyHash` in hex characters (64 bits). */
export const API_KEY_HASH_LENGTH = 16;
/** Length of `accountId` in hex characters (128 bits). */
export const ACCOUNT_ID_LENGTH = 32;

/** What identifies an account: the credential's API style, base URL and API key. */
export interface AccountCredentials {
	apiStyle: string;
	baseUrl: string;
	apiKey: string;
}

/** Short, salted, one-way hex hash of an API key (HMAC-SHA-256, cut to 16 hex characters). */
export function apiKeyHash(apiKey: string): string {
	return createHmac('sha256', ACCOUNT_HASH_DOMAIN).update(apiKey.trim(), 'utf8').digest('hex').slice(0, API_KEY_HASH_LENGTH);
}

/** The base URL as accounts and job keys compare it: trimmed, without trailing slashes. */
export function normaliseBaseUrl(baseUrl: string): string {
	return baseUrl.trim().replace(/\/+$/, '');
}

/** Ids and key hashes by credentials object with the fields they were made of: a run's items and jobs share one parsed credential. */
const accounts = new WeakMap<AccountCredentials, { fields: [string, string, string]; id: string; keyHash: string }>();

function account(credentials: AccountCredentials): { id: string; keyHash: string } {
	const { apiStyle, baseUrl, apiKey } = credentials;
	const known = accounts.get(credentials);
	if (known && known.fields[0] === apiStyle && known.fields[1] === baseUrl && known.fields[2] === apiKey) return known;
	const keyHash = apiKeyHash(apiKey);
	const id = createHash('sha256').update(`${ACCOUNT_ID_DOMAIN}\n${JSON.stringify([apiStyle, normaliseBaseUrl(baseUrl), keyHash])}`, 'utf8').digest('hex').slice(0, ACCOUNT_ID_LENGTH);
	accounts.set(credentials, { fields: [apiStyle, baseUrl, apiKey], id, keyHash });
	return { id, keyHash };
}

/** 32 hex characters naming the account: the same credential gives the same id in every process; never holds the key. */
export const accountId = (credentials: AccountCredentials): string => account(credentials).id;

/** `apiKeyHash` of the credential's key (remembered with its accountId). */
export const credentialsKeyHash = (credentials: AccountCredentials): string => account(credentials).keyHash;
