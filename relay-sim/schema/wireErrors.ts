/**
 * A refused body as BFL (FastAPI / pydantic) answers it: HTTP 422 with
 * `{ "detail": [{ "type": "extra_forbidden", "loc": ["body", "seed"], "msg": "Extra inputs are not permitted", "input": 3 }] }`,
 * one entry per problem. Here the problems are zod's, rewritten in pydantic's types and words.
 */
import type { ZodIssue } from 'zod';

export interface ValidationDetail {
	type: string;
	loc: (string | number)[];
	msg: string;
	input?: unknown;
	ctx?: Record<string, unknown>;
}

const PY_TYPES: Readonly<Record<string, [string, string]>> = {
	string: ['string_type', 'a valid string'],
	number: ['float_type', 'a valid number'],
	integer: ['int_type', 'a valid integer'],
	boolean: ['bool_type', 'a valid boolean'],
	array: ['list_type', 'a valid list'],
	object: ['dict_type', 'a valid dictionary'],
};

/** The value at `path` in `body`, echoed as pydantic does, unless it is too long to echo. */
function inputAt(body: unknown, path: (string | number)[]): unknown {
	let value = body;
	for (const key of path) value = value !== null && typeof value === 'object' ? (value as Record<string | number, unknown>)[key] : undefined;
	const text = JSON.stringify(value);
	return text === undefined || text.length <= 200 ? value : undefined;
}

const listed = (values: readonly unknown[]) => {
	const quoted = values.map((v) => (typeof v === 'string' ? `'${v}'` : String(v)));
	return quoted.length < 2 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
};

function describe(issue: ZodIssue): Pick<ValidationDetail, 'type' | 'msg' | 'ctx'> {
	switch (issue.code) {
		case 'invalid_type': {
			if (issue.received === 'undefined') return { type: 'missing', msg: 'Field required' };
			const [type, what] = PY_TYPES[issue.expected] ?? ['value_error', `of type ${issue.expected}`];
			return { type, msg: `Input should be ${what}` };
		}
		case 'invalid_enum_value':
			return { type: 'literal_error', msg: `Input should be ${listed(issue.options)}`, ctx: { expected: listed(issue.options) } };
		case 'invalid_union_discriminator':
			return { type: 'union_tag_invalid', msg: `Input tag should be ${listed(issue.options.map(String))}`, ctx: { expected_tags: listed(issue.options.map(String)) } };
		case 'invalid_literal':
			return { type: 'literal_error', msg: `Input should be ${listed([issue.expected])}` };
		case 'too_small':
		case 'too_big': {
			const small = issue.code === 'too_small';
			const bound = Number(small ? issue.minimum : issue.maximum);
			if (issue.type === 'array') return { type: small ? 'too_short' : 'too_long', msg: `List should have at ${small ? 'least' : 'most'} ${bound} item${bound === 1 ? '' : 's'} after validation` };
			if (issue.type === 'string') return { type: small ? 'string_too_short' : 'string_too_long', msg: `String should have at ${small ? 'least' : 'most'} ${bound} character${bound === 1 ? '' : 's'}` };
			const [type, words] = small ? ['greater_than', 'greater than'] : ['less_than', 'less than'];
			return issue.inclusive ? { type: `${type}_equal`, msg: `Input should be ${words} or equal to ${bound}`, ctx: { [small ? 'ge' : 'le']: bound } } : { type, msg: `Input should be ${words} ${bound}` };
		}
		case 'not_multiple_of':
			return { type: 'multiple_of', msg: `Input should be a multiple of ${String(issue.multipleOf)}` };
		default:
			return { type: 'value_error', msg: `Value error, ${issue.message}` };
	}
}

/** pydantic's detail entries for zod's issues with `body` (the parsed JSON). */
export function validationDetails(issues: readonly ZodIssue[], body: unknown): ValidationDetail[] {
	return issues.flatMap((issue): ValidationDetail[] => {
		if (issue.code === 'unrecognized_keys') {
			return issue.keys.map((key) => ({ type: 'extra_forbidden', loc: ['body', ...issue.path, key], msg: 'Extra inputs are not permitted', input: inputAt(body, [...issue.path, key]) }));
		}
		const { type, msg, ctx } = describe(issue);
		const input = type === 'missing' ? undefined : inputAt(body, issue.path);
		return [{ type, loc: ['body', ...issue.path], msg, ...(input !== undefined ? { input } : {}), ...(ctx ? { ctx } : {}) }];
	});
}
