/** Dependencies point one way: nodes/ assembles from src/, src/ never reaches back, no two src/ folders import each other; the twin knows no FLUX. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const root = join(__dirname, '..', '..');

function sourceFiles(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return sourceFiles(path);
		return path.endsWith('.ts') ? [path] : [];
	});
}

function importsOf(file: string): string[] {
	const text = readFileSync(file, 'utf8');
	return [...text.matchAll(/(?:from|import\()\s*'([^']+)'/g)].map((match) => match[1]);
}

it('no file under src/ imports from nodes/', () => {
	const offenders = sourceFiles(join(root, 'src')).flatMap((file) =>
		importsOf(file)
			.filter((spec) => /(^|\/)nodes\//.test(spec))
			.map((spec) => `${relative(root, file)} → ${spec}`),
	);
	expect(offenders).toEqual([]);
});

/** The folder under src/ (or top-level module) a file belongs to. */
function srcUnit(file: string): string {
	return relative(join(root, 'src'), file).split(/[\\/]/)[0].replace(/\.ts$/, '');
}

it('no folders under src/ import each other, directly or round a cycle', () => {
	const edges = new Map<string, Set<string>>();
	for (const file of sourceFiles(join(root, 'src'))) {
		for (const spec of importsOf(file).filter((s) => s.startsWith('.'))) {
			const from = srcUnit(file);
			const to = srcUnit(join(dirname(file), spec));
			if (from !== to) edges.set(from, (edges.get(from) ?? new Set()).add(to));
		}
	}
	const cycles: string[] = [];
	const done = new Set<string>();
	const visit = (unit: string, path: string[]): void => {
		if (path.includes(unit)) {
			cycles.push([...path.slice(path.indexOf(unit)), unit].join(' → '));
			return;
		}
		if (done.has(unit)) return;
		for (const next of edges.get(unit) ?? []) visit(next, [...path, unit]);
		done.add(unit);
	};
	for (const unit of edges.keys()) visit(unit, []);
	expect(cycles).toEqual([]);
});

it('the generic twin factory and n8n error helper know neither FLUX nor its glue', () => {
	const files = [...sourceFiles(join(root, 'src', 'twin')), ...sourceFiles(join(root, 'src', 'n8n'))];
	const offenders = files.flatMap((file) =>
		importsOf(file)
			.filter((spec) => /fluxN8n|\/flux(\/|$)/.test(spec))
			.map((spec) => `${relative(root, file)} → ${spec}`),
	);
	expect(offenders).toEqual([]);
});

it('no function under src/ is longer than 60 lines (one job each)', () => {
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- the compiler API, only to measure
	const ts = require('typescript') as typeof import('typescript');
	const offenders: string[] = [];
	for (const file of sourceFiles(join(root, 'src'))) {
		const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
		const visit = (node: import('typescript').Node): void => {
			if (ts.isFunctionLike(node) && 'body' in node && node.body) {
				const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
				const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
				if (last - first + 1 > 60) offenders.push(`${relative(root, file)}:${first + 1} (${last - first + 1} lines)`);
			}
			ts.forEachChild(node, visit);
		};
		visit(source);
	}
	expect(offenders).toEqual([]);
});
