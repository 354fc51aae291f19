node_modules/
dist/
*.tsbuildinfo
coverage/
