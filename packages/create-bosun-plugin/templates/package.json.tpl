{
  "name": "{{packageName}}",
  "version": "0.0.0",
  "description": "A Bosun pre-step plugin that rejects input containing a configured word.",
  "license": "MIT",
  "type": "module",
  "sideEffects": false,
  "keywords": ["bosun-plugin", "bosun"],
  "bosun": {
    "kind": "plugin",
    "hooks": ["agent/pre-step"],
    "options": "./schema.json",
    "core": "{{coreRange}}"
  },
  "engines": { "node": ">=20" },
  "files": ["dist", "schema.json"],
  "publishConfig": { "access": "public" },
  "exports": {
    ".": {
      "types": "./dist/index.d.ts",
      "import": "./dist/index.js"
    },
    "./package.json": "./package.json"
  },
  "scripts": {
    "build": "tsc -p tsconfig.build.json && node scripts/write-schema.mjs",
    "typecheck": "tsc -p tsconfig.json --noEmit",
    "test": "vitest run",
    "changeset": "changeset",
    "release": "npm run build && changeset publish",
    "prepublishOnly": "npm run build && npm run typecheck && npm test"
  },
  "peerDependencies": {
    "@bosun/core": "{{coreRange}}"
  },
  "devDependencies": {
    "@bosun/core": "{{coreRange}}",
    "@bosun/testkit": "{{testkitRange}}",
    "@changesets/cli": "{{changesetsRange}}",
    "@types/node": "{{typesNodeRange}}",
    "typescript": "{{typescriptRange}}",
    "vitest": "{{vitestRange}}"
  }
}
