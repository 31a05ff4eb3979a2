/** One account identity: the hash of an API key (unchanged: stored results stay reachable) and the account id. */
import { ACCOUNT_ID_LENGTH, accountId, apiKeyHash, normaliseBaseUrl } from '../../src/account';

const account = { apiStyle: 'relay', baseUrl: 'https://relay.example/', apiKey: 'sk-Secret-123' };

describe('apiKeyHash', () => {
	it('is the salted HMAC the result store has always used (16 hex), trimmed key, never the key', () => {
		expect(apiKeyHash('sk-Secret-123')).toMatch(/^[0-9a-f]{16}$/);
		expect(apiKeyHash(' sk-Secret-123 ')).toBe(apiKeyHash('sk-Secret-123'));
		expect(apiKeyHash('sk-Secret-123')).not.toBe(apiKeyHash('sk-Secret-124'));
	});
});

describe('accountId', () => {
	it('names style + normalised base URL + key: stable, 32 hex, never the key', () => {
		const id = accountId(account);
		expect(id).toMatch(new RegExp(`^[0-9a-f]{${ACCOUNT_ID_LENGTH}}$`));
		expect(accountId({ ...account, baseUrl: ' https://relay.example// ' })).toBe(id);
		expect(accountId({ ...account, apiKey: ` ${account.apiKey}` })).toBe(id);
		expect(id).not.toContain(account.apiKey);
		expect(id).not.toContain(apiKeyHash(account.apiKey));
	});

	it('another style, base URL or key is another account', () => {
		const id = accountId(account);
		expect(accountId({ ...account, apiStyle: 'bfl' })).not.toBe(id);
		expect(accountId({ ...account, baseUrl: 'https://relay.example/v2' })).not.toBe(id);
		expect(accountId({ ...account, apiKey: 'sk-Other' })).not.toBe(id);
	});

	it('asked again for the same credentials object, the same id; the object changed, the id of what it holds now', () => {
		const credentials = { ...account };
		const id = accountId(credentials);
		expect(accountId(credentials)).toBe(id);
		credentials.apiKey = 'sk-Other';
		expect(accountId(credentials)).toBe(accountId({ ...account, apiKey: 'sk-Other' }));
		expect(accountId(credentials)).not.toBe(id);
		credentials.apiKey = account.apiKey;
		credentials.baseUrl = `${account.baseUrl}/`;
		expect(accountId(credentials)).toBe(id); // the same account: base URLs compare normalised
	});

	it('compares base URLs as the job key does: trimmed, no trailing slashes', () => {
		expect(normaliseBaseUrl(' https://relay.example/// ')).toBe('https://relay.example');
	});
});
