/**
 * Static checks of examples/*.json (fast, no n8n): node types and parameters this package really has,
 * connections, the credential reference, the one field the demo changes, and the SKUs Code node's
 * output. test/e2e runs the same files in a real n8n.
 */
import type { INodeTypeDescription } from 'n8n-workflow';

import { ConcurrentCollect } from '../../nodes/ConcurrentCollect/ConcurrentCollect.node';
import { FluxConcurrentSubmit } from '../../nodes/FluxConcurrentSubmit/FluxConcurrentSubmit.node';
import { FluxImage } from '../../nodes/FluxImage/FluxImage.node';
import {
	EXAMPLE_CREDENTIAL_NAME,
	EXAMPLES,
	NODE_TYPES,
	loadExample,
	serialVariant,
	withOutputFolder,
	type ExampleWorkflow,
} from '../../scripts/examples';
import { readPngText, verifyPng } from '../../relay-sim';

type Connections = Record<string, { main: Array<Array<{ node: string; type: string; index: number }>> }>;

const descriptions: Record<string, INodeTypeDescription> = {
	[NODE_TYPES.image]: new FluxImage().description,
	[NODE_TYPES.submit]: new FluxConcurrentSubmit().description,
	[NODE_TYPES.collect]: new ConcurrentCollect().description,
};

/**
 * The file a Write node's `fileName` expression names for one collector item: each `{{ … }}` evaluated as n8n
 * would, with the few values these examples read ($('Settings') → /out, $('SKUs').item → the SKU, $json, $binary.data).
 */
function writtenFileName(expression: string, slot: { status: string; fileName: string; fileExtension: string; sku: string }): string {
	const $ = (node: string) =>
		node === 'Settings' ? { first: () => ({ json: { outputFolder: '/out' } }) } : { item: { json: { sku: slot.sku } } };
	const $json = { status: slot.status };
	const $binary = { data: { fileName: slot.fileName, fileExtension: slot.fileExtension } };
	return expression.replace(/^=/, '').replace(/\{\{(.*?)\}\}/g, (_, code: string) =>
		// The example's own expression, evaluated here only.
		String(new Function('$', '$json', '$binary', `return (${code});`)($, $json, $binary)),
	);
}

function connectionsOf(workflow: ExampleWorkflow): Connections {
	return workflow.connections as Connections;
}

