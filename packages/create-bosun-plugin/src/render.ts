import { ScaffoldError, ScaffoldErrorCodes } from './errors.js'

const PLACEHOLDER = /\{\{\s*([A-Za-z]+)\s*\}\}/g

/**
 * Fills `{{placeholder}}`s from `values`. A placeholder without a value is a bug in the template,
 * reported with the template's path rather than written out half-rendered.
 */
export function render(template: string, values: Readonly<Record<string, string>>, file: string): string {
  return template.replace(PLACEHOLDER, (_, key: string) => {
    const value = values[key]
    if (value !== undefined) return value
    throw new ScaffoldError(ScaffoldErrorCodes.TEMPLATE_PLACEHOLDER, `Template ${file} uses {{${key}}}, which the scaffold does not fill.`, {
      file,
      placeholder: key,
    })
  })
}

/**
 * Where a template file is written: `.tpl` is dropped and a leading `_` of a path segment becomes
 * `.` (`_gitignore` → `.gitignore`, `_changeset/initial.md.tpl` → `.changeset/initial.md`). The
 * disguises keep the templates out of this package's own tools (vitest, tsc, changesets) and keep
 * npm from dropping `.gitignore` when create-bosun-plugin is published.
 */
export function outputPath(templatePath: string): string {
  return templatePath
    .replace(/\.tpl$/, '')
    .split('/')
    .map((segment) => (segment.startsWith('_') ? `.${segment.slice(1)}` : segment))
    .join('/')
}
