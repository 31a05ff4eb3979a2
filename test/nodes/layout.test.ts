/** Dependencies point one way: nodes/ assembles from src/, src/ never reaches back; the twin knows no FLUX. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

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

it('the generic twin factory and n8n error helper know neither FLUX nor its glue', () => {
	const files = [...sourceFiles(join(root, 'src', 'twin')), ...sourceFiles(join(root, 'src', 'n8n'))];
	const offenders = files.flatMap((file) =>
		importsOf(file)
			.filter((spec) => /fluxN8n|\/flux(\/(?!redact$)|$)/.test(spec))
			.map((spec) => `${relative(root, file)} → ${spec}`),
	);
	expect(offenders).toEqual([]);
});
