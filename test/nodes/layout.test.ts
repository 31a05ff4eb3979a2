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
	return [...text.matchAll(/(?:from|import\(|^import)\s*'([^']+)'/gm)].map((match) => match[1]);
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

/**
 * The layers of docs/ARCHITECTURE.md as a table: each unit under src/ (a folder, or a top-level module) is in one
 * layer, and imports only from its own layer or those below it. Shared machinery knows neither FLUX nor n8n (it logs
 * through src/logger.ts, which n8n's logger is plugged into), the FLUX client knows no n8n, models may name n8n's
 * types only. A new folder must be placed here.
 */
const LAYERS: Record<string, 'shared' | 'flux' | 'models' | 'glue'> = {
	account: 'shared',
	accountLimit: 'shared',
	config: 'shared',
	coordination: 'shared',
	images: 'shared',
	logger: 'shared',
	parameters: 'shared',
	pool: 'shared',
	processWide: 'shared',
	redact: 'shared',
	redis: 'shared',
	spend: 'shared',
	store: 'shared',
	flux: 'flux',
	models: 'models',
	collect: 'glue',
	fluxN8n: 'glue',
	fluxVideoN8n: 'glue',
	n8n: 'glue',
	twin: 'glue',
};
const ORDER = ['shared', 'flux', 'models', 'glue'] as const;

it('every src/ unit imports only from its own layer or the layers below (the table above), and only the glue uses n8n at run time', () => {
	const offenders: string[] = [];
	for (const file of sourceFiles(join(root, 'src'))) {
		const from = srcUnit(file);
		const layer = LAYERS[from];
		if (!layer) {
			offenders.push(`${relative(root, file)}: unit "${from}" has no layer in the table`);
			continue;
		}
		const text = readFileSync(file, 'utf8');
		for (const spec of importsOf(file)) {
			if (spec.startsWith('.')) {
				const to = srcUnit(join(dirname(file), spec));
				if (to !== from && ORDER.indexOf(LAYERS[to]) > ORDER.indexOf(layer)) offenders.push(`${relative(root, file)} (${layer}) → ${spec} (${LAYERS[to] ?? 'no layer'})`);
			} else if (/^n8n-(workflow|core)$/.test(spec) && layer !== 'glue') {
				const typeOnly = new RegExp(`^import type [^;]*'${spec}'`, 'm').test(text);
				if (!(layer === 'models' && typeOnly)) offenders.push(`${relative(root, file)} (${layer}) → ${spec}`);
			}
		}
	}
	expect(offenders).toEqual([]);
});

it('every node loads src/n8n/log (n8n\'s logger becomes the package\'s log sink before any job runs)', () => {
	const resolve = (file: string, spec: string): string | undefined => {
		const base = join(dirname(file), spec);
		return [`${base}.ts`, join(base, 'index.ts')].find((candidate) => {
			try {
				return statSync(candidate).isFile();
			} catch {
				return false;
			}
		});
	};
	const loads = (start: string, target: string): boolean => {
		const seen = new Set<string>();
		const queue = [start];
		for (let file = queue.shift(); file; file = queue.shift()) {
			if (file === target) return true;
			if (seen.has(file)) continue;
			seen.add(file);
			for (const spec of importsOf(file).filter((s) => s.startsWith('.'))) {
				const next = resolve(file, spec);
				if (next) queue.push(next);
			}
		}
		return false;
	};
	const target = join(root, 'src', 'n8n', 'log.ts');
	const nodeFiles = sourceFiles(join(root, 'nodes')).filter((file) => file.endsWith('.node.ts'));
	expect(nodeFiles.length).toBeGreaterThanOrEqual(6);
	expect(nodeFiles.filter((file) => !loads(file, target)).map((file) => relative(root, file))).toEqual([]);
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
