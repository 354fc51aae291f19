// Build native addons (better-sqlite3) against the Node.js headers installed beside node, instead
// of downloading them from nodejs.org (no network beyond the package registries here, and none
// needed anywhere the headers are installed, as they are with Debian's and the official builds).
const { existsSync } = require('node:fs')
const { dirname, join } = require('node:path')

const prefix = dirname(dirname(process.execPath))

module.exports = {
  hooks: {
    updateConfig(config) {
      if (!process.env.npm_config_nodedir && existsSync(join(prefix, 'include', 'node', 'node.h'))) {
        config.extraEnv = { ...config.extraEnv, npm_config_nodedir: prefix }
      }
      return config
    },
  },
}
