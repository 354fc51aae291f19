# {{packageName}}

A Bosun pre-step plugin: it rejects a step when one of its
messages contains one of the configured words. The model never sees the rejected input, and the
session log says why (`agent/pre-step/rejected` with the word).

## Install

With the Bosun CLI, in your agent's project: it shows the package and asks, checks the options
against the plugin's schema, installs it and adds it to your config file, in the file's format:

```sh
bosun plugins add {{configName}} --option words=password,secret
```

Or install it and name it in the config yourself (below):

```sh
npm install {{packageName}}
```

## Use it

In a config file, name the plugin by its short name — Bosun finds the package
(`'{{configName}}'` → `{{packageName}}`):

```ts
// bosun.config.ts
import { defineConfig } from '@bosun/core/config'

export default defineConfig({
  plugins: [['{{configName}}', { words: ['password', 'api key'] }]],
})
```

The same in `bosun.config.json`:

```json
{ "plugins": [["{{configName}}", { "words": ["password", "api key"] }]] }
```

From code:

```ts
import { createAgent } from '@bosun/core'
import plugin from '{{packageName}}'

const agent = await createAgent({ model, plugins: [[plugin, { words: ['password'] }]] })
```

## Options

| option | type | default | |
|---|---|---|---|
| `words` | `string[]` (at least one, non-empty) | required | a step is rejected when one of its messages contains one of these |
| `ignoreCase` | `boolean` | `true` | match regardless of case |

Options are checked against the plugin's JSON Schema (`src/options.ts`) before anything runs,
each mistake named by its JSON path: `bosun plugins add` refuses a bad `--option` before it
installs (`OPTION_INVALID`), a config file holding one does not load (`CONFIG_INVALID`, which
`bosun config check` shows), and `createAgent` from code throws `PLUGIN_OPTIONS_INVALID`.

## What it logs

A rejected step writes `agent/pre-step/rejected` and `turn/end {kind: 'blocked'}`, both with
`by: '{{name}}'` and the metadata `{ reason: 'blocked-word', word, messageId }`. The rejected
input is not re-queued.

## Develop

```sh
npm install
npm test            # vitest: runs the plugin in a real agent on the scripted model (@bosun/testkit)
npm run typecheck   # sources and tests
npm run build       # dist/ with type declarations
```

The plugin is `src/index.ts` (`definePlugin`); its options type and JSON Schema sit side by side in
`src/options.ts`. `package.json` carries its manifest, so that `bosun plugins search`, `info` and
`add` can tell what it does without loading it:
`"bosun": { "kind": "plugin", "hooks": [...], "options": "./schema.json", "core": "{{coreRange}}" }` —
the hooks it taps, its options JSON Schema (written to `schema.json` by `npm run build` from
`src/options.ts`, which stays the one source), and the `@bosun/core` range it supports (Bosun
refuses to load it on a core outside that range, naming both versions). `npm test` checks the
manifest against the plugin (`expectManifest` from `@bosun/testkit`). Bosun's plugin authoring guide
(`docs/plugins.md` in the Bosun repository) covers the hooks, decisions, stages and state.

## Publish

The package name (`{{packageName}}`), the `bosun-plugin` keyword and the `bosun` manifest in
`package.json` are what make it findable; keep them. Releases use
[changesets](https://github.com/changesets/changesets): `.changeset/initial.md` is the first one.

```sh
npx changeset           # describe each user-visible change (patch / minor / major)
npx changeset version   # bump the version and write CHANGELOG.md
npm run release         # build and publish what is not on npm yet
```

In a monorepo that already uses changesets, move `.changeset/initial.md` to the root's
`.changeset/` folder and delete this package's `.changeset/`.
