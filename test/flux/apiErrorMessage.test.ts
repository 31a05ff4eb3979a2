/** apiErrorMessage: what a user reads of an API's refusal, FastAPI's 422 shape (BFL's) included. */
import { apiErrorMessage } from '../../src/flux/body';

it('reads a FastAPI 422: each issue as field: message, without "body" or pydantic\'s "Value error, " prefix', () => {
	const body = JSON.stringify({
		detail: [
			{ type: 'extra_forbidden', loc: ['body', 'seed'], msg: 'Extra inputs are not permitted', input: 1 },
			{ type: 'value_error', loc: ['body', 'images', 0], msg: 'Value error, image is 100×100 pixels, smaller than 256×256' },
			{ type: 'json_invalid', loc: ['body'], msg: 'JSON decode error' },
		],
	});
	expect(apiErrorMessage(body)).toBe('seed: Extra inputs are not permitted; images.0: image is 100×100 pixels, smaller than 256×256; JSON decode error');
});

it('reads message and error bodies, and keeps plain text', () => {
	expect(apiErrorMessage('{"message":"Insufficient credits"}')).toBe('Insufficient credits');
	expect(apiErrorMessage('{"error":{"message":"bad key"}}')).toBe('bad key');
	expect(apiErrorMessage('  upstream down  ')).toBe('upstream down');
});
