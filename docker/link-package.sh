#!/bin/sh
# Link the package baked into /opt/n8n-flux into n8n's community nodes folder, then start n8n as the
# official image does. Runtime dependencies resolve from the link's real path (/opt/n8n-flux/node_modules).
set -e
nodes="${N8N_USER_FOLDER:-/home/node}/.n8n/nodes"
mkdir -p "$nodes/node_modules"
[ -f "$nodes/package.json" ] || printf '{ "name": "installed-nodes", "private": true, "dependencies": {} }\n' > "$nodes/package.json"
ln -sfn /opt/n8n-flux/node_modules/n8n-nodes-flux-concurrent "$nodes/node_modules/n8n-nodes-flux-concurrent"
exec /docker-entrypoint.sh "$@"
