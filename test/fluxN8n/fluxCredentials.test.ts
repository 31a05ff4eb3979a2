import { credentialsParserForRun, parseFluxCredentials } from '../../src/fluxN8n/fluxCredentials';
import { FluxCredentialsError } from '../../src/fluxN8n/invalidInput';

const KEY = 'sk-test-0123456789abcdef';

function refusal(raw: unknown): FluxCredentialsError {
	try {
		parseFluxCredentials(raw);
	} catch (error) {
		expect(error).toBeInstanceOf(FluxCredentialsError);
		return error as FluxCredentialsError;
	}
	throw new Error('was accepted');
}

describe('parseFluxCredentials: the credential is checked once, fully', () => {
	it('normalises a good credential: style default, trailing slashes, surrounding whitespace', () => {
		expect(parseFluxCredentials({ baseUrl: ' https://api.bfl.ai/ ', apiKey: ` ${KEY}\n` })).toEqual({
			apiStyle: 'relay',
			baseUrl: 'https://api.bfl.ai',
			apiKey: KEY,
		});
		expect(parseFluxCredentials({ apiStyle: 'bfl', baseUrl: 'http://127.0.0.1:8080/relay//', apiKey: KEY }).baseUrl).toBe(
			'http://127.0.0.1:8080/relay',
		);
	});

	it.each([
		['https://user:secret-pw@relay.example', /user name or password/],
		['https://user@relay.example', /user name or password/],
		['https://relay.example/?token=abc', /query string/],
		['https://relay.example/?', /query string/],
		['https://relay.example/#top', /fragment/],
		['ftp://relay.example', /http\(s\) URL/],
		['not a url', /http\(s\) URL/],
		['', /is required/],
	])('refuses the base URL %s, naming the field without echoing it', (baseUrl, message) => {
		const error = refusal({ baseUrl, apiKey: KEY });
		expect(error.field).toBe('baseUrl');
		expect(error.message).toMatch(/^FLUX API credential: "Base URL" /); // as the credential form names it
		expect(error.message).toMatch(message);
		expect(error.message).not.toContain('secret-pw');
		expect(error.message).not.toContain('token=abc');
	});

	it.each([
		['CR/LF', `${KEY.slice(0, 8)}\r\n${KEY.slice(8)}`],
		['LF', `${KEY.slice(0, 8)}\n${KEY.slice(8)}`],
		['a control character', `${KEY.slice(0, 8)}\u0007${KEY.slice(8)}`],
		['a space', `${KEY.slice(0, 8)} ${KEY.slice(8)}`],
		['non-ASCII', `${KEY}é`],
	])('refuses an API key with %s, naming the field and never the key', (_what, apiKey) => {
		const error = refusal({ baseUrl: 'https://api.bfl.ai', apiKey });
		expect(error.field).toBe('apiKey');
		expect(error.message).toMatch(/not allowed in an HTTP header/);
		expect(error.message).not.toContain(KEY.slice(0, 8));
		expect(error.message).not.toContain(KEY.slice(8));
	});

	it('refuses a key pasted with its "Bearer " prefix, saying so, never echoing the key', () => {
		const error = refusal({ baseUrl: 'https://api.bfl.ai', apiKey: `Bearer ${KEY}` });
		expect(error.field).toBe('apiKey');
		expect(error.message).toMatch(/starts with "Bearer ": paste the key alone/);
		expect(error.message).not.toContain(KEY);
	});

	it.each([
		['bfl', 'https://api.bfl.ai/v1', /without \/v1 \(the node adds \/v1\/…\)/],
		['bfl', 'https://api.bfl.ai/v1/', /without \/v1/],
		['relay', 'https://relay.example/bfl/v1', /without \/bfl\/v1 \(the node adds \/bfl\/v1\/…\)/],
		['relay', 'https://relay.example/bfl', /without \/bfl\/v1/],
	])('refuses a %s base URL that already ends in the path the node adds (%s)', (apiStyle, baseUrl, message) => {
		const error = refusal({ apiStyle, baseUrl, apiKey: KEY });
		expect(error.field).toBe('baseUrl');
		expect(error.message).toMatch(message);
	});

	it('accepts /v1 inside a relay path and a relay root on a /v1 prefix of its own', () => {
		expect(parseFluxCredentials({ apiStyle: 'relay', baseUrl: 'https://relay.example/v1', apiKey: KEY }).baseUrl).toBe('https://relay.example/v1');
		expect(parseFluxCredentials({ apiStyle: 'bfl', baseUrl: 'https://gw.example/v1/bfl', apiKey: KEY }).baseUrl).toBe('https://gw.example/v1/bfl');
	});

	it('refuses a missing key or an unknown style', () => {
		expect(refusal({ baseUrl: 'https://api.bfl.ai', apiKey: '  ' }).field).toBe('apiKey');
		expect(refusal({ baseUrl: 'https://api.bfl.ai' }).field).toBe('apiKey');
		expect(refusal({ apiStyle: 'other', baseUrl: 'https://api.bfl.ai', apiKey: KEY }).field).toBe('apiStyle');
	});
});

describe('credentialsParserForRun: n8n hands the credential per item, it is checked again only when it changes', () => {
	const good = { apiStyle: 'relay', baseUrl: 'https://api.example.com/', apiKey: KEY };

	it('the same data gives the same parsed credential; other data is parsed anew', () => {
		const parse = credentialsParserForRun();
		const first = parse({ ...good });
		expect(parse({ ...good })).toBe(first);
		expect(first).toEqual(parseFluxCredentials(good));
		const other = parse({ ...good, apiKey: `${KEY}x` });
		expect(other.apiKey).toBe(`${KEY}x`);
		expect(parse({ ...good, apiStyle: 'bfl' })).toEqual(parseFluxCredentials({ ...good, apiStyle: 'bfl' }));
	});

	it('bad data fails every item with the error parseFluxCredentials gives, whatever the shape', () => {
		const parse = credentialsParserForRun();
		const message = (raw: unknown) => {
			try {
				parse(raw);
			} catch (error) {
				expect(error).toBeInstanceOf(FluxCredentialsError);
				return (error as Error).message;
			}
			return 'accepted';
		};
		const expected = (raw: unknown) => {
			try {
				parseFluxCredentials(raw);
			} catch (error) {
				return (error as Error).message;
			}
			return 'accepted';
		};
		for (const raw of [{ ...good, baseUrl: 'ftp://x' }, { ...good, baseUrl: 'ftp://x' }, 'text', {}, undefined, null, ['a'], good, { ...good, apiKey: ' ' }]) {
			expect(message(raw)).toBe(expected(raw));
		}
	});
});