describe.each(EXAMPLES.map((e) => [e.file, e] as const))('examples/%s', (_file, info) => {
	const workflow = loadExample(info);
	const names = new Set(workflow.nodes.map((n) => n.name));

	it('uses only built-in nodes and this package’s nodes, with parameters those nodes have', () => {
		for (const node of workflow.nodes) {
			const ours = descriptions[node.type];
			if (!ours) {
				expect(node.type).toMatch(/^n8n-nodes-base\./);
				continue;
			}
			const known = new Set(ours.properties.map((p) => p.name));
			for (const parameter of Object.keys(node.parameters ?? {})) expect(known).toContain(parameter);
			expect(node.typeVersion).toBe(1);
		}
		expect(workflow.nodes.some((n) => n.type === NODE_TYPES.submit)).toBe(true);
		expect(workflow.nodes.some((n) => n.type === NODE_TYPES.collect)).toBe(true);
		expect(workflow.settings).toMatchObject({ executionOrder: 'v1' });
	});

	it('connects existing nodes only, and every collector input it declares', () => {
		const connections = connectionsOf(workflow);
		for (const [from, conn] of Object.entries(connections)) {
			expect(names).toContain(from);
			for (const c of conn.main.flat()) expect(names).toContain(c.node);
		}
		for (const collector of workflow.nodes.filter((n) => n.type === NODE_TYPES.collect)) {
			const inputs = new Set(
				Object.values(connections).flatMap((conn) => conn.main.flat().filter((c) => c.node === collector.name).map((c) => c.index)),
			);
			const declared = Number(collector.parameters?.numberInputs ?? 1);
			expect([...inputs].sort()).toEqual(Array.from({ length: declared }, (_, i) => i));
		}
	});

	it('references the FLUX API credential as n8n exports do, by a placeholder id and a name, with no secret', () => {
		const raw = JSON.stringify(workflow);
		expect(raw).not.toMatch(/apiKey|Bearer|x-key|sim-test-key/i);
		for (const node of workflow.nodes.filter((n) => n.type === NODE_TYPES.submit || n.type === NODE_TYPES.image)) {
			expect(node.credentials).toEqual({ fluxApi: { id: expect.any(String), name: EXAMPLE_CREDENTIAL_NAME } });
		}
	});

	it('writes below the Settings node’s outputFolder, the one value the demo changes', () => {
		const changed = withOutputFolder(workflow, '/tmp/flux-out');
		const settings = changed.nodes.find((n) => n.name === 'Settings');
		expect(JSON.stringify(settings?.parameters)).toContain('/tmp/flux-out');
		for (const write of workflow.nodes.filter((n) => n.type === 'n8n-nodes-base.readWriteFile')) {
			expect(write.parameters?.operation).toBe('write');
			expect(String(write.parameters?.fileName)).toMatch(/^=\{\{ \$\('Settings'\)\.first\(\)\.json\.outputFolder \}\}\//);
		}
		// Everything else is untouched.
		expect({ ...changed, nodes: changed.nodes.filter((n) => n.name !== 'Settings') }).toEqual({
			...workflow,
			nodes: workflow.nodes.filter((n) => n.name !== 'Settings'),
		});
	});

	it('never writes a failed or skipped slot’s stand-in image over a good image’s file name', () => {
		const write = workflow.nodes.find((n) => n.name === 'Write Images');
		const fileName = (status: string) =>
			writtenFileName(String(write?.parameters?.fileName), { status, fileName: 'slot-01.png', fileExtension: 'png', sku: 'SKU-1001' });
		const good = fileName('success');
		expect(good).toMatch(/^\/out\/(slot-01|SKU-1001)\.png$/);
		expect(fileName('failed')).toBe(good.replace(/\.png$/, '.failed.png'));
		expect(fileName('skipped_error')).toBe(good.replace(/\.png$/, '.skipped_error.png'));
	});

	it('has a serial variant: FLUX 3 Image instead of submit → collect, nothing else dropped but the Report branch', () => {
		const serial = serialVariant(workflow);
		expect(serial.nodes.some((n) => n.type === NODE_TYPES.submit || n.type === NODE_TYPES.collect)).toBe(false);
		const serialNames = new Set(serial.nodes.map((n) => n.name));
		const connections = connectionsOf(serial);
		for (const [from, conn] of Object.entries(connections)) {
			expect(serialNames).toContain(from);
			for (const c of conn.main.flat()) expect(serialNames).toContain(c.node);
		}
		for (const image of serial.nodes.filter((n) => n.type === NODE_TYPES.image)) {
			expect(connections[image.name].main[0].map((c) => c.node)).toEqual(['Write Images']);
		}
	});
});

describe('the SKU batch’s SKUs node (its Code, run here as n8n’s Code node would)', () => {
	const workflow = loadExample(EXAMPLES.find((e) => e.key === 'batch')!);
	const code = String(workflow.nodes.find((n) => n.name === 'SKUs')?.parameters?.jsCode);
	type Item = { json: { sku: string; prompt: string }; binary: { data: { data: string; mimeType: string } } };
	const items = new Function('Buffer', code)(Buffer) as Item[];

	it('emits 45 SKUs (two loop batches of 30 and 15) with distinct prompts', () => {
		expect(items).toHaveLength(45);
		expect(new Set(items.map((i) => i.json.sku)).size).toBe(45);
		expect(new Set(items.map((i) => i.json.prompt)).size).toBe(45);
		const loop = workflow.nodes.find((n) => n.name === 'Loop Over Items');
		expect(loop?.parameters?.batchSize).toBe(30);
	});

	it('gives each SKU a valid PNG reference photo that names its SKU', () => {
		for (const item of items) {
			expect(item.binary.data.mimeType).toBe('image/png');
			const png = Buffer.from(item.binary.data.data, 'base64');
			expect(verifyPng(png)).toMatchObject({ width: 256, height: 256 });
			expect(readPngText(png).sku).toBe(item.json.sku);
		}
	});
});
