const path = require('path');
const { task, src, dest, parallel } = require('gulp');

// As in n8n's node starter: icons (and here the codex *.node.json files, which n8n
// reads beside each compiled *.node.js) are copied next to the compiled files.
function copyNodeAssets() {
	return src(path.resolve('nodes', '**', '*.{png,svg,node.json}'), { encoding: false }).pipe(
		dest(path.resolve('dist', 'nodes')),
	);
}

function copyCredentialAssets() {
	return src(path.resolve('credentials', '**', '*.{png,svg}'), { encoding: false }).pipe(
		dest(path.resolve('dist', 'credentials')),
	);
}

task('build:icons', parallel(copyNodeAssets, copyCredentialAssets));
