/** The serial FLUX 3 Image node through n8n's real engine, against the relay simulator. */
import type { ICredentialDataDecryptedObject, ICredentialTestFunctions } from 'n8n-workflow';

import { connect, manualTrigger, runWorkflow } from '../engine/harness';
import { readPromptFromPng, type RelaySimulator } from '../../relay-sim';
import { solidPng } from '../../relay-sim/pngCodec';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { FluxImage } from '../../nodes/FluxImage/FluxImage.node';
import { fluxCredentials, imageNode, items, nodeTypes } from './setup';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 20 }, (started) => (sim = started));

async function runSerial(parameters: Record<string, unknown>, triggerItems = items({ prompt: 'a red bicycle' }), extra = {}, style: 'relay' | 'bfl' = 'relay') {
	return await runWorkflow({
		nodes: [manualTrigger('Trigger'), imageNode('FLUX', { prompt: '={{ $json.prompt }}', ...parameters }, extra)],
		connections: connect(['Trigger', 'FLUX']),
		nodeTypes,
		credentials: fluxCredentials(sim, style),
		triggerItems,
	});
}

describe.each(['relay', 'bfl'] as const)('FLUX 3 Image (%s style)', (style) => {
	it('turns every item into one image item, paired to its input', async () => {
		const result = await runSerial({}, items({ prompt: 'a red bicycle' }, { prompt: 'a blue kettle' }), {}, style);
		expect(result.status).toBe('success');
		const out = result.outputOf('FLUX');
		expect(out).toHaveLength(2);
		for (const [index, prompt] of ['a red bicycle', 'a blue kettle'].entries()) {
			expect(out[index].pairedItem).toEqual({ item: index });
			expect(out[index].json).toMatchObject({ status: 'success', attempts: 1 });
			expect(out[index].binary?.data).toMatchObject({ mimeType: 'image/png', fileExtension: 'png' });
			expect(out[index].binary?.data.fileName).toMatch(/\.png$/);
			expect(readPromptFromPng(await result.binaryBuffer(out[index]))).toBe(prompt);
			expect(sim.log.tasks.has(String(out[index].json.taskId))).toBe(true);
		}
		expect(sim.log.credentialOnDownload).toBe(false);
		expect(sim.log.submits.map((submit) => submit.style)).toEqual([style, style]);
	});
});

