/**
 * Each node's codex file decides where n8n's nodes panel lists it. n8n's editor (2.0.3 and 2.41.1, the node
 * creator's view stacks) leaves a node out of the normal search, and out of the "+" of a main output, when its
 * codex `categories` contain "AI" and its `subcategories.AI` do not contain "Root Nodes": such a node is an AI
 * sub-node, shown only in the AI view. The real-browser test (test/e2e/nodesPanel.test.ts) proves the search;
 * this checks the rule on every codex file without a browser.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { n8n: { nodes: string[] } };
const codexFiles = pkg.n8n.nodes.map((built) => built.replace(/^dist\//, '').replace(/\.js$/, '.json'));

interface Codex {
	node: string;
	categories?: string[];
	subcategories?: Record<string, string[]>;
	alias?: string[];
}

const readCodex = (file: string) => JSON.parse(readFileSync(path.join(root, file), 'utf8')) as Codex;

/** n8n's filter for the normal search and the "+" of a main output (filterOutAiNodes in the editor). */
const shownInNormalSearch = (codex: Codex) =>
	!codex.categories?.includes('AI') || (codex.subcategories?.AI ?? []).includes('Root Nodes');

it('lists all six nodes', () => {
	expect(codexFiles).toHaveLength(6);
});

it.each(codexFiles)('%s puts its node in the normal search, not among the AI sub-nodes', (file) => {
	expect(shownInNormalSearch(readCodex(file))).toBe(true);
});

it.each(codexFiles)('%s has categories and the aliases people type (flux, concurrent)', (file) => {
	const codex = readCodex(file);
	expect(codex.categories?.length).toBeGreaterThan(0);
	expect(codex.alias).toEqual(expect.arrayContaining(['flux', 'concurrent']));
});

it('the collectors are found by "collect"', () => {
	for (const file of codexFiles.filter((f) => /Collect/.test(f))) expect(readCodex(file).alias).toContain('collect');
});
