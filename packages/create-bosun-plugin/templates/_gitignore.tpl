node_modules/
dist/
*.tsbuildinfo
coverage/
schema.json