describe('FLUX 3 Image parameters', () => {
	it('sends the parameters as the API body, reference images in order, and never the seed', async () => {
		const png = solidPng(256, 256, [90, 140, 200]); // FLUX 3 Image takes references of at least 256×256
		const result = await runSerial(
			{
				resolution: '2k',
				aspectRatio: '16:9',
				grounding: false,
				safetyTolerance: 4,
				seed: 1234,
				referenceImages: { images: [{ source: 'photo' }, { source: 'https://example.com/style.png' }] },
			},
			[{ json: { prompt: 'relight this' }, binary: { photo: { data: png.toString('base64'), mimeType: 'image/png' } } }],
		);
		expect(result.status).toBe('success');
		expect(sim.log.submits[0].body).toEqual({
			prompt: 'relight this',
			images: [png.toString('base64'), 'https://example.com/style.png'],
			aspect_ratio: '16:9',
			resolution: '2k',
			grounding: false,
			safety_tolerance: 4,
		});
	});

	it('a non-image binary reference is an error naming the field and item', async () => {
		const result = await runSerial({ referenceImages: { images: [{ source: 'doc' }] } }, [
			{ json: { prompt: 'x' }, binary: { doc: { data: Buffer.from('%PDF-1.7 not an image').toString('base64'), mimeType: 'application/pdf' } } },
		]);
		expect(result.status).toBe('error');
		expect(result.errorOf('FLUX')?.message).toMatch(/\"Reference Images → Image 1\".*\[item 0\]$/);
		expect(sim.log.submits).toHaveLength(0);
	});

	it('more than ten reference images is an error', async () => {
		const images = Array.from({ length: 11 }, (_, i) => ({ source: `https://example.com/${i}.png` }));
		const result = await runSerial({ referenceImages: { images } });
		expect(result.errorOf('FLUX')?.message).toMatch(/at most 10 reference images/);
	});
});

describe('bad input is refused at the boundary, naming field and item, before anything is sent', () => {
	it.each([
		[{ timeoutMinutes: 'abc' }, /"Options → Timeout \(Minutes\)": must be a number.*\(got "abc"\) \[item 1\]$/],
		[{ timeoutMinutes: 0 }, /"Options → Timeout \(Minutes\)".*greater than 0.*\[item 1\]$/],
		[{ timeoutMinutes: 40_000 }, /"Options → Timeout \(Minutes\)".*at most 1440.*\[item 1\]$/],
		[{ maxDownloadMb: 0 }, /"Options → Max Image Size \(MB\)".*\[item 1\]$/],
	])('options %p', async (options, message) => {
		const result = await runSerial(
			// Item 1 only gets the bad value, through an expression (n8n does not enforce the UI limits there).
			{ options: Object.fromEntries(Object.entries(options).map(([key, value]) => [key, `={{ $json.bad ? ${JSON.stringify(value)} : 5 }}`])) },
			items({ prompt: 'fine' }, { prompt: 'bad', bad: true }),
		);
		expect(result.status).toBe('error');
		expect(result.errorOf('FLUX')?.message).toMatch(message);
		expect(sim.log.submits).toHaveLength(0); // every item is checked before any is sent: item 0 is not paid either
	});

	it.each(['__proto__', 'constructor'])('a binary property named %s is a clear error, not a TypeError', async (name) => {
		const result = await runSerial({ referenceImages: { images: [{ source: name }] } }, items({ prompt: 'x' }));
		expect(result.status).toBe('error');
		const error = result.errorOf('FLUX');
		expect(error?.name).toBe('NodeOperationError');
		expect(error?.message).toMatch(new RegExp(`"Reference Images → Image 1".*"${name}" cannot be a binary property name.*\\[item 0\\]$`));
		expect(sim.log.submits).toHaveLength(0);
	});

	it.each([
		['a user:password@ base URL', 'userinfo', /"Base URL".*user name or password/],
		['a base URL with a query string', 'query', /"Base URL".*query string/],
		['an API key with CR/LF', 'crlf', /"API Key".*not allowed in an HTTP header/],
	])('%s', async (_what, flaw, message) => {
		const credential = {
			apiStyle: 'relay',
			baseUrl: { userinfo: `http://user:pw-123456@${new URL(sim.url).host}`, query: `${sim.url}/?token=t-123456`, crlf: sim.url }[flaw] ?? sim.url,
			apiKey: flaw === 'crlf' ? `${sim.apiKey}\r\nX-Injected: 1` : sim.apiKey,
		};
		const result = await runWorkflow({
			nodes: [manualTrigger('Trigger'), imageNode('FLUX', { prompt: 'x' })],
			connections: connect(['Trigger', 'FLUX']),
			nodeTypes,
			credentials: { fluxApi: credential },
		});
		expect(result.status).toBe('error');
		expect(result.errorOf('FLUX')?.message).toMatch(message);
		expect(result.errorOf('FLUX')?.message).toMatch(/\[item 0\]$/);
		expect(JSON.stringify(result.data)).not.toContain(sim.apiKey);
		expect(JSON.stringify(result.data)).not.toMatch(/pw-123456|t-123456/);
		expect(sim.log.submits).toHaveLength(0);
	});
});

describe('FLUX 3 Image failures', () => {
	it('Skip Error returns a white 512×512 image with status skipped_error and the redacted reason', async () => {
		sim.setFault('refused', { on: 'poll', finalStatus: 'Request Moderated' });
		const result = await runSerial({ skipError: true }, items({ prompt: 'refused one' }));
		expect(result.status).toBe('success');
		const [item] = result.outputOf('FLUX');
		expect(item.json).toMatchObject({ status: 'skipped_error', errorKind: 'request_moderated' });
		const png = await result.binaryBuffer(item);
		expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([512, 512]);
		expect(JSON.stringify(result.data)).not.toContain(sim.apiKey);
	});

	it('without Skip Error the node fails with a node error naming the item', async () => {
		sim.setFault('refused', { on: 'poll', finalStatus: 'Request Moderated' });
		const result = await runSerial({}, items({ prompt: 'fine' }, { prompt: 'refused two' }));
		expect(result.status).toBe('error');
		const error = result.errorOf('FLUX');
		expect(error?.name).toBe('NodeOperationError');
		expect(error?.message).toMatch(/moderat/i);
		expect(JSON.stringify(error)).toMatch(/"itemIndex":1/);
		expect(JSON.stringify(result.data)).not.toContain(sim.apiKey);
	});

	it('continue on fail turns a failed item into an error item and goes on', async () => {
		sim.setFault('broken', { on: 'submit', status: 402, body: { detail: 'no credits left' } });
		const result = await runSerial({}, items({ prompt: 'broken' }, { prompt: 'fine' }), { onError: 'continueRegularOutput' });
		expect(result.status).toBe('success');
		const out = result.outputOf('FLUX');
		expect(out[0].json.error).toMatch(/credit/i);
		expect(out[0].pairedItem).toEqual({ item: 0 });
		expect(out[1].json.status).toBe('success');
	});

	it('a wrong API key says to check the credential and never shows the key', async () => {
		const result = await runWorkflow({
			nodes: [manualTrigger('Trigger'), imageNode('FLUX', { prompt: 'x' })],
			connections: connect(['Trigger', 'FLUX']),
			nodeTypes,
			credentials: { fluxApi: { apiStyle: 'relay', baseUrl: sim.url, apiKey: 'wrong-key-abcdef-123456' } },
		});
		expect(result.errorOf('FLUX')?.message).toMatch(/check the FLUX API credential/);
		expect(JSON.stringify(result.data)).not.toContain('wrong-key-abcdef-123456');
	});

	it('a non-http(s) base URL is refused before any request', async () => {
		const result = await runWorkflow({
			nodes: [manualTrigger('Trigger'), imageNode('FLUX', { prompt: 'x' })],
			connections: connect(['Trigger', 'FLUX']),
			nodeTypes,
			credentials: { fluxApi: { apiStyle: 'relay', baseUrl: 'ftp://127.0.0.1/', apiKey: sim.apiKey } },
		});
		expect(result.errorOf('FLUX')?.message).toMatch(/"Base URL".*http\(s\)/);
		expect(sim.log.submits).toHaveLength(0);
	});
});

describe('the FLUX API credential test', () => {
	const test = new FluxImage().methods!.credentialTest!.fluxApiTest;
	const context = {} as ICredentialTestFunctions;
	const credential = (data: ICredentialDataDecryptedObject) => ({ id: '1', name: 'FLUX', type: 'fluxApi', data });

	it.each(['relay', 'bfl'] as const)('%s: a good key is OK', async (apiStyle) => {
		await expect(test.call(context, credential({ apiStyle, baseUrl: sim.url, apiKey: sim.apiKey }))).resolves.toMatchObject({ status: 'OK' });
	});

	it('a wrong key is an error telling what to check, without the key', async () => {
		const result = await test.call(context, credential({ apiStyle: 'relay', baseUrl: sim.url, apiKey: 'bad-key-0987654321' }));
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/check the FLUX API credential/);
		expect(result.message).not.toContain('bad-key-0987654321');
	});

	it('a non-http(s) base URL is refused', async () => {
		const result = await test.call(context, credential({ apiStyle: 'bfl', baseUrl: 'file:///etc/passwd', apiKey: 'k' }));
		expect(result).toEqual({ status: 'Error', message: expect.stringMatching(/"Base URL".*http\(s\)/) });
	});
});
