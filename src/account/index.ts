/** One account identity: the hash of an API key and the id of an account (style + base URL + key). */
export { type AccountCredentials, ACCOUNT_ID_LENGTH, API_KEY_HASH_LENGTH, accountId, apiKeyHash, credentialsKeyHash, normaliseBaseUrl } from './accountId';
